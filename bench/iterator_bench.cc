// Merging-iterator micro benchmarks: 1M internal keys (16-byte user keys) spread at random over
// N sorted children (arg 0: N = 8, the acceptance case, or N = 1, the unmerged baseline that the
// fast path returns as is). Measures one Next, one Prev and one random Seek through the merge.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/internal_iterator.h"
#include "base/internal_key.h"
#include "iterator/merging_iterator.h"

namespace shale {
namespace {

constexpr size_t kEntries = 1'000'000;

const InternalKeyComparator& Cmp() {
  static const InternalKeyComparator cmp(BytewiseComparator());
  return cmp;
}

std::string UserKey(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016zu", i * 7);
  return buf;
}

// A child: sorted internal keys in a vector, searched by binary search.
class SortedVectorIterator final : public InternalIterator {
 public:
  explicit SortedVectorIterator(const std::vector<std::string>* keys) : keys_(keys) {}
  bool Valid() const override { return pos_ < keys_->size(); }
  void SeekToFirst() override { pos_ = 0; }
  void SeekToLast() override { pos_ = keys_->empty() ? kEnd : keys_->size() - 1; }
  void Seek(std::string_view t) override { pos_ = LowerBound(t); }
  void SeekForPrev(std::string_view t) override {
    size_t i = LowerBound(t);
    if (i < keys_->size() && Cmp().Compare((*keys_)[i], t) == 0) {
      pos_ = i;
    } else {
      pos_ = i == 0 ? kEnd : i - 1;
    }
  }
  void Next() override { pos_++; }
  void Prev() override { pos_ = pos_ == 0 ? kEnd : pos_ - 1; }
  std::string_view key() const override { return (*keys_)[pos_]; }
  std::string_view value() const override { return {}; }
  Status status() const override { return Status::OK(); }

 private:
  static constexpr size_t kEnd = ~size_t{0};
  size_t LowerBound(std::string_view t) const {
    auto it = std::lower_bound(keys_->begin(), keys_->end(), t,
                               [](const std::string& a, std::string_view b) {
                                 return Cmp().Compare(a, b) < 0;
                               });
    return static_cast<size_t>(it - keys_->begin());
  }
  const std::vector<std::string>* keys_;
  size_t pos_ = kEnd;
};

// The children's key lists for `n` children: key i goes to a random child.
const std::vector<std::vector<std::string>>& ChildKeys(size_t n) {
  static std::vector<std::vector<std::vector<std::string>>> cache(9);
  std::vector<std::vector<std::string>>& lists = cache[n];
  if (lists.empty()) {
    lists.resize(n);
    std::mt19937_64 rng(42);
    for (size_t i = 0; i < kEntries; i++) {
      lists[rng() % n].push_back(MakeInternalKey(UserKey(i), i + 1, kTypeValue));
    }
  }
  return lists;
}

std::unique_ptr<InternalIterator> NewMerge(size_t n) {
  std::vector<std::unique_ptr<InternalIterator>> children;
  for (const auto& keys : ChildKeys(n)) {
    children.push_back(std::make_unique<SortedVectorIterator>(&keys));
  }
  return NewMergingIterator(&Cmp(), std::move(children));
}

void BM_MergeNext(benchmark::State& state) {
  auto it = NewMerge(static_cast<size_t>(state.range(0)));
  it->SeekToFirst();
  for (auto _ : state) {
    it->Next();
    if (!it->Valid()) it->SeekToFirst();
    benchmark::DoNotOptimize(it->key().data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_MergePrev(benchmark::State& state) {
  auto it = NewMerge(static_cast<size_t>(state.range(0)));
  it->SeekToLast();
  for (auto _ : state) {
    it->Prev();
    if (!it->Valid()) it->SeekToLast();
    benchmark::DoNotOptimize(it->key().data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_MergeSeek(benchmark::State& state) {
  auto it = NewMerge(static_cast<size_t>(state.range(0)));
  std::mt19937_64 rng(7);
  std::vector<std::string> targets(4096);
  for (std::string& t : targets) {
    t = MakeInternalKey(UserKey(rng() % kEntries), kMaxSequenceNumber, kValueTypeForSeek);
  }
  size_t i = 0;
  size_t found = 0;
  for (auto _ : state) {
    it->Seek(targets[i++ % targets.size()]);
    found += it->Valid();
  }
  if (found != static_cast<size_t>(state.iterations())) state.SkipWithError("a seek missed");
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_MergeNext)->Arg(8)->Arg(1);
BENCHMARK(BM_MergePrev)->Arg(8)->Arg(1);
BENCHMARK(BM_MergeSeek)->Arg(8)->Arg(1);

}  // namespace
}  // namespace shale
