#include "table/table_builder.h"

#include <algorithm>
#include <cassert>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "shale/limits.h"
#include "table/block_source.h"
#include "table/meta_blocks.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// Range-deletion blocks are read whole: a restart per entry costs little and keeps every entry
// self-contained.
constexpr int kRangeDelRestartInterval = 1;

bool UseHashIndex(const TableOptions& options) {
  return options.data_block_index_type == TableOptions::kDataBlockBinaryAndHash;
}

}  // namespace

TableBuilder::TableBuilder(const TableOptions& options, CompressionType compression,
                           int compression_level, const InternalKeyComparator* comparator,
                           WritableFile* file, std::string path)
    : options_(options),
      comparator_(comparator),
      file_(file),
      path_(std::move(path)),
      use_partitioned_filter_(options.filter_policy != nullptr && options.partition_filters &&
                              options.index_type == TableOptions::kTwoLevelIndexSearch),
      offset_(file->GetFileSize()),
      data_block_(options.block_restart_interval, UseHashIndex(options),
                  options.data_block_hash_table_util_ratio),
      index_(IndexBuilder::New(options, comparator)) {
  if (options.block_size > kMaxTableBlockSizeOption) {
    status_ = Status::InvalidArgument(
        path_, absl::StrCat("block_size ", options.block_size, " is over the limit of ",
                            kMaxTableBlockSizeOption, " bytes"));
  } else if (options.metadata_block_size > kMaxTableBlockSizeOption) {
    status_ = Status::InvalidArgument(
        path_, absl::StrCat("metadata_block_size ", options.metadata_block_size,
                            " is over the limit of ", kMaxTableBlockSizeOption, " bytes"));
  } else if (!CompressionTypeSupported(compression)) {
    status_ = Status::InvalidArgument(
        path_, absl::StrCat("compression type ", CompressionTypeName(compression),
                            " is not supported by this build (supported: ",
                            ToAbsl(SupportedCompressionTypeNames()), ")"));
  } else if (compression != kNoCompression) {
    compressor_ = std::make_unique<Compressor>(compression, compression_level);
  }
  if (options.filter_policy != nullptr) {
    filter_ = std::make_unique<FilterBlockBuilder>(options.filter_policy->bits_per_key(),
                                                   use_partitioned_filter_,
                                                   options.index_block_restart_interval);
  }
  props_.compression_name = CompressionTypeName(compression);
  FillOptionProperties();
}

TableBuilder::~TableBuilder() { assert(closed_); }

void TableBuilder::FillOptionProperties() {
  props_.comparator_name = comparator_->user_comparator()->Name();
  if (options_.filter_policy != nullptr) {
    props_.filter_policy_name = options_.filter_policy->Name();
  }
  props_.index_type = options_.index_type == TableOptions::kTwoLevelIndexSearch
                          ? TableOptions::kTwoLevelIndexSearch
                          : TableOptions::kBinarySearch;
  props_.partitioned_filters = use_partitioned_filter_;
  props_.data_block_hash_index = UseHashIndex(options_);
  props_.block_size = options_.block_size;
  props_.block_restart_interval =
      static_cast<uint64_t>(std::max(options_.block_restart_interval, 1));
  props_.index_block_restart_interval =
      static_cast<uint64_t>(std::max(options_.index_block_restart_interval, 1));
  props_.format_version = kLatestFormatVersion;
}

void TableBuilder::Add(std::string_view key, std::string_view value) {
  assert(!closed_);
  if (!status_.ok()) return;
  if (key.size() < kInternalKeyTrailerSize) {
    status_ = Status::InvalidArgument(path_, "internal key shorter than its 8-byte trailer");
    return;
  }
  const SequenceNumber seq = ExtractSequence(key);
  if (props_.num_entries == 0) {
    props_.smallest_seqno = props_.largest_seqno = seq;
  } else {
    props_.smallest_seqno = std::min(props_.smallest_seqno, seq);
    props_.largest_seqno = std::max(props_.largest_seqno, seq);
  }
  props_.num_entries++;
  props_.raw_key_size += key.size();
  props_.raw_value_size += value.size();
  const ValueType type = ExtractValueType(key);
  if (type == kTypeRangeDeletion) {
    AddRangeDeletion(key, value);
  } else {
    AddPointEntry(key, value, type);
  }
}

void TableBuilder::AddRangeDeletion(std::string_view key, std::string_view value) {
  props_.num_range_deletions++;
  const Comparator* ucmp = comparator_->user_comparator();
  std::string_view start = ExtractUserKey(key);
  if (range_deletions_.empty() || ucmp->Compare(start, props_.smallest_range_del_key) < 0) {
    props_.smallest_range_del_key.assign(start.data(), start.size());
  }
  if (range_deletions_.empty() || ucmp->Compare(value, props_.largest_range_del_key) > 0) {
    props_.largest_range_del_key.assign(value.data(), value.size());
  }
  range_deletions_.emplace_back(std::string(key), std::string(value));
}

