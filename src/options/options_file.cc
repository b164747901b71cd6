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
// inside values. Only the default column family exists so far: sections of other column
// families, other table formats and unknown sections are skipped with a note.
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
constexpr std::string_view kDefaultColumnFamily = "default";
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

// Reads an OPTIONS file line by line onto a copy of the caller's options.
class OptionsFileParser {
 public:
  OptionsFileParser(std::string_view path, const Options& base) : path_(path), options_(base) {}

  Status ParseLine(std::string_view raw, int line_number);
  Status Finish() const;
  Options& options() { return options_; }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  enum class Section { kNone, kVersion, kDB, kCF, kTable, kSkipped };

  Status StartSection(std::string_view header);
  Status SetVersionField(std::string_view name, std::string_view value);
  void Warn(std::string_view note) {
    warnings_.push_back(absl::StrCat(ToAbsl(path_), ":", line_, ": ", ToAbsl(note)));
  }

  const std::string path_;
  Options options_;
  std::vector<std::string> warnings_;
  Section section_ = Section::kNone;
  bool saw_version_ = false;
  bool foreign_ = false;  // written by RocksDB
  int line_ = 0;
};

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
    case Section::kCF:
      s = ParseOneOption(OptionsFields(), name, value, ctx, &options_);
      break;
    case Section::kTable:
      s = ParseOneOption(TableOptionsFields(), name, value, ctx, &options_.table_options);
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
    if (title == kDefaultColumnFamily) {
      section_ = kind == "CFOptions" ? Section::kCF : Section::kTable;
    } else {
      Warn(absl::StrCat("skipped section [", ToAbsl(inner),
                        "]: only the default column family exists"));
    }
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

}  // namespace

Status WriteOptionsFile(FileSystem* fs, const std::string& path, const Options& options) {
  std::string text =
      "# ShaleDB options, in the layout of RocksDB's OPTIONS files: an INI file with '#'\n"
      "# comments and '\\' escapes. Read it back with shale::LoadOptionsFromFile.\n";
  AppendSection("Version",
                absl::StrCat("  shale_version=", SHALE_VERSION_STRING, "\n",
                             "  options_file_version=", ToAbsl(kOptionsFileVersion), "\n"),
                &text);
  AppendSection("DBOptions", SectionBody(OptionsFields(), options, OptionGroup::kDB), &text);
  AppendSection(absl::StrCat("CFOptions \"", ToAbsl(kDefaultColumnFamily), "\""),
                SectionBody(OptionsFields(), options, OptionGroup::kCF), &text);
  AppendSection(absl::StrCat(ToAbsl(kBlockBasedTableSection), " \"",
                             ToAbsl(kDefaultColumnFamily), "\""),
                SectionBody(TableOptionsFields(), options.table_options,
                            OptionGroup::kTableFactory),
                &text);
  return WriteStringToFile(fs, text, path, /*sync=*/true);
}

Status LoadOptionsFromFile(FileSystem* fs, const std::string& path, Options* options,
                           std::vector<std::string>* warnings) {
  std::string data;
  Status s = ReadFileToString(fs, path, &data);
  if (!s.ok()) return s;
  OptionsFileParser parser(path, *options);
  std::string_view rest = data;
  for (int line_number = 1; !rest.empty(); line_number++) {
    size_t end = rest.find('\n');
    s = parser.ParseLine(rest.substr(0, end), line_number);
    if (!s.ok()) return s;
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  s = parser.Finish();
  if (!s.ok()) return s;
  *options = std::move(parser.options());
  if (warnings != nullptr) {
    for (std::string& note : parser.warnings()) warnings->push_back(std::move(note));
  }
  return Status::OK();
}

}  // namespace shale
