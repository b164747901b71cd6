// TableReader::Open: the footer, then the tail in one read, then the blocks the reader keeps.
#include "absl/strings/str_cat.h"
#include "shale/table_options.h"
#include "table/meta_blocks.h"
#include "table/table_reader.h"
#include "util/absl_compat.h"

namespace shale {

// The steps of opening one table, in order. Lives only during Open.
class TableReader::Opener {
 public:
  Opener(TableReader* r, const TableReaderOptions& options) : r_(r), options_(options) {}

  Status Run() {
    Status s = ReadFooter();
    if (s.ok()) s = ReadTail();
    if (s.ok()) s = ReadMetaIndex();
    if (s.ok()) s = ReadProperties();
    if (s.ok()) s = CheckProperties();
    if (s.ok()) s = LoadIndex();
    if (s.ok()) s = LoadFilter();
    if (s.ok()) s = LoadRangeDeletions();
    return s;
  }

 private:
  Status ReadFooter() {
    const uint64_t size = r_->file_size_;
    if (size < Footer::kEncodedLength) {
      return Status::Corruption(
          r_->path_, absl::StrCat("file of ", size, " bytes is too short to be a table"));
    }
    footer_offset_ = size - Footer::kEncodedLength;
    char buf[Footer::kEncodedLength];
    std::string_view data;
    Status s = r_->file_->Read(footer_offset_, sizeof(buf), &data, buf);
    if (!s.ok()) return s;
    s = footer_.DecodeFrom(data, r_->path_, footer_offset_);
    if (!s.ok()) return s;
    r_->index_handle_ = footer_.index_handle;
    r_->metaindex_handle_ = footer_.metaindex_handle;
    return Status::OK();
  }

  Status FooterCorruption(std::string_view what) const {
    return Status::Corruption(absl::StrCat(ToAbsl(r_->path_), ": footer at offset ",
                                           footer_offset_),
                              what);
  }

  // The tail runs from the index block (its first block) to the footer.
  Status ReadTail() {
    tail_start_ = footer_.index_handle.offset();
    if (tail_start_ > footer_offset_ || !InTail(footer_.index_handle) ||
        !InTail(footer_.metaindex_handle)) {
      return FooterCorruption("index or meta-index handle outside the file");
    }
    const uint64_t n = footer_offset_ - tail_start_;
    tail_.resize(n);  // bounded by the file size
    std::string_view data;
    Status s = r_->file_->Read(tail_start_, n, &data, tail_.data());
    if (!s.ok()) return s;
    if (data.size() != n) {
      return Status::Corruption(r_->path_, absl::StrCat("truncated read of the table's tail at ",
                                                        tail_start_));
    }
    if (data.data() != tail_.data()) tail_.assign(data.data(), data.size());
    return Status::OK();
  }

  bool InTail(const BlockHandle& h) const {
    return h.offset() >= tail_start_ && h.offset() <= footer_offset_ &&
           h.size() <= footer_offset_ - h.offset() &&
           footer_offset_ - h.offset() - h.size() >= kBlockTrailerSize;
  }

  // The uncompressed contents of the block at `h`, which must lie in the tail.
  Status TailBlock(const BlockHandle& h, std::string* contents) const {
    if (!InTail(h)) {
      return BlockCorruption(r_->path_, h.offset(), "meta block outside the table's tail");
    }
    std::string_view raw(tail_.data() + (h.offset() - tail_start_),
                         h.size() + kBlockTrailerSize);
    return DecodeRawBlock(raw, r_->path_, h, r_->MaxBlockSize(), /*verify_checksums=*/true,
                          ThreadLocalDecompressor(), contents);
  }

  // A block of the tail, parsed. Errors name the file, the offset and `what` the block is.
  Status LoadBlock(const BlockHandle& h, std::string_view what, std::unique_ptr<Block>* block) {
    std::string contents;
    Status s = TailBlock(h, &contents);
    if (!s.ok()) return s;
    s = Block::Create(std::move(contents), block);
    if (!s.ok()) return Annotate(s, h, what);
    return Status::OK();
  }

  Status Annotate(const Status& s, const BlockHandle& h, std::string_view what) const {
    return AnnotateBlockError(
        Status(s.code(), s.subcode(), what, s.message()), r_->path_, h.offset());
  }

  Status ReadMetaIndex() {
    std::unique_ptr<Block> block;
    const BlockHandle& h = footer_.metaindex_handle;
    Status s = LoadBlock(h, "meta-index", &block);
    if (!s.ok()) return s;
    s = ParseMetaIndexBlock(*block, &meta_);
    return s.ok() ? s : Annotate(s, h, "meta-index");
  }

  Status ReadProperties() {
    auto it = meta_.find(kPropertiesBlockName);
    if (it == meta_.end()) {
      return BlockCorruption(r_->path_, footer_.metaindex_handle.offset(),
                             "meta-index has no properties block");
    }
    r_->properties_handle_ = it->second;
    std::unique_ptr<Block> block;
    Status s = LoadBlock(it->second, "properties", &block);
    if (!s.ok()) return s;
    s = ParsePropertiesBlock(*block, &r_->props_);
    return s.ok() ? s : Annotate(s, it->second, "properties");
  }

