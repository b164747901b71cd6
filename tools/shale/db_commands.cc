// get, put, delete and scan: reads and writes of one column family (--column_family, default
// "default") through the public API; list_column_families, create_column_family and
// drop_column_family.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "db_files.h"

namespace shale::cli {

namespace {

// The positional argument `i` as bytes: verbatim, or decoded from hex with --hex.
Status Bytes(const CliArgs& args, size_t i, std::string_view what, std::string* out) {
  if (args.Has("hex")) return ParseHex(args.positional()[i], what, out);
  *out = args.positional()[i];
  return Status::OK();
}

}  // namespace

int ReportError(std::string_view command, const Status& s) {
  std::fprintf(stderr, "shale: %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               s.ToString().c_str());
  return kExitFailed;
}

int GetCommand(const CliArgs& args) {
  std::string key, value;
  Status s = Bytes(args, 1, "KEY", &key);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family, /*read_only=*/true);
  if (s.ok()) s = db.db()->Get(ReadOptions(), family, key, &value);
  if (s.IsNotFound() && db.db() != nullptr) {
    std::fprintf(stderr, "shale: get: key not found: %s\n",
                 Printable(key, args.Has("hex")).c_str());
    return kExitFailed;
  }
  if (!s.ok()) return ReportError("get", s);
  std::printf("%s\n", Printable(value, args.Has("hex")).c_str());
  return db.Close().ok() ? kExitOk : kExitFailed;
}

int PutCommand(const CliArgs& args) {
  std::string key, value;
  Status s = Bytes(args, 1, "KEY", &key);
  if (s.ok()) s = Bytes(args, 2, "VALUE", &value);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family);
  if (s.ok()) s = db.db()->Put(WriteOptions(), family, key, value);
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("put", s);
  std::printf("OK\n");
  return kExitOk;
}

int DeleteCommand(const CliArgs& args) {
  std::string key;
  Status s = Bytes(args, 1, "KEY", &key);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family);
  if (s.ok()) s = db.db()->Delete(WriteOptions(), family, key);
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("delete", s);
  std::printf("OK\n");
  return kExitOk;
}

int ScanCommand(const CliArgs& args) {
  std::string from, to;
  uint64_t limit = 0;
  Status s = OptionBytes(args, "from", &from);
  if (s.ok()) s = OptionBytes(args, "to", &to);
  if (s.ok()) s = args.GetUint("limit", UINT64_MAX, &limit);
  OpenedDb db;
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = OpenWithFamily(args, &db, &family, /*read_only=*/true);
  if (!s.ok()) return ReportError("scan", s);
  const std::string_view upper = to;
  ReadOptions read_options;
  if (args.Has("to")) read_options.iterate_upper_bound = &upper;
  const bool hex = args.Has("hex");
  uint64_t n = 0;
  {
    std::unique_ptr<Iterator> it = db.db()->NewIterator(read_options, family);
    for (it->Seek(from); it->Valid() && n < limit; it->Next(), n++) {
      std::printf("%s : %s\n", Printable(it->key(), hex).c_str(),
                  Printable(it->value(), hex).c_str());
    }
    s = it->status();
  }
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("scan", s);
  return kExitOk;
}

int ListColumnFamiliesCommand(const CliArgs& args) {
  const std::string& dir = args.positional()[0];
  std::vector<std::string> names;
  Status s = CheckIsDatabase(dir);
  if (s.ok()) s = DB::ListColumnFamilies(DBOptions(), dir, &names);
  if (!s.ok()) return ReportError("list_column_families", s);
  for (const std::string& name : names) std::printf("%s\n", Printable(name, false).c_str());
  return kExitOk;
}

int CreateColumnFamilyCommand(const CliArgs& args) {
  const std::string& name = args.positional()[1];
  OpenedDb db;
  Status s = OpenExisting(args.positional()[0], &db);
  ColumnFamilyHandle* family = nullptr;
  // The new family takes the default family's options, with --options on top.
  ColumnFamilyOptions options;
  if (s.ok()) {
    s = GetColumnFamilyOptionsFromString(db.db()->GetOptions(db.families()[0]),
                                         args.Get("options"), &options);
  }
  if (s.ok()) s = db.db()->CreateColumnFamily(options, name, &family);
  if (s.ok()) s = db.db()->DestroyColumnFamilyHandle(family);
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("create_column_family", s);
  std::printf("OK\n");
  return kExitOk;
}

int DropColumnFamilyCommand(const CliArgs& args) {
  const std::string& name = args.positional()[1];
  OpenedDb db;
  Status s = OpenExisting(args.positional()[0], &db);
  ColumnFamilyHandle* family = nullptr;
  if (s.ok()) s = db.Family(name, &family);
  if (s.ok()) s = db.db()->DropColumnFamily(family);
  if (s.ok()) s = db.Close();
  if (!s.ok()) return ReportError("drop_column_family", s);
  std::printf("OK\n");
  return kExitOk;
}

}  // namespace shale::cli
