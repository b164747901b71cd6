// The --merge_operator flag: db_bench's operator names (RocksDB 7.8's MergeOperators) mapped onto
// ShaleDB's built-in operators (shale/merge_operator.h), so that one command line runs against
// both engines.
//
//   uint64add, UInt64AddOperator                -> ShaleDB's uint64add
//   max, MaxOperator                            -> ShaleDB's max
//   stringappend, StringAppendOperator          -> ShaleDB's stringappend (delimiter ",")
//   put, put_v1, PutOperator                    -> PutOperator below (each operand replaces the
//                                                  value; ShaleDB has no built-in for it)
//   stringappend:<delimiter>, sortedset64[:<index_interval>]  -> ShaleDB's (no db_bench name)
//   bytesxor, sortlist, stringappendtest, ...   -> "not supported yet"
//
// Thread-safety: plain functions; the operators are safe for concurrent use.
#ifndef SHALE_TOOLS_SHALE_BENCH_MERGE_OPERATOR_FLAG_H_
#define SHALE_TOOLS_SHALE_BENCH_MERGE_OPERATOR_FLAG_H_

#include <memory>
#include <string_view>

#include "shale/merge_operator.h"
#include "shale/status.h"

namespace shale::bench {

// The operator `name` stands for, into *op (null for an empty name). InvalidArgument naming
// --merge_operator for an unknown or malformed name, with "not supported yet" for RocksDB's
// operators that ShaleDB does not have.
Status MergeOperatorFromFlag(std::string_view name, std::shared_ptr<MergeOperator>* op);

// db_bench's "put" operator: a key's value is its newest operand (or its value when it has no
// operand). Partial merges keep the newer operand.
std::shared_ptr<MergeOperator> NewPutOperator();

}  // namespace shale::bench

#endif  // SHALE_TOOLS_SHALE_BENCH_MERGE_OPERATOR_FLAG_H_
