#include "cache/table_file_pool.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/posix_errors.h"

namespace shale {

namespace {

// Ends the message of a read that gave up waiting for a descriptor (IsDescriptorShortage).
constexpr char kShortageText[] = "the table file pool could not get a file descriptor";

}  // namespace

bool IsDescriptorShortage(const Status& s) {
  return !s.ok() && s.ToString().find(kShortageText) != std::string::npos;
}

// The RandomAccessFile a table reader gets: every call borrows the descriptor for its length.
// It holds its slot (Hold/Unhold) for its whole life, so the slot's descriptor outlives it
// only while other pooled files of the slot exist. Thread-safety: as RandomAccessFile
// (concurrent calls are fine); the object is immutable.
class TableFilePool::PooledFile final : public RandomAccessFile {
 public:
  PooledFile(std::shared_ptr<TableFilePool> pool, uint64_t id, const std::string& path)
      : pool_(std::move(pool)), slot_(pool_->Hold(id, path)) {}
  ~PooledFile() override { pool_->Unhold(slot_); }

  Status Read(uint64_t offset, size_t n, std::string_view* result,
              char* scratch) const override {
    *result = {};
    Status s = pool_->Acquire(slot_);
    if (!s.ok()) return s;
    s = slot_->file->Read(offset, n, result, scratch);
    // The bytes must outlive the descriptor, which may close once it is handed back.
    if (s.ok() && !result->empty() && result->data() != scratch) {
      std::memmove(scratch, result->data(), result->size());
      *result = std::string_view(scratch, result->size());
    }
    pool_->Release(slot_);
    return s;
  }

  Status Prefetch(uint64_t offset, size_t n) override {
    Status s = pool_->Acquire(slot_);
    if (!s.ok()) return s;
    s = slot_->file->Prefetch(offset, n);
    pool_->Release(slot_);
    return s;
  }

  Status GetSize(uint64_t* size) const override {
    Status s = pool_->Acquire(slot_);
    if (!s.ok()) return s;
    s = slot_->file->GetSize(size);
    pool_->Release(slot_);
    return s;
  }

 private:
  const std::shared_ptr<TableFilePool> pool_;
  // Alive while this file is (it counts in slot_->holders). slot_->file is read only between
  // Acquire and Release, while the pool keeps it open.
  Slot* const slot_;
};

TableFilePool::TableFilePool(FileSystem* fs, size_t capacity)
    : fs_(fs),
      configured_capacity_(std::max<size_t>(capacity, 1)),
      capacity_(configured_capacity_),
      ceiling_(configured_capacity_) {}

TableFilePool::~TableFilePool() = default;

std::unique_ptr<RandomAccessFile> TableFilePool::NewFile(std::shared_ptr<TableFilePool> pool,
                                                         uint64_t id, std::string path) {
  return std::make_unique<PooledFile>(std::move(pool), id, path);
}

TableFilePool::Slot* TableFilePool::Hold(uint64_t id, const std::string& path) {
  MutexLock lock(&mu_);
  if (auto it = by_id_.find(id); it != by_id_.end()) {
    it->second->holders++;
    return it->second;
  }
  auto owned = std::make_unique<Slot>();
  Slot* slot = owned.get();
  slot->id = id;
  slot->path = path;
  slot->holders = 1;
  slots_.emplace(slot, std::move(owned));
  by_id_[id] = slot;
  return slot;
}

void TableFilePool::Unhold(Slot* slot) {
  MutexLock lock(&mu_);
  if (--slot->holders > 0) return;
  if (auto it = by_id_.find(slot->id); it != by_id_.end() && it->second == slot) {
    by_id_.erase(it);
  }
  // No pooled file can read it any more: its descriptor goes (a read in progress holds a
  // pooled file, so users == 0 here; an open under way by Shutdown frees it when it ends).
  std::vector<std::unique_ptr<RandomAccessFile>> closing;
  if (slot->file != nullptr && slot->users == 0) closing.push_back(TakeFileLocked(slot));
  MaybeFreeLocked(slot);
  if (!closing.empty()) CloseUnlocked(&closing);
}

void TableFilePool::Retire(uint64_t id) {
  MutexLock lock(&mu_);
  by_id_.erase(id);  // the slot lives on for its holders
}

std::unique_ptr<RandomAccessFile> TableFilePool::TakeFileLocked(Slot* slot) {
  std::unique_ptr<RandomAccessFile> file = std::move(slot->file);
  if (draining_ == slot) draining_ = nullptr;
  lru_.erase(slot->lru_pos);
  open_--;
  slot->pinned = false;
  return file;
}

void TableFilePool::MaybeFreeLocked(Slot* slot) {
  if (slot->holders > 0 || slot->opening || slot->file != nullptr || slot->users > 0) return;
  slots_.erase(slot);  // destroys *slot
}

TableFilePool::Slot* TableFilePool::BusyVictimLocked() {
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    if ((*it)->users > 0 && !(*it)->pinned) return *it;
  }
  return nullptr;
}

