// MemTableSet (see memtable_set.h).
#include "memtable/memtable_set.h"

#include <cassert>

namespace shale {

MemTableSet::~MemTableSet() {
  std::vector<MemTable*> refs;
  ReleaseAll(&refs);
  for (MemTable* m : refs) m->Unref();
}

void MemTableSet::Init(MemTable* mem) {
  assert(mem_ == nullptr && mem != nullptr);
  mem_ = mem;
  mem_has_unlogged_writes_ = false;
}

void MemTableSet::Switch(MemTable* fresh, uint64_t new_log_number) {
  assert(mem_ != nullptr && fresh != nullptr && new_log_number > log_number_);
  imm_.push_front(Immutable{mem_, new_log_number, mem_has_unlogged_writes_});
  retired_++;
  mem_ = fresh;
  mem_has_unlogged_writes_ = false;
  log_number_ = new_log_number;
}

MemTable* MemTableSet::RemoveOldest(MemTable* flushed) {
  assert(!imm_.empty() && imm_.back().mem == flushed);
  (void)flushed;
  MemTable* mem = imm_.back().mem;
  imm_.pop_back();
  flushed_++;
  mem->CountUntilDeleted(flushed_bytes_);  // until readers let go of it
  return mem;
}

bool MemTableSet::HasImmutableUpTo(uint64_t log_number) const {
  for (const Immutable& m : imm_) {
    if (m.next_log_number <= log_number) return true;
  }
  return false;
}

bool MemTableSet::HasUnloggedWrites() const {
  if (mem_has_unlogged_writes_) return true;
  for (const Immutable& m : imm_) {
    if (m.has_unlogged_writes) return true;
  }
  return false;
}

size_t MemTableSet::MemoryUsage() const {
  size_t total = mem_ == nullptr ? 0 : mem_->ApproximateMemoryUsage();
  for (const Immutable& m : imm_) total += m.mem->ApproximateMemoryUsage();
  return total;
}

MemTableSet::Room MemTableSet::RoomForWrite(size_t write_buffer_size, bool over_db_budget,
                                            bool force) const {
  const bool mem_empty = mem_->num_entries() == 0;
  const bool mem_full = !mem_empty && mem_->ApproximateMemoryUsage() >= write_buffer_size;
  if (force) return mem_empty ? Room::kReady : Room::kSwitch;
  if (!mem_full && !over_db_budget) return Room::kReady;  // room in the active memtable
  if (!mem_full && (mem_empty || !imm_.empty())) {
    // Over the budget: a flush under way will free memory (or nothing can).
    return imm_.empty() ? Room::kReady : Room::kWaitForFlush;
  }
  return Room::kSwitch;
}

void MemTableSet::RefAll(MemTable** mem, std::vector<MemTable*>* imm) const {
  assert(mem_ != nullptr);
  *mem = mem_;
  mem_->Ref();
  for (const Immutable& m : imm_) {
    imm->push_back(m.mem);
    m.mem->Ref();
  }
}

void MemTableSet::ReleaseAll(std::vector<MemTable*>* refs) {
  if (mem_ != nullptr) refs->push_back(mem_);
  for (const Immutable& m : imm_) refs->push_back(m.mem);
  mem_ = nullptr;
  mem_has_unlogged_writes_ = false;
  imm_.clear();
}

}  // namespace shale