bool TableBuilder::CheckOrder(std::string_view key) {
#ifndef SHALE_EXPENSIVE_CHECKS
  assert(last_key_.empty() || comparator_->Compare(last_key_, key) < 0);
#else
  // The real check: a Corruption status instead of an assert, so tests can see it.
  if (!last_key_.empty() && comparator_->Compare(last_key_, key) >= 0) {
    ParsedInternalKey prev, next;
    (void)ParseInternalKey(last_key_, &prev);
    (void)ParseInternalKey(key, &next);
    status_ = Status::Corruption(path_, absl::StrCat("keys added out of order: ",
                                                     next.DebugString(), " after ",
                                                     prev.DebugString()));
    return false;
  }
#endif
  return true;
}

void TableBuilder::AddPointEntry(std::string_view key, std::string_view value, ValueType type) {
  if (!CheckOrder(key)) return;
  // A block is cut once it reaches block_size, and also before an entry that would take it past
  // BlockFitTarget (block_size less what a cached block's allocation adds to it) when it
  // already holds 90% of that (RocksDB's block_size_deviation of 10): most blocks then end
  // within it, so that a kept block's allocation fits the allocator's block_size class instead
  // of the next one, 25% larger at 4 KiB. When an entry would take the block past what a reader accepts (kMaxBlockSize),
  // the block is cut before it too: a block then holds either entries that fit or a single
  // entry (which the key and value limits of shale/limits.h keep readable).
  if (!data_block_.empty()) {
    const size_t after = data_block_.EstimateSizeAfterKV(key, value);
    const size_t fit = BlockFitTarget();
    if (after > kMaxBlockSize ||
        (after > fit && data_block_.CurrentSizeEstimate() >= fit - fit / 10)) {
      FlushDataBlock();
      if (!status_.ok()) return;
    }
  }
  if (pending_index_entry_) AddPendingIndexEntry(key);
  const std::string_view user_key = ExtractUserKey(key);
  if (filter_ != nullptr) filter_->AddKey(user_key);
  if (last_key_.empty()) props_.smallest_user_key.assign(user_key.data(), user_key.size());
  if (type == kTypeDeletion || type == kTypeSingleDeletion) props_.num_deletions++;
  if (type == kTypeMerge) props_.num_merge_operands++;
  data_block_.Add(key, value);
  last_key_.assign(key.data(), key.size());
  if (data_block_.CurrentSizeEstimate() >= options_.block_size) FlushDataBlock();
}

size_t TableBuilder::BlockFitTarget() const {
  // A block cache keeps a block in one allocation: the LoadedBlock, room for the block's
  // restart prefixes, the block and its trailer (LoadedBlock::ReadBlockInPlace). Leave room for
  // them when block_size is not tiny, so that the allocation fits the allocator's block_size
  // class (4 KiB blocks used to take 5 KiB each: 25% of a cache's memory).
  // (Whether block_size is tiny is decided on the fixed part, so that the target does not
  // change within a block as its restarts grow.)
  const size_t extra =
      kBlockTrailerSize + LoadedBlock::KeptBlockOverhead(data_block_.num_restarts() + 1);
  const size_t target = options_.block_size;
  return target > 4 * (kBlockTrailerSize + LoadedBlock::KeptBlockOverhead(0)) && target > extra
             ? target - extra
             : target;
}

Status TableBuilder::CheckBlockSize(std::string_view what, size_t size) const {
  if (size <= kMaxBlockSize) return Status::OK();
  return Status::InvalidArgument(
      path_, absl::StrCat("a ", ToAbsl(what), " of ", size, " bytes exceeds the table format's "
                          "block limit of ", kMaxBlockSize, " bytes"));
}

void TableBuilder::FlushDataBlock() {
  if (data_block_.empty() || !status_.ok()) return;
  const std::string_view contents = data_block_.Finish();
  // Never write a block that no reader would accept.
  status_ = CheckBlockSize("data block", contents.size());
  if (!status_.ok()) return;
  props_.max_block_size = std::max<uint64_t>(props_.max_block_size, contents.size());
  const uint64_t start = offset_;
  status_ = WriteBlock(file_, path_, contents, compressor_.get(), &compressed_, &offset_,
                       &pending_handle_);
  data_block_.Reset();
  if (!status_.ok()) return;
  props_.num_data_blocks++;
  props_.data_size += offset_ - start;
  pending_index_entry_ = true;
}

void TableBuilder::AddPendingIndexEntry(std::string_view next_first_key) {
  assert(pending_index_entry_);
  index_->AddIndexEntry(last_key_, next_first_key, pending_handle_);
  pending_index_entry_ = false;
  MaybeCutPartitions();
}

void TableBuilder::MaybeCutPartitions() {
  const size_t open = index_->OpenPartitionSize();
  if (open == 0) return;  // a binary-search index has no partitions
  const uint64_t target = std::max<uint64_t>(options_.metadata_block_size, 1);
  const bool full = open >= target ||
                    (use_partitioned_filter_ && filter_->OpenPartitionSize() >= target);
  if (!full) return;
  std::string_view partition_key = index_->CutPartition();
  if (use_partitioned_filter_) filter_->CutPartition(partition_key);
}

