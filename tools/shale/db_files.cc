#include "db_files.h"

#include <cstdint>
#include <vector>

#include "base/filename.h"

namespace shale::cli {

Status CheckIsDatabase(const std::string& dir) {
  const std::shared_ptr<FileSystem> fs = FileSystem::Default();
  std::vector<std::string> children;
  if (!fs->GetChildren(dir, &children).ok()) {
    return Status::NotFound(dir, "no such directory");
  }
  if (!fs->FileExists(CurrentFileName(dir)).ok()) {
    return Status::NotFound(dir, "not a ShaleDB database (no CURRENT file)");
  }
  return Status::OK();
}

Status LatestOptionsFile(const std::string& dir, std::string* path) {
  std::vector<std::string> children;
  Status s = FileSystem::Default()->GetChildren(dir, &children);
  if (!s.ok()) return s;
  uint64_t best = 0;
  bool found = false;
  for (const std::string& name : children) {
    uint64_t number = 0;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kOptionsFile &&
        (!found || number > best)) {
      best = number;
      found = true;
    }
  }
  if (!found) return Status::NotFound(dir, "no OPTIONS file");
  *path = OptionsFileName(dir, best);
  return Status::OK();
}

OpenedDb::~OpenedDb() { Close().PermitUncheckedError(); }

Status OpenedDb::Family(std::string_view name, ColumnFamilyHandle** family) const {
  std::string names;
  for (ColumnFamilyHandle* handle : families_) {
    if (handle->GetName() == name) {
      *family = handle;
      return Status::OK();
    }
    names += (names.empty() ? "" : ", ") + handle->GetName();
  }
  return Status::InvalidArgument("--column_family",
                                 "the database has no column family '" + std::string(name) +
                                     "' (it has: " + names + ")");
}

Status OpenedDb::Close() {
  if (db_ == nullptr) return Status::OK();
  for (ColumnFamilyHandle* handle : families_) {
    db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  families_.clear();
  Status s = db_->Close();
  db_.reset();
  return s;
}

Status LoadLatestOptions(const std::string& dir, DBOptions* db_options,
                         std::vector<ColumnFamilyDescriptor>* families) {
  std::string options_path;
  if (!LatestOptionsFile(dir, &options_path).ok()) return Status::OK();  // the defaults
  return LoadOptionsFromFile(db_options->file_system.get(), options_path, db_options, families);
}

ColumnFamilyOptions FamilyOptions(const std::vector<ColumnFamilyDescriptor>& families,
                                  std::string_view name) {
  const ColumnFamilyDescriptor* fallback = nullptr;
  for (const ColumnFamilyDescriptor& d : families) {
    if (d.name == name) return d.options;
    if (d.name == kDefaultColumnFamilyName) fallback = &d;
  }
  return fallback != nullptr ? fallback->options : ColumnFamilyOptions();
}

Status OpenExisting(const std::string& dir, OpenedDb* db, bool read_only) {
  Status s = CheckIsDatabase(dir);
  if (!s.ok()) return s;
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> from_file;
  s = LoadLatestOptions(dir, &db_options, &from_file);
  if (!s.ok()) return s;
  db_options.create_if_missing = false;
  db_options.error_if_exists = false;
  std::vector<std::string> names;
  s = DB::ListColumnFamilies(db_options, dir, &names);
  if (!s.ok()) return Status(s.code(), s.subcode(), "cannot open " + dir, s.message());
  // Each family with its own options from the OPTIONS file (the default family's when the
  // file has none for it), so that opening here does not rewrite them.
  std::vector<ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : names) {
    descriptors.emplace_back(name, FamilyOptions(from_file, name));
    // The file gives each family a block cache of its own; the DB has one, the default
    // family's, which a null block cache stands for.
    if (name != kDefaultColumnFamilyName) {
      descriptors.back().options.table_options.block_cache = nullptr;
    }
  }
  s = read_only ? DB::OpenForReadOnly(db_options, dir, descriptors, &db->families_, &db->db_)
                : DB::Open(db_options, dir, descriptors, &db->families_, &db->db_);
  if (!s.ok()) return Status(s.code(), s.subcode(), "cannot open " + dir, s.message());
  return s;
}

Status OpenWithFamily(const CliArgs& args, OpenedDb* db, ColumnFamilyHandle** family,
                      bool read_only) {
  Status s = OpenExisting(args.positional()[0], db, read_only);
  if (s.ok()) s = db->Family(args.Get(kColumnFamilyOption, kDefaultColumnFamilyName), family);
  return s;
}

std::string Printable(std::string_view s, bool hex) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (hex) {
      out += kDigits[u >> 4];
      out += kDigits[u & 0xf];
    } else if (c == '\\') {
      out += "\\\\";
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kDigits[u >> 4];
      out += kDigits[u & 0xf];
    }
  }
  return out;
}

Status ParseHex(std::string_view s, std::string_view what, std::string* out) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out->clear();
  if (s.size() % 2 != 0) return Status::InvalidArgument(what, "odd number of hex digits");
  for (size_t i = 0; i < s.size(); i += 2) {
    const int hi = nibble(s[i]);
    const int lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument(what, "not a hex string");
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return Status::OK();
}

Status OptionBytes(const CliArgs& args, std::string_view name, std::string* out) {
  const std::string v = args.Get(name);
  if (args.Has("hex")) return ParseHex(v, "--" + std::string(name), out);
  *out = v;
  return Status::OK();
}

}  // namespace shale::cli
