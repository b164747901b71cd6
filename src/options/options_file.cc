// OPTIONS files: Options in RocksDB's INI layout, written by DB::Open and read back by tools
// (shale_bench --options_file), including files RocksDB wrote.
//
//   [Version]                                  shale_version (or rocksdb_version) and
//                                              options_file_version=1.1
//   [DBOptions]                                DB-wide options, one name=value a line
//   [CFOptions "default"]                      column-family options
//   [TableOptions/BlockBasedTable "default"]   the block-based table options
//
// Lines may be indented; '#' starts a comment; '\' escapes '#', '\' and (as \n, \r) line breaks
// inside values. Column families follow in the order written (the default one first), each with
// its [CFOptions "<name>"] and [TableOptions/BlockBasedTable "<name>"] sections (RocksDB's
// layout). Sections of other table formats and unknown sections are skipped with a note.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "options/option_fields.h"
#include "shale/options.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

constexpr std::string_view kOptionsFileVersion = "1.1";
constexpr std::string_view kBlockBasedTableSection = "TableOptions/BlockBasedTable";

std::string EscapeValue(std::string_view value) {
  std::string escaped;
  for (char c : value) {
    if (c == '\n') {
      escaped += "\\n";
    } else if (c == '\r') {
      escaped += "\\r";
    } else {
      if (c == '\\' || c == '#') escaped += '\\';
      escaped += c;
    }
  }
  return escaped;
}

// The line without its comment, escapes undone.
std::string UnescapeLine(std::string_view line) {
  std::string text;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (c == '#') break;
    if (c == '\\' && i + 1 < line.size()) {
      c = line[++i];
      if (c == 'n') c = '\n';
      if (c == 'r') c = '\r';
    }
    text += c;
  }
  return text;
}

void AppendSection(std::string_view header, const std::string& body, std::string* out) {
  absl::StrAppend(out, "\n[", ToAbsl(header), "]\n", body);
}

// One "  name=value\n" line per field of the group.
template <typename S>
std::string SectionBody(std::span<const OptionField<S>> fields, const S& source,
                        OptionGroup group) {
  std::string body;
  for (const OptionField<S>& field : fields) {
    if (field.group != group || field.print == nullptr) continue;  // read-only spellings
    absl::StrAppend(&body, "  ", ToAbsl(field.name), "=", EscapeValue(field.print(source)), "\n");
  }
  return body;
}

// Reads an OPTIONS file line by line onto copies of the caller's DB options and families.
// Not thread-safe (one parse, one thread).
class OptionsFileParser {
 public:
  // `bases`: the caller's families, each the starting point of the family of the same name in
  // the file. `default_only`: sections of other families are skipped with a note (the Options
  // overload, which has room for the default family only).
  OptionsFileParser(std::string_view path, const DBOptions& db_options,
                    const std::vector<ColumnFamilyDescriptor>& bases, bool default_only)
      : path_(path), db_options_(db_options), bases_(bases), default_only_(default_only) {}

  Status ParseLine(std::string_view raw, int line_number);
  Status Finish() const;
  DBOptions& db_options() { return db_options_; }
  // One per family section title, in the order of first appearance.
  std::vector<ColumnFamilyDescriptor>& families() { return families_; }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  enum class Section { kNone, kVersion, kDB, kCF, kTable, kSkipped };

  Status StartSection(std::string_view header);
  Status SetVersionField(std::string_view name, std::string_view value);
  // The index in families_ of the family named `name`, added (from the caller's descriptor of
  // that name, else from ColumnFamilyOptions()) if it is not there yet.
  size_t FamilyIndex(std::string_view name);
  void Warn(std::string_view note) {
    warnings_.push_back(absl::StrCat(ToAbsl(path_), ":", line_, ": ", ToAbsl(note)));
  }

  const std::string path_;
  DBOptions db_options_;
  const std::vector<ColumnFamilyDescriptor>& bases_;
  const bool default_only_;
  std::vector<ColumnFamilyDescriptor> families_;
  std::vector<std::string> warnings_;
  Section section_ = Section::kNone;
  size_t family_ = 0;  // the family of a kCF or kTable section: an index in families_
  bool saw_version_ = false;
  bool foreign_ = false;  // written by RocksDB
  int line_ = 0;
};

// Parses `name`=`value` with the fields of one scope; a name of the other scope is skipped with
// a note (a file puts each option in its scope's section).
template <typename S, typename Other>
Status ParseScopedLine(std::span<const OptionField<S>> fields,
                       std::span<const OptionField<Other>> other_fields, OptionScope other_scope,
                       std::string_view section, std::string_view name, std::string_view value,
                       const OptionParseContext& ctx, S* target) {
  if (FindOptionField(fields, name) == nullptr && FindOptionField(other_fields, name) != nullptr) {
    ctx.warnings->push_back(absl::StrCat("skipped ", ToAbsl(name), "=", ToAbsl(value), " in [",
                                         ToAbsl(section), "]: it is a ",
                                         ToAbsl(OptionScopeName(other_scope)), " option"));
    return Status::OK();
  }
  return ParseOneOption(fields, name, value, ctx, target);
}