  Status CheckProperties() {
    const TableProperties& p = r_->props_;
    const char* ours = r_->comparator_->user_comparator()->Name();
    if (p.comparator_name != ours) {
      return Status::InvalidArgument(
          r_->path_, absl::StrCat("table was written with comparator ",
                                  ToAbsl(p.comparator_name), ", opened with ", ours));
    }
    if (p.index_type != TableOptions::kBinarySearch &&
        p.index_type != TableOptions::kTwoLevelIndexSearch) {
      return BlockCorruption(r_->path_, r_->properties_handle_.offset(),
                             absl::StrCat("unknown index type ", p.index_type));
    }
    r_->two_level_index_ = p.index_type == TableOptions::kTwoLevelIndexSearch;
    return Status::OK();
  }

  // Where the index and filter live: in the reader, or in the block source (pinned there for
  // the reader's life, or fetched on every use).
  void ChoosePlacement() {
    const bool in_source = options_.cache_index_and_filter_blocks &&
                           r_->block_source_ != UncachedBlockSource();
    if (!in_source) return;
    in_source_ = true;
    r_->index_and_filter_in_source_ = true;
    pin_ = options_.pin_index_and_filter ||
           (r_->two_level_index_ && options_.pin_top_level_index_and_filter);
    r_->fetch_index_and_filter_ = !pin_;
  }

  // Parses the tail block at `h` as `kind` and places it (see ChoosePlacement) in *slot.
  Status Place(BlockKind kind, const BlockHandle& h, std::shared_ptr<const LoadedBlock>* slot) {
    std::string contents;
    Status s = TailBlock(h, &contents);
    if (!s.ok()) return s;
    std::unique_ptr<LoadedBlock> parsed;
    // Index and filter blocks are kept as long as the table is open (or cached) and read at
    // random by every lookup: huge-page memory.
    constexpr auto kMemory = LoadedBlock::Memory::kHugePages;
    s = IsFilterKind(kind)
            ? LoadedBlock::MakeFilter(std::move(contents), kMemory, &parsed)
            : LoadedBlock::MakeBlock(std::move(contents), kMemory, &parsed,
                                     IsIndexKind(kind) ? r_->comparator_ : nullptr);
    if (!s.ok()) return Annotate(s, h, BlockKindName(kind));
    if (!in_source_) {
      *slot = std::move(parsed);
      return Status::OK();
    }
    BlockRequest request;
    request.key = BlockKey{r_->cache_id_, h.offset()};
    request.kind = kind;
    std::shared_ptr<const LoadedBlock> held;
    s = r_->block_source_->GetBlock(
        request,
        [&](std::unique_ptr<LoadedBlock>* loaded) {
          *loaded = std::move(parsed);
          return Status::OK();
        },
        &held);
    if (!s.ok()) return s;
    if (pin_) {
      // A block the cache refused (strict limit) is the reader's to account for.
      if (!r_->block_source_->IsCharged(held)) r_->uncharged_pinned_bytes_ += held->charge();
      *slot = std::move(held);
    }
    return Status::OK();
  }

  Status LoadIndex() {
    ChoosePlacement();
    return Place(BlockKind::kIndex, r_->index_handle_, &r_->index_);
  }

  Status LoadFilter() {
    r_->use_filter_ = options_.use_filter;
    r_->global_seqno_ = options_.global_seqno;
    if (auto it = meta_.find(kFullFilterBlockName); it != meta_.end()) {
      r_->filter_kind_ = FilterKind::kFull;
      r_->filter_handle_ = it->second;
      if (!options_.use_filter) return Status::OK();
      return Place(BlockKind::kFilter, it->second, &r_->filter_);
    }
    if (auto it = meta_.find(kPartitionedFilterBlockName); it != meta_.end()) {
      r_->filter_kind_ = FilterKind::kPartitioned;
      r_->filter_handle_ = it->second;
      if (!options_.use_filter) return Status::OK();
      return Place(BlockKind::kFilterIndex, it->second, &r_->filter_);
    }
    return Status::OK();
  }

  Status LoadRangeDeletions() {
    auto it = meta_.find(kRangeDelBlockName);
    if (it == meta_.end()) return Status::OK();
    r_->range_del_handle_ = it->second;
    return LoadBlock(it->second, "range deletions", &r_->range_del_block_);
  }

  TableReader* const r_;
  const TableReaderOptions& options_;
  Footer footer_;
  uint64_t footer_offset_ = 0;
  uint64_t tail_start_ = 0;
  std::string tail_;  // the bytes [tail_start_, footer_offset_)
  MetaIndex meta_;
  bool in_source_ = false;  // index and filter go to the block source
  bool pin_ = false;        // ... and the reader keeps them pinned there
};

Status TableReader::Open(const TableReaderOptions& options, std::unique_ptr<RandomAccessFile> file,
                         uint64_t file_size, std::string path, uint64_t cache_id,
                         const InternalKeyComparator* comparator, BlockSource* block_source,
                         std::unique_ptr<TableReader>* result) {
  result->reset();
  if (block_source == nullptr) block_source = UncachedBlockSource();
  std::unique_ptr<TableReader> reader(new TableReader(std::move(file), file_size,
                                                      std::move(path), cache_id, comparator,
                                                      block_source));
  Status s = Opener(reader.get(), options).Run();
  if (s.ok()) *result = std::move(reader);
  return s;
}

}  // namespace shale
