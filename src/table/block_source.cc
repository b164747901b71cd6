#include "table/block_source.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "table/block.h"
#include "table/block_builder.h"
#include "table/bloom_filter.h"
#include "util/coding.h"
#include "util/huge_page_heap.h"
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

namespace {

// `cmp` when restart prefixes can serve its order (Block::BuildRestartPrefixes builds them only
// under the bytewise user comparator), else null: no room is reserved, or charged, for prefixes
// that would never be built.
const InternalKeyComparator* PrefixComparator(const InternalKeyComparator* cmp) {
  return cmp != nullptr && cmp->user_comparator() == BytewiseComparator() ? cmp : nullptr;
}

}  // namespace

LoadedBlock::LoadedBlock() = default;

std::unique_ptr<LoadedBlock> LoadedBlock::New(Memory memory, size_t trailing_bytes) {
  const bool huge = memory == Memory::kHugePages;
  void* mem = huge ? HugePageHeap::Allocate(sizeof(LoadedBlock) + trailing_bytes)
                   : ::operator new(sizeof(LoadedBlock));
  if (mem == nullptr) throw std::bad_alloc();
  std::unique_ptr<LoadedBlock> loaded(::new (mem) LoadedBlock());
  loaded->on_huge_pages_ = huge;
  return loaded;
}

void LoadedBlock::operator delete(LoadedBlock* p, std::destroying_delete_t) {
  const bool huge = p->on_huge_pages_;
  p->~LoadedBlock();
  if (huge) {
    HugePageHeap::Free(p);
  } else {
    ::operator delete(p);
  }
}

Status LoadedBlock::MakeBlock(std::string contents, Memory memory,
                              std::unique_ptr<LoadedBlock>* result,
                              const InternalKeyComparator* search_cmp) {
  search_cmp = PrefixComparator(search_cmp);
  Status s;
  size_t bytes_charge = 0;
  std::unique_ptr<LoadedBlock> loaded;
  if (memory == Memory::kHugePages) {
    // One allocation: this object (its Block inside), the restart prefixes, the bytes -- in
    // that order, so a lookup finds the prefixes a cache line or two from the Block. The
    // restart count is read from the footer here only to size the room; Parse checks it.
    size_t restarts = 0;
    if (search_cmp != nullptr && contents.size() >= kBlockFooterSize) {
      restarts = DecodeFixed32(contents.data() + contents.size() - kBlockFooterSize) &
                 kBlockNumRestartsMask;
      if (restarts > contents.size() / sizeof(uint32_t)) restarts = 0;  // corrupt: Parse says
    }
    const size_t prefix_room = (restarts * sizeof(uint32_t) + 7) & ~size_t{7};
    loaded = New(memory, prefix_room + contents.size());
    uint32_t* prefixes = reinterpret_cast<uint32_t*>(loaded->TrailingBytes());
    char* bytes = loaded->TrailingBytes() + prefix_room;
    std::memcpy(bytes, contents.data(), contents.size());
    s = Block::CreateIn(std::string_view(bytes, contents.size()), &loaded->inline_block_);
    if (!s.ok()) return s;
    loaded->block_view_ = &*loaded->inline_block_;
    if (restarts != 0 && loaded->inline_block_->num_restarts() == restarts) {
      loaded->inline_block_->BuildRestartPrefixes(search_cmp, prefixes);
    }
    bytes_charge = AllocationFootprint(sizeof(LoadedBlock) + prefix_room + contents.size()) -
                   sizeof(LoadedBlock) - sizeof(Block);
  } else {
    loaded = New(memory, 0);
    s = Block::Create(std::move(contents), &loaded->heap_block_);
    if (!s.ok()) return s;
    loaded->block_view_ = loaded->heap_block_.get();
    if (search_cmp != nullptr) loaded->heap_block_->BuildRestartPrefixes(search_cmp);
  }
  loaded->charge_ = kEntryOverhead + loaded->block_view_->ApproximateMemoryUsage() + bytes_charge;
  *result = std::move(loaded);
  return Status::OK();
}

Status LoadedBlock::ReadBlockInPlace(size_t capacity, const InternalKeyComparator* search_cmp,
                                     BlockReader read, std::unique_ptr<LoadedBlock>* result,
                                     size_t restarts_hint) {
  search_cmp = PrefixComparator(search_cmp);
  // Layout as MakeBlock's, but the restart count is unknown until the bytes are in: room for
  // the hinted count, or else one restart per 256 bytes (a data block of ~120-byte entries
  // restarting every 2 entries); denser blocks get their prefixes allocated on their own.
  // The room never takes the allocation into the allocator's next size class: it is capped at
  // the slack the block alone leaves in its class (a table builder cuts blocks to leave room
  // for their own prefixes: table_builder.cc, BlockFitTarget), so one block with many
  // restarts (a run of deletions) does not push every later block of the table up a class.
  const size_t restarts = restarts_hint > 0 ? restarts_hint : capacity / 256 + 2;
  size_t prefix_room = 0;
  if (search_cmp != nullptr) {
    const size_t slack =
        AllocationFootprint(sizeof(LoadedBlock) + capacity) - sizeof(LoadedBlock) - capacity;
    prefix_room = std::min((restarts * sizeof(uint32_t) + 7) & ~size_t{7}, slack & ~size_t{7});
  }
  std::unique_ptr<LoadedBlock> loaded = New(Memory::kHugePages, prefix_room + capacity);
  char* bytes = loaded->TrailingBytes() + prefix_room;
  std::string uncompressed;
  std::string_view contents;
  bool in_buffer = false;
  Status s = read(bytes, &uncompressed, &contents, &in_buffer);
  if (!s.ok()) return s;
  if (!in_buffer) return MakeBlock(std::move(uncompressed), Memory::kHugePages, result, search_cmp);
  s = Block::CreateIn(contents, &loaded->inline_block_);
  if (!s.ok()) return s;
  Block& block = *loaded->inline_block_;
  loaded->block_view_ = &block;
  if (search_cmp != nullptr) {
    const bool fits = block.num_restarts() * sizeof(uint32_t) <= prefix_room;
    block.BuildRestartPrefixes(
        search_cmp, fits ? reinterpret_cast<uint32_t*>(loaded->TrailingBytes()) : nullptr);
  }
  loaded->charge_ = kEntryOverhead + block.ApproximateMemoryUsage() +
                    AllocationFootprint(sizeof(LoadedBlock) + prefix_room + capacity) -
                    sizeof(LoadedBlock) - sizeof(Block);
  *result = std::move(loaded);
  return Status::OK();
}

Status LoadedBlock::MakeFilter(std::string contents, Memory memory,
                               std::unique_ptr<LoadedBlock>* result) {
  std::unique_ptr<LoadedBlock> loaded = New(memory, contents.size());
  size_t data_bytes = 0;
  if (memory == Memory::kHugePages) {
    char* bytes = loaded->TrailingBytes();
    std::memcpy(bytes, contents.data(), contents.size());
    loaded->filter_data_ = std::string_view(bytes, contents.size());
    data_bytes = AllocationFootprint(sizeof(LoadedBlock) + contents.size()) - sizeof(LoadedBlock);
  } else {
    loaded->filter_string_ = std::move(contents);  // moved before the view is taken
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

bool BlockSource::MayRefuseCharges() const { return false; }

Status BlockSource::ChargeMemory(size_t, std::unique_ptr<MemoryCharge>* charge) {
  charge->reset();
  return Status::OK();
}

MemoryCharge::~MemoryCharge() = default;

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
