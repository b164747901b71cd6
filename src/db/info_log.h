// InfoLog: the human-readable event log in the DB directory (file "LOG"), RocksDB's info log:
// open, recovery, flush and error events, each line stamped with the local time and the thread.
//
// Opening moves an existing LOG to LOG.old.<micros> and keeps the newest kKeepOldLogs of those.
// Logging never fails the caller: a write error is remembered and logging stops.
// Thread-safety: Log may be called from any thread.
#ifndef SHALE_DB_INFO_LOG_H_
#define SHALE_DB_INFO_LOG_H_

#include <memory>
#include <string>

#include "util/mutex.h"
#include "shale/file_system.h"
#include "shale/status.h"

namespace shale {

class InfoLog {
 public:
  static constexpr int kKeepOldLogs = 10;

  // Opens a fresh LOG in `dbname` (which must exist).
  [[nodiscard]] static Status Open(FileSystem* fs, const std::string& dbname,
                                   std::unique_ptr<InfoLog>* result);
  // An InfoLog that writes no file and discards every line: a read-only DB's
  // (DB::OpenForReadOnly), which must not touch the DB's LOG.
  static std::unique_ptr<InfoLog> NewDiscarding() {
    return std::unique_ptr<InfoLog>(new InfoLog(nullptr));
  }
  ~InfoLog();

  // Appends one line, printf-style, and flushes it to the operating system.
  void Log(const char* format, ...) __attribute__((format(printf, 2, 3)));

 private:
  explicit InfoLog(std::unique_ptr<WritableFile> file) : file_(std::move(file)) {}

  Mutex mu_;
  std::unique_ptr<WritableFile> file_ ABSL_GUARDED_BY(mu_);  // null once a write failed
};

}  // namespace shale

#endif  // SHALE_DB_INFO_LOG_H_
