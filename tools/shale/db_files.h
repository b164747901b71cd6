// Finding and opening a database directory for the admin CLI, with errors that say what is
// wrong: no such directory, a directory that holds no database (no CURRENT file), or the DB's
// own error from DB::Open (corruption, a LOCK held by another process, ...).
#ifndef SHALE_TOOLS_SHALE_DB_FILES_H_
#define SHALE_TOOLS_SHALE_DB_FILES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli_args.h"
#include "shale/db.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::cli {

// OK when `dir` holds a database (a CURRENT file); otherwise NotFound saying which is missing.
Status CheckIsDatabase(const std::string& dir);

// An existing database as the CLI opens it: with every column family it has (DB::Open must name
// them all), and their handles. Close releases the handles, then closes the DB; the destructor
// does the same for a DB not closed, ignoring errors.
//
// Thread-safety: used by the CLI's one thread.
class OpenedDb {
 public:
  OpenedDb() = default;
  OpenedDb(const OpenedDb&) = delete;
  OpenedDb& operator=(const OpenedDb&) = delete;
  ~OpenedDb();

  // The DB (null until opened, and after Close).
  DB* db() const { return db_.get(); }
  // One handle per family, "default" first, then in creation order.
  const std::vector<ColumnFamilyHandle*>& families() const { return families_; }
  // The handle of the family `name`; InvalidArgument naming the DB's families when it has no
  // such family.
  Status Family(std::string_view name, ColumnFamilyHandle** family) const;
  // Releases the handles and closes the DB: OK, or Close's error. OK when not open.
  Status Close();

 private:
  friend Status OpenExisting(const std::string& dir, OpenedDb* db, bool read_only);

  std::unique_ptr<DB> db_;
  std::vector<ColumnFamilyHandle*> families_;  // owned; released before db_ closes
};

// Reads the latest OPTIONS file of `dir` onto *db_options and *families (one descriptor per
// family the file has); leaves them as they are when there is no OPTIONS file.
Status LoadLatestOptions(const std::string& dir, DBOptions* db_options,
                         std::vector<ColumnFamilyDescriptor>* families);

// The options of the family `name` among `families`; the default family's when it is not
// there (ColumnFamilyOptions() when neither is).
ColumnFamilyOptions FamilyOptions(const std::vector<ColumnFamilyDescriptor>& families,
                                  std::string_view name);

// Opens the existing database in `dir` with every column family it has, each with its options
// from the latest OPTIONS file (see FamilyOptions; the defaults if there is no file). Never
// creates one. `read_only`: DB::OpenForReadOnly (no LOCK taken, so a running writer does not
// block it, and no file of the DB changes), for the commands that only read.
Status OpenExisting(const std::string& dir, OpenedDb* db, bool read_only = false);

// The option every command that reads or writes keys takes: --column_family=NAME, the family
// to work on ("default" when absent).
inline constexpr std::string_view kColumnFamilyOption = "column_family";

// OpenExisting(args.positional()[0], db, read_only), then the family --column_family names.
Status OpenWithFamily(const CliArgs& args, OpenedDb* db, ColumnFamilyHandle** family,
                      bool read_only = false);

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
