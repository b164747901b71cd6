#include "base/filename.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

std::string NumberedName(std::string_view dbname, uint64_t number, std::string_view suffix) {
  return absl::StrFormat("%s/%06u.%s", ToAbsl(dbname), number, ToAbsl(suffix));
}

// Parses a whole decimal number; rejects empty strings, signs and trailing bytes.
bool ParseNumber(std::string_view s, uint64_t* number) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return absl::SimpleAtoi(ToAbsl(s), number);
}

}  // namespace

std::string TableFileName(std::string_view dbname, uint64_t number) {
  return NumberedName(dbname, number, "sst");
}
std::string WalFileName(std::string_view dbname, uint64_t number) {
  return NumberedName(dbname, number, "log");
}
std::string TempFileName(std::string_view dbname, uint64_t number) {
  return NumberedName(dbname, number, "dbtmp");
}
std::string DescriptorFileName(std::string_view dbname, uint64_t number) {
  return absl::StrFormat("%s/MANIFEST-%06u", ToAbsl(dbname), number);
}
std::string OptionsFileName(std::string_view dbname, uint64_t number) {
  return absl::StrFormat("%s/OPTIONS-%06u", ToAbsl(dbname), number);
}
std::string CurrentFileName(std::string_view dbname) { return absl::StrCat(ToAbsl(dbname), "/CURRENT"); }
std::string LockFileName(std::string_view dbname) { return absl::StrCat(ToAbsl(dbname), "/LOCK"); }
std::string InfoLogFileName(std::string_view dbname) { return absl::StrCat(ToAbsl(dbname), "/LOG"); }
std::string OldInfoLogFileName(std::string_view dbname, uint64_t number) {
  return absl::StrCat(ToAbsl(dbname), "/LOG.old.", number);
}

bool ParseFileName(std::string_view filename, uint64_t* number, FileType* type) {
  absl::string_view name = ToAbsl(filename);
  if (name == "CURRENT") {
    *number = 0;
    *type = FileType::kCurrentFile;
    return true;
  }
  if (name == "LOCK") {
    *number = 0;
    *type = FileType::kLockFile;
    return true;
  }
  if (name == "LOG") {
    *number = 0;
    *type = FileType::kInfoLogFile;
    return true;
  }
  if (absl::ConsumePrefix(&name, "LOG.old.")) {
    *type = FileType::kInfoLogFile;
    return ParseNumber(FromAbsl(name), number);
  }
  if (absl::ConsumePrefix(&name, "MANIFEST-")) {
    *type = FileType::kDescriptorFile;
    return ParseNumber(FromAbsl(name), number);
  }
  if (absl::ConsumePrefix(&name, "OPTIONS-")) {
    *type = FileType::kOptionsFile;
    return ParseNumber(FromAbsl(name), number);
  }
  size_t dot = name.find('.');
  if (dot == absl::string_view::npos) return false;
  absl::string_view suffix = name.substr(dot + 1);
  if (suffix == "sst") {
    *type = FileType::kTableFile;
  } else if (suffix == "log") {
    *type = FileType::kWalFile;
  } else if (suffix == "dbtmp") {
    *type = FileType::kTempFile;
  } else {
    return false;
  }
  return ParseNumber(FromAbsl(name.substr(0, dot)), number);
}

}  // namespace shale