TableFilePool::Slot* TableFilePool::IdleVictimLocked() {
  // Slots in use are at most the reads running now, and pinned ones exist only after
  // Shutdown, so this skips only a few.
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    if ((*it)->users == 0 && !(*it)->pinned) return *it;
  }
  return nullptr;
}

Status TableFilePool::OpenUnlocked(Slot* slot) {
  slot->opening = true;
  opening_++;
  peak_open_ = std::max(peak_open_, OccupancyLocked());
  std::unique_ptr<RandomAccessFile> file;
  mu_.Unlock();
  Status s = fs_->NewRandomAccessFile(slot->path, &file);  // path: immutable
  mu_.Lock();
  opening_--;
  slot->opening = false;
  if (waiters_ > 0) cv_.SignalAll();  // the open ended, either way
  if (!s.ok()) return s;
  slot->file = std::move(file);
  lru_.push_front(slot);
  slot->lru_pos = lru_.begin();
  open_++;
  if (capacity_ < configured_capacity_ && ++opens_since_change_ >= kGrowthOpens) {
    opens_since_change_ = 0;
    // Up to the ceiling left below the level where the limit was last hit. Past it only when
    // the limit has not been hit for headroom_hold_ AND a probe shows the room is there: a
    // quiet period alone proves nothing (at the ceiling the pool cannot hit the limit, however
    // long the outside use lasts), so the ceiling rises one step at a time, each time the
    // process can still open the step plus the reserve a cut keeps (see ProbeRoomLocked).
    if (ceiling_ < configured_capacity_ && capacity_ >= ceiling_ && !probing_ &&
        std::chrono::steady_clock::now() - last_limit_hit_ >= headroom_hold_) {
      const size_t step = std::max<size_t>(ceiling_ / 16, 1);
      if (ProbeRoomLocked(slot->path, step + 1 + (ceiling_ + step) / 16)) {
        ceiling_ = std::min(configured_capacity_, ceiling_ + step);
      }
    }
    if (capacity_ < ceiling_) {
      capacity_ = std::min(ceiling_, capacity_ + std::max<size_t>(capacity_ / 16, 1));
      if (waiters_ > 0) cv_.SignalAll();
    }
  }
  return s;
}

bool TableFilePool::ProbeRoomLocked(const std::string& path, size_t n) {
  probing_ = true;
  std::vector<std::unique_ptr<RandomAccessFile>> probes;
  mu_.Unlock();
  bool room = true;
  for (size_t i = 0; i < n && room; i++) {
    std::unique_ptr<RandomAccessFile> file;
    Status s = fs_->NewRandomAccessFile(path, &file);
    if (s.ok()) {
      probes.push_back(std::move(file));
    } else {
      room = false;
      s.PermitUncheckedError();
    }
  }
  probes.clear();  // closed without the lock
  mu_.Lock();
  probing_ = false;
  if (!room) last_limit_hit_ = std::chrono::steady_clock::now();  // the hold starts again
  return room;
}

