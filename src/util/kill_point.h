// Kill points: named places inside the engine where a crash test can make the process die,
// so that the crash windows between two steps of a flush, a compaction, a MANIFEST write or a
// WAL switch are covered on purpose rather than by the luck of a timer (RocksDB's
// TEST_KILL_RANDOM, driven by db_crashtest.py's whitebox mode).
//
//   SHALE_KILL_POINT("flush.table_synced");
//
// Arming. Only at run time, by the environment variable SHALE_KILL_POINTS, read once at the
// first kill point the process reaches (whichever thread that is):
//   SHALE_KILL_POINTS="flush.table_synced:50,manifest.*:20"
// a comma-separated list of PATTERN[:N]: PATTERN is a point's name, or a prefix ending in '*'
// ("manifest.*", or "*" for every point); N >= 1 (default 1) makes a point it matches kill one
// time in N that it is reached. The first entry that matches a name decides. A pattern that
// matches no point of kKillPoints, or a malformed entry, is a usage error: the process writes
// the reason to stderr and aborts at its first kill point (a typo must not silently turn a
// crash test into one that kills nothing). Unset or empty: every point is disarmed.
//
// Dying. The point writes the line "kill point <name> hit\n" to stderr with write(2) and then
// raises SIGKILL: nothing is flushed or unwound, as with kill -9 (a process crash, not a power
// loss: what the OS already holds survives).
//
// Cost. Compiled into every build type (the crash tests run release binaries). Disarmed, a
// point costs one relaxed atomic load and a predicted branch: it may sit on the WAL write path.
//
// Adding a point: add its name and the crash window it covers to kKillPoints below (the
// macro refuses, at compile time, a name that is not listed there; test/crash/crash_test.py
// reads the list from this header to choose points).
//
// Thread-safety: SHALE_KILL_POINT may be reached from any thread at any time.
#ifndef SHALE_UTIL_KILL_POINT_H_
#define SHALE_UTIL_KILL_POINT_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shale/status.h"

namespace shale {

struct KillPointInfo {
  std::string_view name;
  std::string_view window;  // the crash window a kill here leaves on disk
};

// Every kill point of the engine. The names group by prefix: wal., flush., compaction.,
// manifest., ingest.
inline constexpr KillPointInfo kKillPoints[] = {
    // src/db/db_impl_write.cc
    {"wal.record_added",
     "a write group's record is in the WAL writer's buffer, not yet flushed to the OS: the "
     "group is lost, and it was not acknowledged"},
    {"wal.written",
     "the group is in the WAL (flushed, synced if asked) but not in the memtable nor "
     "acknowledged: recovery replays it"},
    {"wal.switch_new_log_created",
     "memtable switch: the new WAL exists (empty, numbered above what the MANIFEST knows) and "
     "the old one is synced and closed, before the new memtable and WAL are in use"},
    // src/db/db_impl_background.cc
    {"flush.table_synced",
     "a flush's table is written, synced and in the directory, before the MANIFEST edit adds "
     "it: an orphan table; the memtable's WAL is still live"},
    {"flush.manifest_written",
     "the flush's edit is in the MANIFEST (table added, log number advanced), before the "
     "obsolete WALs are deleted"},
    // src/db/db_impl_compaction.cc
    {"compaction.outputs_synced",
     "a compaction's output tables are synced, before the MANIFEST edit: orphan outputs, "
     "inputs still live"},
    {"compaction.manifest_written",
     "a compaction's edit (also a trivial move or FIFO deletion) is in the MANIFEST, before "
     "its input files are deleted"},
    // src/version/version_set.cc (every LogAndApply: flush, compaction, ingestion)
    {"manifest.record_appended",
     "an edit's record is appended to the MANIFEST, not yet synced"},
    {"manifest.record_synced",
     "an edit's record is synced in the MANIFEST, before the new Version is installed in "
     "memory"},
    {"manifest.new_synced",
     "a new MANIFEST (snapshot + edit) is written and synced, before CURRENT names it: "
     "recovery must use the old MANIFEST"},
    // src/db/db_impl_ingest.cc
    {"ingest.files_in_dir",
     "ingested files are linked or copied into the DB directory and the directory synced, "
     "before the flush for ingestion and the MANIFEST edit: orphan tables"},
    {"ingest.before_manifest",
     "the memtables are flushed for the ingestion and the files' levels and sequence numbers "
     "chosen, just before the MANIFEST edit"},
    {"ingest.manifest_written",
     "the ingestion's edit is in the MANIFEST, before the originals of moved files are "
     "unlinked"},
};

// True when `name` is in kKillPoints.
constexpr bool IsKillPointName(std::string_view name) {
  for (const KillPointInfo& p : kKillPoints) {
    if (p.name == name) return true;
  }
  return false;
}

// A parsed SHALE_KILL_POINTS value. A plain value: not thread-safe to change, safe to read
// from many threads.
class KillPointSpec {
 public:
  // Parses `text` (the syntax above). InvalidArgument naming the bad entry when an entry is
  // malformed or matches no point in kKillPoints. Empty entries are ignored.
  [[nodiscard]] static Status Parse(std::string_view text, KillPointSpec* spec);

  // N when a kill at `name` should happen one time in N; 0 when `name` is disarmed.
  uint32_t OddsFor(std::string_view name) const;

  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string pattern;  // without the trailing '*'
    bool prefix = false;
    uint32_t odds = 1;
  };
  std::vector<Entry> entries_;
};

namespace kill_point_internal {

// kUnread until the first point is reached, then kDisarmed or kArmed for good.
enum : int { kUnread = 0, kDisarmed = 1, kArmed = 2 };
extern std::atomic<int> state;

// The slow path: reads SHALE_KILL_POINTS if not yet read, and kills the process when `name`
// is armed and its odds say so.
[[gnu::cold, gnu::noinline]] void Reached(const char* name);

}  // namespace kill_point_internal
}  // namespace shale

#define SHALE_KILL_POINT(name)                                                           \
  do {                                                                                   \
    static_assert(::shale::IsKillPointName(name),                                        \
                  "unknown kill point: list it in kKillPoints (util/kill_point.h)");     \
    if (__builtin_expect(::shale::kill_point_internal::state.load(                       \
                             std::memory_order_relaxed) !=                               \
                             ::shale::kill_point_internal::kDisarmed,                    \
                         0)) {                                                           \
      ::shale::kill_point_internal::Reached(name);                                       \
    }                                                                                    \
  } while (0)

#endif  // SHALE_UTIL_KILL_POINT_H_
