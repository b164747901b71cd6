// The options group of RocksDB's C API (src/rocksdb_capi/options*.cc, env.cc,
// compaction_style_options.cc): the handles it defines that other groups may need, what the DB
// group calls when it opens a DB or creates a column family with a rocksdb_options_t, and the
// helpers the options files share for knobs accepted without effect.
//
// At open (rocksdb_open*, rocksdb_create_column_family*), for each rocksdb_options_t used:
//   1. shale::Status s = CheckOptionsForOpen(options, db_name);  // refuses what ShaleDB lacks
//   2. shale::Options o = ShaleOptionsFor(options);              // the options to open with
//   3. write AcceptedKnobsLogText(options) to the info LOG (when not empty).
//
// Thread-safety: as the handles (handles.h): these read one handle, which no thread may change
// meanwhile.
#ifndef SHALE_ROCKSDB_CAPI_OPTIONS_INTERNAL_H_
#define SHALE_ROCKSDB_CAPI_OPTIONS_INTERNAL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/status.h"

// An Env: the file system a DB opened with it uses (the process's POSIX one, or an in-memory
// one that lives as long as this handle or a DB opened with it), and the thread-pool sizes a
// client set. ShaleDB sizes its background pool by max_background_jobs, not by the Env's pools:
// the sizes are kept so that their getters return them, without effect.
struct rocksdb_env_t {
  std::shared_ptr<shale::FileSystem> file_system;
  // Indexed by RocksDB's Env::Priority: BOTTOM 0, LOW 1, HIGH 2. RocksDB's defaults.
  std::array<int, 3> background_threads = {0, 1, 1};
};

// EnvOptions tune file I/O of RocksDB's Env; the C API has no setter for them in 7.8.
struct rocksdb_envoptions_t {};

// A rate limiter's parameters. ShaleDB has no rate limiter for background I/O; a limiter cannot
// change what a read returns, so rocksdb_options_set_ratelimiter records it as a knob.
struct rocksdb_ratelimiter_t {
  int64_t rate_bytes_per_sec = 0;
  int64_t refill_period_us = 0;
  int32_t fairness = 0;
};

// One entry of rocksdb_options_set_db_paths.
struct rocksdb_dbpath_t {
  std::string path;
  uint64_t target_size = 0;
};

// Universal compaction knobs: ShaleDB's, plus two RocksDB knobs with no counterpart here.
struct rocksdb_universal_compaction_options_t {
  shale::CompactionOptionsUniversal rep;
  int compression_size_percent = -1;  // RocksDB's default
  int stop_style = 1;                 // kCompactionStopStyleTotalSize, RocksDB's default
};

struct rocksdb_fifo_compaction_options_t {
  shale::CompactionOptionsFIFO rep;
};

// Never made by this library (rocksdb_jemalloc_nodump_allocator_create fails: ShaleDB's caches
// take no allocator); the type exists so that rocksdb_memory_allocator_destroy(NULL) is defined.
struct rocksdb_memory_allocator_t {};

// Never made by this library (rocksdb_perfcontext_create returns NULL: ShaleDB has no
// per-thread perf context); defined for rocksdb_perfcontext_destroy(NULL).
struct rocksdb_perfcontext_t {};

namespace shale::rocksdb_capi {

// OK, or InvalidArgument naming the first setting of `options` that ShaleDB cannot honour and
// that could change what a read returns: "<option> is not supported by ShaleDB (set by
// <C function>)". Checks the recorded unsupported settings (plain/cuckoo
// tables, info logger, db_paths), a wal_dir or db_log_dir other than
// `db_name` itself, and that every type of compression_per_level is one this build compresses
// with. The options are not otherwise validated here: DB::Open does that with the mapped ones.
Status CheckOptionsForOpen(const rocksdb_options_t* options, std::string_view db_name);

// The shale::Options a DB (or, their ColumnFamilyOptions part, a column family) is opened with:
// options->rep plus the RocksDB settings that map onto it only at open:
//   - compression_per_level: `compression` becomes the type of the level above the bottom one
//     (level n-2; ShaleDB has one type for every level but the bottommost), and
//     `bottommost_compression`, unless set, the type of the last level;
//   - max_background_compactions / max_background_flushes (when either is set, RocksDB 7.8
//     runs that many jobs of each kind, -1 counting as 1): max_background_jobs is their sum.
shale::Options ShaleOptionsFor(const rocksdb_options_t* options);

// One line per knob accepted without effect ("RocksDB option <name>=<value> accepted without
// effect: ShaleDB has no counterpart"), sorted by name, for the info LOG; empty when none.
std::string AcceptedKnobsLogText(const rocksdb_options_t* options);

// ---- Helpers of the options files.

// Records a knob accepted without effect (handles.h: accepted_knobs).
void SetKnob(rocksdb_options_t* options, const char* name, std::string value);
// The knob's value as set, or `default_value` (RocksDB's default) when it was not set.
int64_t KnobInt(const rocksdb_options_t* options, const char* name, int64_t default_value);
uint64_t KnobUint(const rocksdb_options_t* options, const char* name, uint64_t default_value);
double KnobDouble(const rocksdb_options_t* options, const char* name, double default_value);
bool KnobBool(const rocksdb_options_t* options, const char* name, bool default_value);

// The text a knob's value is stored as (and parsed back from).
std::string KnobText(int64_t v);
std::string KnobTextUnsigned(uint64_t v);
std::string KnobText(double v);
std::string KnobTextBool(bool v);

// Records (or, with `set` false, forgets) a setting ShaleDB cannot honour; see
// CheckOptionsForOpen.
void SetUnsupported(rocksdb_options_t* options, const char* option, const char* function,
                    bool set = true);

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_OPTIONS_INTERNAL_H_
