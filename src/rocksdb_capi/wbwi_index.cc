// BatchIndex and ResolveEntry of write_batch_with_index.h.
#include <string>
#include <vector>

#include "rocksdb_capi/write_batch_with_index.h"

namespace shale::rocksdb_capi {

namespace {

// Re-indexes the records of a batch (BatchIndex::Rebuild).
class IndexingHandler : public WriteBatch::Handler {
 public:
  explicit IndexingHandler(BatchIndex* index) : index_(index) {}

  Status Put(std::string_view key, std::string_view value) override {
    return PutCF(0, key, value);
  }
  Status Delete(std::string_view key) override { return DeleteCF(0, key); }
  Status SingleDelete(std::string_view key) override { return DeleteCF(0, key); }
  Status DeleteRange(std::string_view, std::string_view) override { return Status::OK(); }
  Status Merge(std::string_view key, std::string_view value) override {
    return MergeCF(0, key, value);
  }
  Status PutCF(uint32_t id, std::string_view key, std::string_view value) override {
    index_->Put(id, nullptr, key, value);
    return Status::OK();
  }
  Status DeleteCF(uint32_t id, std::string_view key) override {
    index_->Delete(id, nullptr, key);
    return Status::OK();
  }
  Status SingleDeleteCF(uint32_t id, std::string_view key) override {
    index_->Delete(id, nullptr, key);
    return Status::OK();
  }
  Status DeleteRangeCF(uint32_t, std::string_view, std::string_view) override {
    return Status::OK();
  }
  Status MergeCF(uint32_t id, std::string_view key, std::string_view value) override {
    index_->Merge(id, nullptr, key, value);
    return Status::OK();
  }

 private:
  BatchIndex* index_;
};

}  // namespace

IndexedKeys& BatchIndex::Family(uint32_t family_id, const Comparator* comparator) {
  auto it = families_.find(family_id);
  if (it == families_.end()) {
    KeyOrder order(comparator != nullptr ? comparator : BytewiseComparator());
    it = families_.emplace(family_id, IndexedKeys(order)).first;
  }
  return it->second;
}

const IndexedEntry* BatchIndex::Find(uint32_t family_id, std::string_view key) const {
  auto family = families_.find(family_id);
  if (family == families_.end()) return nullptr;
  auto it = family->second.find(key);
  return it == family->second.end() ? nullptr : &it->second;
}

namespace {

IndexedEntry& EntryOf(IndexedKeys& keys, std::string_view key) {
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.emplace(std::string(key), IndexedEntry()).first;
  return it->second;
}

}  // namespace

void BatchIndex::Put(uint32_t family_id, const Comparator* comparator, std::string_view key,
                     std::string_view value) {
  IndexedEntry& entry = EntryOf(Family(family_id, comparator), key);
  entry.base = IndexedEntry::Base::kValue;
  entry.value.assign(value);
  entry.operands.clear();
}

void BatchIndex::Delete(uint32_t family_id, const Comparator* comparator, std::string_view key) {
  IndexedEntry& entry = EntryOf(Family(family_id, comparator), key);
  entry.base = IndexedEntry::Base::kDeleted;
  entry.value.clear();
  entry.operands.clear();
}

void BatchIndex::Merge(uint32_t family_id, const Comparator* comparator, std::string_view key,
                       std::string_view operand) {
  EntryOf(Family(family_id, comparator), key).operands.emplace_back(operand);
}

Status BatchIndex::Rebuild(const WriteBatch& batch) {
  for (auto& [id, keys] : families_) keys.clear();
  IndexingHandler handler(this);
  return batch.Iterate(&handler);
}

Status ResolveEntry(const IndexedEntry& entry, std::string_view key,
                    const MergeOperator* merge_operator, bool below_known,
                    const std::string* below, std::string* value) {
  if (entry.operands.empty()) {
    if (entry.base == IndexedEntry::Base::kValue) {
      *value = entry.value;
      return Status::OK();
    }
    if (entry.base == IndexedEntry::Base::kDeleted) return Status::NotFound();
  }
  std::string_view existing;
  const std::string_view* existing_ptr = nullptr;
  switch (entry.base) {
    case IndexedEntry::Base::kValue:
      existing = entry.value;
      existing_ptr = &existing;
      break;
    case IndexedEntry::Base::kDeleted:
      break;
    case IndexedEntry::Base::kNone:
      if (!below_known) return Status::MergeInProgress();
      if (below != nullptr) {
        existing = *below;
        existing_ptr = &existing;
      }
      break;
  }
  if (merge_operator == nullptr) {
    return Status::InvalidArgument("Merge_operator must be set for column_family");
  }
  std::vector<std::string_view> operands(entry.operands.begin(), entry.operands.end());
  std::string new_value;
  std::string_view existing_operand;
  MergeOperator::MergeOperationInput in(key, existing_ptr, operands);
  MergeOperator::MergeOperationOutput out(new_value, existing_operand);
  if (!merge_operator->FullMergeV2(in, &out)) {
    return Status::Corruption("Error: Could not perform merge.");
  }
  if (existing_operand.data() != nullptr) {
    value->assign(existing_operand);
  } else {
    *value = std::move(new_value);
  }
  return Status::OK();
}

}  // namespace shale::rocksdb_capi
