// Test helpers for the iterator module: VectorIterator (an InternalIterator over a sorted
// vector, optionally failing on one entry), a std::map model of a merged sequence, and a
// driver that runs random operations on an iterator and on the model and compares each step.
#ifndef SHALE_TEST_ITERATOR_ITERATOR_TEST_UTIL_H_
#define SHALE_TEST_ITERATOR_ITERATOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/internal_iterator.h"
#include "shale/comparator.h"
#include "shale/status.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::test {

using Entries = std::vector<std::pair<std::string, std::string>>;

// Iterates `entries`, which must be sorted by `cmp`. When `poison` is set, any move that lands
// on entry *poison leaves the iterator !Valid() with an IOError naming that key, as a table
// iterator does when a block fails to read; moving anywhere else clears the error.
class VectorIterator final : public InternalIterator {
 public:
  VectorIterator(const Comparator* cmp, Entries entries, std::optional<size_t> poison = {})
      : cmp_(cmp), entries_(std::move(entries)), poison_(poison), pos_(entries_.size()) {}

  bool Valid() const override { return pos_ < entries_.size() && !failed_; }
  void SeekToFirst() override { Land(0); }
  void SeekToLast() override { Land(entries_.empty() ? kEnd : entries_.size() - 1); }
  void Seek(std::string_view target) override { Land(LowerBound(target)); }
  void SeekForPrev(std::string_view target) override {
    size_t i = LowerBound(target);
    if (i < entries_.size() && cmp_->Compare(entries_[i].first, target) == 0) {
      while (i + 1 < entries_.size() && cmp_->Compare(entries_[i + 1].first, target) == 0) i++;
      return Land(i);
    }
    Land(i == 0 ? kEnd : i - 1);
  }
  void Next() override {
    EXPECT_TRUE(Valid());
    Land(pos_ + 1);
  }
  void Prev() override {
    EXPECT_TRUE(Valid());
    Land(pos_ == 0 ? kEnd : pos_ - 1);
  }
  std::string_view key() const override {
    EXPECT_TRUE(Valid());
    return entries_[pos_].first;
  }
  std::string_view value() const override {
    EXPECT_TRUE(Valid());
    return entries_[pos_].second;
  }
  Status status() const override {
    if (!failed_) return Status::OK();
    return Status::IOError("vector iterator: injected error at", entries_[pos_].first);
  }

 private:
  static constexpr size_t kEnd = ~size_t{0};

  size_t LowerBound(std::string_view target) const {
    size_t i = 0;
    while (i < entries_.size() && cmp_->Compare(entries_[i].first, target) < 0) i++;
    return i;
  }
  void Land(size_t i) {
    pos_ = i >= entries_.size() ? entries_.size() : i;
    failed_ = poison_.has_value() && pos_ == *poison_;
  }

  const Comparator* const cmp_;
  const Entries entries_;
  const std::optional<size_t> poison_;
  size_t pos_;  // entries_.size() when not on an entry
  bool failed_ = false;
};

// The expected sequence: entries ordered by (key under cmp, source), where source says which
// child an entry came from (0 when there is only one source).
class Model {
 public:
  explicit Model(const Comparator* cmp) : map_(Less{cmp}), pos_(map_.end()) {}

  void Add(std::string key, size_t source, std::string value) {
    map_.emplace(std::make_pair(std::move(key), source), std::move(value));
  }
  size_t size() const { return map_.size(); }

  bool Valid() const { return pos_ != map_.end(); }
  std::string_view key() const { return pos_->first.first; }
  std::string_view value() const { return pos_->second; }
  void SeekToFirst() { pos_ = map_.begin(); }
  void SeekToLast() { pos_ = map_.empty() ? map_.end() : std::prev(map_.end()); }
  void Seek(std::string_view t) { pos_ = map_.lower_bound({std::string(t), 0}); }
  void SeekForPrev(std::string_view t) {
    auto it = map_.upper_bound({std::string(t), ~size_t{0}});
    pos_ = it == map_.begin() ? map_.end() : std::prev(it);
  }
  void Next() { ++pos_; }
  void Prev() { pos_ = pos_ == map_.begin() ? map_.end() : std::prev(pos_); }

