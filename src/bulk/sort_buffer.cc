#include "bulk/sort_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace shale::bulk {

namespace {

constexpr int kPrefixBytes = 8;
constexpr int kBuckets = 256;
// Groups of equal prefixes up to this size are ordered by insertion sort (no allocation);
// larger ones by std::stable_sort.
constexpr size_t kInsertionSortMax = 16;

inline unsigned Digit(uint64_t prefix, int byte) {
  return static_cast<unsigned>(prefix >> (8 * byte)) & 0xff;
}

// A stable insertion sort of [first, last) by `less`.
template <typename Less>
void InsertionSort(SortEntry* first, SortEntry* last, Less less) {
  for (SortEntry* i = first + 1; i < last; i++) {
    const SortEntry e = *i;
    SortEntry* j = i;
    while (j > first && less(e, *(j - 1))) {
      *j = *(j - 1);
      j--;
    }
    *j = e;
  }
}

}  // namespace

constexpr size_t kHugePage = 2 << 20;

BufferBlock::BufferBlock(size_t size) {
  // Map 2 MiB more than asked, so that an aligned start can be chosen.
  const size_t mapped = size + kHugePage;
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    data_ = new char[size];
    return;
  }
  mapping_ = p;
  mapped_ = mapped;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  data_ = reinterpret_cast<char*>(start);
  // Only advice: without huge pages the buffer works, just slower.
  (void)::madvise(data_, size, MADV_HUGEPAGE);
}

BufferBlock::~BufferBlock() {
  if (mapping_ != nullptr) {
    ::munmap(mapping_, mapped_);
  } else {
    delete[] data_;
  }
}

bool IsBytewiseComparator(const Comparator* c) {
  return c == BytewiseComparator() || std::strcmp(c->Name(), BytewiseComparator()->Name()) == 0;
}

SortBuffer::SortBuffer(size_t capacity, const Comparator* comparator)
    : comparator_(comparator),
      bytewise_(IsBytewiseComparator(comparator)),
      capacity_(capacity & ~size_t{kAlign - 1}),
      block_(capacity_) {}

void SortBuffer::Clear() {
  record_end_ = 0;
  entries_ = 0;
  sorted_ = nullptr;
}

SortEntry* SortBuffer::Scratch() {
  const size_t start = (record_end_ + kAlign - 1) & ~size_t{kAlign - 1};
  return reinterpret_cast<SortEntry*>(block_.get() + start);
}

void SortBuffer::Sort() {
  if (sorted_ != nullptr) return;
  if (bytewise_) {
    RadixSort();
    FixPrefixTies();
  } else {
    ComparatorSort();
  }
}

// LSD radix sort of the index on the prefix, one byte per pass, skipping the bytes in which
// every prefix agrees. The index lies newest first, so the first pass reads it backwards: that
// makes the result stable with respect to insertion order.
void SortBuffer::RadixSort() {
  const size_t n = entries_;
  SortEntry* const index = IndexBegin();
  SortEntry* const scratch = Scratch();
  std::array<std::array<size_t, kBuckets>, kPrefixBytes> counts{};
  for (size_t i = 0; i < n; i++) {
    const uint64_t p = index[i].prefix;
    for (int b = 0; b < kPrefixBytes; b++) counts[b][Digit(p, b)]++;
  }
  SortEntry* from = index;
  SortEntry* to = scratch;
  bool reversed = false;  // whether `from` is in insertion order yet
  for (int b = 0; b < kPrefixBytes && n > 0; b++) {
    if (counts[b][Digit(index[0].prefix, b)] == n) continue;  // every prefix agrees here
    std::array<size_t, kBuckets> next;
    size_t sum = 0;
    for (int d = 0; d < kBuckets; d++) {
      next[d] = sum;
      sum += counts[b][d];
    }
    if (!reversed) {
      for (size_t i = n; i-- > 0;) to[next[Digit(from[i].prefix, b)]++] = from[i];
      reversed = true;
    } else {
      for (size_t i = 0; i < n; i++) to[next[Digit(from[i].prefix, b)]++] = from[i];
    }
    std::swap(from, to);
  }
  if (!reversed) {
    std::reverse_copy(index, index + n, scratch);
    from = scratch;
  }
  sorted_ = from;
}

// Entries with equal prefixes may still differ in the bytes after the eighth (or in length):
// each such group is ordered by the whole key, stably.
void SortBuffer::FixPrefixTies() {
  auto less = [](const SortEntry& a, const SortEntry& b) {
    return TrustedRecordKey(a.record) < TrustedRecordKey(b.record);
  };
  const size_t n = entries_;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && sorted_[j].prefix == sorted_[i].prefix) j++;
    if (j - i > kInsertionSortMax) {
      std::stable_sort(sorted_ + i, sorted_ + j, less);
    } else if (j - i > 1) {
      InsertionSort(sorted_ + i, sorted_ + j, less);
    }
    i = j;
  }
}

void SortBuffer::ComparatorSort() {
  SortEntry* const scratch = Scratch();
  std::reverse_copy(IndexBegin(), IndexBegin() + entries_, scratch);
  const Comparator* cmp = comparator_;
  std::stable_sort(scratch, scratch + entries_, [cmp](const SortEntry& a, const SortEntry& b) {
    return cmp->Compare(TrustedRecordKey(a.record), TrustedRecordKey(b.record)) < 0;
  });
  sorted_ = scratch;
}

}  // namespace shale::bulk
