// Env, EnvOptions, rate limiters, db paths, perf contexts and memory allocators of RocksDB's C
// API.
//
// An Env maps onto ShaleDB's FileSystem: rocksdb_create_default_env is the process's POSIX file
// system, rocksdb_create_mem_env a new in-memory one (shale::NewMemFileSystem, public), whose
// files live while the env handle or a DB opened with it does (the options and the DB share
// it). ShaleDB runs flushes and compactions on the DB's own pool, sized by
// max_background_jobs: an Env's thread-pool sizes are kept so their getters return them, and
// its thread and I/O priority calls do nothing (they cannot change what a read returns).
//
// Not built: a per-thread perf context (rocksdb_perfcontext_create returns NULL; the perf level
// is accepted without effect) and jemalloc allocators (rocksdb_jemalloc_nodump_allocator_create
// fails through errptr, as RocksDB does when built without jemalloc).
//
// Thread-safety: an env handle is not safe to change from two threads at once; the file system
// it holds is thread-safe (shale/file_system.h).
#include <cstdint>
#include <memory>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/file_system.h"

namespace {

// RocksDB's Env::Priority values, the indexes of rocksdb_env_t::background_threads.
constexpr int kBottom = 0;
constexpr int kLow = 1;
constexpr int kHigh = 2;

}  // namespace

extern "C" {

// ---------------------------------------------------------------- Env

rocksdb_env_t* rocksdb_create_default_env(void) {
  auto* env = new rocksdb_env_t;
  env->file_system = shale::FileSystem::Default();
  return env;
}

rocksdb_env_t* rocksdb_create_mem_env(void) {
  auto* env = new rocksdb_env_t;
  env->file_system = shale::NewMemFileSystem();
  return env;
}

void rocksdb_env_destroy(rocksdb_env_t* env) { delete env; }

// RocksDB's "background threads" are the LOW pool (compactions).
void rocksdb_env_set_background_threads(rocksdb_env_t* env, int n) {
  env->background_threads[kLow] = n;
}
int rocksdb_env_get_background_threads(rocksdb_env_t* env) {
  return env->background_threads[kLow];
}

void rocksdb_env_set_high_priority_background_threads(rocksdb_env_t* env, int n) {
  env->background_threads[kHigh] = n;
}
int rocksdb_env_get_high_priority_background_threads(rocksdb_env_t* env) {
  return env->background_threads[kHigh];
}

void rocksdb_env_set_low_priority_background_threads(rocksdb_env_t* env, int n) {
  env->background_threads[kLow] = n;
}
int rocksdb_env_get_low_priority_background_threads(rocksdb_env_t* env) {
  return env->background_threads[kLow];
}

void rocksdb_env_set_bottom_priority_background_threads(rocksdb_env_t* env, int n) {
  env->background_threads[kBottom] = n;
}
int rocksdb_env_get_bottom_priority_background_threads(rocksdb_env_t* env) {
  return env->background_threads[kBottom];
}

// The env runs no threads of its own: each DB joins its background work when it closes.
void rocksdb_env_join_all_threads(rocksdb_env_t* env) {}

void rocksdb_env_lower_thread_pool_io_priority(rocksdb_env_t* env) {}
void rocksdb_env_lower_high_priority_thread_pool_io_priority(rocksdb_env_t* env) {}
void rocksdb_env_lower_thread_pool_cpu_priority(rocksdb_env_t* env) {}
void rocksdb_env_lower_high_priority_thread_pool_cpu_priority(rocksdb_env_t* env) {}

rocksdb_envoptions_t* rocksdb_envoptions_create(void) { return new rocksdb_envoptions_t; }
void rocksdb_envoptions_destroy(rocksdb_envoptions_t* opt) { delete opt; }

// ---------------------------------------------------------------- Rate limiter

rocksdb_ratelimiter_t* rocksdb_ratelimiter_create(int64_t rate_bytes_per_sec,
                                                  int64_t refill_period_us, int32_t fairness) {
  auto* limiter = new rocksdb_ratelimiter_t;
  limiter->rate_bytes_per_sec = rate_bytes_per_sec;
  limiter->refill_period_us = refill_period_us;
  limiter->fairness = fairness;
  return limiter;
}

void rocksdb_ratelimiter_destroy(rocksdb_ratelimiter_t* limiter) { delete limiter; }

// ---------------------------------------------------------------- DB paths

rocksdb_dbpath_t* rocksdb_dbpath_create(const char* path, uint64_t target_size) {
  auto* dbpath = new rocksdb_dbpath_t;
  dbpath->path = path != nullptr ? path : "";
  dbpath->target_size = target_size;
  return dbpath;
}

void rocksdb_dbpath_destroy(rocksdb_dbpath_t* dbpath) { delete dbpath; }

// ---------------------------------------------------------------- Perf context

// Accepted without effect: ShaleDB keeps no per-thread perf counters (Statistics, enabled with
// rocksdb_options_enable_statistics, are its counters).
void rocksdb_set_perf_level(int level) {}

// Not built: NULL (the rule for a function returning a handle of a missing feature).
rocksdb_perfcontext_t* rocksdb_perfcontext_create(void) { return nullptr; }

// The functions below can only be given NULL (no perf context is ever made): they do nothing
// and return nothing.
void rocksdb_perfcontext_reset(rocksdb_perfcontext_t* context) {}

char* rocksdb_perfcontext_report(rocksdb_perfcontext_t* context,
                                 unsigned char exclude_zero_counters) {
  return nullptr;
}

uint64_t rocksdb_perfcontext_metric(rocksdb_perfcontext_t* context, int metric) { return 0; }

void rocksdb_perfcontext_destroy(rocksdb_perfcontext_t* context) { delete context; }

// ---------------------------------------------------------------- Memory allocators

rocksdb_memory_allocator_t* rocksdb_jemalloc_nodump_allocator_create(char** errptr) {
  shale::rocksdb_capi::NotSupported(errptr, "rocksdb_jemalloc_nodump_allocator_create");
  return nullptr;
}

void rocksdb_memory_allocator_destroy(rocksdb_memory_allocator_t* allocator) {
  delete allocator;
}

}  // extern "C"
