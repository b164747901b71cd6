// The merge operator of every stress DB ("shale_stress.chain"): it applies the operands of
// value_codec.h to a put value or an earlier merged value and records which ones it applied
// in the result, so that the verifier can tell a lost, doubled or reordered operand from a
// right one (the chain hash of key_state.h).
//
//   FullMergeV2   base (a put value, a merged value, or none) + operands -> a merged value with
//                 the chain extended by each operand in order. It fails (Corruption for the
//                 reader, a background error for a flush or compaction) when a value or an
//                 operand is malformed or damaged, names another key, or when the generations
//                 do not strictly increase (an operand applied twice or out of order, or one
//                 older than the base).
//   PartialMerge  two consecutive operands -> one segment operand (the chain composes);
//                 false (both kept) when they do not fit together, so the full merge reports it.
// With column families (keyspace.h) values and operands name slots: the operator of family f
// is made with slot_offset = f * max_key, and DB key k must hold slot k + slot_offset (an
// operand or value of another family fails the merge).
//
// Thread-safety: stateless; safe for concurrent calls.
#ifndef SHALE_TOOLS_SHALE_STRESS_STRESS_MERGE_OPERATOR_H_
#define SHALE_TOOLS_SHALE_STRESS_STRESS_MERGE_OPERATOR_H_

#include <cstdint>
#include <memory>

#include "shale/merge_operator.h"

namespace shale::stress {

inline constexpr char kStressMergeOperatorName[] = "shale_stress.chain";

std::shared_ptr<MergeOperator> NewStressMergeOperator(uint32_t slot_offset = 0);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_STRESS_MERGE_OPERATOR_H_
