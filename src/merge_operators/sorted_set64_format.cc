#include "merge_operators/sorted_set64_format.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <functional>
#include <limits>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/coding.h"

namespace shale {
namespace {

constexpr size_t kIndexEntrySize = 16;       // fixed64 first_id, fixed32 offset, fixed32 count
constexpr uint64_t kMaxDataSize = 0xffffffffu;  // offsets are fixed32
constexpr uint64_t kMaxId = std::numeric_limits<uint64_t>::max();

// ---------------------------------------------------------------- Block boundaries

// The hash that picks boundary ids: splitmix64's output for state `id` (see the format).
inline uint64_t BoundaryHash(uint64_t id) {
  uint64_t z = id + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The canonical cutting rule for one index_interval: which ids start blocks and how many ids
// a block may hold.
class BlockCutter {
 public:
  explicit BlockCutter(int index_interval)
      : threshold_(kMaxId / static_cast<uint64_t>(index_interval)),
        max_block_(kSortedSet64MaxBlockFactor * static_cast<uint32_t>(index_interval)) {}

  bool IsBoundary(uint64_t id) const { return BoundaryHash(id) < threshold_; }
  uint32_t max_block() const { return max_block_; }

 private:
  uint64_t threshold_;
  uint32_t max_block_;
};

// ---------------------------------------------------------------- Encoding

// One encoded block: its first id, id count and the size of its data.
struct EncodedBlock {
  uint64_t first_id;
  uint32_t count;
  uint64_t size;
};

// Cuts ascending ids into blocks by the canonical rule and encodes them: blocks() and data().
// Several runs of ids may go through one encoder: StartRun() makes the next id start a block
// whatever it is (as the first id of a value, or the first id of a segment, does).
class BlockEncoder {
 public:
  explicit BlockEncoder(int index_interval) : cutter_(index_interval) {}

  void StartRun() { CloseBlock(); }

  // REQUIRES: id > the previous id of this run.
  void Add(uint64_t id) {
    if (open_count_ == 0 || open_count_ == cutter_.max_block() || cutter_.IsBoundary(id)) {
      CloseBlock();
      open_first_ = id;
      open_start_ = size_;
      open_count_ = 1;
    } else {
      if (buffer_.size() - size_ < kMaxVarint64Length) {
        buffer_.resize(std::max<size_t>(4096, 2 * buffer_.size()));
      }
      char* p = buffer_.data() + size_;
      uint64_t v = id - prev_;
      while (v >= 0x80) {
        *p++ = static_cast<char>(v | 0x80);
        v >>= 7;
      }
      *p++ = static_cast<char>(v);
      size_ = static_cast<size_t>(p - buffer_.data());
      open_count_++;
    }
    prev_ = id;
  }

  // Closes the open block. Call before reading blocks() and data().
  void Finish() { CloseBlock(); }

  const std::vector<EncodedBlock>& blocks() const { return blocks_; }
  std::string_view data() const { return {buffer_.data(), size_}; }

 private:
  void CloseBlock() {
    if (open_count_ == 0) return;
    blocks_.push_back({open_first_, open_count_, size_ - open_start_});
    open_count_ = 0;
  }

  BlockCutter cutter_;
  std::vector<EncodedBlock> blocks_;
  // The data is buffer_[0, size_); the rest of buffer_ is room to grow.
  std::string buffer_;
  size_t size_ = 0;
  // The block being filled: open_count_ ids from open_first_, data from open_start_.
  uint64_t open_first_ = 0;
  uint64_t open_start_ = 0;
  uint32_t open_count_ = 0;
  uint64_t prev_ = 0;
};

void PutValueHeader(int index_interval, uint64_t count, uint64_t num_blocks, std::string* out) {
  out->push_back(kSortedSet64ValueTag);
  PutVarint32(out, static_cast<uint32_t>(index_interval));
  PutVarint64(out, count);
  PutVarint64(out, num_blocks);
}

char* EncodeIndexEntry(char* p, uint64_t first_id, uint64_t offset, uint32_t count) {
  EncodeFixed64(p, first_id);
  EncodeFixed32(p + 8, static_cast<uint32_t>(offset));
  EncodeFixed32(p + 12, count);
  return p + kIndexEntrySize;
}

Status TooLarge(uint64_t data_size) {
  return Status::InvalidArgument(
      absl::StrCat("sortedset64: ", data_size, " bytes of block data, the format's limit is ",
                   kMaxDataSize));
}

// ---------------------------------------------------------------- Decoding

// Decodes the ids of one block, starting at `first` with `count` ids from the bytes
// [p, limit), calling sink(id) for each in order. Returns nullptr, or what is wrong.
template <typename Sink>
const char* ScanBlock(uint64_t first, uint32_t count, const char* p, const char* limit,
                      uint64_t* last, Sink&& sink) {
  uint64_t id = first;
  sink(id);
  for (uint32_t i = 1; i < count; i++) {
    uint64_t delta;
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    if (p < limit && u[0] < 0x80) {  // the common one- and two-byte differences inline
      delta = u[0];
      p += 1;
    } else if (limit - p >= 2 && u[1] < 0x80) {
      delta = (u[0] & 0x7fu) | (uint64_t{u[1]} << 7);
      p += 2;
    } else if ((p = GetVarint64Ptr(p, limit, &delta)) == nullptr) {
      return "a varint runs past the block or 64 bits";
    }
    if (delta == 0) return "ids out of order";
    if (delta > kMaxId - id) return "an id overflows 64 bits";
    id += delta;
    sink(id);
  }
  if (p != limit) return "bytes left after its last id";
  *last = id;
  return nullptr;
}

// Reads a value: its header at Open() (O(1)), its index entries and blocks on demand. Nothing
// is trusted before it is checked: CheckIndex() checks all index entries, CheckEntry() one.
class ValueReader {
 public:
  [[nodiscard]] Status Open(std::string_view value);
  [[nodiscard]] Status CheckIndex() const;
  [[nodiscard]] Status CheckEntry(uint64_t b) const;

  int index_interval() const { return index_interval_; }
  uint64_t count() const { return count_; }
  uint64_t num_blocks() const { return num_blocks_; }
  std::string_view data() const { return data_; }
  const BlockCutter& cutter() const { return cutter_; }

  // Index entry b's bytes, and its fields.
  const char* entry(uint64_t b) const { return index_ + b * kIndexEntrySize; }
  uint64_t first_id(uint64_t b) const { return DecodeFixed64(entry(b)); }
  uint64_t offset(uint64_t b) const { return DecodeFixed32(entry(b) + 8); }
  uint32_t block_count(uint64_t b) const { return DecodeFixed32(entry(b) + 12); }
  // Where block b's data starts; b == num_blocks() gives the end of the data.
  uint64_t data_start(uint64_t b) const { return b < num_blocks_ ? offset(b) : data_.size(); }
  // Where block b's data ends.
  uint64_t end(uint64_t b) const { return data_start(b + 1); }

  // The last block at or after `lo` whose first id is <= id; `lo` when there is none.
  // REQUIRES: lo < num_blocks().
  uint64_t FindBlock(uint64_t id, uint64_t lo) const;

  // Calls sink(id) for each id of block b, validating it. REQUIRES: CheckEntry(b) passed.
  template <typename Sink>
  [[nodiscard]] Status ScanBlockIds(uint64_t b, Sink&& sink) const {
    const char* base = data_.data();
    uint64_t last = 0;
    const char* problem = ScanBlock(first_id(b), block_count(b), base + offset(b),
                                    base + end(b), &last, sink);
    if (problem == nullptr && b + 1 < num_blocks_ && last >= first_id(b + 1)) {
      problem = "its ids reach into the next block";
    }
    return problem == nullptr ? Status::OK() : BlockCorrupt(b, problem);
  }

  // Appends block b's ids to *ids. REQUIRES: CheckEntry(b) passed.
  [[nodiscard]] Status AppendBlock(uint64_t b, std::vector<uint64_t>* ids) const {
    size_t n = ids->size();
    ids->resize(n + block_count(b));
    uint64_t* out = ids->data() + n;
    return ScanBlockIds(b, [&out](uint64_t id) { *out++ = id; });
  }

 private:
  Status Corrupt(std::string_view what) const {
    return Status::Corruption("sortedset64 value", what);
  }
  Status BlockCorrupt(uint64_t b, std::string_view what) const {
    return Corrupt(absl::StrCat("block ", b, " of ", num_blocks_, ": ", ToAbsl(what)));
  }

  int index_interval_ = kSortedSet64DefaultIndexInterval;
  BlockCutter cutter_{kSortedSet64DefaultIndexInterval};
  uint64_t count_ = 0;
  uint64_t num_blocks_ = 0;
  const char* index_ = nullptr;
  std::string_view data_;
};

Status ValueReader::Open(std::string_view value) {
  if (value.empty()) return Corrupt("empty");
  if (value[0] != kSortedSet64ValueTag) {
    return Corrupt(value[0] == kSortedSet64OperandTag
                       ? "format byte 0x02 is an operand's, not a value's"
                       : absl::StrCat("unknown format byte ",
                                      static_cast<unsigned char>(value[0])));
  }
  value.remove_prefix(1);
  uint32_t interval;
  if (!GetVarint32(&value, &interval) || !GetVarint64(&value, &count_) ||
      !GetVarint64(&value, &num_blocks_)) {
    return Corrupt("truncated header");
  }
  if (!ValidSortedSet64IndexInterval(interval)) {
    return Corrupt(absl::StrCat("index_interval ", interval, " outside [",
                                kSortedSet64MinIndexInterval, ", ",
                                kSortedSet64MaxIndexInterval, "]"));
  }
  index_interval_ = static_cast<int>(interval);
  cutter_ = BlockCutter(index_interval_);
  if ((count_ == 0) != (num_blocks_ == 0) || num_blocks_ > count_ ||
      (count_ > 0 && (count_ - 1) / cutter_.max_block() >= num_blocks_)) {
    return Corrupt(absl::StrCat("count ", count_, " does not fit ", num_blocks_, " blocks"));
  }
  if (num_blocks_ > value.size() / kIndexEntrySize) {
    return Corrupt(absl::StrCat("index of ", num_blocks_, " blocks truncated to ",
                                value.size(), " bytes"));
  }
  index_ = value.data();
  data_ = value.substr(num_blocks_ * kIndexEntrySize);
  if (data_.size() > kMaxDataSize) return Corrupt("more than 4 GiB of block data");
  return Status::OK();
}

Status ValueReader::CheckEntry(uint64_t b) const {
  const uint64_t n = block_count(b);
  if (n == 0 || n > cutter_.max_block()) {
    return BlockCorrupt(b, absl::StrCat("count ", n, " outside [1, ", cutter_.max_block(), "]"));
  }
  const uint64_t start = offset(b);
  const uint64_t limit = end(b);
  if ((b == 0 && start != 0) || start > limit || limit > data_.size()) {
    return BlockCorrupt(b, absl::StrCat("bad offsets [", start, ", ", limit, ") in ",
                                        data_.size(), " bytes of data"));
  }
  if (limit - start < n - 1 || limit - start > (n - 1) * kMaxVarint64Length) {
    return BlockCorrupt(b, absl::StrCat(limit - start, " bytes cannot hold ", n - 1, " ids"));
  }
  if (first_id(b) > kMaxId - (n - 1)) return BlockCorrupt(b, "ids overflow 64 bits");
  if (b + 1 < num_blocks_) {
    if (first_id(b + 1) <= first_id(b)) return BlockCorrupt(b + 1, "first ids out of order");
    if (first_id(b + 1) - first_id(b) < n) {
      return BlockCorrupt(b, "its ids reach into the next block");
    }
  }
  return Status::OK();
}

Status ValueReader::CheckIndex() const {
  // A fast pass makes CheckEntry's checks without branches (a patch of a large value runs it
  // over thousands of entries); when one fails, CheckEntry finds and words the problem.
  const uint64_t max_block = cutter_.max_block();
  bool bad = num_blocks_ > 0 && offset(0) != 0;
  uint64_t total = 0;
  // Block b's limit is the next entry's offset, the data's end for the last block. n == 0
  // makes n - 1 wrap and fail the first test. start <= limit for every block and the last
  // limit == data size keep every limit within the data.
  auto check = [&](uint64_t first, uint64_t start, uint64_t n, uint64_t limit) {
    bad |= (n - 1 >= max_block) | (start > limit) | (limit - start < n - 1) |
           (limit - start > (n - 1) * kMaxVarint64Length) | (first > kMaxId - (n - 1));
    total += n;
  };
  for (uint64_t b = 0; b + 1 < num_blocks_; b++) {
    const char* e = entry(b);
    const uint64_t first = DecodeFixed64(e);
    const uint64_t n = DecodeFixed32(e + 12);
    const uint64_t next_first = DecodeFixed64(e + kIndexEntrySize);
    check(first, DecodeFixed32(e + 8), n, DecodeFixed32(e + kIndexEntrySize + 8));
    bad |= (next_first <= first) | (next_first - first < n);
  }
  if (num_blocks_ > 0) {
    const uint64_t b = num_blocks_ - 1;
    check(first_id(b), offset(b), block_count(b), data_.size());
  }
  for (uint64_t b = 0; bad && b < num_blocks_; b++) {
    Status s = CheckEntry(b);
    if (!s.ok()) return s;
  }
  if (total != count_) {
    return Corrupt(absl::StrCat("blocks hold ", total, " ids, the header says ", count_));
  }
  return Status::OK();
}

uint64_t ValueReader::FindBlock(uint64_t id, uint64_t lo) const {
  // Binary search; invariant: the answer is in [lo, hi).
  uint64_t hi = num_blocks_;
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (first_id(mid) <= id) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// ---------------------------------------------------------------- Patching

// A stretch of whole segments (a block whose first id is a boundary, or block 0, and the
// blocks up to the next such block) that changes touch: blocks [begin, end), changes
// [change_begin, change_end) of the patch.
struct Run {
  uint64_t begin;
  uint64_t end;
  size_t change_begin;
  size_t change_end;
};

uint64_t SegmentStart(const ValueReader& r, uint64_t b) {
  while (b > 0 && !r.cutter().IsBoundary(r.first_id(b))) b--;
  return b;
}

uint64_t SegmentEnd(const ValueReader& r, uint64_t b) {
  b++;
  while (b < r.num_blocks() && !r.cutter().IsBoundary(r.first_id(b))) b++;
  return b;
}

// The runs `patch` touches, in block order. A change lands in the segment of the last block
// whose first id is <= its id (block 0's for a smaller id). Removing a segment's first id
// joins the segment to the one before it, so that one is re-cut too.
std::vector<Run> FindRuns(const ValueReader& r, const SortedSet64Patch& patch) {
  std::vector<Run> runs;
  uint64_t hint = 0;
  for (size_t k = 0; k < patch.size(); k++) {
    const SortedSet64Change& c = patch[k];
    const uint64_t b = r.FindBlock(c.id, hint);
    hint = b;
    if (!runs.empty() && b < runs.back().end) {
      runs.back().change_end = k + 1;
      continue;
    }
    uint64_t begin = SegmentStart(r, b);
    if (!c.add && begin > 0 && c.id == r.first_id(begin)) begin = SegmentStart(r, begin - 1);
    const uint64_t end = SegmentEnd(r, b);
    if (!runs.empty() && begin < runs.back().end) {
      runs.back().end = end;
      runs.back().change_end = k + 1;
    } else {
      runs.push_back({begin, end, k, k + 1});
    }
  }
  return runs;
}

// Merges ascending `ids` with `changes` into *out. Returns whether anything changed.
bool MergeChanges(const std::vector<uint64_t>& ids, std::span<const SortedSet64Change> changes,
                  std::vector<uint64_t>* out) {
  out->clear();
  out->reserve(ids.size() + changes.size());
  bool changed = false;
  size_t i = 0;
  for (const SortedSet64Change& c : changes) {
    while (i < ids.size() && ids[i] < c.id) out->push_back(ids[i++]);
    const bool present = i < ids.size() && ids[i] == c.id;
    if (present) i++;
    if (c.add) out->push_back(c.id);
    changed |= present != c.add;
  }
  out->insert(out->end(), ids.begin() + static_cast<ptrdiff_t>(i), ids.end());
  return changed;
}

// What re-cutting a run gave: which blocks of the encoder replace blocks [begin, end).
struct RecutRun {
  uint64_t begin;
  uint64_t end;
  size_t first_block;   // in the encoder's blocks()
  size_t num_blocks;
  uint64_t data_start;  // in the encoder's data()
  uint64_t data_size;
};

// Decodes each run, applies its changes and re-cuts it into *encoder. Runs that the changes
// leave as they were are dropped (their blocks are kept). Adds the id count's change to
// *count_delta.
Status RecutRuns(const ValueReader& r, const SortedSet64Patch& patch,
                 const std::vector<Run>& runs, BlockEncoder* encoder,
                 std::vector<RecutRun>* recut, int64_t* count_delta) {
  std::vector<uint64_t> old_ids;
  std::vector<uint64_t> new_ids;
  for (const Run& run : runs) {
    old_ids.clear();
    for (uint64_t b = run.begin; b < run.end; b++) {
      Status s = r.AppendBlock(b, &old_ids);
      if (!s.ok()) return s;
    }
    std::span<const SortedSet64Change> changes(patch.data() + run.change_begin,
                                               run.change_end - run.change_begin);
    if (!MergeChanges(old_ids, changes, &new_ids)) continue;
    *count_delta += static_cast<int64_t>(new_ids.size()) - static_cast<int64_t>(old_ids.size());
    const size_t first_block = encoder->blocks().size();
    const uint64_t data_start = encoder->data().size();
    encoder->StartRun();
    for (uint64_t id : new_ids) encoder->Add(id);
    encoder->Finish();
    recut->push_back({run.begin, run.end, first_block, encoder->blocks().size() - first_block,
                      data_start, encoder->data().size() - data_start});
  }
  return Status::OK();
}

// Writes the patched value: r's blocks outside the recut runs verbatim (their index entries
// with shifted offsets), the encoder's blocks in place of the runs.
Status AssembleValue(const ValueReader& r, const BlockEncoder& encoder,
                     const std::vector<RecutRun>& recut, uint64_t count, std::string* out) {
  uint64_t num_blocks = r.num_blocks();
  uint64_t data_size = r.data().size();
  for (const RecutRun& run : recut) {
    num_blocks = num_blocks - (run.end - run.begin) + run.num_blocks;
    data_size = data_size - (r.data_start(run.end) - r.data_start(run.begin)) + run.data_size;
  }
  if (data_size > kMaxDataSize) return TooLarge(data_size);
  out->clear();
  PutValueHeader(r.index_interval(), count, num_blocks, out);
  const size_t index_start = out->size();
  out->reserve(index_start + num_blocks * kIndexEntrySize + data_size);
  out->resize(index_start + num_blocks * kIndexEntrySize);

  // The index: kept entries move as a whole; their offsets shift by how much the data before
  // them grew or shrank.
  char* p = out->data() + index_start;
  uint64_t offset = 0;  // in the new data
  uint64_t b = 0;       // r's next block to keep
  auto keep_entries = [&](uint64_t until) {
    const uint64_t start = r.data_start(b);
    std::memcpy(p, r.entry(b), (until - b) * kIndexEntrySize);
    if (offset != start) {
      for (char* q = p; q < p + (until - b) * kIndexEntrySize; q += kIndexEntrySize) {
        EncodeFixed32(q + 8, static_cast<uint32_t>(DecodeFixed32(q + 8) - start + offset));
      }
    }
    p += (until - b) * kIndexEntrySize;
    offset += r.data_start(until) - start;
    b = until;
  };
  for (const RecutRun& run : recut) {
    keep_entries(run.begin);
    for (size_t i = run.first_block; i < run.first_block + run.num_blocks; i++) {
      const EncodedBlock& e = encoder.blocks()[i];
      p = EncodeIndexEntry(p, e.first_id, offset, e.count);
      offset += e.size;
    }
    b = run.end;
  }
  keep_entries(r.num_blocks());
  assert(p == out->data() + out->size());

  // The data.
  uint64_t kept_from = 0;  // in r's data
  for (const RecutRun& run : recut) {
    out->append(r.data().substr(kept_from, r.data_start(run.begin) - kept_from));
    out->append(encoder.data().substr(run.data_start, run.data_size));
    kept_from = r.data_start(run.end);
  }
  out->append(r.data().substr(kept_from));
  return Status::OK();
}

// The ids that `patch` adds.
std::vector<uint64_t> AddedIds(const SortedSet64Patch& patch) {
  std::vector<uint64_t> ids;
  for (const SortedSet64Change& c : patch) {
    if (c.add) ids.push_back(c.id);
  }
  return ids;
}

}  // namespace

// ---------------------------------------------------------------- Values

Status EncodeSortedSet64Value(std::span<const uint64_t> ids, int index_interval,
                              std::string* value) {
  assert(ValidSortedSet64IndexInterval(index_interval));
  assert(std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end());
  BlockEncoder encoder(index_interval);
  for (uint64_t id : ids) encoder.Add(id);
  encoder.Finish();
  if (encoder.data().size() > kMaxDataSize) return TooLarge(encoder.data().size());
  value->clear();
  PutValueHeader(index_interval, ids.size(), encoder.blocks().size(), value);
  const size_t index_start = value->size();
  value->reserve(index_start + encoder.blocks().size() * kIndexEntrySize +
                 encoder.data().size());
  value->resize(index_start + encoder.blocks().size() * kIndexEntrySize);
  char* p = value->data() + index_start;
  uint64_t offset = 0;
  for (const EncodedBlock& e : encoder.blocks()) {
    p = EncodeIndexEntry(p, e.first_id, offset, e.count);
    offset += e.size;
  }
  value->append(encoder.data());
  return Status::OK();
}

Status DecodeSortedSet64Value(std::string_view value, std::vector<uint64_t>* ids) {
  ValueReader r;
  Status s = r.Open(value);
  if (s.ok()) s = r.CheckIndex();
  if (!s.ok()) return s;
  ids->clear();
  ids->reserve(r.count());
  for (uint64_t b = 0; b < r.num_blocks() && s.ok(); b++) s = r.AppendBlock(b, ids);
  return s;
}

Status SortedSet64ValueContains(std::string_view value, uint64_t id, bool* found) {
  *found = false;
  ValueReader r;
  Status s = r.Open(value);
  if (!s.ok() || r.num_blocks() == 0 || id < r.first_id(0)) return s;
  const uint64_t b = r.FindBlock(id, 0);
  s = r.CheckEntry(b);
  if (!s.ok()) return s;
  bool hit = false;
  s = r.ScanBlockIds(b, [id, &hit](uint64_t x) { hit |= x == id; });
  *found = s.ok() && hit;
  return s;
}

Status SortedSet64ValueCount(std::string_view value, uint64_t* count) {
  ValueReader r;
  Status s = r.Open(value);
  *count = s.ok() ? r.count() : 0;
  return s;
}

Status ApplySortedSet64Patch(std::string_view value, const SortedSet64Patch& patch,
                             std::string* result, bool* changed) {
  *changed = false;
  ValueReader r;
  Status s = r.Open(value);
  if (s.ok()) s = r.CheckIndex();
  if (!s.ok() || patch.empty()) return s;
  if (r.num_blocks() == 0) {
    const std::vector<uint64_t> ids = AddedIds(patch);
    if (ids.empty()) return Status::OK();
    *changed = true;
    return EncodeSortedSet64Value(ids, r.index_interval(), result);
  }
  const std::vector<Run> runs = FindRuns(r, patch);
  BlockEncoder encoder(r.index_interval());
  std::vector<RecutRun> recut;
  int64_t count_delta = 0;
  s = RecutRuns(r, patch, runs, &encoder, &recut, &count_delta);
  if (!s.ok() || recut.empty()) return s;
  *changed = true;
  return AssembleValue(r, encoder, recut, r.count() + static_cast<uint64_t>(count_delta),
                       result);
}

}  // namespace shale
