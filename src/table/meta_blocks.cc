#include "table/meta_blocks.h"

#include "table/block_builder.h"

namespace shale {

namespace {

// Meta blocks are read once per open: a restart at every entry keeps the code simple and the
// size difference is a few bytes.
constexpr int kMetaBlockRestartInterval = 1;

// Visits every entry of a bytewise-ordered block, checking the order.
template <typename Fn>
Status ForEachEntry(const Block& block, Fn&& fn) {
  std::unique_ptr<BlockIter> it = block.NewIterator(BytewiseComparator());
  std::string last;
  bool first = true;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!first && it->key() <= std::string_view(last)) {
      return Status::Corruption("meta block keys out of order", it->key());
    }
    first = false;
    last.assign(it->key().data(), it->key().size());
    Status s = fn(it->key(), it->value());
    if (!s.ok()) return s;
  }
  return it->status();
}

}  // namespace

std::string BuildMetaIndexBlock(const MetaIndex& entries) {
  BlockBuilder builder(kMetaBlockRestartInterval);
  std::string handle;
  for (const auto& [name, h] : entries) {
    handle.clear();
    h.EncodeTo(&handle);
    builder.Add(name, handle);
  }
  return std::string(builder.Finish());
}

std::string BuildPropertiesBlock(const TableProperties& props) {
  BlockBuilder builder(kMetaBlockRestartInterval);
  for (const auto& [name, value] : props.Encode()) builder.Add(name, value);
  return std::string(builder.Finish());
}

Status ParseMetaIndexBlock(const Block& block, MetaIndex* entries) {
  entries->clear();
  return ForEachEntry(block, [&](std::string_view key, std::string_view value) {
    BlockHandle h;
    if (!h.DecodeFrom(&value) || !value.empty()) {
      return Status::Corruption("bad block handle in meta-index entry", key);
    }
    entries->emplace(std::string(key), h);
    return Status::OK();
  });
}

Status ParsePropertiesBlock(const Block& block, TableProperties* props) {
  *props = TableProperties();
  return ForEachEntry(block, [&](std::string_view key, std::string_view value) {
    return props->DecodeEntry(key, value);
  });
}

}  // namespace shale
