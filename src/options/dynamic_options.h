// Changing options on an open DB: the checks and parsing behind DB::SetOptions (one column
// family's options) and DB::SetDBOptions (the DB's options), RocksDB's split. Each takes
// RocksDB-style name -> value changes ("write_buffer_size" -> "64M",
// "compaction_options_universal" -> "{size_ratio=2}" or "size_ratio=2") and applies them, all
// or none, to a copy of the current options. Only dynamic options may change (the fields whose
// "Dynamic:" note in shale/options.h says yes; option_fields.cc marks them).
//
// Values are parsed, not validated or sanitized: the caller runs those on the combined options
// (Options(db_options, cf_options)) before installing them.
//
// Thread-safety: stateless functions; the caller serializes access to its options.
#ifndef SHALE_OPTIONS_DYNAMIC_OPTIONS_H_
#define SHALE_OPTIONS_DYNAMIC_OPTIONS_H_

#include <string>
#include <unordered_map>

#include "shale/options.h"
#include "shale/status.h"

namespace shale {

// *result = base with `changes` applied, or InvalidArgument naming the first (by name) option
// that is unknown ("unknown option 'x'"), a DB option ("max_background_jobs is a DB option: use
// SetDBOptions"), not dynamic ("num_levels cannot be changed while the DB is open"), or has a
// bad value ("write_buffer_size: invalid value 'big' (...)"); then *result is untouched.
Status ApplyColumnFamilyOptionChanges(const ColumnFamilyOptions& base,
                                      const std::unordered_map<std::string, std::string>& changes,
                                      ColumnFamilyOptions* result);

// The same for the DB options: a column-family option is refused with "write_buffer_size is a
// column family option: use SetOptions".
Status ApplyDBOptionChanges(const DBOptions& base,
                            const std::unordered_map<std::string, std::string>& changes,
                            DBOptions* result);

}  // namespace shale

#endif  // SHALE_OPTIONS_DYNAMIC_OPTIONS_H_
