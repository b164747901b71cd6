#include "table/two_level_iterator.h"


namespace shale {

TwoLevelIterator::TwoLevelIterator(std::unique_ptr<InternalIterator> index, BlockOpener open,
                                   const Comparator* comparator, std::string_view path,
                                   std::optional<uint64_t> index_block_offset)
    : index_(std::move(index)),
      open_(std::move(open)),
      comparator_(comparator),
      path_(path),
      index_block_offset_(index_block_offset) {}

TwoLevelIterator::~TwoLevelIterator() = default;

Status TwoLevelIterator::status() const {
  Status s = index_->status();
  if (!s.ok()) {
    return index_block_offset_ ? AnnotateBlockError(s, path_, *index_block_offset_) : s;
  }
  if (!status_.ok()) return status_;
  if (data_ != nullptr && !data_->status().ok()) {
    return AnnotateBlockError(data_->status(), path_, data_handle_.offset());
  }
  return Status::OK();
}

bool TwoLevelIterator::Failed() const {
  return !status_.ok() || !index_->status().ok() ||
         (data_ != nullptr && !data_->status().ok());
}

void TwoLevelIterator::ClearDataBlock() {
  data_.reset();
  block_.reset();
}

void TwoLevelIterator::SetDataBlock(std::shared_ptr<const LoadedBlock> block,
                                    const BlockHandle& handle) {
  data_.reset();
  block_ = std::move(block);
  data_handle_ = handle;
  data_ = block_->block()->NewIterator(comparator_);
}

void TwoLevelIterator::InitDataBlock() {
  if (!index_->Valid()) {
    ClearDataBlock();
    return;
  }
  std::string_view encoded = index_->value();
  BlockHandle handle;
  if (!handle.DecodeFrom(&encoded) || !encoded.empty()) {
    ClearDataBlock();
    status_ = index_block_offset_
                  ? BlockCorruption(path_, *index_block_offset_, "bad block handle in index")
                  : Status::Corruption(path_, "bad block handle in index partition");
    return;
  }
  if (data_ != nullptr && handle == data_handle_) return;  // already there
  std::shared_ptr<const LoadedBlock> block;
  Status s = open_(handle, &block);
  if (!s.ok()) {
    ClearDataBlock();
    status_ = s;
    return;
  }
  SetDataBlock(std::move(block), handle);
}

void TwoLevelIterator::SkipEmptyDataBlocksForward() {
  while (data_ == nullptr || !data_->Valid()) {
    if (Failed() || !index_->Valid()) {
      if (!Failed()) ClearDataBlock();
      return;
    }
    index_->Next();
    InitDataBlock();
    if (data_ != nullptr) data_->SeekToFirst();
  }
}

void TwoLevelIterator::SkipEmptyDataBlocksBackward() {
  while (data_ == nullptr || !data_->Valid()) {
    if (Failed() || !index_->Valid()) {
      if (!Failed()) ClearDataBlock();
      return;
    }
    index_->Prev();
    InitDataBlock();
    if (data_ != nullptr) data_->SeekToLast();
  }
}

void TwoLevelIterator::SeekToFirst() {
  status_ = Status::OK();
  index_->SeekToFirst();
  InitDataBlock();
  if (data_ != nullptr) data_->SeekToFirst();
  SkipEmptyDataBlocksForward();
}

void TwoLevelIterator::SeekToLast() {
  status_ = Status::OK();
  index_->SeekToLast();
  InitDataBlock();
  if (data_ != nullptr) data_->SeekToLast();
  SkipEmptyDataBlocksBackward();
}

void TwoLevelIterator::Seek(std::string_view target) {
  status_ = Status::OK();
  index_->Seek(target);
  InitDataBlock();
  if (data_ != nullptr) data_->Seek(target);
  SkipEmptyDataBlocksForward();
}

void TwoLevelIterator::SeekForPrev(std::string_view target) {
  status_ = Status::OK();
  // The block whose index key is the first >= target holds the last entry <= target, or that
  // entry is the last one of an earlier block. Past the last index key, every entry is < target.
  index_->Seek(target);
  if (!index_->Valid() && index_->status().ok()) index_->SeekToLast();
  InitDataBlock();
  if (data_ != nullptr) data_->SeekForPrev(target);
  SkipEmptyDataBlocksBackward();
}

void TwoLevelIterator::Next() {
  data_->Next();
  SkipEmptyDataBlocksForward();
}

void TwoLevelIterator::Prev() {
  data_->Prev();
  SkipEmptyDataBlocksBackward();
}

}  // namespace shale
