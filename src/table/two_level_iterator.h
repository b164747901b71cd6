// TwoLevelIterator: iterates over the entries of the blocks an index iterator points to. The
// index iterator's values are encoded BlockHandles, in key order; each index key K of block B
// satisfies: last key of B <= K < first key of the next block (index_builder.h). A table uses
// it twice: top-level index -> index partitions (a two-level index), and index -> data blocks.
//
// Errors: the iterator stops at the first error (a block that fails to load, a malformed
// handle, an entry that does not parse) and reports it from status(); errors inside a block
// name the file and the block's offset.
//
// Thread-safety: one thread at a time (InternalIterator's rule). The iterator keeps the block
// it is in alive (std::shared_ptr) and borrows the comparator and the opener's captures.
#ifndef SHALE_TABLE_TWO_LEVEL_ITERATOR_H_
#define SHALE_TABLE_TWO_LEVEL_ITERATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/internal_iterator.h"
#include "shale/comparator.h"
#include "table/block.h"
#include "table/block_source.h"
#include "table/format.h"

namespace shale {

// Gets the block at a handle (through a BlockSource). Errors name the file and offset.
using BlockOpener =
    std::function<Status(const BlockHandle& handle, std::shared_ptr<const LoadedBlock>* block)>;

class TwoLevelIterator final : public InternalIterator {
 public:
  // `index_block_offset`: when the index iterator is a plain block iterator, the offset of its
  // block, so that its errors can name it; nullopt when it names its own errors.
  TwoLevelIterator(std::unique_ptr<InternalIterator> index, BlockOpener open,
                   const Comparator* comparator, std::string_view path,
                   std::optional<uint64_t> index_block_offset);
  ~TwoLevelIterator() override;

  bool Valid() const override { return data_ != nullptr && data_->Valid(); }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void Next() override;
  void Prev() override;
  std::string_view key() const override { return data_->key(); }
  std::string_view value() const override { return data_->value(); }
  Status status() const override;

 private:
  // Points data_ at the block of the index's current entry (keeps it if it is the same block).
  void InitDataBlock();
  void SetDataBlock(std::shared_ptr<const LoadedBlock> block, const BlockHandle& handle);
  void ClearDataBlock();
  // Move across blocks until data_ is on an entry, the index ends, or an error stops us.
  void SkipEmptyDataBlocksForward();
  void SkipEmptyDataBlocksBackward();
  bool Failed() const;

  const std::unique_ptr<InternalIterator> index_;
  const BlockOpener open_;
  const Comparator* const comparator_;
  const std::string path_;
  const std::optional<uint64_t> index_block_offset_;

  // Invariant: data_ is null or iterates over block_, the block at data_handle_.
  std::shared_ptr<const LoadedBlock> block_;
  std::unique_ptr<BlockIter> data_;  // declared after block_, so destroyed first
  BlockHandle data_handle_;
  Status status_;  // an error met while moving between blocks
};

}  // namespace shale

#endif  // SHALE_TABLE_TWO_LEVEL_ITERATOR_H_
