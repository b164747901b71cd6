// TEMPORARY (issue 24, db group): the declarations of other groups that the db group's files
// use, copied in shape from the groups' headers as merged on branch rcapi, so that this branch
// builds and is tested before the merge:
//   read_write_options.h (table group): rocksdb_flushoptions_t, rocksdb_compactoptions_t,
//     rocksdb_ingestexternalfileoptions_t, RocksDefaultCompactRangeOptions, ReadBounds,
//     ReadOptionsFor, WriteOptionsFor, FlushOptionsFor, CompactRangeOptionsFor,
//     IngestOptionsFor;
//   options_internal.h (options group): CheckOptionsForOpen, ShaleOptionsFor,
//     AcceptedKnobsLogText;
//   batch.h (batch group): rocksdb_writebatch_t (only `rep` is read here).
// The definitions of the functions are minimal stand-ins in db_test_shims_TEMP.cc. THE MERGE
// DELETES THIS FILE and the shims, and db_internal.h includes the three headers instead.
#ifndef SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_
#define SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_

#include <string>
#include <string_view>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "shale/options.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale::rocksdb_capi {

inline CompactRangeOptions RocksDefaultCompactRangeOptions() {
  CompactRangeOptions options;
  options.exclusive_manual_compaction = false;
  return options;
}

}  // namespace shale::rocksdb_capi

struct rocksdb_flushoptions_t {
  shale::FlushOptions rep;
};

struct rocksdb_compactoptions_t {
  shale::CompactRangeOptions rep = shale::rocksdb_capi::RocksDefaultCompactRangeOptions();
  unsigned char bottommost_level_compaction = 1;
  bool has_full_history_ts_low = false;
};

struct rocksdb_ingestexternalfileoptions_t {
  shale::IngestExternalFileOptions rep;
};

struct rocksdb_writebatch_t {
  shale::WriteBatch rep;
};

namespace shale::rocksdb_capi {

class ReadBounds {
 public:
  ReadBounds() = default;
  ReadBounds(const ReadBounds&) = delete;
  ReadBounds& operator=(const ReadBounds&) = delete;

 private:
  friend Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                               ReadOptions* out);
  std::string lower_;
  std::string upper_;
  std::string_view lower_view_;
  std::string_view upper_view_;
};

Status ReadOptionsFor(const rocksdb_readoptions_t* options, ReadBounds* bounds,
                      ReadOptions* out);
WriteOptions WriteOptionsFor(const rocksdb_writeoptions_t* options);
FlushOptions FlushOptionsFor(const rocksdb_flushoptions_t* options);
Status CompactRangeOptionsFor(const rocksdb_compactoptions_t* options, CompactRangeOptions* out);
IngestExternalFileOptions IngestOptionsFor(const rocksdb_ingestexternalfileoptions_t* options);

Status CheckOptionsForOpen(const rocksdb_options_t* options, std::string_view db_name);
shale::Options ShaleOptionsFor(const rocksdb_options_t* options);
std::string AcceptedKnobsLogText(const rocksdb_options_t* options);

}  // namespace shale::rocksdb_capi

#endif  // SHALE_ROCKSDB_CAPI_DB_ASSUMED_SHAPES_TEMP_H_
