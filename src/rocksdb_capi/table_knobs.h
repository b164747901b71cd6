// Helpers of the "table" group of RocksDB's C API (table options, read/write options) for knobs
// accepted without effect: a handle's accepted_knobs map (handles.h) holds each such knob the
// caller set to a value other than RocksDB's default, as text, keyed by RocksDB's option name;
// the getters read it back. Setting a knob back to its default removes it, so the map lists
// exactly the settings ShaleDB ignores.
//
// Thread-safety: none; a handle is changed by one thread at a time (handles.h).
#ifndef SHALE_ROCKSDB_CAPI_TABLE_KNOBS_H_
#define SHALE_ROCKSDB_CAPI_TABLE_KNOBS_H_

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

namespace shale::rocksdb_capi {

using KnobMap = std::map<std::string, std::string>;

// Records `name` = `value` (as decimal text), or forgets it when value is RocksDB's default.
inline void SetKnob(KnobMap* knobs, const char* name, uint64_t value, uint64_t default_value) {
  if (value == default_value) {
    knobs->erase(name);
  } else {
    (*knobs)[name] = std::to_string(value);
  }
}

// Records a boolean knob as "true"/"false", or forgets it when it is RocksDB's default.
inline void SetBoolKnob(KnobMap* knobs, const char* name, bool value, bool default_value) {
  if (value == default_value) {
    knobs->erase(name);
  } else {
    (*knobs)[name] = value ? "true" : "false";
  }
}

// The value SetKnob recorded under `name`, or `default_value` when none is.
inline uint64_t KnobOr(const KnobMap& knobs, const char* name, uint64_t default_value) {
  auto it = knobs.find(name);
  if (it == knobs.end()) return default_value;
  return std::strtoull(it->second.c_str(), nullptr, 10);
}

// The value SetBoolKnob recorded under `name`, or `default_value` when none is.
inline bool BoolKnobOr(const KnobMap& knobs, const char* name, bool default_value) {
  auto it = knobs.find(name);
  if (it == knobs.end()) return default_value;
  return it->second == "true";
}

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_TABLE_KNOBS_H_
