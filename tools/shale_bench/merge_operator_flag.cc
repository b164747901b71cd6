#include "merge_operator_flag.h"

#include <array>
#include <string>
#include <utility>

namespace shale::bench {

namespace {

class PutOperator : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    // The engine calls a full merge with at least one operand; without one the value stands.
    if (merge_in.operand_list.empty()) {
      if (merge_in.existing_value != nullptr) {
        merge_out->existing_operand = *merge_in.existing_value;
      } else {
        merge_out->new_value.clear();
      }
      return true;
    }
    merge_out->existing_operand = merge_in.operand_list.back();
    return true;
  }

  bool PartialMerge(std::string_view /*key*/, std::string_view /*left_operand*/,
                    std::string_view right_operand, std::string* new_value) const override {
    new_value->assign(right_operand);
    return true;
  }

  const char* Name() const override { return "put"; }
};

// RocksDB's names of the operators ShaleDB builds in, and ShaleDB's name of each.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kRocksDbAliases = {{
    {"UInt64AddOperator", "uint64add"},
    {"MaxOperator", "max"},
    {"StringAppendOperator", "stringappend"},
    {"put", "put"},
    {"put_v1", "put"},
    {"PutOperator", "put"},
}};

// RocksDB 7.8's other operators (utilities/merge_operators.h).
constexpr std::array<std::string_view, 5> kRocksDbOnly = {
    "bytesxor", "BytesXOR", "sortlist", "MergeSortOperator", "stringappendtest"};

}  // namespace

std::shared_ptr<MergeOperator> NewPutOperator() { return std::make_shared<PutOperator>(); }

Status MergeOperatorFromFlag(std::string_view name, std::shared_ptr<MergeOperator>* op) {
  op->reset();
  std::string_view id = name;
  for (const auto& [rocksdb_name, shale_name] : kRocksDbAliases) {
    if (name == rocksdb_name) id = shale_name;
  }
  if (id == "put") {
    *op = NewPutOperator();
    return Status::OK();
  }
  for (std::string_view other : kRocksDbOnly) {
    if (name == other) {
      return Status::InvalidArgument(
          "--merge_operator", "not supported yet (RocksDB's '" + std::string(name) +
                                  "' operator is not built into ShaleDB)");
    }
  }
  Status s = CreateMergeOperatorFromString(id, op);
  if (!s.ok()) {
    return Status::InvalidArgument("--merge_operator",
                                   std::string(s.message()) + " (db_bench's names: uint64add, "
                                                              "max, stringappend, put)");
  }
  return Status::OK();
}

}  // namespace shale::bench
