#include "table/table_reader.h"

#include <algorithm>

#include "table/global_seqno_iterator.h"
#include "table/two_level_iterator.h"

namespace shale {
TableReader::TableReader(std::unique_ptr<RandomAccessFile> file, uint64_t file_size,
                         std::string path, uint64_t cache_id,
                         const InternalKeyComparator* comparator, BlockSource* block_source)
    : file_(std::move(file)),
      file_size_(file_size),
      path_(std::move(path)),
      cache_id_(cache_id),
      comparator_(comparator),
      block_source_(block_source) {}

TableReader::~TableReader() = default;

Status TableReader::DecodeHandle(std::string_view value, uint64_t block_offset,
                                 BlockHandle* handle) const {
  if (!handle->DecodeFrom(&value) || !value.empty()) {
    return BlockCorruption(path_, block_offset, "bad block handle in index");
  }
  return Status::OK();
}

size_t TableReader::MaxBlockSize() const {
  if (props_.max_block_size == 0 || props_.max_block_size > kMaxBlockSize) return kMaxBlockSize;
  return static_cast<size_t>(props_.max_block_size);
}

Status TableReader::LoadBlock(BlockKind kind, const BlockHandle& handle, bool verify_checksums,
                              size_t max_size, std::unique_ptr<LoadedBlock>* block,
                              LoadedBlock::Memory memory) const {
  BlockReadLimits limits;
  limits.file_size = file_size_ - Footer::kEncodedLength;  // blocks end before the footer
  limits.max_uncompressed_size = max_size;
  // Kept blocks get restart prefixes (Block::BuildRestartPrefixes): index blocks for their
  // binary search, data blocks to find a key's restart interval without reading restart keys.
  const InternalKeyComparator* search_cmp =
      memory == LoadedBlock::Memory::kHugePages ? comparator_ : nullptr;
  Status s;
  if (memory == LoadedBlock::Memory::kHugePages && !IsFilterKind(kind)) {
    // Straight from the file into the block's final memory (no copy).
    s = CheckBlockHandle(path_, handle, limits);
    if (!s.ok()) return s;
    Status read_status;
    auto read = [&](char* buffer, std::string* uncompressed, std::string_view* contents,
                    bool* in_buffer) {
      read_status = ReadBlockInto(file_.get(), path_, handle, limits, verify_checksums,
                                  ThreadLocalDecompressor(), buffer, uncompressed, contents,
                                  in_buffer);
      return read_status;
    };
    std::atomic<uint32_t>& seen =
        kind == BlockKind::kData ? data_block_restarts_ : index_block_restarts_;
    s = LoadedBlock::ReadBlockInPlace(static_cast<size_t>(handle.size()) + kBlockTrailerSize,
                                      search_cmp, read, block,
                                      seen.load(std::memory_order_relaxed));
    if (!read_status.ok()) return read_status;  // already names the file and offset
    if (s.ok() && search_cmp != nullptr) {
      const uint32_t restarts = (*block)->block()->num_restarts();
      uint32_t known = seen.load(std::memory_order_relaxed);
      while (restarts > known &&
             !seen.compare_exchange_weak(known, restarts, std::memory_order_relaxed)) {
      }
    }
  } else {
    std::string contents;
    s = ReadBlock(file_.get(), path_, handle, limits, verify_checksums, ThreadLocalDecompressor(),
                  &contents);
    if (!s.ok()) return s;
    s = IsFilterKind(kind)
            ? LoadedBlock::MakeFilter(std::move(contents), memory, block)
            : LoadedBlock::MakeBlock(std::move(contents), memory, block, search_cmp);
  }
  if (!s.ok()) {
    return AnnotateBlockError(Status(s.code(), s.subcode(), BlockKindName(kind), s.message()),
                              path_, handle.offset());
  }
  return Status::OK();
}

Status TableReader::GetBlock(const TableReadOptions& options, BlockKind kind,
                             const BlockHandle& handle,
                             std::shared_ptr<const LoadedBlock>* block) const {
  BlockRequest request;
  request.key = BlockKey{cache_id_, handle.offset()};
  request.kind = kind;
  request.fill_cache = options.fill_cache;
  // A block a cache keeps goes to huge-page memory (cached reads are TLB-bound); a scan's block
  // (fill_cache false), or any block without a cache, is used once and stays on the ordinary
  // heap.
  const bool kept = options.fill_cache && block_source_ != UncachedBlockSource();
  return block_source_->GetBlock(
      request,
      [&](std::unique_ptr<LoadedBlock>* loaded) {
        return LoadBlock(kind, handle, options.verify_checksums, MaxBlockSize(), loaded,
                         kept ? LoadedBlock::Memory::kHugePages : LoadedBlock::Memory::kHeap);
      },
      block);
}

const Block* TableReader::IndexBlock(const TableReadOptions& options,
                                     std::shared_ptr<const LoadedBlock>* holder,
                                     Status* status) const {
  if (!fetch_index_and_filter_) return index_->block();
  *status = GetBlock(options, BlockKind::kIndex, index_handle_, holder);
  return status->ok() ? (*holder)->block() : nullptr;
}

const LoadedBlock* TableReader::FilterBlock(const TableReadOptions& options,
                                            std::shared_ptr<const LoadedBlock>* holder,
                                            Status* status) const {
  if (!use_filter_ || filter_kind_ == FilterKind::kNone) return nullptr;
  if (!fetch_index_and_filter_) return filter_.get();
  const BlockKind kind =
      filter_kind_ == FilterKind::kFull ? BlockKind::kFilter : BlockKind::kFilterIndex;
  *status = GetBlock(options, kind, filter_handle_, holder);
  return status->ok() ? holder->get() : nullptr;
}

std::unique_ptr<InternalIterator> TableReader::NewIndexIterator(
    const TableReadOptions& options) const {
  std::shared_ptr<const LoadedBlock> holder;
  Status s;
  const Block* index = IndexBlock(options, &holder, &s);
  if (index == nullptr) return NewEmptyInternalIterator(s);
  std::unique_ptr<InternalIterator> top;
  if (holder == nullptr) {
    top = index->NewIterator(comparator_);
  } else {
    top = NewHoldingIterator(std::move(holder), index->NewIterator(comparator_));
  }
  if (!two_level_index_) return top;
  BlockOpener open = [this, options](const BlockHandle& h,
                                     std::shared_ptr<const LoadedBlock>* block) {
    return GetBlock(options, BlockKind::kIndexPartition, h, block);
  };
  return std::make_unique<TwoLevelIterator>(std::move(top), std::move(open), comparator_, path_,
                                            index_handle_.offset());
}

std::unique_ptr<InternalIterator> TableReader::NewIterator(
    const TableReadOptions& options) const {
  BlockOpener open = [this, options](const BlockHandle& h,
                                     std::shared_ptr<const LoadedBlock>* block) {
    return GetBlock(options, BlockKind::kData, h, block);
  };
  std::optional<uint64_t> index_offset;
  if (!two_level_index_) index_offset = index_handle_.offset();
  auto it = std::make_unique<TwoLevelIterator>(NewIndexIterator(options), std::move(open),
                                               comparator_, path_, index_offset);
  if (global_seqno_ == 0) return it;
  return std::make_unique<GlobalSeqnoIterator>(std::move(it), comparator_, global_seqno_);
}

Status TableReader::SampleKeys(size_t max_keys, std::vector<std::string>* keys) const {
  keys->clear();
  std::shared_ptr<const LoadedBlock> holder;
  Status s;
  TableReadOptions options;
  options.fill_cache = false;
  const Block* index = IndexBlock(options, &holder, &s);
  if (index == nullptr) return s;
  std::vector<std::string> all;
  std::unique_ptr<InternalIterator> top = index->NewIterator(comparator_);
  for (top->SeekToFirst(); top->Valid(); top->Next()) all.emplace_back(top->key());
  if (!top->status().ok()) return AnnotateBlockError(top->status(), path_, index_handle_.offset());
  if (all.size() <= max_keys || max_keys == 0) {
    keys->swap(all);
    return Status::OK();
  }
  keys->reserve(max_keys);
  for (size_t i = 0; i < max_keys; i++) {
    keys->push_back(std::move(all[(i * all.size()) / max_keys]));
  }
  return Status::OK();
}

std::unique_ptr<InternalIterator> TableReader::NewRangeTombstoneIterator() const {
  if (range_del_block_ == nullptr) return NewEmptyInternalIterator();
  std::unique_ptr<InternalIterator> it = range_del_block_->NewIterator(comparator_);
  if (global_seqno_ == 0) return it;
  return std::make_unique<GlobalSeqnoIterator>(std::move(it), comparator_, global_seqno_);
}

bool TableReader::KeyMayMatch(const TableReadOptions& options, std::string_view internal_key,
                              Status* status) const {
  const std::string_view user_key = ExtractUserKey(internal_key);
  std::shared_ptr<const LoadedBlock> holder;
  const LoadedBlock* filter = FilterBlock(options, &holder, status);
  if (filter == nullptr) return status->ok();  // no filter (or an error: stop)
  if (filter_kind_ == FilterKind::kFull) return filter->filter()->MayMatch(user_key);
  std::unique_ptr<BlockIter> it = filter->block()->NewIterator(comparator_);
  it->Seek(internal_key);
  if (!it->Valid()) {
    // Past the last partition's key: no entry of the table is >= internal_key.
    if (!it->status().ok()) {
      *status = AnnotateBlockError(it->status(), path_, filter_handle_.offset());
    }
    return false;
  }
  BlockHandle handle;
  *status = DecodeHandle(it->value(), filter_handle_.offset(), &handle);
  if (!status->ok()) return false;
  std::shared_ptr<const LoadedBlock> partition;
  *status = GetBlock(options, BlockKind::kFilterPartition, handle, &partition);
  if (!status->ok()) return false;
  return partition->filter()->MayMatch(user_key);
}

Status TableReader::SearchDataBlock(const TableReadOptions& options, const BlockHandle& handle,
                                    std::string_view internal_key, TableGetCallback callback,
                                    bool* done) const {
  *done = true;
  std::shared_ptr<const LoadedBlock> block;
  Status s = GetBlock(options, BlockKind::kData, handle, &block);
  if (!s.ok()) return s;
  BlockIter it(block->block(), comparator_);  // on the stack: no allocation per lookup
  if (block->block()->has_hash_index()) {
    it.SeekForGet(internal_key);  // when false, !Valid(): the next block may still hold it
  } else {
    it.Seek(internal_key);
  }
  const Comparator* ucmp = comparator_->user_comparator();
  const std::string_view user_key = ExtractUserKey(internal_key);
  for (; it.Valid(); it.Next()) {
    if (!ucmp->Equal(ExtractUserKey(it.key()), user_key)) return Status::OK();
    if (!callback(it.key(), it.value())) return Status::OK();
  }
  if (!it.status().ok()) return AnnotateBlockError(it.status(), path_, handle.offset());
  *done = false;  // ran off the end of the block while the key's versions may go on
  return Status::OK();
}

Status TableReader::Get(const TableReadOptions& options, std::string_view internal_key,
                        TableGetCallback callback) const {
  Status s;
  if (global_seqno_ != 0) {
    // Every entry reads as sequence global_seqno_: invisible below it; otherwise found by the
    // stored keys (sequence 0, visible to any snapshot) and handed on rewritten.
    if (ExtractSequence(internal_key) < global_seqno_) return s;
    std::string rewritten;
    auto rewrite = [&](std::string_view stored_key, std::string_view value) {
      RewriteSequence(stored_key, global_seqno_, &rewritten);
      return callback(rewritten, value);
    };
    return GetStored(options, internal_key, rewrite);
  }
  return GetStored(options, internal_key, callback);
}

Status TableReader::GetStored(const TableReadOptions& options, std::string_view internal_key,
                              TableGetCallback callback) const {
  Status s;
  if (!KeyMayMatch(options, internal_key, &s)) return s;
  if (!two_level_index_ && !fetch_index_and_filter_) {
    // The index block is kept by this reader: search it with an iterator on the stack.
    BlockIter index(index_->block(), comparator_);
    return SearchIndex(options, &index, internal_key, callback);
  }
  std::unique_ptr<InternalIterator> index = NewIndexIterator(options);
  return SearchIndex(options, index.get(), internal_key, callback);
}

Status TableReader::SearchIndex(const TableReadOptions& options, InternalIterator* index,
                                std::string_view internal_key, TableGetCallback callback) const {
  Status s;
  const Comparator* ucmp = comparator_->user_comparator();
  const std::string_view user_key = ExtractUserKey(internal_key);
  for (index->Seek(internal_key); index->Valid(); index->Next()) {
    BlockHandle handle;
    s = DecodeHandle(index->value(), index_handle_.offset(), &handle);
    if (!s.ok()) return s;
    bool done = false;
    s = SearchDataBlock(options, handle, internal_key, callback, &done);
    if (!s.ok() || done) return s;
    // The key's versions continue into the next block only if this block's index key -- which
    // is then the block's last key, unshortened -- has the same user key.
    if (!ucmp->Equal(ExtractUserKey(index->key()), user_key)) return Status::OK();
  }
  s = index->status();
  if (!s.ok() && !two_level_index_) s = AnnotateBlockError(s, path_, index_handle_.offset());
  return s;
}

uint64_t TableReader::ApproximateOffsetOf(std::string_view internal_key) const {
  TableReadOptions options;
  options.fill_cache = false;
  std::unique_ptr<InternalIterator> index = NewIndexIterator(options);
  index->Seek(internal_key);
  uint64_t data_offset = props_.data_size;  // past the last key (or unreadable index)
  BlockHandle handle;
  if (index->Valid() &&
      DecodeHandle(index->value(), 0, &handle).ok()) {
    data_offset = std::min(handle.offset(), props_.data_size);
  }
  if (props_.data_size == 0) return 0;
  // Data blocks come first, so scale the offset in the data to the whole file: the end of the
  // data maps to the end of the file.
  return static_cast<uint64_t>(static_cast<unsigned __int128>(data_offset) * file_size_ /
                               props_.data_size);
}

size_t TableReader::ApproximateMemoryUsage() const {
  size_t usage = sizeof(*this) + path_.capacity();
  // Pinned in the block source, they are charged there.
  usage += uncharged_pinned_bytes_;
  if (!index_and_filter_in_source_) {
    if (index_ != nullptr) usage += index_->charge();
    if (filter_ != nullptr) usage += filter_->charge();
  }
  if (range_del_block_ != nullptr) usage += range_del_block_->ApproximateMemoryUsage();
  for (const std::string* s :
       {&props_.compression_name, &props_.comparator_name, &props_.filter_policy_name,
        &props_.smallest_user_key, &props_.largest_user_key, &props_.smallest_range_del_key,
        &props_.largest_range_del_key}) {
    usage += s->capacity();
  }
  return usage;
}

}  // namespace shale
