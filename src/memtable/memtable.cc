#include "memtable/memtable.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "shale/limits.h"
#include "util/absl_compat.h"
#include "util/coding.h"

namespace shale {

namespace {

// The length-prefixed string that starts at p (an entry's key, or the value after it).
std::string_view DecodeLengthPrefixed(const char* p) {
  const auto first = static_cast<unsigned char>(*p);
  if (first < 128) return {p + 1, first};  // the common one-byte length, inline
  uint32_t len = 0;
  // An entry was encoded by Add(), so the varint is well formed and at most 5 bytes long.
  p = GetVarint32Ptr(p, p + kMaxVarint32Length, &len);
  return {p, len};
}

// The value that follows the internal key `ikey` inside an entry.
std::string_view ValueAfter(std::string_view ikey) {
  return DecodeLengthPrefixed(ikey.data() + ikey.size());
}

// Adds one to a counter that only the writer changes: a plain load and store, cheaper than an
// atomic read-modify-write, and still safe for concurrent readers.
void BumpCounter(std::atomic<uint64_t>* counter) {
  counter->store(counter->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace

int MemTable::KeyComparator::operator()(const char* a, const char* b) const {
  const std::string_view ka = DecodeLengthPrefixed(a);
  const std::string_view kb = DecodeLengthPrefixed(b);
  if (!bytewise) return comparator.Compare(ka, kb);
  // Internal keys: user key ascending, then trailer (sequence, type) descending.
  const size_t ua = ka.size() - kInternalKeyTrailerSize;
  const size_t ub = kb.size() - kInternalKeyTrailerSize;
  const int r = std::memcmp(ka.data(), kb.data(), std::min(ua, ub));
  if (r != 0) return r;
  if (ua != ub) return ua < ub ? -1 : 1;
  const uint64_t ta = DecodeFixed64(ka.data() + ua);
  const uint64_t tb = DecodeFixed64(kb.data() + ub);
  return ta > tb ? -1 : (ta < tb ? 1 : 0);
}

// Adapts a skiplist iterator over entries to InternalIterator. Targets arrive as internal keys
// and are re-encoded with a length prefix, the form the skiplist compares.
class MemTable::Iterator final : public InternalIterator {
 public:
  explicit Iterator(const Table* table) : iter_(table) {}

  bool Valid() const override { return iter_.Valid(); }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Seek(std::string_view target) override { iter_.Seek(EncodeTarget(target)); }
  void SeekForPrev(std::string_view target) override {
    iter_.SeekForPrev(EncodeTarget(target));
  }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }
  std::string_view key() const override { return DecodeLengthPrefixed(iter_.key()); }
  std::string_view value() const override { return ValueAfter(key()); }
  Status status() const override { return Status::OK(); }

 private:
  const char* EncodeTarget(std::string_view target) {
    scratch_.clear();
    PutLengthPrefixed(&scratch_, target);
    return scratch_.data();
  }

  Table::Iterator iter_;
  std::string scratch_;  // the last target, length-prefixed
};

MemTable::MemTable(const InternalKeyComparator& comparator, const Options& options)
    : comparator_{comparator, comparator.user_comparator() == BytewiseComparator()},
      arena_(options.arena_block_size,
             options.allocator != nullptr ? options.allocator : MemtableAllocator::Get()),
      table_(comparator_, &arena_),
      range_del_table_(comparator_, &arena_),
      earliest_sequence_(options.earliest_sequence),
      track_successive_merges_(options.track_successive_merges) {}

MemTable::~MemTable() {
  if (retired_counter_ != nullptr) {
    retired_counter_->fetch_sub(ApproximateMemoryUsage(), std::memory_order_relaxed);
  }
}

void MemTable::Unref() {
  const int previous = refs_.fetch_sub(1, std::memory_order_acq_rel);
  assert(previous > 0);
  if (previous == 1) delete this;
}

// An entry's internal-key and value lengths are varint32s. Every writer checks the size limits
// of shale/limits.h before anything reaches a memtable (WriteBatch, DB::Write, a merge
// rewritten at write time), and those keep both lengths far below 4 GiB.
static_assert(kMaxKeySize + kInternalKeyTrailerSize < UINT32_MAX);
static_assert(kMaxValueSize < UINT32_MAX && kMaxKeySize < UINT32_MAX);

void MemTable::Add(SequenceNumber sequence, ValueType type, std::string_view user_key,
                   std::string_view value) {
  assert(IsValidValueType(type));
  const size_t ikey_size = user_key.size() + kInternalKeyTrailerSize;
  const size_t encoded_size =
      VarintLength(ikey_size) + ikey_size + VarintLength(value.size()) + value.size();
  Table* table = type == kTypeRangeDeletion ? &range_del_table_ : &table_;
  char* entry = table->AllocateEntry(encoded_size);
  char* p = EncodeVarint32(entry, static_cast<uint32_t>(ikey_size));
  if (!user_key.empty()) std::memcpy(p, user_key.data(), user_key.size());  // data() may be null
  p += user_key.size();
  EncodeFixed64(p, PackSequenceAndType(sequence, type));
  p += kInternalKeyTrailerSize;
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  assert(p + value.size() == entry + encoded_size);

  table->InsertAllocated(entry);
  if (track_successive_merges_) TrackSuccessiveMerges(type, user_key);
  if (type == kTypeRangeDeletion) {
    BumpCounter(&num_range_deletes_);
  } else {
    if (type == kTypeDeletion || type == kTypeSingleDeletion) BumpCounter(&num_deletes_);
  }
  if (num_entries_.load(std::memory_order_relaxed) == 0) {
    first_sequence_.store(sequence, std::memory_order_relaxed);
  }
  if (earliest_sequence_.load(std::memory_order_relaxed) == kMaxSequenceNumber) {
    earliest_sequence_.store(sequence, std::memory_order_relaxed);
  }
  BumpCounter(&num_entries_);
}

SequenceNumber MemTable::MaxCoveringTombstone(std::string_view user_key,
                                              SequenceNumber snapshot) const {
  // Tombstones are sorted by start key: scan those that start at or before user_key.
  // O(number of such tombstones); range deletions are expected to be few.
  const Comparator* ucmp = comparator_.comparator.user_comparator();
  SequenceNumber max_seq = 0;
  Table::Iterator iter(&range_del_table_);
  for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
    std::string_view ikey = DecodeLengthPrefixed(iter.key());
    if (ucmp->Compare(ExtractUserKey(ikey), user_key) > 0) break;
    const SequenceNumber seq = ExtractSequence(ikey);
    if (seq <= snapshot && seq > max_seq && ucmp->Compare(user_key, ValueAfter(ikey)) < 0) {
      max_seq = seq;
    }
  }
  return max_seq;
}

template <typename Visit>
void MemTable::VisitEntries(const LookupKey& key, Visit&& visit) const {
  const SequenceNumber snapshot = ExtractSequence(key.internal_key());
  // A tombstone at sequence 0 cannot hide anything older, so 0 means "none".
  const SequenceNumber tombstone =
      num_range_deletes() == 0 ? 0 : MaxCoveringTombstone(key.user_key(), snapshot);
  const Comparator* ucmp = comparator_.comparator.user_comparator();

  Table::Iterator iter(&table_);
  // Seek lands on the newest entry with sequence <= snapshot, if this user key has one; the
  // older entries of the key follow it.
  for (iter.Seek(key.memtable_key().data()); iter.Valid(); iter.Next()) {
    std::string_view ikey = DecodeLengthPrefixed(iter.key());
    if (!ucmp->Equal(ExtractUserKey(ikey), key.user_key())) break;
    const SequenceNumber entry_seq = ExtractSequence(ikey);
    if (entry_seq < tombstone) break;  // hidden, like everything older
    if (!visit(ExtractValueType(ikey), entry_seq, ValueAfter(ikey))) return;
  }
  if (tombstone > 0) visit(kTypeRangeDeletion, tombstone, std::string_view());
}

bool MemTable::Get(const LookupKey& key, std::string* value, Status* s,
                   SequenceNumber* seq) const {
  bool decided = false;
  VisitEntries(key, [&](ValueType type, SequenceNumber entry_seq, std::string_view v) {
    decided = true;
    *seq = entry_seq;
    switch (type) {
      case kTypeValue:
        value->assign(v);
        *s = Status::OK();
        break;
      case kTypeMerge:
        value->assign(v);
        *s = Status::MergeInProgress();
        break;
      case kTypeDeletion:
      case kTypeSingleDeletion:
      case kTypeRangeDeletion:
        *s = Status::NotFound();
        break;
      default:
        *s = Status::Corruption("memtable: unexpected value type in a point entry");
        break;
    }
    return false;  // the newest entry decides
  });
  return decided;
}

bool MemTable::Get(const LookupKey& key, GetContext* context) const {
  // GetContext reports an unexpected type as Corruption.
  VisitEntries(key, [context](ValueType type, SequenceNumber, std::string_view v) {
    return context->Save(type, v);
  });
  return context->done();
}

void MemTable::TrackSuccessiveMerges(ValueType type, std::string_view user_key) {
  // Per entry: the key, the count and the map's overhead (about one slot and a string header).
  constexpr size_t kEntryOverhead = 48;
  if (type == kTypeMerge) {
    auto [it, inserted] = successive_merges_.try_emplace(std::string(user_key), 0);
    it->second++;
    if (inserted) {
      tracking_bytes_.fetch_add(user_key.size() + kEntryOverhead, std::memory_order_relaxed);
    }
  } else if (type == kTypeRangeDeletion) {
    successive_merges_.clear();  // the deleted keys' chains end; restarting all is simpler
    tracking_bytes_.store(0, std::memory_order_relaxed);
  } else if (!successive_merges_.empty()) {
    auto it = successive_merges_.find(ToAbsl(user_key));
    if (it != successive_merges_.end()) {
      tracking_bytes_.fetch_sub(it->first.size() + kEntryOverhead, std::memory_order_relaxed);
      successive_merges_.erase(it);
    }
  }
}

size_t MemTable::CountSuccessiveMerges(std::string_view user_key, size_t limit) const {
  if (track_successive_merges_) {
    auto it = successive_merges_.find(ToAbsl(user_key));
    return it == successive_merges_.end() ? 0 : std::min<size_t>(it->second, limit);
  }
  const Comparator* ucmp = comparator_.comparator.user_comparator();
  const LookupKey newest(user_key, kMaxSequenceNumber);
  Table::Iterator iter(&table_);
  size_t count = 0;
  for (iter.Seek(newest.memtable_key().data()); iter.Valid(); iter.Next()) {
    std::string_view ikey = DecodeLengthPrefixed(iter.key());
    if (!ucmp->Equal(ExtractUserKey(ikey), user_key)) break;
    if (ExtractValueType(ikey) != kTypeMerge) break;
    if (++count >= limit) break;
  }
  return count;
}

std::unique_ptr<InternalIterator> MemTable::NewIterator() const {
  return std::make_unique<Iterator>(&table_);
}

std::unique_ptr<InternalIterator> MemTable::NewRangeTombstoneIterator() const {
  return std::make_unique<Iterator>(&range_del_table_);
}

}  // namespace shale
