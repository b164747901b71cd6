// Finding and opening a database directory for the admin CLI, with errors that say what is
// wrong: no such directory, a directory that holds no database (no CURRENT file), or the DB's
// own error from DB::Open (corruption, a LOCK held by another process, ...).
#ifndef SHALE_TOOLS_SHALE_DB_FILES_H_
#define SHALE_TOOLS_SHALE_DB_FILES_H_

#include <memory>
#include <string>
#include <string_view>

#include "cli_args.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::cli {

// OK when `dir` holds a database (a CURRENT file); otherwise NotFound saying which is missing.
Status CheckIsDatabase(const std::string& dir);

// Opens the existing database in `dir` with the options of its latest OPTIONS file (or the
// defaults if it has none). Never creates one.
Status OpenExisting(const std::string& dir, std::unique_ptr<DB>* db);

// The path of the newest OPTIONS-<n> file in `dir`; NotFound if there is none.
Status LatestOptionsFile(const std::string& dir, std::string* path);

// `s` with its non-printable bytes as \xNN (and backslash as \\), for printing keys and
// values; with `hex`, all of `s` as uppercase hex digits.
std::string Printable(std::string_view s, bool hex);
// Decodes hex digits (either case); InvalidArgument naming `what` if `s` is not hex.
Status ParseHex(std::string_view s, std::string_view what, std::string* out);
// The value of option `name` of `args` as bytes (empty when absent): verbatim, or decoded
// from hex digits when the command was given --hex.
Status OptionBytes(const CliArgs& args, std::string_view name, std::string* out);

}  // namespace shale::cli

#endif  // SHALE_TOOLS_SHALE_DB_FILES_H_
