// Keyspace: where each key of the expected state lives in the DB, with column families
// (--column_families=N).
//
// Every stress key k in [0, max_key) exists in every family, each copy with its own expected
// state: the expected state, the key locks, the durability tracker and the members of a
// multi-key write all work on slots, slot = family * max_key + k, so family f's copy of key k
// is its own model key (RocksDB's db_stress keeps its expected state per family the same way).
// In the DB, slot s is key KeyString(Key(s)) of family Family(s): the families hold the same
// key strings, and the value of slot s names s (value_codec.h), so a value read from the wrong
// family, or a merge operand applied in the wrong one, does not verify. A write batch may put
// one key into several families (a batch across families); its member list names every slot,
// so the verifier's all-or-nothing rule (verifier.h, rule 3) covers it across families.
// Family 0 is "default"; family f > 0 is named "cf<f>". With one family (the default) a slot
// is its key and nothing differs from a DB without families.
//
// Thread-safety: a plain value.
#ifndef SHALE_TOOLS_SHALE_STRESS_KEYSPACE_H_
#define SHALE_TOOLS_SHALE_STRESS_KEYSPACE_H_

#include <cstdint>
#include <string>

#include "value_codec.h"

namespace shale::stress {

// The most --column_families takes (flags.cc also bounds max_key * column_families).
inline constexpr uint32_t kMaxColumnFamilies = 8;

struct Keyspace {
  uint32_t max_key = 0;   // keys per family
  uint32_t families = 1;  // column families, the default one included

  uint32_t slots() const { return max_key * families; }
  uint32_t Family(uint32_t slot) const { return slot / max_key; }
  uint32_t Key(uint32_t slot) const { return slot % max_key; }
  uint32_t Slot(uint32_t family, uint32_t key) const { return family * max_key + key; }
  // The first slot of the family of `slot`, and one past its last.
  uint32_t FamilyBegin(uint32_t slot) const { return Family(slot) * max_key; }
  uint32_t FamilyEnd(uint32_t slot) const { return FamilyBegin(slot) + max_key; }
  // "0000000042" with one family; "cf2/0000000042" (or "default/...") with several.
  std::string Name(uint32_t slot) const {
    if (families == 1) return KeyString(slot);
    return FamilyName(Family(slot)) + "/" + KeyString(Key(slot));
  }

  // The name of family f: "default" for 0, else "cf<f>".
  static std::string FamilyName(uint32_t f) {
    return f == 0 ? std::string("default") : "cf" + std::to_string(f);
  }
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_KEYSPACE_H_