Status OptionsFileParser::ParseLine(std::string_view raw, int line_number) {
  line_ = line_number;
  std::string unescaped = UnescapeLine(raw);
  std::string_view line = TrimOptionText(unescaped);
  if (line.empty()) return Status::OK();
  if (line.front() == '[') return StartSection(line);
  size_t eq = line.find('=');
  if (eq == std::string_view::npos || section_ == Section::kNone) {
    return Status::InvalidArgument(absl::StrCat(ToAbsl(path_), ":", line_),
                                   absl::StrCat("expected name=value inside a section, got '",
                                                ToAbsl(line), "'"));
  }
  std::string_view name = TrimOptionText(line.substr(0, eq));
  std::string_view value = TrimOptionText(line.substr(eq + 1));
  OptionParseContext ctx;
  std::vector<std::string> notes;
  ctx.warnings = &notes;
  ctx.foreign_table_format = foreign_;
  Status s;
  switch (section_) {
    case Section::kVersion:
      s = SetVersionField(name, value);
      break;
    case Section::kDB:
      s = ParseScopedLine(DBOptionsFields(), ColumnFamilyOptionsFields(),
                          OptionScope::kColumnFamily, "DBOptions", name, value, ctx,
                          &db_options_);
      break;
    case Section::kCF:
      s = ParseScopedLine(ColumnFamilyOptionsFields(), DBOptionsFields(), OptionScope::kDB,
                          "CFOptions", name, value, ctx, &families_[family_].options);
      break;
    case Section::kTable:
      s = ParseOneOption(TableOptionsFields(), name, value, ctx,
                         &families_[family_].options.table_options);
      break;
    case Section::kNone:
    case Section::kSkipped:
      break;
  }
  for (const std::string& note : notes) Warn(note);
  if (!s.ok()) {
    return Status::InvalidArgument(absl::StrCat(ToAbsl(path_), ":", line_), s.message());
  }
  return Status::OK();
}

size_t OptionsFileParser::FamilyIndex(std::string_view name) {
  for (size_t i = 0; i < families_.size(); i++) {
    if (families_[i].name == name) return i;
  }
  ColumnFamilyOptions start;
  for (const ColumnFamilyDescriptor& base : bases_) {
    if (base.name == name) {
      start = base.options;
      break;
    }
  }
  families_.emplace_back(std::string(name), std::move(start));
  return families_.size() - 1;
}

Status OptionsFileParser::StartSection(std::string_view header) {
  if (header.back() != ']') {
    return Status::InvalidArgument(absl::StrCat(ToAbsl(path_), ":", line_),
                                   absl::StrCat("malformed section header '", ToAbsl(header), "'"));
  }
  std::string_view inner = TrimOptionText(header.substr(1, header.size() - 2));
  std::string_view kind = inner.substr(0, inner.find(' '));
  std::string_view title = TrimOptionText(inner.substr(kind.size()));
  if (title.size() >= 2 && title.front() == '"' && title.back() == '"') {
    title = title.substr(1, title.size() - 2);
  }
  section_ = Section::kSkipped;
  if (kind == "Version") {
    section_ = Section::kVersion;
    saw_version_ = true;
  } else if (kind == "DBOptions") {
    section_ = Section::kDB;
  } else if (kind == "CFOptions" || kind == kBlockBasedTableSection) {
    if (default_only_ && title != kDefaultColumnFamilyName) {
      Warn(absl::StrCat("skipped section [", ToAbsl(inner),
                        "]: loading into Options reads the default column family only (load "
                        "into DBOptions and ColumnFamilyDescriptors for every family)"));
    } else {
      section_ = kind == "CFOptions" ? Section::kCF : Section::kTable;
      family_ = FamilyIndex(title);
    }
  } else if (kind.substr(0, kind.find('/')) == "TableOptions") {
    Warn(absl::StrCat("skipped section [", ToAbsl(inner),
                      "]: ShaleDB has the block-based table format only"));
  } else {
    Warn(absl::StrCat("skipped section [", ToAbsl(inner), "]: not a ShaleDB section"));
  }
  return Status::OK();
}

Status OptionsFileParser::SetVersionField(std::string_view name, std::string_view value) {
  if (name == "rocksdb_version") {
    foreign_ = true;
  } else if (name == "options_file_version") {
    if (value.substr(0, value.find('.')) != "1") {
      Warn(absl::StrCat("options_file_version ", ToAbsl(value), " is newer than 1.x; read as 1.x"));
    }
  } else if (name != "shale_version") {
    Warn(absl::StrCat("skipped unknown [Version] field '", ToAbsl(name), "'"));
  }
  return Status::OK();
}

