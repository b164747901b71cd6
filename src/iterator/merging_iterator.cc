#include "iterator/merging_iterator.h"

#include <cassert>
#include <string_view>
#include <utility>

namespace shale {

namespace {

// A child iterator and the cached outcome of its last move, so the heap compares keys without
// virtual calls. Invariant: valid_ == iter_->Valid() and, when valid_, key_ == iter_->key(),
// as long as every move goes through this wrapper.
class Child {
 public:
  Child(std::unique_ptr<InternalIterator> iter, size_t index)
      : iter_(std::move(iter)), index_(index) {
    assert(iter_ != nullptr);
  }

  size_t index() const { return index_; }
  bool valid() const { return valid_; }
  std::string_view key() const { return key_; }
  std::string_view value() const { return iter_->value(); }
  Status status() const { return iter_->status(); }
  // True when the last move ended on an error rather than at the end of the data.
  bool failed() const { return !valid_ && !iter_->status().ok(); }

  void SeekToFirst() {
    iter_->SeekToFirst();
    Update();
  }
  void SeekToLast() {
    iter_->SeekToLast();
    Update();
  }
  void Seek(std::string_view target) {
    iter_->Seek(target);
    Update();
  }
  void SeekForPrev(std::string_view target) {
    iter_->SeekForPrev(target);
    Update();
  }
  void Next() {
    iter_->Next();
    Update();
  }
  void Prev() {
    iter_->Prev();
    Update();
  }

 private:
  void Update() {
    valid_ = iter_->Valid();
    key_ = valid_ ? iter_->key() : std::string_view();
  }

  std::unique_ptr<InternalIterator> iter_;
  size_t index_;
  bool valid_ = false;
  std::string_view key_;
};

// A binary heap of valid children ordered by (key, child index): smallest on top in forward
// mode, largest on top in backward mode. Borrows the children and the comparator.
class ChildHeap {
 public:
  explicit ChildHeap(const Comparator* cmp) : cmp_(cmp) {}

  void Reset(bool max_heap) {
    max_heap_ = max_heap;
    items_.clear();
  }
  bool empty() const { return items_.empty(); }
  Child* top() const { return items_.front(); }

  // REQUIRES: c->valid().
  void Push(Child* c) {
    assert(c->valid());
    items_.push_back(c);
    SiftUp(items_.size() - 1);
  }

  // The top child moved: restore the heap order, dropping the child if it became !valid().
  void TopMoved() {
    assert(!items_.empty());
    if (!items_.front()->valid()) {
      items_.front() = items_.back();
      items_.pop_back();
    }
    if (!items_.empty()) SiftDown(0);
  }

 private:
  // True if `a` belongs above `b`.
  bool Above(const Child* a, const Child* b) const {
    int r = cmp_->Compare(a->key(), b->key());
    if (r == 0) r = a->index() < b->index() ? -1 : 1;
    return max_heap_ ? r > 0 : r < 0;
  }

  void SiftUp(size_t i) {
    Child* c = items_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!Above(c, items_[parent])) break;
      items_[i] = items_[parent];
      i = parent;
    }
    items_[i] = c;
  }

  void SiftDown(size_t i) {
    Child* c = items_[i];
    const size_t n = items_.size();
    for (;;) {
      size_t best = 2 * i + 1;
      if (best >= n) break;
      if (best + 1 < n && Above(items_[best + 1], items_[best])) best++;
      if (!Above(items_[best], c)) break;
      items_[i] = items_[best];
      i = best;
    }
    items_[i] = c;
  }

  const Comparator* const cmp_;
  bool max_heap_ = false;
  std::vector<Child*> items_;
};

class MergingIterator final : public InternalIterator {
 public:
  MergingIterator(const Comparator* cmp, std::vector<std::unique_ptr<InternalIterator>> children)
      : cmp_(cmp), heap_(cmp) {
    children_.reserve(children.size());
    for (size_t i = 0; i < children.size(); i++) {
      children_.emplace_back(std::move(children[i]), i);
    }
  }

  bool Valid() const override { return current_ != nullptr; }
  std::string_view key() const override { return current_->key(); }
  std::string_view value() const override { return current_->value(); }

