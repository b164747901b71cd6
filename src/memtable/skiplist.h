// SkipList: the ordered set under every memtable. Keys are small values (a pointer to an
// arena-allocated entry, or an integer in tests) ordered by a Comparator functor:
//   int operator()(const Key& a, const Key& b) const;   // < 0, 0, > 0
// Nodes live in an Arena and are never removed: the list only grows, and everything it holds is
// freed at once with the arena.
//
// Thread-safety: Insert() needs external synchronisation (one writer at a time). Readers
// (Contains, Iterator) need none: they may run on any number of threads concurrently with the
// writer, and see every key whose Insert() finished before they started, plus possibly some
// inserted concurrently. REQUIRES: the arena (and so the list) outlives every reader.
//
// Sorted input is cheap: the writer remembers where its last insert went (a "splice": the
// predecessors of the new node at every level), and a key that belongs right after the last
// one inserted is linked there with two comparisons instead of a search from the top.
//
// Invariants:
// 1. Level 0 links every node in strictly ascending order; the list at level i > 0 is a
//    subsequence of the list at level i - 1. nullptr ends a level (it acts as +infinity).
// 2. A node's key and all its next pointers are written before the node is published, and it is
//    published by a release store into its predecessor at level 0 first, then at higher levels;
//    readers load next pointers with acquire, so a reader that reaches a node sees it whole.
// 3. Nodes are never unlinked, moved or freed before the arena: once a reader can see a key, it
//    stays visible, at the same place in the order, for every later reader.
// 4. max_height_ only grows. A reader that sees a new height before the head's pointers at the
//    new levels simply finds nullptr there and drops to the level below.
// 5. (Writer only) splice_[i] is the predecessor at level i of the last inserted node's
//    position: splice_[i] == last_ for i < height(last_); otherwise splice_[i] is head_ or a node
//    before last_, and its successor at level i is nullptr or after last_. For levels at or
//    above max_height_, splice_[i] == head_.
// 6. append_only_ is true exactly when every inserted key was greater than all keys inserted
//    before it.
#ifndef SHALE_MEMTABLE_SKIPLIST_H_
#define SHALE_MEMTABLE_SKIPLIST_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <new>

#include "memtable/arena.h"

namespace shale {

template <typename Key, class Comparator>
class SkipList {
 private:
  struct Node;

 public:
  static constexpr int kMaxHeight = 12;

  // The list allocates its nodes from `arena`, which must outlive it.
  SkipList(Comparator cmp, Arena* arena);
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // Inserts `key`. REQUIRES: nothing that compares equal to `key` is in the list; external
  // synchronisation with other calls to Insert().
  void Insert(const Key& key);

  // For lists of pointers to arena entries (Key = const char*): allocates `bytes` for an entry
  // right behind a new node, so a search reads the node and the front of its entry from one
  // place in memory instead of two. Fill the entry, then InsertAllocated(entry). Writer only;
  // at most one allocated entry may be pending.
  char* AllocateEntry(size_t bytes);
  // Links the entry returned by the last AllocateEntry. Same requirements as Insert.
  void InsertAllocated(const char* entry);

  // True when an entry that compares equal to `key` is in the list. Any thread.
  bool Contains(const Key& key) const;

  // True while every key arrived in ascending order (each insert went after all others).
  // Any thread; a concurrent Insert may or may not be reflected.
  bool AppendOnly() const { return append_only_.load(std::memory_order_relaxed); }

  // Iterates over the list. Any thread. Keys inserted while the iterator is in use are seen
  // only if they land ahead of its position. Positions stay valid while the list lives.
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list) {}

    bool Valid() const { return node_ != nullptr; }
    // REQUIRES: Valid().
    const Key& key() const {
      assert(Valid());
      return node_->key;
    }
    // REQUIRES: Valid().
    void Next() {
      assert(Valid());
      node_ = node_->Next(0);
    }
    // REQUIRES: Valid(). O(log n): there are no back pointers.
    void Prev() {
      assert(Valid());
      node_ = list_->FindLessThan(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    // First entry >= target.
    void Seek(const Key& target) { node_ = list_->FindGreaterOrEqual(target, nullptr); }
    // Last entry <= target.
    void SeekForPrev(const Key& target) {
      node_ = list_->FindLessOrEqual(target);
      if (node_ == list_->head_) node_ = nullptr;
    }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    Node* node_ = nullptr;
  };

 private:
  // Each level holds about 1/kBranching of the nodes of the level below.
  static constexpr uint32_t kBranching = 4;

  int GetMaxHeight() const { return max_height_.load(std::memory_order_relaxed); }
  Node* NewNode(const Key& key, int height);
  int RandomHeight();
  bool Equal(const Key& a, const Key& b) const { return compare_(a, b) == 0; }
  // True when `key` belongs right after last_ (invariant 5 then makes splice_ its splice).
  bool BelongsAfterLast(const Key& key) const;

  // The first node >= key, or nullptr. Fills prev[0, GetMaxHeight()) with the last node before
  // it at each level when prev is not null.
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const;
  // The last node < key, or head_.
  Node* FindLessThan(const Key& key) const;
  // The last node <= key, or head_.
  Node* FindLessOrEqual(const Key& key) const;
  // The last node, or head_ when empty.
  Node* FindLast() const;

  Comparator const compare_;
  Arena* const arena_;
  Node* const head_;
  std::atomic<int> max_height_{1};  // height of the tallest node (invariant 4)
  std::atomic<bool> append_only_{true};  // invariant 6

  // Links node x (of `height`) at the position of its key. Writer only.
  void Link(Node* x, int height);

  // Writer-only state (invariant 5).
  Node* pending_ = nullptr;     // allocated by AllocateEntry, not linked yet
  int pending_height_ = 0;
  Node* splice_[kMaxHeight];
  Node* last_ = nullptr;  // the node inserted last, or nullptr while empty
  uint64_t rng_state_ = 0x9e3779b97f4a7c15ull;
};

// A node is allocated with room for `height` next pointers; next_ is declared with one.
template <typename Key, class Comparator>
struct SkipList<Key, Comparator>::Node {
  explicit Node(const Key& k) : key(k) {}

