// See expected_state.h.
#include "expected_state.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace shale::stress {
namespace {

constexpr char kMagic[8] = {'S', 'H', 'S', 'T', 'R', 'E', 'S', 'S'};
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kHeaderSize = 64;
constexpr size_t kSlotWords = 4;  // acked (word, hash: one 64-bit field), pending, max_gen
enum SlotField : size_t { kAcked = 0, kPending = 2, kMaxGen = 3 };
static_assert(kHeaderSize % 8 == 0 && kSlotWords % 2 == 0, "acked must be 8-byte aligned");

// The header: magic, version, max_key (per family), column families (0: a file from before
// families, one family); the rest is zero.
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t max_key;
  uint32_t column_families;
};

Status Errno(const std::string& path, const char* what) {
  return Status::IOError(path + ": " + what + ": " + std::strerror(errno));
}

uint32_t Load(const uint32_t* p) {
  return std::atomic_ref<uint32_t>(*const_cast<uint32_t*>(p)).load(std::memory_order_acquire);
}
void Store(uint32_t* p, uint32_t v) {
  std::atomic_ref<uint32_t>(*p).store(v, std::memory_order_release);
}
// The acked field: 8-byte aligned (the header and the slots are multiples of 8 bytes).
KeyState LoadState(const uint32_t* p) {
  uint64_t* field = reinterpret_cast<uint64_t*>(const_cast<uint32_t*>(p));
  const uint64_t v = std::atomic_ref<uint64_t>(*field).load(std::memory_order_acquire);
  return {static_cast<GenWord>(v), static_cast<uint32_t>(v >> 32)};
}
void StoreState(uint32_t* p, const KeyState& s) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(p))
      .store(uint64_t{s.word} | uint64_t{s.hash} << 32, std::memory_order_release);
}

// Writes a fresh header into an empty file of the right size (made by ftruncate: zeroes).
Status WriteHeader(int fd, const std::string& path, uint32_t max_key, uint32_t families) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kFormatVersion;
  h.max_key = max_key;
  h.column_families = families;
  if (pwrite(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h))) {
    return Errno(path, "write header");
  }
  return Status::OK();
}

// A file of the right size whose header is still zeroes: a process was killed between
// ftruncate and writing the header, before any slot was used. It is written again.
bool HeaderIsZero(int fd, size_t file_size, size_t expected_size) {
  char buf[sizeof(Header)];
  if (file_size != expected_size ||
      pread(fd, buf, sizeof(buf), 0) != static_cast<ssize_t>(sizeof(buf))) {
    return false;
  }
  for (char c : buf) {
    if (c != 0) return false;
  }
  return true;
}

Status CheckHeader(int fd, const std::string& path, uint32_t max_key, uint32_t families,
                   size_t file_size) {
  Header h{};
  if (file_size < kHeaderSize || pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h)) ||
      std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) {
    return Status::InvalidArgument(path + ": not a shale_stress expected-state file");
  }
  if (h.version != kFormatVersion) {
    const std::string why = h.version == 1 ? " (format 1 predates merge operands)" : "";
    return Status::InvalidArgument(path + ": expected-state format " +
                                   std::to_string(h.version) + why + ", this shale_stress reads " +
                                   "format " + std::to_string(kFormatVersion) +
                                   ": wipe the DB and its expected directory together");
  }
  if (h.max_key != max_key) {
    return Status::InvalidArgument(path + ": made for --max_key=" + std::to_string(h.max_key) +
                                   ", not " + std::to_string(max_key));
  }
  const uint32_t file_families = h.column_families == 0 ? 1 : h.column_families;
  if (file_families != families) {
    return Status::InvalidArgument(path + ": made for --column_families=" +
                                   std::to_string(file_families) + ", not " +
                                   std::to_string(families));
  }
  if (file_size != kHeaderSize + size_t{max_key} * families * kSlotWords * 4) {
    return Status::InvalidArgument(path + ": wrong size " + std::to_string(file_size));
  }
  return Status::OK();
}

}  // namespace

