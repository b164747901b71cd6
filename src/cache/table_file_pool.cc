#include "cache/table_file_pool.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/posix_errors.h"

namespace shale {

// The RandomAccessFile a table reader gets: every call borrows the descriptor for its length.
// Thread-safety: as RandomAccessFile (concurrent calls are fine); the object is immutable.
class TableFilePool::PooledFile final : public RandomAccessFile {
 public:
  PooledFile(std::shared_ptr<TableFilePool> pool, uint64_t id, std::string path)
      : pool_(std::move(pool)), id_(id), path_(std::move(path)) {}

  Status Read(uint64_t offset, size_t n, std::string_view* result,
              char* scratch) const override {
    *result = {};
    Slot* slot = nullptr;
    Status s = pool_->Acquire(id_, path_, &slot);
    if (!s.ok()) return s;
    s = slot->file->Read(offset, n, result, scratch);
    // The bytes must outlive the descriptor, which may close once it is handed back.
    if (s.ok() && !result->empty() && result->data() != scratch) {
      std::memmove(scratch, result->data(), result->size());
      *result = std::string_view(scratch, result->size());
    }
    pool_->Release(slot);
    return s;
  }

  Status Prefetch(uint64_t offset, size_t n) override {
    Slot* slot = nullptr;
    Status s = pool_->Acquire(id_, path_, &slot);
    if (!s.ok()) return s;
    s = slot->file->Prefetch(offset, n);
    pool_->Release(slot);
    return s;
  }

  Status GetSize(uint64_t* size) const override {
    Slot* slot = nullptr;
    Status s = pool_->Acquire(id_, path_, &slot);
    if (!s.ok()) return s;
    s = slot->file->GetSize(size);
    pool_->Release(slot);
    return s;
  }

 private:
  const std::shared_ptr<TableFilePool> pool_;
  const uint64_t id_;
  const std::string path_;
};

TableFilePool::TableFilePool(FileSystem* fs, size_t capacity)
    : fs_(fs),
      configured_capacity_(std::max<size_t>(capacity, 1)),
      capacity_(configured_capacity_) {}

TableFilePool::~TableFilePool() = default;

std::unique_ptr<RandomAccessFile> TableFilePool::NewFile(std::shared_ptr<TableFilePool> pool,
                                                         uint64_t id, std::string path) {
  return std::make_unique<PooledFile>(std::move(pool), id, std::move(path));
}

std::unique_ptr<RandomAccessFile> TableFilePool::EraseLocked(Slot* slot) {
  std::unique_ptr<RandomAccessFile> file = std::move(slot->file);
  lru_.erase(slot->lru_pos);
  slots_.erase(slot->id);  // destroys *slot
  return file;
}

TableFilePool::Slot* TableFilePool::IdleVictimLocked() {
  // Slots in use are at most the reads running now, so this skips only a few.
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    if ((*it)->users == 0) return *it;
  }
  return nullptr;
}

