// The names of the files in a DB directory, and their parsing:
//   000123.sst       a table            000124.log     a write-ahead log
//   MANIFEST-000005  a version log      CURRENT        names the live MANIFEST
//   LOCK             held while open    OPTIONS-000007 the options the DB was opened with
//   LOG, LOG.old.N   the info log       000008.dbtmp   a temporary file (renamed or deleted)
#ifndef SHALE_BASE_FILENAME_H_
#define SHALE_BASE_FILENAME_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace shale {

enum class FileType {
  kTableFile,
  kWalFile,
  kDescriptorFile,  // MANIFEST
  kCurrentFile,
  kLockFile,
  kOptionsFile,
  kInfoLogFile,
  kTempFile,
};

std::string TableFileName(std::string_view dbname, uint64_t number);
std::string WalFileName(std::string_view dbname, uint64_t number);
std::string DescriptorFileName(std::string_view dbname, uint64_t number);
std::string CurrentFileName(std::string_view dbname);
std::string LockFileName(std::string_view dbname);
std::string OptionsFileName(std::string_view dbname, uint64_t number);
std::string InfoLogFileName(std::string_view dbname);
// The name an older info log is renamed to when a new one starts.
std::string OldInfoLogFileName(std::string_view dbname, uint64_t number);
std::string TempFileName(std::string_view dbname, uint64_t number);

// Parses a file name (not a path) of the DB directory. Returns false for names that are not the
// DB's. *number is 0 for CURRENT, LOCK and LOG.
bool ParseFileName(std::string_view filename, uint64_t* number, FileType* type);

}  // namespace shale

#endif  // SHALE_BASE_FILENAME_H_