 private:
  struct Less {
    const Comparator* cmp;
    bool operator()(const std::pair<std::string, size_t>& a,
                    const std::pair<std::string, size_t>& b) const {
      const int r = cmp->Compare(a.first, b.first);
      return r != 0 ? r < 0 : a.second < b.second;
    }
  };
  std::map<std::pair<std::string, size_t>, std::string, Less> map_;
  std::map<std::pair<std::string, size_t>, std::string, Less>::const_iterator pos_;
};

// Applies one random operation to both `it` and `model` (a seek when `can_move` is false, as
// Next/Prev require a valid position) and returns its name.
inline std::string ApplyRandomOp(InternalIterator* it, Model* model, Random* rnd, bool can_move,
                                 const std::function<std::string(Random*)>& target) {
  switch (rnd->Uniform(can_move ? 8 : 4)) {
    case 0:
      it->SeekToFirst();
      model->SeekToFirst();
      return "SeekToFirst";
    case 1:
      it->SeekToLast();
      model->SeekToLast();
      return "SeekToLast";
    case 2: {
      const std::string t = target(rnd);
      it->Seek(t);
      model->Seek(t);
      return "Seek(" + t + ")";
    }
    case 3: {
      const std::string t = target(rnd);
      it->SeekForPrev(t);
      model->SeekForPrev(t);
      return "SeekForPrev(" + t + ")";
    }
    case 4:
    case 5:
      it->Next();
      model->Next();
      return "Next";
    default:
      it->Prev();
      model->Prev();
      return "Prev";
  }
}

// How the operations of RunRandomOps ended, so a test can check it exercised what it meant to.
struct RandomOpsOutcome {
  int on_entry = 0;  // ended Valid(), on the model's entry
  int at_end = 0;    // ended !Valid() with an OK status, as the model did
  int failed = 0;    // ended !Valid() with an error

  RandomOpsOutcome& operator+=(const RandomOpsOutcome& o) {
    on_entry += o.on_entry;
    at_end += o.at_end;
    failed += o.failed;
    return *this;
  }
};

// "k000", "k001", ...: short user keys that sort like their numbers (for i < 1000).
inline std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%03d", i);
  return buf;
}

// Runs `steps` random operations on `it` and `model` together and checks after each that
// both agree: same validity, key and value; an end with an OK status. When `errors_possible`,
// the iterator may instead stop with a non-OK status (never with a wrong entry); the driver
// then checks the status is the injected IOError and reseeks. `target` makes seek targets.
// `after_op` (optional) is called after each operation with its name, to check side effects.
inline RandomOpsOutcome RunRandomOps(
    InternalIterator* it, Model* model, Random* rnd, int steps,
    const std::function<std::string(Random*)>& target, bool errors_possible,
    const std::function<void(const std::string& op)>& after_op = {}) {
  RandomOpsOutcome outcome;
  std::string trace;
  for (int step = 0; step < steps; step++) {
    const bool can_move = it->Valid() && model->Valid();
    const std::string name = ApplyRandomOp(it, model, rnd, can_move, target);
    trace += name + " ";
    if (after_op) after_op(name);
    if (!it->Valid() && !it->status().ok()) {
      EXPECT_TRUE(errors_possible) << it->status().ToString() << "\nafter: " << trace;
      EXPECT_TRUE(it->status().IsIOError()) << it->status().ToString();
      if (testing::Test::HasFailure()) return outcome;
      outcome.failed++;
      continue;  // the iterator is !Valid(), so the next operation is a seek
    }
    EXPECT_OK(it->status());
    EXPECT_EQ(it->Valid(), model->Valid()) << "after: " << trace;
    if (testing::Test::HasFailure()) return outcome;
    if (!model->Valid()) {
      outcome.at_end++;
      continue;
    }
    EXPECT_EQ(it->key(), model->key()) << "after: " << trace;
    EXPECT_EQ(it->value(), model->value()) << "after: " << trace;
    if (testing::Test::HasFailure()) return outcome;
    outcome.on_entry++;
  }
  return outcome;
}

}  // namespace shale::test

#endif  // SHALE_TEST_ITERATOR_ITERATOR_TEST_UTIL_H_