  Key const key;

  Node* Next(int level) { return next_[level].load(std::memory_order_acquire); }
  void SetNext(int level, Node* x) { next_[level].store(x, std::memory_order_release); }
  Node* NoBarrierNext(int level) { return next_[level].load(std::memory_order_relaxed); }
  void NoBarrierSetNext(int level, Node* x) { next_[level].store(x, std::memory_order_relaxed); }

 private:
  std::atomic<Node*> next_[1];
};

template <typename Key, class Comparator>
SkipList<Key, Comparator>::SkipList(Comparator cmp, Arena* arena)
    : compare_(cmp), arena_(arena), head_(NewNode(Key(), kMaxHeight)) {
  for (int i = 0; i < kMaxHeight; i++) {
    head_->NoBarrierSetNext(i, nullptr);
    splice_[i] = head_;
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::NewNode(const Key& key,
                                                                             int height) {
  char* mem = arena_->AllocateAligned(
      sizeof(Node) + sizeof(std::atomic<Node*>) * static_cast<size_t>(height - 1), alignof(Node));
  return new (mem) Node(key);
}

template <typename Key, class Comparator>
int SkipList<Key, Comparator>::RandomHeight() {
  // xorshift64*: cheap, and good enough to pick heights.
  int height = 1;
  while (height < kMaxHeight) {
    rng_state_ ^= rng_state_ >> 12;
    rng_state_ ^= rng_state_ << 25;
    rng_state_ ^= rng_state_ >> 27;
    uint32_t r = static_cast<uint32_t>((rng_state_ * 0x2545f4914f6cdd1dull) >> 32);
    if (r % kBranching != 0) break;
    height++;
  }
  return height;
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::BelongsAfterLast(const Key& key) const {
  if (last_ == nullptr || compare_(key, last_->key) <= 0) return false;
  Node* next = last_->NoBarrierNext(0);
  return next == nullptr || compare_(key, next->key) < 0;
}

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::Insert(const Key& key) {
  const int height = RandomHeight();
  Link(NewNode(key, height), height);
}

template <typename Key, class Comparator>
char* SkipList<Key, Comparator>::AllocateEntry(size_t bytes) {
  assert(pending_ == nullptr);
  const int height = RandomHeight();
  const size_t node_bytes =
      sizeof(Node) + sizeof(std::atomic<Node*>) * static_cast<size_t>(height - 1);
  char* mem = arena_->AllocateAligned(node_bytes + bytes, alignof(Node));
  char* entry = mem + node_bytes;
  pending_ = new (mem) Node(Key(entry));
  pending_height_ = height;
  return entry;
}

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::InsertAllocated(const char* entry) {
  assert(pending_ != nullptr && pending_->key == entry);
  (void)entry;
  Node* x = pending_;
  pending_ = nullptr;
  Link(x, pending_height_);
}

template <typename Key, class Comparator>
void SkipList<Key, Comparator>::Link(Node* x, int height) {
  const Key& key = x->key;
  if (!BelongsAfterLast(key)) {
    // While append-only, last_ is the largest key, so a key that does not go right after it
    // is smaller than some key already present.
    if (last_ != nullptr) append_only_.store(false, std::memory_order_relaxed);
    FindGreaterOrEqual(key, splice_);
  }
  // splice_ now holds the predecessors of `key` at every level.
  assert(splice_[0]->NoBarrierNext(0) == nullptr ||
         compare_(key, splice_[0]->NoBarrierNext(0)->key) < 0);

  if (height > GetMaxHeight()) {
    // splice_[i] == head_ for the new levels already (invariant 5). Readers that see the new
    // height before the node is linked find nullptr at the head and drop down (invariant 4).
    max_height_.store(height, std::memory_order_relaxed);
  }
  for (int i = 0; i < height; i++) {
    // Relaxed is enough for x's own pointers: the release store below publishes them.
    x->NoBarrierSetNext(i, splice_[i]->NoBarrierNext(i));
    splice_[i]->SetNext(i, x);
  }
  for (int i = 0; i < height; i++) splice_[i] = x;
  last_ = x;
}

template <typename Key, class Comparator>
bool SkipList<Key, Comparator>::Contains(const Key& key) const {
  Node* x = FindGreaterOrEqual(key, nullptr);
  return x != nullptr && Equal(key, x->key);
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindGreaterOrEqual(
    const Key& key, Node** prev) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && compare_(next->key, key) < 0) {
      x = next;  // keep searching in this level
      continue;
    }
    if (prev != nullptr) prev[level] = x;
    if (level == 0) return next;
    level--;
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLessThan(
    const Key& key) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && compare_(next->key, key) < 0) {
      x = next;
      continue;
    }
    if (level == 0) return x;
    level--;
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLessOrEqual(
    const Key& key) const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && compare_(next->key, key) <= 0) {
      x = next;
      continue;
    }
    if (level == 0) return x;
    level--;
  }
}

template <typename Key, class Comparator>
typename SkipList<Key, Comparator>::Node* SkipList<Key, Comparator>::FindLast() const {
  Node* x = head_;
  int level = GetMaxHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr) {
      x = next;
      continue;
    }
    if (level == 0) return x;
    level--;
  }
}

}  // namespace shale

#endif  // SHALE_MEMTABLE_SKIPLIST_H_
