#include "bulk/run_merger.h"

#include <utility>

namespace shale::bulk {

RunMerger::RunMerger(std::vector<std::unique_ptr<RunCursor>> runs, const Comparator* comparator,
                     bool bytewise, const std::string* upper)
    : comparator_(comparator), bytewise_(bytewise), upper_(upper), runs_(std::move(runs)) {
  for (size_t i = 0; i < runs_.size(); i++) {
    if (runs_[i]->Valid()) {
      heap_.push_back(Node{runs_[i].get(), static_cast<int>(i)});
    } else {
      NoteError(*runs_[i]);
    }
  }
  for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  Settle();
}

bool RunMerger::Before(const Node& a, const Node& b) const {
  int c;
  if (bytewise_) {
    const uint64_t pa = a.cursor->prefix(), pb = b.cursor->prefix();
    if (pa != pb) return pa < pb;
    c = a.cursor->key().compare(b.cursor->key());
  } else {
    c = comparator_->Compare(a.cursor->key(), b.cursor->key());
  }
  if (c != 0) return c < 0;
  return a.age > b.age;
}

bool RunMerger::SameKey(const Node& a, const Node& b) const {
  if (bytewise_) {
    return a.cursor->prefix() == b.cursor->prefix() && a.cursor->key() == b.cursor->key();
  }
  return comparator_->Compare(a.cursor->key(), b.cursor->key()) == 0;
}

void RunMerger::SiftDown(size_t i) {
  const size_t n = heap_.size();
  const Node node = heap_[i];
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && Before(heap_[child + 1], heap_[child])) child++;
    if (!Before(heap_[child], node)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = node;
}

void RunMerger::RemoveAt(size_t i) {
  heap_[i] = heap_.back();
  heap_.pop_back();
  if (i >= heap_.size()) return;
  // The moved node may belong higher up (not below the root's children, see Next) or lower.
  while (i > 0 && Before(heap_[i], heap_[(i - 1) / 2])) {
    std::swap(heap_[i], heap_[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  SiftDown(i);
}

void RunMerger::NoteError(const RunCursor& cursor) {
  Status s = cursor.status();
  if (!s.ok() && status_.ok()) status_ = std::move(s);
}

void RunMerger::AdvanceAt(size_t i) {
  RunCursor* c = heap_[i].cursor;
  c->Next();
  if (c->Valid()) {
    SiftDown(i);
  } else {
    NoteError(*c);
    RemoveAt(i);
  }
}

void RunMerger::Next() {
  // Older entries of the current key sit among the root's descendants; the smallest of them
  // is always a child of the root. Drop them while the root still holds the key.
  for (;;) {
    const size_t n = heap_.size();
    size_t child = 1;
    if (child >= n) break;
    if (child + 1 < n && Before(heap_[child + 1], heap_[child])) child++;
    if (!SameKey(heap_[child], heap_[0])) break;
    duplicates_++;
    AdvanceAt(child);
  }
  AdvanceAt(0);
  Settle();
}

void RunMerger::Settle() {
  valid_ = !heap_.empty() && status_.ok() &&
           (upper_ == nullptr || comparator_->Compare(key(), *upper_) < 0);
}

}  // namespace shale::bulk
