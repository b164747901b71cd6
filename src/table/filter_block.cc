#include "table/filter_block.h"

#include <cassert>

#include "table/block_builder.h"

namespace shale {

FilterBlockBuilder::FilterBlockBuilder(double bits_per_key, bool partitioned,
                                       int index_restart_interval)
    : partitioned_(partitioned),
      index_restart_interval_(index_restart_interval),
      bloom_(bits_per_key) {}

void FilterBlockBuilder::AddKey(std::string_view user_key) {
  size_t before = bloom_.num_keys();
  bloom_.AddKey(user_key);
  num_keys_ += bloom_.num_keys() - before;
}

void FilterBlockBuilder::CutPartition(std::string_view partition_key) {
  assert(partitioned_);
  partitions_.push_back({std::string(partition_key), bloom_.Finish()});
}

Status FilterBlockBuilder::Finish(PartitionWriter write, std::string* tail_block) {
  if (!partitioned_) {
    *tail_block = bloom_.Finish();
    return Status::OK();
  }
  assert(bloom_.num_keys() == 0);
  BlockBuilder top(index_restart_interval_);
  std::string handle_encoding;
  for (Partition& p : partitions_) {
    BlockHandle handle;
    Status s = write(p.contents, &handle);
    if (!s.ok()) return s;
    std::string().swap(p.contents);
    handle_encoding.clear();
    handle.EncodeTo(&handle_encoding);
    top.Add(p.key, handle_encoding);
  }
  tail_block->assign(top.Finish());
  return Status::OK();
}

}  // namespace shale