Status TableFilePool::Acquire(uint64_t id, const std::string& path, Slot** out) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline{};  // set at the first "too many open files"
  std::chrono::milliseconds pause(1);
  MutexLock lock(&mu_);
  for (;;) {
    if (auto it = slots_.find(id); it != slots_.end()) {
      Slot* slot = it->second.get();
      if (slot->file != nullptr) {  // open: share it
        slot->users++;
        lru_.splice(lru_.begin(), lru_, slot->lru_pos);
        *out = slot;
        return Status::OK();
      }
      // Another thread is opening it: wait for that open to end, then look again.
      waiters_++;
      cv_.Wait(&mu_);
      waiters_--;
      continue;
    }
    if (slots_.size() + closing_ >= capacity_) {
      if (Slot* victim = IdleVictimLocked()) {
        std::vector<std::unique_ptr<RandomAccessFile>> closing;
        closing.push_back(EraseLocked(victim));
        CloseUnlocked(&closing);
        continue;
      }
      // Every descriptor is in a read (or being closed): one is handed back (closed) as soon
      // as its pread (close) ends.
      waiters_++;
      cv_.Wait(&mu_);
      waiters_--;
      continue;
    }

    // Open it, holding its place in the pool (users = 1: the open is this read's).
    auto owned = std::make_unique<Slot>();
    Slot* slot = owned.get();
    slot->id = id;
    slot->users = 1;
    lru_.push_front(slot);
    slot->lru_pos = lru_.begin();
    slots_.emplace(id, std::move(owned));
    peak_open_ = std::max(peak_open_, slots_.size() + closing_);
    std::unique_ptr<RandomAccessFile> file;
    mu_.Unlock();
    Status s = fs_->NewRandomAccessFile(path, &file);
    mu_.Lock();
    if (waiters_ > 0) cv_.SignalAll();  // the open ended, either way
    if (s.ok()) {
      slot->file = std::move(file);
      *out = slot;
      return Status::OK();
    }
    const bool doomed = slot->doomed;
    EraseLocked(slot).reset();  // nothing was opened
    if (!IsTooManyOpenFiles(s) || doomed) return s;

    // The process (or system) is out of descriptors.
    too_many_open_files_hits_++;
    if (deadline == Clock::time_point{}) deadline = Clock::now() + max_descriptor_wait_;
    // The descriptors the pool held evidently fit; keep one fewer, and 1/16 fewer again, as
    // room for the DB's other files. With none held, the limit says nothing about the pool's
    // share: keep the capacity.
    const size_t fits = slots_.size() + closing_;
    if (fits > 1) capacity_ = std::min(capacity_, std::max<size_t>(fits - 1 - fits / 16, 1));
    // Close idle descriptors down to room for this one, and at least one.
    std::vector<std::unique_ptr<RandomAccessFile>> closing;
    while (slots_.size() + closing_ >= capacity_ || closing.empty()) {
      Slot* victim = IdleVictimLocked();
      if (victim == nullptr) break;
      closing.push_back(EraseLocked(victim));
    }
    if (!closing.empty()) {
      CloseUnlocked(&closing);
      continue;  // a descriptor is free now: retry at once
    }
    if (Clock::now() >= deadline) {
      // The message ends with our words, so IsTooManyOpenFiles() does not match it again.
      return Status::IOError(
          s.message(), absl::StrCat("the table file pool could not get a file descriptor within ",
                                    max_descriptor_wait_.count(),
                                    " ms (no idle descriptor left to close)"));
    }
    mu_.Unlock();
    std::this_thread::sleep_for(pause);
    mu_.Lock();
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

void TableFilePool::CloseUnlocked(std::vector<std::unique_ptr<RandomAccessFile>>* files) {
  const size_t n = files->size();
  closing_ += n;
  mu_.Unlock();
  files->clear();  // closes the descriptors outside the lock
  mu_.Lock();
  closing_ -= n;
  if (waiters_ > 0) cv_.SignalAll();
}

void TableFilePool::Release(Slot* slot) {
  MutexLock lock(&mu_);
  if (--slot->users > 0) return;
  // Over capacity: the capacity was lowered while it was in use.
  if (slot->doomed || slots_.size() + closing_ > capacity_) {
    std::vector<std::unique_ptr<RandomAccessFile>> closing;
    closing.push_back(EraseLocked(slot));
    CloseUnlocked(&closing);
  } else if (waiters_ > 0) {
    cv_.SignalAll();
  }
}

void TableFilePool::Close(uint64_t id) {
  MutexLock lock(&mu_);
  auto it = slots_.find(id);
  if (it == slots_.end()) return;
  Slot* slot = it->second.get();
  if (slot->users > 0) {
    slot->doomed = true;  // closed by the Release of its last read
    return;
  }
  std::vector<std::unique_ptr<RandomAccessFile>> closing;
  closing.push_back(EraseLocked(slot));
  CloseUnlocked(&closing);
}

size_t TableFilePool::NumOpen() const {
  MutexLock lock(&mu_);
  return slots_.size() + closing_;
}

size_t TableFilePool::capacity() const {
  MutexLock lock(&mu_);
  return capacity_;
}

uint64_t TableFilePool::TooManyOpenFilesHits() const {
  MutexLock lock(&mu_);
  return too_many_open_files_hits_;
}

size_t TableFilePool::PeakOpen() const {
  MutexLock lock(&mu_);
  return peak_open_;
}

std::chrono::milliseconds TableFilePool::max_descriptor_wait() const {
  MutexLock lock(&mu_);
  return max_descriptor_wait_;
}

void TableFilePool::set_max_descriptor_wait(std::chrono::milliseconds wait) {
  MutexLock lock(&mu_);
  max_descriptor_wait_ = wait;
}

}  // namespace shale
