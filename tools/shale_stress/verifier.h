// Verification: reads every key of the DB and checks it against what the expected state
// allows (the rules are in expected_state.h for a process crash and durability.h for a power
// loss):
//  1. every key in the DB is a stress key below max_key, and its value decodes (value_codec.h)
//     and names this key;
//  2. the key holds one of its allowed words: a value with an allowed put word, or no value
//     when an allowed word is a deletion (or generation 0);
//  3. a multi-key write is all or nothing: when a key shows a value of such a write, every
//     member key holds that write or a newer one (a newer generation, or absent through an
//     allowed deletion of a newer generation);
//  4. an iterator over the whole DB and a Get of each key agree.
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

#include "shale/db.h"
#include "value_codec.h"

namespace shale::stress {

// What the DB holds for one key.
struct Found {
  bool present = false;
  GenWord word = 0;              // when present
  std::vector<Member> members;   // when present
};

using AllowedFn = std::function<std::vector<GenWord>(uint32_t key)>;

struct VerifyResult {
  uint64_t keys_checked = 0;
  uint64_t keys_present = 0;
  std::vector<std::string> failures;  // one line each: the key, expected, found
  // Per key, the word the DB holds (for an absent key: its newest allowed deletion, or 0).
  // Meaningful when there are no failures.
  std::vector<GenWord> resolved;
};

// Reads keys [0, max_key) with an iterator and with Get, into found (resized to max_key).
// Problems of rules 1 and 4 are appended to *failures; a read error is returned.
[[nodiscard]] Status ReadState(DB* db, uint32_t max_key, std::vector<Found>* found,
                               std::vector<std::string>* failures);

// Checks rules 2 and 3 of `found` against `allowed`.
VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed);

// Whether `found` is one of `allowed` (rule 2 for one key); `resolved` gets the word matched.
bool MatchesAllowed(const Found& found, const std::vector<GenWord>& allowed, GenWord* resolved);

// "k=0000000042 found g5:put allowed {g4:put, g6:del}" for messages.
std::string DescribeMismatch(uint32_t key, const Found& found,
                             const std::vector<GenWord>& allowed);

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_VERIFIER_H_
