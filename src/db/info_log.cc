#include "db/info_log.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <thread>
#include <vector>

#include "base/filename.h"
#include "util/clock.h"

namespace shale {
namespace {

// Deletes the oldest LOG.old.* files beyond `keep`.
void TrimOldLogs(FileSystem* fs, const std::string& dbname, int keep) {
  std::vector<std::string> children;
  if (!fs->GetChildren(dbname, &children).ok()) return;
  const std::string prefix = "LOG.old.";
  std::vector<std::string> old;
  for (const std::string& name : children) {
    if (name.compare(0, prefix.size(), prefix) == 0) old.push_back(name);
  }
  // The suffix is a timestamp in micros: same width for centuries, so text order is age order.
  std::sort(old.begin(), old.end());
  for (size_t i = 0; i + keep < old.size(); i++) {
    fs->DeleteFile(dbname + "/" + old[i]).PermitUncheckedError();
  }
}

}  // namespace

Status InfoLog::Open(FileSystem* fs, const std::string& dbname,
                     std::unique_ptr<InfoLog>* result) {
  const std::string path = InfoLogFileName(dbname);
  if (fs->FileExists(path).ok()) {
    Status s = fs->RenameFile(path, OldInfoLogFileName(dbname, NowMicros()));
    if (!s.ok()) return s;
    TrimOldLogs(fs, dbname, kKeepOldLogs);
  }
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  result->reset(new InfoLog(std::move(file)));
  return Status::OK();
}

InfoLog::~InfoLog() {
  MutexLock lock(&mu_);
  if (file_ != nullptr) file_->Close().PermitUncheckedError();
}

void InfoLog::Log(const char* format, ...) {
  const uint64_t now = NowMicros();
  const time_t seconds = static_cast<time_t>(now / 1000000);
  struct tm t;
  localtime_r(&seconds, &t);
  char line[1024];
  int n = snprintf(line, sizeof(line), "%04d/%02d/%02d-%02d:%02d:%02d.%06d %zx ",
                   t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                   static_cast<int>(now % 1000000),
                   std::hash<std::thread::id>()(std::this_thread::get_id()) & 0xffffff);
  va_list ap;
  va_start(ap, format);
  std::string text(line, n);
  char body[4096];
  const int m = vsnprintf(body, sizeof(body), format, ap);
  va_end(ap);
  if (m > 0) text.append(body, std::min<size_t>(m, sizeof(body) - 1));
  text.push_back('\n');
  MutexLock lock(&mu_);
  if (file_ == nullptr) return;
  Status s = file_->Append(text);
  if (s.ok()) s = file_->Flush();
  if (!s.ok()) {
    file_->Close().PermitUncheckedError();
    file_.reset();
  }
}

}  // namespace shale
