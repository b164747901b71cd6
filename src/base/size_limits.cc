#include "base/size_limits.h"

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

Status TooLarge(std::string_view what, std::string_view field, size_t size, size_t limit) {
  return Status::InvalidArgument(
      absl::StrCat(ToAbsl(what), ": ", ToAbsl(field), " of ", size, " bytes is too large"),
      absl::StrCat("the limit is ", limit, " bytes (shale/limits.h)"));
}

}  // namespace

Status CheckKeySize(std::string_view what, size_t key_size, const SizeLimits& limits) {
  if (key_size > limits.max_key) return TooLarge(what, "key", key_size, limits.max_key);
  return Status::OK();
}

Status CheckValueSize(std::string_view what, size_t value_size, const SizeLimits& limits) {
  if (value_size > limits.max_value) {
    return TooLarge(what, "value", value_size, limits.max_value);
  }
  return Status::OK();
}

Status CheckRangeKeySizes(std::string_view what, size_t begin_size, size_t end_size,
                          const SizeLimits& limits) {
  if (begin_size > limits.max_key) {
    return TooLarge(what, "range begin key", begin_size, limits.max_key);
  }
  if (end_size > limits.max_key) return TooLarge(what, "range end key", end_size, limits.max_key);
  return Status::OK();
}

Status CheckBatchSize(std::string_view what, size_t batch_bytes, const SizeLimits& limits) {
  if (batch_bytes > limits.max_batch) {
    return TooLarge(what, "write batch", batch_bytes, limits.max_batch);
  }
  return Status::OK();
}

}  // namespace shale
