// Sorted sets of 64-bit ids (posting lists) for the "sortedset64" merge operator
// (NewSortedSet64Operator in shale/merge_operator.h): build the operands that add and remove
// ids, build a whole value for Put, and read values without decoding more than needed.
//
// A key's value is a set of distinct uint64 ids kept sorted. Writers Merge small operands
// ("add these ids", "remove those"); the operator combines them lazily, and applying a patch
// of a few ids to a value of millions costs about one copy of the value: only the blocks the
// patch touches are decoded, all others are copied byte for byte.
//
// Formats (all integers little-endian; "varint" is the LEB128 varint of shale's other formats).
//
// Value, format 1:
//   byte    0x01                   format tag and version
//   varint  index_interval         8..65536: the mean number of ids per block
//   varint  count                  ids in the set (0: an empty set, a valid value)
//   varint  num_blocks             0 when count is 0, else 1..count
//   index   num_blocks entries of 16 bytes, by increasing first id:
//             fixed64 first_id     the block's smallest id
//             fixed32 offset       where the block's bytes start in the data (block 0: 0)
//             fixed32 block_count  ids in the block: 1..8 * index_interval
//   data    the blocks back to back; block i runs from its offset to the next block's offset
//           (the last to the end of the value) and holds block_count - 1 varints: each id
//           after the first as its difference (>= 1) from the id before it.
//   The sum of block_counts is count; a block's last id is below the next block's first_id.
//
//   Where blocks start (canonical layout): the ids are cut into blocks by their content, not by
//   their position. The first id starts a block, and so does every id x with
//   SplitMix64Finalizer(x + 0x9E3779B97F4A7C15) < floor((2^64 - 1) / index_interval) (about
//   one id in index_interval: a "boundary" id); a block also ends when it holds
//   8 * index_interval ids. The layout is thus a function of the set and index_interval alone:
//   however a set was reached (one Put, or any sequence of merges, partial merges and
//   compactions), its value has the same bytes, and adding or removing an id re-cuts only the
//   blocks between the two boundary ids around it. (Rejected: cutting every index_interval-th id,
//   which makes one insertion near the front shift every later block, and a re-cut only of
//   the touched block, which makes the bytes depend on the history of merges.)
//   SplitMix64Finalizer(z) is z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27;
//   z *= 0x94D049BB133111EB; z ^= z >> 31.
//   The operator gives a value it creates (for a key without one) its own index_interval; a
//   value it patches keeps the index_interval recorded in it.
//
// Operand, format 1:
//   byte    0x02                   format tag and version
//   varint  num_adds
//   varint  num_removes
//   adds    num_adds varints: the smallest id, then each next id as its difference (>= 1)
//   removes num_removes varints, the same way
//   No id is both added and removed in one operand. An operand's effect is applied in order:
//   of a key's operands, the newest that names an id decides whether the id ends up in the set.
//
// Reading functions validate what they read and return Corruption (naming what is wrong) for
// a malformed input; they never read outside it. Building functions return InvalidArgument
// for bad arguments. A merge fails (Corruption) on a malformed operand, or on a value whose
// header, index or patched blocks are malformed; blocks it copies unchanged are not decoded,
// which is what keeps it cheap.
//
// Thread-safety: plain functions of their arguments; safe from any thread.
#ifndef SHALE_SORTED_SET64_H_
#define SHALE_SORTED_SET64_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shale/export.h"
#include "shale/status.h"

namespace shale {

// The index_interval range of values and of NewSortedSet64Operator, and its default.
inline constexpr int kSortedSet64MinIndexInterval = 8;
inline constexpr int kSortedSet64MaxIndexInterval = 65536;
inline constexpr int kSortedSet64DefaultIndexInterval = 128;

// ---------------------------------------------------------------- Building operands

// An operand that adds `ids` (any order; duplicates are ignored).
SHALE_EXPORT std::string SortedSet64AddOperand(std::vector<uint64_t> ids);

// An operand that removes `ids` (any order; duplicates are ignored).
SHALE_EXPORT std::string SortedSet64RemoveOperand(std::vector<uint64_t> ids);

// An operand that adds `adds` and removes `removes` (any order; duplicates ignored) into
// *operand. InvalidArgument when an id is in both (the intent is unclear: write two operands,
// the later one wins).
[[nodiscard]] SHALE_EXPORT Status SortedSet64Operand(std::vector<uint64_t> adds,
                                                     std::vector<uint64_t> removes,
                                                     std::string* operand);

// ---------------------------------------------------------------- Building values

// The value holding the set `ids` (any order; duplicates ignored), with the given
// index_interval, into *value: what to Put to replace a key's whole set. InvalidArgument when
// index_interval is outside [kSortedSet64MinIndexInterval, kSortedSet64MaxIndexInterval] or
// the set is too large to encode (more than 4 GiB of block data).
[[nodiscard]] SHALE_EXPORT Status SortedSet64Value(std::vector<uint64_t> ids, int index_interval,
                                                   std::string* value);

// ---------------------------------------------------------------- Reading

// All ids of `value`, ascending, into *ids (replacing its contents). Validates the whole value.
[[nodiscard]] SHALE_EXPORT Status SortedSet64Decode(std::string_view value,
                                                    std::vector<uint64_t>* ids);

// Whether `id` is in the set `value`: reads the header, binary-searches the index and decodes
// one block. Validates what it reads (the header and that block), not the whole value.
[[nodiscard]] SHALE_EXPORT Status SortedSet64Contains(std::string_view value, uint64_t id,
                                                      bool* found);

// The number of ids in `value`, from its header alone.
[[nodiscard]] SHALE_EXPORT Status SortedSet64Count(std::string_view value, uint64_t* count);

// The ids an operand adds and removes, ascending, into *adds and *removes. Validates it.
[[nodiscard]] SHALE_EXPORT Status SortedSet64DecodeOperand(std::string_view operand,
                                                           std::vector<uint64_t>* adds,
                                                           std::vector<uint64_t>* removes);

}  // namespace shale

#endif  // SHALE_SORTED_SET64_H_
