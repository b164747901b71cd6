#include "table/index_builder.h"

#include <vector>

#include "table/block_builder.h"

namespace shale {

namespace {

// The key of a data block's index entry (see the header's invariant).
std::string IndexKey(const InternalKeyComparator* cmp, std::string_view last_key,
                     std::string_view next_first_key) {
  std::string key(last_key);
  if (next_first_key.empty()) {
    cmp->FindShortSuccessor(&key);
  } else {
    cmp->FindShortestSeparator(&key, next_first_key);
  }
  return key;
}

class BinarySearchIndexBuilder final : public IndexBuilder {
 public:
  BinarySearchIndexBuilder(const TableOptions& options, const InternalKeyComparator* cmp)
      : cmp_(cmp), block_(options.index_block_restart_interval) {}

  void AddIndexEntry(std::string_view last_key, std::string_view next_first_key,
                     const BlockHandle& handle) override {
    handle_.clear();
    handle.EncodeTo(&handle_);
    block_.Add(IndexKey(cmp_, last_key, next_first_key), handle_);
  }
  size_t OpenPartitionSize() const override { return 0; }
  std::string_view CutPartition() override { return {}; }
  Status Finish(PartitionWriter write, std::string* tail_block) override {
    tail_block->assign(block_.Finish());
    return Status::OK();
  }
  size_t num_partitions() const override { return 0; }

 private:
  const InternalKeyComparator* const cmp_;
  BlockBuilder block_;
  std::string handle_;  // scratch for the encoded handle
};

class PartitionedIndexBuilder final : public IndexBuilder {
 public:
  PartitionedIndexBuilder(const TableOptions& options, const InternalKeyComparator* cmp)
      : cmp_(cmp),
        restart_interval_(options.index_block_restart_interval),
        open_(restart_interval_) {}

  void AddIndexEntry(std::string_view last_key, std::string_view next_first_key,
                     const BlockHandle& handle) override {
    handle_.clear();
    handle.EncodeTo(&handle_);
    last_entry_key_ = IndexKey(cmp_, last_key, next_first_key);
    open_.Add(last_entry_key_, handle_);
  }

  size_t OpenPartitionSize() const override {
    return open_.empty() ? 0 : open_.CurrentSizeEstimate();
  }

  std::string_view CutPartition() override {
    assert(!open_.empty());
    partitions_.push_back({last_entry_key_, std::string(open_.Finish())});
    open_.Reset();
    return partitions_.back().key;
  }

  Status Finish(PartitionWriter write, std::string* tail_block) override {
    if (!open_.empty()) CutPartition();
    BlockBuilder top(restart_interval_);
    for (Partition& p : partitions_) {
      BlockHandle handle;
      Status s = write(p.contents, &handle);
      if (!s.ok()) return s;
      std::string().swap(p.contents);  // written: free it
      handle_.clear();
      handle.EncodeTo(&handle_);
      top.Add(p.key, handle_);
    }
    tail_block->assign(top.Finish());
    return Status::OK();
  }

  size_t num_partitions() const override { return partitions_.size() + (open_.empty() ? 0 : 1); }

 private:
  struct Partition {
    std::string key;       // the partition's last index key
    std::string contents;  // the finished partition, until written
  };

  const InternalKeyComparator* const cmp_;
  const int restart_interval_;
  BlockBuilder open_;                 // the partition being filled
  std::string last_entry_key_;        // the key of open_'s last entry
  std::vector<Partition> partitions_;  // closed partitions, in key order
  std::string handle_;
};

}  // namespace

std::unique_ptr<IndexBuilder> IndexBuilder::New(const TableOptions& options,
                                                const InternalKeyComparator* comparator) {
  if (options.index_type == TableOptions::kTwoLevelIndexSearch) {
    return std::make_unique<PartitionedIndexBuilder>(options, comparator);
  }
  return std::make_unique<BinarySearchIndexBuilder>(options, comparator);
}

}  // namespace shale
