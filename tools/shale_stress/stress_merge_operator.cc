// See stress_merge_operator.h.
#include "stress_merge_operator.h"

#include <string>

#include "value_codec.h"

namespace shale::stress {
namespace {

class ChainMergeOperator : public MergeOperator {
 public:
  explicit ChainMergeOperator(uint32_t slot_offset) : slot_offset_(slot_offset) {}

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    DecodedValue v;
    if (!Start(in, &v, &out->error_message)) return false;
    for (std::string_view operand : in.operand_list) {
      DecodedOperand op;
      if (!DecodeFor(v.key, operand, &op, &out->error_message)) return false;
      if (Gen(op.first) <= Gen(v.word)) {
        out->error_message = "key " + KeyString(v.key) + ": operand " + DescribeWord(op.first) +
                             " applied after " + DescribeWord(v.word) +
                             " (applied twice, out of order, or older than the base)";
        return false;
      }
      v.word = op.last;
      v.hash = ChainExtend(v.hash, op.seg, op.count);
      v.merges += op.count;
      v.members = std::move(op.members);
      v.filler_len = op.filler_len;
    }
    out->new_value = EncodeMergedValue(v);
    return true;
  }

  bool PartialMerge(std::string_view key, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    uint32_t k = 0;
    DecodedOperand l, r;
    std::string error;
    if (!ParseSlot(key, &k) || !DecodeFor(k, left, &l, &error) ||
        !DecodeFor(k, right, &r, &error) || Gen(r.first) <= Gen(l.last)) {
      return false;  // kept as they are: the full merge reports the problem
    }
    r.first = l.first;
    r.seg = ChainExtend(l.seg, r.seg, r.count);
    r.count += l.count;
    *new_value = EncodeOperand(r);
    return true;
  }

  const char* Name() const override { return kStressMergeOperatorName; }

 private:
  // The slot of DB key `key` in this operator's family.
  bool ParseSlot(std::string_view key, uint32_t* slot) const {
    if (!ParseKey(key, slot)) return false;
    *slot += slot_offset_;
    return true;
  }

  // The state under the operands: the existing value's, or an empty chain.
  bool Start(const MergeOperationInput& in, DecodedValue* v, std::string* error) const {
    uint32_t k = 0;
    if (!ParseSlot(in.key, &k)) {
      *error = "merge of '" + std::string(in.key) + "': not a stress key";
      return false;
    }
    if (in.existing_value == nullptr) {
      *v = DecodedValue();
      v->key = k;
      return true;
    }
    if (!DecodeValue(*in.existing_value, v, error)) {
      *error = "key " + KeyString(k) + ": existing value: " + *error;
      return false;
    }
    if (v->key != k) {
      *error = "key " + KeyString(k) + ": existing value is key " + KeyString(v->key) + "'s";
      return false;
    }
    return true;
  }

  static bool DecodeFor(uint32_t k, std::string_view operand, DecodedOperand* op,
                        std::string* error) {
    if (!DecodeOperand(operand, op, error)) {
      *error = "key " + KeyString(k) + ": " + *error;
      return false;
    }
    if (op->key != k) {
      *error = "key " + KeyString(k) + ": operand of key " + KeyString(op->key);
      return false;
    }
    return true;
  }

  const uint32_t slot_offset_;
};

}  // namespace

std::shared_ptr<MergeOperator> NewStressMergeOperator(uint32_t slot_offset) {
  return std::make_shared<ChainMergeOperator>(slot_offset);
}

}  // namespace shale::stress