Status TableBuilder::WriteMetaBlock(std::string_view contents, bool compress,
                                    BlockHandle* handle, bool counts_in_max_block_size) {
  Status s = CheckBlockSize("metadata block (index, filter, range deletions or properties)",
                            contents.size());
  if (!s.ok()) return s;
  if (counts_in_max_block_size) {
    props_.max_block_size = std::max<uint64_t>(props_.max_block_size, contents.size());
  }
  return WriteBlock(file_, path_, contents, compress ? compressor_.get() : nullptr, &compressed_,
                    &offset_, handle);
}

Status TableBuilder::Finish() {
  assert(!closed_);
  closed_ = true;
  FlushDataBlock();
  if (status_.ok() && pending_index_entry_) AddPendingIndexEntry({});
  if (status_.ok() && use_partitioned_filter_ && index_->OpenPartitionSize() > 0) {
    filter_->CutPartition(index_->CutPartition());
  }
  if (status_.ok()) status_ = WriteTail();
  return status_;
}

void TableBuilder::Abandon() {
  assert(!closed_);
  closed_ = true;
}

Status TableBuilder::WriteRangeDeletions(BlockHandle* handle) {
  std::stable_sort(range_deletions_.begin(), range_deletions_.end(),
                   [this](const auto& a, const auto& b) {
                     return comparator_->Compare(a.first, b.first) < 0;
                   });
  BlockBuilder block(kRangeDelRestartInterval);
  for (const auto& [key, end] : range_deletions_) block.Add(key, end);
  return WriteMetaBlock(block.Finish(), false, handle);
}

Status TableBuilder::WritePartitions(std::string* index_tail, std::string* filter_tail) {
  if (filter_ != nullptr) {
    Status s = filter_->Finish(
        [&](std::string_view contents, BlockHandle* h) {
          Status ws = WriteMetaBlock(contents, false, h);
          props_.filter_size += h->size() + kBlockTrailerSize;
          return ws;
        },
        filter_tail);
    if (!s.ok()) return s;
  }
  const bool compress_index = options_.enable_index_compression;
  return index_->Finish(
      [&](std::string_view contents, BlockHandle* h) {
        Status ws = WriteMetaBlock(contents, compress_index, h);
        props_.index_size += h->size() + kBlockTrailerSize;
        return ws;
      },
      index_tail);
}

Status TableBuilder::WriteTail() {
  std::string index_tail, filter_tail;
  Status s = WritePartitions(&index_tail, &filter_tail);
  // The tail starts here, with the index block.
  BlockHandle index_handle;
  if (s.ok()) s = WriteMetaBlock(index_tail, options_.enable_index_compression, &index_handle);
  if (!s.ok()) return s;
  const uint64_t index_bytes = index_handle.size() + kBlockTrailerSize;
  props_.index_size += index_bytes;
  props_.index_partitions = index_->num_partitions();
  if (props_.index_type == TableOptions::kTwoLevelIndexSearch) {
    props_.top_level_index_size = index_bytes;
  }

  MetaIndex meta;
  BlockHandle handle;
  if (filter_ != nullptr && filter_->num_keys() > 0) {
    s = WriteMetaBlock(filter_tail, false, &handle);
    if (!s.ok()) return s;
    props_.filter_size += handle.size() + kBlockTrailerSize;
    meta[use_partitioned_filter_ ? kPartitionedFilterBlockName : kFullFilterBlockName] = handle;
  }
  if (!range_deletions_.empty()) {
    s = WriteRangeDeletions(&handle);
    if (!s.ok()) return s;
    meta[kRangeDelBlockName] = handle;
  }
  if (!last_key_.empty()) {
    const std::string_view largest = ExtractUserKey(last_key_);
    props_.largest_user_key.assign(largest.data(), largest.size());
  }
  props_.creation_time = static_cast<uint64_t>(std::time(nullptr));
  // The properties block holds max_block_size, so neither it nor the meta-index after it counts
  // in it (readers bound those two by kMaxBlockSize).
  s = WriteMetaBlock(BuildPropertiesBlock(props_), false, &handle,
                     /*counts_in_max_block_size=*/false);
  if (!s.ok()) return s;
  meta[kPropertiesBlockName] = handle;

  Footer footer;
  s = WriteMetaBlock(BuildMetaIndexBlock(meta), false, &footer.metaindex_handle,
                     /*counts_in_max_block_size=*/false);
  if (!s.ok()) return s;
  footer.index_handle = index_handle;
  footer.format_version = kLatestFormatVersion;
  std::string encoded;
  footer.EncodeTo(&encoded);
  s = file_->Append(encoded);
  if (s.ok()) offset_ += encoded.size();
  return s;
}

}  // namespace shale
