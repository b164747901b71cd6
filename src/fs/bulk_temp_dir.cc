#include "fs/bulk_temp_dir.h"

#include <unistd.h>

#include <map>
#include <set>
#include <vector>

#include "fs/path_util.h"
#include "util/mutex.h"

namespace shale {

namespace {

// Live loaders by normalised directory: the prefixes of their file names.
struct Registry {
  Mutex mu;
  std::map<std::string, std::multiset<std::string>> live ABSL_GUARDED_BY(mu);
};

Registry& TheRegistry() {
  static Registry* const registry = new Registry;  // never destroyed: used at exit
  return *registry;
}

bool IsNotFound(const Status& s) { return s.IsNotFound() || s.IsPathNotFound(); }

// Whether `name` starts with the prefix of a live loader of this process, in any directory:
// the prefixes are unique in the process, and one directory may be spelled in several ways
// ("<db>/bulkload.tmp" and "<db>/./bulkload.tmp", a relative and an absolute path, a
// symbolic link) that the registry's keys do not unify.
bool OwnedByLiveLoader(const Registry& r, std::string_view name)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  for (const auto& [dir, prefixes] : r.live) {
    for (const std::string& p : prefixes) {
      if (name.starts_with(p)) return true;
    }
  }
  return false;
}

// Consumes a run of decimal digits from *s into *value; false if there is none.
bool ConsumeNumber(std::string_view* s, uint64_t* value) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < s->size() && (*s)[i] >= '0' && (*s)[i] <= '9' && i < 19) {
    v = v * 10 + static_cast<uint64_t>((*s)[i] - '0');
    i++;
  }
  if (i == 0) return false;
  s->remove_prefix(i);
  *value = v;
  return true;
}

Status RemoveDirIfUnusedLocked(Registry& r, FileSystem* fs, const std::string& dir,
                               std::string_view self_prefix)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r.mu) {
  auto it = r.live.find(NormalizePath(dir));
  if (it != r.live.end()) {
    for (const std::string& p : it->second) {
      if (p != self_prefix) return Status::OK();  // another loader still uses it
    }
  }
  std::vector<std::string> left;
  Status s = fs->GetChildren(dir, &left);
  if (s.ok() && left.empty()) s = fs->DeleteDir(dir);
  return IsNotFound(s) ? Status::OK() : s;
}

}  // namespace

std::string BulkLoadTempDir(const std::string& dbname) { return dbname + "/bulkload.tmp"; }

bool ParseBulkLoadFileName(std::string_view name, uint64_t* pid) {
  uint64_t id = 0;
  if (!ConsumeNumber(&name, pid) || !name.starts_with('-')) return false;
  name.remove_prefix(1);
  if (!ConsumeNumber(&name, &id) || !name.starts_with('-')) return false;
  name.remove_prefix(1);
  return name.size() > 4 && (name.ends_with(".tmp") || name.ends_with(".sst")) &&
         (name.starts_with("run-") || name.starts_with('r'));
}

void RegisterBulkLoad(const std::string& dir, const std::string& prefix) {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  r.live[NormalizePath(dir)].insert(prefix);
}

void UnregisterBulkLoad(const std::string& dir, const std::string& prefix) {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  auto it = r.live.find(NormalizePath(dir));
  if (it == r.live.end()) return;
  auto p = it->second.find(prefix);
  if (p != it->second.end()) it->second.erase(p);
  if (it->second.empty()) r.live.erase(it);
}

Status RemoveBulkLoadLeftovers(FileSystem* fs, const std::string& dir, bool db_owned,
                               uint64_t* removed) {
  if (removed != nullptr) *removed = 0;
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  std::vector<std::string> names;
  Status s = fs->GetChildren(dir, &names);
  if (!s.ok()) return IsNotFound(s) ? Status::OK() : s;
  const uint64_t self = static_cast<uint64_t>(::getpid());
  Status result;
  for (const std::string& name : names) {
    uint64_t pid = 0;
    if (!ParseBulkLoadFileName(name, &pid)) continue;
    if (!db_owned && pid != self) continue;
    if (OwnedByLiveLoader(r, name)) continue;
    Status d = fs->DeleteFile(dir + "/" + name);
    if (d.ok()) {
      if (removed != nullptr) ++*removed;
    } else if (!IsNotFound(d) && result.ok()) {
      result = d;
    }
  }
  if (db_owned) {
    Status d = RemoveDirIfUnusedLocked(r, fs, dir, "");
    if (result.ok()) result = d;
  }
  return result;
}

Status RemoveBulkLoadDirIfUnused(FileSystem* fs, const std::string& dir,
                                 const std::string& self_prefix) {
  Registry& r = TheRegistry();
  MutexLock lock(&r.mu);
  return RemoveDirIfUnusedLocked(r, fs, dir, self_prefix);
}

}  // namespace shale
