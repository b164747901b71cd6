#include "iterator/two_level_iterator.h"

#include <cassert>
#include <string>
#include <utility>

namespace shale {

namespace {

class IndexedIterator final : public InternalIterator {
 public:
  IndexedIterator(std::unique_ptr<InternalIterator> index, IndexValueOpener open)
      : index_(std::move(index)), open_(std::move(open)) {}

  bool Valid() const override { return part_ != nullptr && part_->Valid(); }
  std::string_view key() const override { return part_->key(); }
  std::string_view value() const override { return part_->value(); }

  void SeekToFirst() override {
    index_->SeekToFirst();
    if (!OpenPart()) return;
    part_->SeekToFirst();
    SkipEmptyPartsForward();
  }
  void SeekToLast() override {
    index_->SeekToLast();
    if (!OpenPart()) return;
    part_->SeekToLast();
    SkipEmptyPartsBackward();
  }
  void Seek(std::string_view target) override {
    index_->Seek(target);
    if (!OpenPart()) return;
    part_->Seek(target);
    SkipEmptyPartsForward();
  }
  void SeekForPrev(std::string_view target) override {
    // The part of the first index key >= target holds the last entry <= target, or its
    // predecessors do; past the last index key, the last part does.
    index_->Seek(target);
    if (!index_->Valid() && index_->status().ok()) index_->SeekToLast();
    if (!OpenPart()) return;
    part_->SeekForPrev(target);
    SkipEmptyPartsBackward();
  }
  void Next() override {
    assert(Valid());
    part_->Next();
    SkipEmptyPartsForward();
  }
  void Prev() override {
    assert(Valid());
    part_->Prev();
    SkipEmptyPartsBackward();
  }

  Status status() const override {
    Status s = index_->status();
    if (!s.ok()) return s;
    if (!open_status_.ok()) return open_status_;
    return part_ != nullptr ? part_->status() : Status::OK();
  }

 private:
  // Makes part_ iterate the part of the index's current entry, keeping the open one when it
  // is the same part and healthy. Returns false, with part_ null, when the index is not on an
  // entry or the open failed (open_status_ then says why).
  bool OpenPart() {
    open_status_ = Status::OK();
    if (!index_->Valid()) {
      part_.reset();
      return false;
    }
    const std::string_view handle = index_->value();
    if (part_ != nullptr && handle == part_handle_ && part_->status().ok()) return true;
    part_.reset();
    Status s;
    std::unique_ptr<InternalIterator> part = open_(handle, &s);
    if (s.ok() && part == nullptr) {
      s = Status::Corruption("two-level iterator: the opener returned no iterator for a part");
    }
    if (!s.ok()) {
      open_status_ = std::move(s);
      return false;
    }
    part_ = std::move(part);
    part_handle_.assign(handle);
    return true;
  }

  // While the open part has no entry left in this direction (and did not fail), moves the
  // index on and opens the next part at its first entry. Stops at the end of the index, on an
  // entry, or on an error.
  void SkipEmptyPartsForward() {
    while (part_ != nullptr && !part_->Valid() && part_->status().ok()) {
      index_->Next();
      if (!OpenPart()) return;
      part_->SeekToFirst();
    }
  }

  void SkipEmptyPartsBackward() {
    while (part_ != nullptr && !part_->Valid() && part_->status().ok()) {
      index_->Prev();
      if (!OpenPart()) return;
      part_->SeekToLast();
    }
  }

  const std::unique_ptr<InternalIterator> index_;
  const IndexValueOpener open_;
  // Invariant: part_ is null or iterates the part named by part_handle_; open_status_ is the
  // error of the last failed open (part_ is then null), OK otherwise.
  std::unique_ptr<InternalIterator> part_;
  std::string part_handle_;
  Status open_status_;
};

}  // namespace

std::unique_ptr<InternalIterator> NewTwoLevelIterator(std::unique_ptr<InternalIterator> index,
                                                      IndexValueOpener open) {
  assert(index != nullptr && open);
  return std::make_unique<IndexedIterator>(std::move(index), std::move(open));
}

}  // namespace shale
