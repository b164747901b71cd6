#include "bulk/run_cursor.h"

#include <algorithm>

namespace shale::bulk {

namespace {

// How far ahead of the current entry the cursor prefetches records: the index is read in
// order but the records it points to are scattered over the buffer, and a miss costs about
// as much as handling a dozen entries.
constexpr ptrdiff_t kPrefetchDistance = 16;

}  // namespace

MemoryRunCursor::MemoryRunCursor(const SortBuffer& buffer, const std::string_view* lower,
                                 uint64_t* duplicates)
    : comparator_(buffer.comparator()),
      bytewise_(buffer.bytewise()),
      next_(buffer.begin()),
      end_(buffer.end()),
      duplicates_(duplicates) {
  if (lower != nullptr) {
    const Comparator* cmp = comparator_;
    next_ = std::lower_bound(buffer.begin(), buffer.end(), *lower,
                             [cmp](const SortEntry& e, std::string_view key) {
                               return cmp->Compare(TrustedRecordKey(e.record), key) < 0;
                             });
  }
  Load();
}

bool MemoryRunCursor::SameKey(const SortEntry& e, uint64_t prefix, std::string_view key) const {
  if (bytewise_) return e.prefix == prefix && TrustedRecordKey(e.record) == key;
  return comparator_->Compare(TrustedRecordKey(e.record), key) == 0;
}

void MemoryRunCursor::Load() {
  if (next_ == end_) {
    valid_ = false;
    return;
  }
  if (end_ - next_ > kPrefetchDistance) {
    // A record of a 16-byte key and a 100-byte value spans two or three cache lines.
    const char* ahead = next_[kPrefetchDistance].record;
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    __builtin_prefetch(ahead + 127);
  }
  const SortEntry* last = next_;
  const char* end = DecodeTrustedRecord(last->record, &key_, &value_);
  const SortEntry* q = next_ + 1;
  while (q != end_ && SameKey(*q, last->prefix, key_)) {
    // An older duplicate was `last`: the newer entry replaces it.
    last = q++;
    end = DecodeTrustedRecord(last->record, &key_, &value_);
    if (duplicates_ != nullptr) ++*duplicates_;
  }
  prefix_ = last->prefix;
  record_ = std::string_view(last->record, static_cast<size_t>(end - last->record));
  next_ = q;
  valid_ = true;
}

}  // namespace shale::bulk
