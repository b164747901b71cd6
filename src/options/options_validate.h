// The two checks DB::Open runs on Options before it touches the disk, in this order:
//
// 0. SanitizeOptions (options_sanitize.h) first adjusts the values RocksDB adjusts (and the
//    DB logs each adjustment).
// 1. ValidateOptions (Options::Validate sanitizes a copy, then runs it): every option within
//    its documented range, and the rules that tie options together. What RocksDB refuses, or
//    what cannot work here, fails with InvalidArgument "<option>: <rule>; got <value>".
// 2. CheckSupportedNow: options whose behaviour is not built yet must keep their defaults;
//    otherwise InvalidArgument "<option>: not supported yet; got <value>". The list is one
//    table in options_validate.cc; the issue that builds a feature deletes its line.
//
// Thread-safety: stateless functions.
#ifndef SHALE_OPTIONS_OPTIONS_VALIDATE_H_
#define SHALE_OPTIONS_OPTIONS_VALIDATE_H_

#include "shale/options.h"

namespace shale {

Status ValidateOptions(const Options& options);

Status CheckSupportedNow(const Options& options);

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTIONS_VALIDATE_H_
