#include "table/block_source.h"

#include <cstring>
#include <new>

#include "table/block.h"
#include "table/bloom_filter.h"
#include "util/heap_size.h"

namespace shale {

const char* BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kData: return "data block";
    case BlockKind::kIndexPartition: return "index partition";
    case BlockKind::kFilterPartition: return "filter partition";
    case BlockKind::kIndex: return "index";
    case BlockKind::kFilter: return "filter";
    case BlockKind::kFilterIndex: return "top-level filter index";
  }
  return "block";
}

namespace {

// What one LoadedBlock costs beyond its block: the object, and the bookkeeping of a cache
// entry holding it (entry, shared_ptr control block, hash-table slot), so that a cache full
// of small blocks still stays within its byte budget.
constexpr size_t kEntryOverhead = sizeof(LoadedBlock) + 128;

}  // namespace

LoadedBlock::LoadedBlock() = default;

void* LoadedBlock::operator new(size_t size) {
  void* p = HugePageHeap::Allocate(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void LoadedBlock::operator delete(void* p) { HugePageHeap::Free(p); }

Status LoadedBlock::MakeBlock(std::string contents, Memory memory,
                              std::unique_ptr<LoadedBlock>* result) {
  std::unique_ptr<LoadedBlock> loaded(new LoadedBlock());
  Status s = memory == Memory::kHugePages
                 ? Block::CreateOnHugePages(contents, &loaded->block_)
                 : Block::Create(std::move(contents), &loaded->block_);
  if (!s.ok()) return s;
  loaded->charge_ = kEntryOverhead + loaded->block_->ApproximateMemoryUsage();
  *result = std::move(loaded);
  return Status::OK();
}

Status LoadedBlock::MakeFilter(std::string contents, Memory memory,
                               std::unique_ptr<LoadedBlock>* result) {
  std::unique_ptr<LoadedBlock> loaded(new LoadedBlock());
  size_t data_bytes = 0;
  if (memory == Memory::kHugePages && !contents.empty()) {
    loaded->filter_buffer_.reset(static_cast<char*>(HugePageHeap::Allocate(contents.size())));
    if (loaded->filter_buffer_ == nullptr) throw std::bad_alloc();
    std::memcpy(loaded->filter_buffer_.get(), contents.data(), contents.size());
    loaded->filter_data_ = std::string_view(loaded->filter_buffer_.get(), contents.size());
    data_bytes = AllocationFootprint(contents.size());
  } else {
    loaded->filter_string_ = std::move(contents);  // moved before the views are taken
    loaded->filter_data_ = loaded->filter_string_;
    data_bytes = StringHeapBytes(loaded->filter_string_);
  }
  Status s = BloomFilterReader::Create(loaded->filter_data_, &loaded->filter_);
  if (!s.ok()) return s;
  loaded->charge_ = kEntryOverhead + data_bytes + loaded->filter_->ApproximateMemoryUsage();
  *result = std::move(loaded);
  return Status::OK();
}

LoadedBlock::~LoadedBlock() = default;

BlockSource::~BlockSource() = default;

bool BlockSource::IsCharged(const std::shared_ptr<const LoadedBlock>&) const { return false; }

namespace {

class Uncached final : public BlockSource {
 public:
  Status GetBlock(const BlockRequest& request, BlockLoader load,
                  std::shared_ptr<const LoadedBlock>* block) override {
    block->reset();
    std::unique_ptr<LoadedBlock> loaded;
    Status s = load(&loaded);
    if (s.ok()) *block = std::move(loaded);
    return s;
  }
};

}  // namespace

BlockSource* UncachedBlockSource() {
  static Uncached* const kInstance = new Uncached();
  return kInstance;
}

}  // namespace shale