Status ExpectedState::Open(const std::string& path, uint32_t max_key, uint32_t column_families,
                           std::unique_ptr<ExpectedState>* result) {
  if (column_families == 0) {
    return Status::InvalidArgument(path + ": column_families must be at least 1");
  }
  const uint32_t slots = max_key * column_families;
  const size_t size = kHeaderSize + size_t{slots} * kSlotWords * 4;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Errno(path, "open");
  struct stat st;
  Status s = fstat(fd, &st) == 0 ? Status::OK() : Errno(path, "stat");
  if (s.ok() && (st.st_size == 0 || HeaderIsZero(fd, static_cast<size_t>(st.st_size), size))) {
    s = ftruncate(fd, static_cast<off_t>(size)) == 0
            ? WriteHeader(fd, path, max_key, column_families)
            : Errno(path, "truncate");
  } else if (s.ok()) {
    s = CheckHeader(fd, path, max_key, column_families, static_cast<size_t>(st.st_size));
  }
  void* map = MAP_FAILED;
  if (s.ok()) {
    map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) s = Errno(path, "mmap");
  }
  if (!s.ok()) {
    ::close(fd);
    return s;
  }
  result->reset(new ExpectedState(fd, map, size, slots));
  return Status::OK();
}

ExpectedState::ExpectedState(int fd, void* map, size_t map_size, uint32_t max_key)
    : fd_(fd), map_(map), map_size_(map_size), max_key_(max_key) {}

ExpectedState::~ExpectedState() {
  munmap(map_, map_size_);
  ::close(fd_);
}

uint32_t* ExpectedState::Slot(uint32_t k) const {
  return reinterpret_cast<uint32_t*>(static_cast<char*>(map_) + kHeaderSize) + k * kSlotWords;
}

KeyState ExpectedState::Acked(uint32_t k) const { return LoadState(Slot(k) + kAcked); }

GenWord ExpectedState::Pending(uint32_t k) const {
  const GenWord pending = Load(Slot(k) + kPending);
  return pending == Acked(k).word ? 0 : pending;
}

uint32_t ExpectedState::MaxGen(uint32_t k) const { return Load(Slot(k) + kMaxGen); }

GenWord ExpectedState::NextWord(uint32_t k, WriteKind kind) const {
  uint32_t gen = MaxGen(k);
  // A slot written by a process killed between stores may have max_gen behind a word.
  if (Gen(Acked(k).word) > gen) gen = Gen(Acked(k).word);
  if (Gen(Load(Slot(k) + kPending)) > gen) gen = Gen(Load(Slot(k) + kPending));
  return MakeWord(gen + 1, kind);
}

void ExpectedState::MarkPending(uint32_t k, GenWord word) {
  uint32_t* slot = Slot(k);
  if (Gen(word) > Load(slot + kMaxGen)) Store(slot + kMaxGen, Gen(word));
  Store(slot + kPending, word);
}

void ExpectedState::Commit(uint32_t k) {
  uint32_t* slot = Slot(k);
  const GenWord pending = Pending(k);
  if (pending != 0) StoreState(slot + kAcked, Apply(Acked(k), pending));
  Store(slot + kPending, 0);
}

void ExpectedState::Reset(uint32_t k, const KeyState& state) {
  uint32_t* slot = Slot(k);
  StoreState(slot + kAcked, state);
  Store(slot + kPending, 0);
}

std::vector<KeyState> ExpectedState::AllowedAfterCrash(uint32_t k) const {
  const KeyState acked = Acked(k);
  std::vector<KeyState> allowed = {acked};
  const GenWord pending = Pending(k);
  if (pending != 0) allowed.push_back(Apply(acked, pending));
  return allowed;
}

uint32_t ExpectedState::CountPending() const {
  uint32_t n = 0;
  for (uint32_t k = 0; k < max_key_; ++k) n += Pending(k) != 0 ? 1 : 0;
  return n;
}

uint32_t ExpectedState::CountPending(WriteKind kind) const {
  uint32_t n = 0;
  for (uint32_t k = 0; k < max_key_; ++k) {
    const GenWord pending = Pending(k);
    n += pending != 0 && Kind(pending) == kind ? 1 : 0;
  }
  return n;
}

}  // namespace shale::stress
