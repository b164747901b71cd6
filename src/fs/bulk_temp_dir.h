// The bulk loader's temporary files as the rest of the engine sees them (issue 19, finding
// 17: a crashed load left its spilled runs and table files in "<db>/bulkload.tmp" forever,
// through reopen, later loads and DestroyDB).
//
// A loader (include/shale/bulk_loader.h) names every file it makes
// "<temp dir>/<pid>-<loader id>-<name>" (<name>: "run-NNNNNN.tmp" or "rNN-NNNNNN.sst") and
// registers that prefix here for as long as it lives. A file of that form whose prefix no live
// loader of this process holds is a leftover: of a process that crashed (or was killed)
// during a load. RemoveBulkLoadLeftovers deletes them; the DB calls it at Open and in
// DestroyDB for its default directory (its LOCK keeps other processes out of that one), and
// a loader at its start.
//
// Lives in the fs layer because both the DB (db/) and the loader (bulk/, above it) need it.
//
// Thread-safety: thread-safe. One process-wide mutex guards the registry and is held across
// a cleanup's file-system calls, so that a loader never registers (and creates its
// directory) between a cleanup's check and its removal of the directory.
#ifndef SHALE_FS_BULK_TEMP_DIR_H_
#define SHALE_FS_BULK_TEMP_DIR_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "shale/file_system.h"
#include "shale/status.h"

namespace shale {

// A DB's default bulk-load directory: "<dbname>/bulkload.tmp".
std::string BulkLoadTempDir(const std::string& dbname);

// Whether `name` (a file name, no directory) has the form of a loader's file; *pid gets the
// process id it names.
bool ParseBulkLoadFileName(std::string_view name, uint64_t* pid);

// Registers the files of a live loader: `dir` is its temporary directory, `prefix` the
// "<pid>-<id>-" its file names start with. Call before the loader creates anything there.
void RegisterBulkLoad(const std::string& dir, const std::string& prefix);
// Ends the registration once the loader's files are removed.
void UnregisterBulkLoad(const std::string& dir, const std::string& prefix);

// Deletes the loader files in `dir` that no live loader of this process owns (in any
// directory: a prefix is unique in the process, and `dir` may be another spelling of a live
// loader's directory). `db_owned`:
// `dir` is a DB's default directory, which no other process uses while the caller holds the
// DB's LOCK: every such file goes, and then `dir` itself if it is empty and no live loader
// uses it. Otherwise (a directory the caller chose, perhaps shared with other processes):
// only the files named with this process's id go, and the directory stays. Files of other
// forms are left alone. A missing directory is no error. *removed (if not null) gets the
// number of files deleted. Returns the first error, after trying every file.
Status RemoveBulkLoadLeftovers(FileSystem* fs, const std::string& dir, bool db_owned,
                               uint64_t* removed = nullptr);

// Removes `dir` if it is empty and no live loader other than the one of `self_prefix` is
// registered in it. Not found is no error.
Status RemoveBulkLoadDirIfUnused(FileSystem* fs, const std::string& dir,
                                 const std::string& self_prefix);

}  // namespace shale

#endif  // SHALE_FS_BULK_TEMP_DIR_H_
