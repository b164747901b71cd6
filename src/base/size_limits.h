// Checks of keys, values and write batches against the size limits of shale/limits.h, shared by
// every entry point that accepts them (WriteBatch, DB::Write, SstFileWriter, BulkLoader) so
// that each refuses the same sizes with the same message. The limits are a parameter so that
// tests can check the boundary logic with small limits.
//
// Thread-safety: pure functions.
#ifndef SHALE_BASE_SIZE_LIMITS_H_
#define SHALE_BASE_SIZE_LIMITS_H_

#include <cstddef>
#include <string_view>

#include "shale/limits.h"
#include "shale/status.h"

namespace shale {

// The limits a write is checked against; the defaults are the engine's (shale/limits.h).
struct SizeLimits {
  size_t max_key = kMaxKeySize;
  size_t max_value = kMaxValueSize;
  size_t max_batch = kMaxWriteBatchSize;
};

// OK, or InvalidArgument naming `what` (e.g. "Put", "SstFileWriter::Merge"), the field and
// the limit when key_size > limits.max_key.
Status CheckKeySize(std::string_view what, size_t key_size, const SizeLimits& limits = {});

// OK, or InvalidArgument naming `what` and the limit when value_size > limits.max_value.
Status CheckValueSize(std::string_view what, size_t value_size, const SizeLimits& limits = {});

// OK, or InvalidArgument when a range deletion's begin or end key is longer than
// limits.max_key.
Status CheckRangeKeySizes(std::string_view what, size_t begin_size, size_t end_size,
                          const SizeLimits& limits = {});

// OK, or InvalidArgument naming `what` when a write batch of batch_bytes serialized bytes
// exceeds limits.max_batch.
Status CheckBatchSize(std::string_view what, size_t batch_bytes, const SizeLimits& limits = {});

}  // namespace shale

#endif  // SHALE_BASE_SIZE_LIMITS_H_