Status OptionsFileParser::Finish() const {
  if (!saw_version_) {
    return Status::InvalidArgument(path_, "no [Version] section: not an OPTIONS file");
  }
  return Status::OK();
}

// Parses the file at `path`; on success the parser holds the results.
Status ParseOptionsFile(FileSystem* fs, const std::string& path, OptionsFileParser* parser) {
  std::string data;
  Status s = ReadFileToString(fs, path, &data);
  if (!s.ok()) return s;
  std::string_view rest = data;
  for (int line_number = 1; !rest.empty(); line_number++) {
    size_t end = rest.find('\n');
    s = parser->ParseLine(rest.substr(0, end), line_number);
    if (!s.ok()) return s;
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return parser->Finish();
}

void AppendWarnings(OptionsFileParser* parser, std::vector<std::string>* warnings) {
  if (warnings == nullptr) return;
  for (std::string& note : parser->warnings()) warnings->push_back(std::move(note));
}

}  // namespace

Status WriteOptionsFile(FileSystem* fs, const std::string& path, const DBOptions& db_options,
                        const std::vector<ColumnFamilyDescriptor>& column_families) {
  if (column_families.empty() || column_families[0].name != kDefaultColumnFamilyName) {
    return Status::InvalidArgument(
        "column_families", "the default column family must come first (RocksDB's layout)");
  }
  for (size_t i = 1; i < column_families.size(); i++) {
    for (size_t j = 0; j < i; j++) {
      if (column_families[i].name == column_families[j].name) {
        return Status::InvalidArgument(
            "column_families",
            absl::StrCat("column family '", column_families[i].name, "' is named twice"));
      }
    }
  }
  std::string text =
      "# ShaleDB options, in the layout of RocksDB's OPTIONS files: an INI file with '#'\n"
      "# comments and '\\' escapes. Read it back with shale::LoadOptionsFromFile.\n";
  AppendSection("Version",
                absl::StrCat("  shale_version=", SHALE_VERSION_STRING, "\n",
                             "  options_file_version=", ToAbsl(kOptionsFileVersion), "\n"),
                &text);
  AppendSection("DBOptions", SectionBody(DBOptionsFields(), db_options, OptionGroup::kDB), &text);
  for (const ColumnFamilyDescriptor& family : column_families) {
    const std::string title = absl::StrCat(" \"", EscapeValue(family.name), "\"");
    AppendSection(absl::StrCat("CFOptions", title),
                  SectionBody(ColumnFamilyOptionsFields(), family.options, OptionGroup::kCF),
                  &text);
    AppendSection(absl::StrCat(ToAbsl(kBlockBasedTableSection), title),
                  SectionBody(TableOptionsFields(), family.options.table_options,
                              OptionGroup::kTableFactory),
                  &text);
  }
  return WriteStringToFile(fs, text, path, /*sync=*/true);
}

Status WriteOptionsFile(FileSystem* fs, const std::string& path, const Options& options) {
  return WriteOptionsFile(
      fs, path, options,
      {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                              static_cast<const ColumnFamilyOptions&>(options))});
}

Status LoadOptionsFromFile(FileSystem* fs, const std::string& path, DBOptions* db_options,
                           std::vector<ColumnFamilyDescriptor>* column_families,
                           std::vector<std::string>* warnings) {
  OptionsFileParser parser(path, *db_options, *column_families, /*default_only=*/false);
  Status s = ParseOptionsFile(fs, path, &parser);
  if (!s.ok()) return s;
  *db_options = std::move(parser.db_options());
  *column_families = std::move(parser.families());
  AppendWarnings(&parser, warnings);
  return Status::OK();
}

Status LoadOptionsFromFile(FileSystem* fs, const std::string& path, Options* options,
                           std::vector<std::string>* warnings) {
  const std::vector<ColumnFamilyDescriptor> bases = {ColumnFamilyDescriptor(
      kDefaultColumnFamilyName, static_cast<const ColumnFamilyOptions&>(*options))};
  OptionsFileParser parser(path, *options, bases, /*default_only=*/true);
  Status s = ParseOptionsFile(fs, path, &parser);
  if (!s.ok()) return s;
  static_cast<DBOptions&>(*options) = std::move(parser.db_options());
  // The only family the parser keeps is the default one; without its sections the family
  // options keep their value.
  for (ColumnFamilyDescriptor& family : parser.families()) {
    static_cast<ColumnFamilyOptions&>(*options) = std::move(family.options);
  }
  AppendWarnings(&parser, warnings);
  return Status::OK();
}

}  // namespace shale