  void SeekToFirst() override {
    for (Child& c : children_) c.SeekToFirst();
    StartHeap(Direction::kForward);
  }
  void SeekToLast() override {
    for (Child& c : children_) c.SeekToLast();
    StartHeap(Direction::kBackward);
  }
  void Seek(std::string_view target) override {
    for (Child& c : children_) c.Seek(target);
    StartHeap(Direction::kForward);
  }
  void SeekForPrev(std::string_view target) override {
    for (Child& c : children_) c.SeekForPrev(target);
    StartHeap(Direction::kBackward);
  }

  void Next() override {
    assert(Valid());
    if (direction_ == Direction::kBackward && !SwitchToForward()) return;
    Advance(&Child::Next);
  }
  void Prev() override {
    assert(Valid());
    if (direction_ == Direction::kForward && !SwitchToBackward()) return;
    Advance(&Child::Prev);
  }

  Status status() const override {
    for (const Child& c : children_) {
      Status s = c.status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  enum class Direction { kForward, kBackward };

  // After every child was positioned: fails if one of them failed, else heaps the valid ones.
  void StartHeap(Direction d) {
    direction_ = d;
    for (const Child& c : children_) {
      if (c.failed()) {
        Stop();
        return;
      }
    }
    heap_.Reset(d == Direction::kBackward);
    for (Child& c : children_) {
      if (c.valid()) heap_.Push(&c);
    }
    current_ = heap_.empty() ? nullptr : heap_.top();
  }

  // Moves the current child one step in the heap's direction and finds the new top.
  void Advance(void (Child::*move)()) {
    (current_->*move)();
    if (current_->failed()) {
      Stop();
      return;
    }
    heap_.TopMoved();
    current_ = heap_.empty() ? nullptr : heap_.top();
  }

  // Puts every other child on its first entry after the current one in (key, index) order,
  // so that the current child tops a min-heap. Returns false if a child failed.
  bool SwitchToForward() {
    const std::string_view k = current_->key();
    const size_t ci = current_->index();
    for (Child& c : children_) {
      if (&c == current_) continue;
      c.Seek(k);
      // (k, i) precedes (k, ci) when i < ci: those entries are behind us.
      if (c.index() < ci) {
        while (c.valid() && cmp_->Compare(c.key(), k) == 0) c.Next();
      }
      if (c.failed()) {
        Stop();
        return false;
      }
    }
    Child* const current = current_;
    StartHeap(Direction::kForward);
    assert(current_ == current);
    (void)current;
    return true;
  }

  // The mirror image: every other child on its last entry before the current one.
  bool SwitchToBackward() {
    const std::string_view k = current_->key();
    const size_t ci = current_->index();
    for (Child& c : children_) {
      if (&c == current_) continue;
      c.SeekForPrev(k);
      // (k, i) follows (k, ci) when i > ci: those entries are ahead of us.
      if (c.index() > ci) {
        while (c.valid() && cmp_->Compare(c.key(), k) == 0) c.Prev();
      }
      if (c.failed()) {
        Stop();
        return false;
      }
    }
    Child* const current = current_;
    StartHeap(Direction::kBackward);
    assert(current_ == current);
    (void)current;
    return true;
  }

  // An error ends the iteration: status() reports it from the failed child.
  void Stop() {
    heap_.Reset(direction_ == Direction::kBackward);
    current_ = nullptr;
  }

  const Comparator* const cmp_;
  std::vector<Child> children_;  // never resized after construction: the heap points into it
  ChildHeap heap_;
  // Invariant: current_ is null (not Valid) or heap_.top(); every valid child is in heap_ and
  // positioned at its first entry at or after current_ in the merged order when moving
  // forward (at or before it when moving backward).
  Child* current_ = nullptr;
  Direction direction_ = Direction::kForward;
};

}  // namespace

std::unique_ptr<InternalIterator> NewMergingIterator(
    const Comparator* cmp, std::vector<std::unique_ptr<InternalIterator>> children) {
  if (children.empty()) return NewEmptyInternalIterator();
  if (children.size() == 1) return std::move(children[0]);
  return std::make_unique<MergingIterator>(cmp, std::move(children));
}

}  // namespace shale
