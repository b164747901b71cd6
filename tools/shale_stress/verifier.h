// Verification: reads every key of the DB and checks it against what the expected state
// allows (the rules are in expected_state.h for a process crash and durability.h for a power
// loss):
//  1. every key in the DB is a stress key below max_key, and its value decodes (value_codec.h:
//     a put value or a merged value) and names this key;
//  2. the key holds one of its allowed states (key_state.h): a value whose newest write and
//     chain hash are those of an allowed present state (so a merged value holds exactly the
//     allowed operands, each once, in order, over the allowed base), or no value when an
//     allowed state is absent (a deletion, or generation 0);
//  3. a multi-key write is all or nothing: when a key shows a value of such a write (a put, or
//     a merged value whose newest operand came from it), every member key holds that write or
//     a newer one (a newer generation, or absent through an allowed deletion of a newer
//     generation). With column families (keyspace.h) the keys are slots and a batch may span
//     families: every family must show the batch or none may (a torn cross-family batch is
//     reported as such, naming both families);
//  4. an iterator over the whole DB, a Get of each key and a MultiGet of each key agree (per
//     family; the MultiGets mix the families). With families, every key of family f holds a
//     value naming its own slot of f (a value of another family's copy of the key is caught).
// CheckState does 2 and 3 on what ReadState read (1 and 4), so that the rules can be tested
// without a DB.
//
// Thread-safety: functions over their arguments; the DB must not be written meanwhile.
#ifndef SHALE_TOOLS_SHALE_STRESS_VERIFIER_H_
#define SHALE_TOOLS_SHALE_STRESS_VERIFIER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "keyspace.h"
#include "shale/db.h"
#include "value_codec.h"

namespace shale::stress {

// What the DB holds for one key.
struct Found {
  bool present = false;
  // When present (DecodedValue's fields):
  GenWord word = 0;              // the newest write: a put or a merge operand
  uint32_t hash = 0;             // the chain hash
  GenWord base = 0;              // for messages: the put under the operands
  uint32_t merges = 0;           // for messages: how many operands
  std::vector<Member> members;

  KeyState state() const { return {word, hash}; }
};

// A Found from a decoded value.
Found FoundFromValue(DecodedValue d);

using AllowedFn = std::function<std::vector<KeyState>(uint32_t key)>;

struct VerifyResult {
  uint64_t keys_checked = 0;
  uint64_t keys_present = 0;
  std::vector<std::string> failures;  // one line each: the key, expected, found
  uint64_t keys_merged = 0;  // present keys whose value is a merge result
  // Per key, the state the DB holds (for an absent key: its newest allowed deletion, or 0).
  // Meaningful when there are no failures.
  std::vector<KeyState> resolved;
};

// Reads every slot of `keyspace` (families[f] holding family f's keys [0, max_key)) with an
// iterator per family, with Get and with MultiGet, into found (resized to keyspace.slots()).
// Problems of rules 1 and 4 are appended to *failures; a read error is returned.
[[nodiscard]] Status ReadState(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                               const Keyspace& keyspace, std::vector<Found>* found,
                               std::vector<std::string>* failures);
// The default family only: keys [0, max_key).
[[nodiscard]] Status ReadState(DB* db, uint32_t max_key, std::vector<Found>* found,
                               std::vector<std::string>* failures);

// Checks rules 2 and 3 of `found` (one entry per slot of `keyspace`) against `allowed`.
VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed,
                        const Keyspace& keyspace);
// One family: keys [0, found.size()).
VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed);

// Whether `found` is one of `allowed` (rule 2 for one key); `resolved` gets the state matched.
bool MatchesAllowed(const Found& found, const std::vector<KeyState>& allowed,
                    KeyState* resolved);

// "absent", "g5:put", "g9:merge#1a2b3c4d (2 operands over g5:put)".
std::string DescribeFound(const Found& found);
// "key 0000000042: found g5:put, allowed {g4:put, g6:del}" for messages (the key named by
// keyspace.Name: "key cf1/0000000042" with families).
std::string DescribeMismatch(uint32_t key, const Found& found,
                             const std::vector<KeyState>& allowed);
std::string DescribeMismatch(const Keyspace& keyspace, uint32_t slot, const Found& found,
                             const std::vector<KeyState>& allowed);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_VERIFIER_H_
