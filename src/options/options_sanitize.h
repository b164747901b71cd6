// SanitizeOptions: the quiet adjustments RocksDB makes to options at DB::Open (its
// SanitizeOptions for DB and column-family options, and BlockBasedTableFactory's
// InitializeOptions), made the same way here so that an options string or OPTIONS file that
// RocksDB opens opens here too. Each adjustment is reported as a note, which DB::Open and
// DB::SetOptions write to the info LOG. doc/options.md lists every rule.
//
// Only values RocksDB adjusts are adjusted; values RocksDB refuses, and values that cannot work
// here, are left for ValidateOptions to refuse with InvalidArgument. Sanitizing twice changes
// nothing the second time (the rules are idempotent).
//
// Thread-safety: stateless.
#ifndef SHALE_OPTIONS_OPTIONS_SANITIZE_H_
#define SHALE_OPTIONS_OPTIONS_SANITIZE_H_

#include <string>
#include <vector>

#include "shale/options.h"

namespace shale {

// Adjusts *options in place. For each option changed, appends to *notes (when not null)
// "<option>: <old> -> <new> (<why>)".
void SanitizeOptions(Options* options, std::vector<std::string>* notes);

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTIONS_SANITIZE_H_
