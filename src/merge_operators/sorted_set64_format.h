// The "sortedset64" value and operand formats (specified in shale/sorted_set64.h): encoding,
// validating decoding, and applying a patch to a value while copying the blocks it does not
// touch byte for byte.
//
// A patch is what operands amount to: a list of changes sorted by id, each id at most once,
// each either "add" or "remove". An operand encodes one patch; several operands combine into
// one patch (the newer change of an id wins), which is then applied to the value once.
//
// Every decoder checks what it reads and returns Corruption naming the problem; none reads
// outside its input, whatever the input. (Values: sorted_set64_format.cc; operands and
// patches: sorted_set64_operand.cc.)
//
// Thread-safety: stateless functions; safe from any thread.
#ifndef SHALE_MERGE_OPERATORS_SORTED_SET64_FORMAT_H_
#define SHALE_MERGE_OPERATORS_SORTED_SET64_FORMAT_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shale/sorted_set64.h"
#include "shale/status.h"

namespace shale {

inline constexpr char kSortedSet64ValueTag = 0x01;
inline constexpr char kSortedSet64OperandTag = 0x02;
// A block holds at most this many times index_interval ids.
inline constexpr uint32_t kSortedSet64MaxBlockFactor = 8;

// One change of a patch.
struct SortedSet64Change {
  uint64_t id;
  bool add;  // true: add the id; false: remove it
  bool operator==(const SortedSet64Change&) const = default;
};

// Changes sorted by id, each id at most once.
using SortedSet64Patch = std::vector<SortedSet64Change>;

// Whether `index_interval` is in the accepted range.
inline bool ValidSortedSet64IndexInterval(int64_t index_interval) {
  return index_interval >= kSortedSet64MinIndexInterval &&
         index_interval <= kSortedSet64MaxIndexInterval;
}

// Encodes the set `ids` into *value (replacing it). InvalidArgument when the block data would
// exceed 4 GiB. REQUIRES: ids strictly ascending; ValidSortedSet64IndexInterval(index_interval).
[[nodiscard]] Status EncodeSortedSet64Value(std::span<const uint64_t> ids, int index_interval,
                                            std::string* value);

// Decodes and validates a whole value into *ids (replacing its contents).
[[nodiscard]] Status DecodeSortedSet64Value(std::string_view value, std::vector<uint64_t>* ids);

// Sets *found to whether `id` is in `value`, decoding one block.
[[nodiscard]] Status SortedSet64ValueContains(std::string_view value, uint64_t id, bool* found);

// The id count from the value's header.
[[nodiscard]] Status SortedSet64ValueCount(std::string_view value, uint64_t* count);

// Makes the patch adding `adds` and removing `removes` (each strictly ascending) into *patch.
// Returns false, with the id in *conflict, when an id is in both.
bool MakeSortedSet64Patch(std::span<const uint64_t> adds, std::span<const uint64_t> removes,
                          SortedSet64Patch* patch, uint64_t* conflict);

// Encodes a patch as an operand into *operand (replacing it).
void EncodeSortedSet64Operand(const SortedSet64Patch& patch, std::string* operand);

// Decodes and validates an operand into *patch (replacing its contents).
[[nodiscard]] Status DecodeSortedSet64Operand(std::string_view operand, SortedSet64Patch* patch);

// The patch with the effect of `older` followed by `newer`, into *out (which must be neither
// input): every id of either, with newer's change when both have it.
void CombineSortedSet64Patches(const SortedSet64Patch& older, const SortedSet64Patch& newer,
                               SortedSet64Patch* out);

// Applies `patch` to the valid-looking `value`: checks its header and index, decodes only the
// blocks between the boundary ids around each change, and writes the result into *result, or
// sets *changed to false and leaves *result alone when the patch changes nothing. The result
// keeps value's index_interval. Blocks that are copied verbatim are not decoded, so not
// validated beyond the index. REQUIRES: *result does not hold the bytes `value` views.
[[nodiscard]] Status ApplySortedSet64Patch(std::string_view value, const SortedSet64Patch& patch,
                                           std::string* result, bool* changed);

}  // namespace shale

#endif  // SHALE_MERGE_OPERATORS_SORTED_SET64_FORMAT_H_
