// TableReader::VerifyChecksums: reads every block of the file straight from the file (never
// through the block source, which could hold a good copy of a block that has since gone bad),
// verifies its checksum and parses every entry.
#include <vector>

#include "table/table_reader.h"

namespace shale {

namespace {

// Reads every entry of `block`, so that a malformed one shows.
Status ScanBlock(const Block& block, const Comparator* cmp) {
  std::unique_ptr<BlockIter> it = block.NewIterator(cmp);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
  }
  return it->status();
}

}  // namespace

Status TableReader::VerifyChecksums() const {
  struct Meta {
    BlockHandle handle;
    BlockKind parse_as;     // kFilterPartition: a bloom filter; otherwise a block
    const Comparator* cmp;  // orders the block's keys
    size_t max_size;        // the properties and meta-index are not counted in max_block_size
  };
  const size_t max = MaxBlockSize();
  std::vector<Meta> metas = {
      {metaindex_handle_, BlockKind::kData, BytewiseComparator(), kMaxBlockSize},
      {properties_handle_, BlockKind::kData, BytewiseComparator(), kMaxBlockSize},
      {index_handle_, BlockKind::kIndexPartition, comparator_, max}};
  if (filter_kind_ == FilterKind::kFull) {
    metas.push_back({filter_handle_, BlockKind::kFilterPartition, nullptr, max});
  } else if (filter_kind_ == FilterKind::kPartitioned) {
    metas.push_back({filter_handle_, BlockKind::kIndexPartition, comparator_, max});
  }
  if (range_del_block_ != nullptr) {
    metas.push_back({range_del_handle_, BlockKind::kData, comparator_, max});
  }
  for (const Meta& m : metas) {
    std::unique_ptr<LoadedBlock> block;
    Status s = LoadBlock(m.parse_as, m.handle, /*verify_checksums=*/true, m.max_size, &block);
    if (!s.ok()) return s;
    if (block->block() != nullptr) {
      s = ScanBlock(*block->block(), m.cmp);
      if (!s.ok()) return AnnotateBlockError(s, path_, m.handle.offset());
    }
  }
  Status s = VerifyIndexAndData();
  if (s.ok()) s = VerifyFilterPartitions();
  return s;
}

Status TableReader::VerifyDataBlocks(const Block& index, uint64_t index_offset) const {
  std::unique_ptr<BlockIter> it = index.NewIterator(comparator_);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    BlockHandle handle;
    Status s = DecodeHandle(it->value(), index_offset, &handle);
    std::unique_ptr<LoadedBlock> block;
    if (s.ok()) s = LoadBlock(BlockKind::kData, handle, true, MaxBlockSize(), &block);
    if (!s.ok()) return s;
    s = ScanBlock(*block->block(), comparator_);
    if (!s.ok()) return AnnotateBlockError(s, path_, handle.offset());
  }
  Status s = it->status();
  return s.ok() ? s : AnnotateBlockError(s, path_, index_offset);
}

Status TableReader::VerifyIndexAndData() const {
  std::unique_ptr<LoadedBlock> loaded;  // when the reader does not keep the index
  const Block* index = index_ != nullptr ? index_->block() : nullptr;
  if (index == nullptr) {
    Status s = LoadBlock(BlockKind::kIndex, index_handle_, true, MaxBlockSize(), &loaded);
    if (!s.ok()) return s;
    index = loaded->block();
  }
  if (!two_level_index_) return VerifyDataBlocks(*index, index_handle_.offset());
  std::unique_ptr<BlockIter> it = index->NewIterator(comparator_);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    BlockHandle handle;
    Status s = DecodeHandle(it->value(), index_handle_.offset(), &handle);
    std::unique_ptr<LoadedBlock> partition;
    if (s.ok()) {
      s = LoadBlock(BlockKind::kIndexPartition, handle, true, MaxBlockSize(), &partition);
    }
    if (s.ok()) s = VerifyDataBlocks(*partition->block(), handle.offset());
    if (!s.ok()) return s;
  }
  Status s = it->status();
  return s.ok() ? s : AnnotateBlockError(s, path_, index_handle_.offset());
}

Status TableReader::VerifyFilterPartitions() const {
  if (filter_kind_ != FilterKind::kPartitioned) return Status::OK();
  std::unique_ptr<LoadedBlock> loaded;  // when the reader does not keep the top level
  const Block* top = filter_ != nullptr ? filter_->block() : nullptr;
  if (top == nullptr) {
    Status s =
        LoadBlock(BlockKind::kFilterIndex, filter_handle_, true, MaxBlockSize(), &loaded);
    if (!s.ok()) return s;
    top = loaded->block();
  }
  std::unique_ptr<BlockIter> it = top->NewIterator(comparator_);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    BlockHandle handle;
    Status s = DecodeHandle(it->value(), filter_handle_.offset(), &handle);
    std::unique_ptr<LoadedBlock> partition;
    if (s.ok()) {
      s = LoadBlock(BlockKind::kFilterPartition, handle, true, MaxBlockSize(), &partition);
    }
    if (!s.ok()) return s;
  }
  Status s = it->status();
  return s.ok() ? s : AnnotateBlockError(s, path_, filter_handle_.offset());
}

}  // namespace shale