Status TableFilePool::Acquire(Slot* slot) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline{};  // set at the first "too many open files"
  std::chrono::milliseconds pause(1);
  MutexLock lock(&mu_);
  RoomWaiter me;  // this read's place in room_queue_ while `queued`
  bool queued = false;
  std::list<RoomWaiter*>::iterator my_pos;
  auto leave_queue = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!queued) return;
    room_queue_.erase(my_pos);
    queued = false;
    if (waiters_ > 0) cv_.SignalAll();  // the next in line may take room now
  };
  auto wait = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    waiters_++;
    cv_.Wait(&mu_);
    waiters_--;
  };
  for (;;) {
    if (slot->file != nullptr) {
      // Open: share it, unless it is being drained for a read waiting for room and such a
      // read came before this one (then this one waits its turn, as for room).
      const bool read_waits_ahead =
          queued ? room_queue_.front() != &me : !room_queue_.empty();
      if (slot != draining_ || !read_waits_ahead) {
        leave_queue();
        slot->users++;
        lru_.splice(lru_.begin(), lru_, slot->lru_pos);
        return Status::OK();
      }
      if (!queued) {
        my_pos = room_queue_.insert(room_queue_.end(), &me);
        queued = true;
      }
      wait();
      continue;
    }
    if (slot->opening) {  // another thread is opening it: wait for that open to end
      wait();
      continue;
    }
    if (!shut_down_) {
      // Room for a new descriptor goes first come, first served.
      const bool my_turn = room_queue_.empty() || (queued && room_queue_.front() == &me);
      if (!my_turn || OccupancyLocked() >= capacity_) {
        if (my_turn) {
          if (Slot* victim = IdleVictimLocked()) {
            std::vector<std::unique_ptr<RandomAccessFile>> closing;
            closing.push_back(TakeFileLocked(victim));
            MaybeFreeLocked(victim);
            CloseUnlocked(&closing);
            continue;
          }
          // Every descriptor is in a read. Reads sharing one could keep it in use for ever
          // (each starts before the last ends): drain the least recently used one, so that
          // its reads end and Release closes it for this read.
          if (draining_ == nullptr && OccupancyLocked() >= capacity_) {
            draining_ = BusyVictimLocked();
          }
        }
        // Every descriptor is in a read (or being closed), or reads that came first wait: a
        // descriptor handed back while reads wait for room is closed for the first of them.
        if (!queued) {
          my_pos = room_queue_.insert(room_queue_.end(), &me);
          queued = true;
        }
        wait();
        continue;
      }
    }
    leave_queue();

    // Open it, holding its place in the pool (opening_).
    const uint64_t cuts_before = cuts_;
    Status s = OpenUnlocked(slot);
    if (s.ok()) {
      slot->users++;
      // After Shutdown a table still held keeps its descriptor (within the configured number).
      if (shut_down_ && open_ <= configured_capacity_) slot->pinned = true;
      return s;
    }
    if (!IsTooManyOpenFiles(s)) return s;

    // The process (or system) is out of descriptors.
    too_many_open_files_hits_++;
    last_limit_hit_ = Clock::now();
    if (deadline == Clock::time_point{}) deadline = last_limit_hit_ + max_descriptor_wait_;
    // The descriptors the pool has open evidently fit (opens under way do not count: they
    // may fail as well); keep one fewer, and 1/16 fewer again, as room for the DB's other
    // files. With none open, the limit says nothing about the pool's share: keep the
    // capacity. One cut per spike: an open that began before the last cut failed in the
    // spike that made it, so it does not cut again (several reads failing at once cut once).
    // The cut level is also the ceiling of the growth back until the limit has not been hit
    // for headroom_hold_, so the growth leaves the DB's other files their room.
    const size_t fits = open_ + closing_;
    if (cuts_ == cuts_before && fits > 1) {
      const size_t level =
          std::min(configured_capacity_, std::max<size_t>(fits - 1 - fits / 16, 1));
      capacity_ = std::min(capacity_, level);
      ceiling_ = level;
      cuts_++;
      opens_since_change_ = 0;
    }
    // Close idle descriptors down to room for this one, and at least one (a descriptor of
    // the process's for the retry). Other reads' opens under way are theirs to make room for.
    std::vector<std::unique_ptr<RandomAccessFile>> closing;
    while (open_ + closing_ >= capacity_ || closing.empty()) {
      Slot* victim = IdleVictimLocked();
      if (victim == nullptr) break;
      closing.push_back(TakeFileLocked(victim));
      MaybeFreeLocked(victim);
    }
    if (!closing.empty()) {
      CloseUnlocked(&closing);
      continue;  // a descriptor is free now: retry at once
    }
    if (waits_cancelled_) {
      // The DB is closing: no waiting for descriptors held outside the pool.
      return Status::IOError(s.message(), absl::StrCat(kShortageText,
                                                       ": the DB is closing, not waiting"));
    }
    if (Clock::now() >= deadline) {
      // The message ends with our words, so IsTooManyOpenFiles() does not match it again.
      return Status::IOError(s.message(), absl::StrCat(kShortageText, " within ",
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
  // Drained: closed below if the first read waiting for room still needs the room, else kept
  // (and shared again).
  if (draining_ == slot) draining_ = nullptr;
  bool close = false;
  if (!slot->pinned) {
    // After Shutdown only pinned descriptors stay; over capacity: it was lowered while the
    // descriptor was in use; reads waiting for room: this one's room goes to the first.
    close = shut_down_ || OccupancyLocked() > capacity_ ||
            (!room_queue_.empty() && OccupancyLocked() >= capacity_);
  }
  if (close) {
    std::vector<std::unique_ptr<RandomAccessFile>> closing;
    closing.push_back(TakeFileLocked(slot));  // the slot stays: the reader's file holds it
    CloseUnlocked(&closing);
  } else if (waiters_ > 0) {
    cv_.SignalAll();
  }
}

void TableFilePool::CancelWaits() {
  MutexLock lock(&mu_);
  waits_cancelled_ = true;
}

void TableFilePool::Shutdown() {
  std::vector<Slot*> to_open;
  MutexLock lock(&mu_);
  if (shut_down_) return;
  shut_down_ = true;
  draining_ = nullptr;                // nothing waits for room from now on
  if (waiters_ > 0) cv_.SignalAll();  // reads waiting for room stop waiting
  // Every slot has holders (Unhold closes the descriptor of one that has none).
  size_t pinned = 0;
  for (Slot* slot : lru_) {
    slot->pinned = true;
    pinned++;
  }
  for (const auto& [slot, owned] : slots_) {
    if (pinned >= configured_capacity_) break;
    if (slot->file != nullptr || slot->opening || slot->holders == 0) continue;
    slot->holders++;  // keeps it alive through the opens below
    to_open.push_back(slot);
    pinned++;
  }
  for (Slot* slot : to_open) {
    if (slot->file == nullptr && !slot->opening) {
      // An error is not fatal: a later read of the table opens it by path again.
      if (OpenUnlocked(slot).ok()) slot->pinned = true;
    }
    if (--slot->holders == 0) {
      if (auto it = by_id_.find(slot->id); it != by_id_.end() && it->second == slot) {
        by_id_.erase(it);
      }
      std::vector<std::unique_ptr<RandomAccessFile>> closing;
      if (slot->file != nullptr && slot->users == 0) closing.push_back(TakeFileLocked(slot));
      MaybeFreeLocked(slot);
      if (!closing.empty()) CloseUnlocked(&closing);
    }
  }
}

size_t TableFilePool::NumOpen() const {
  MutexLock lock(&mu_);
  return OccupancyLocked();
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

std::chrono::milliseconds TableFilePool::headroom_hold() const {
  MutexLock lock(&mu_);
  return headroom_hold_;
}

void TableFilePool::set_headroom_hold(std::chrono::milliseconds hold) {
  MutexLock lock(&mu_);
  headroom_hold_ = hold;
}

}  // namespace shale
