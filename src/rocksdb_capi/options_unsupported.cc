// The RocksDB settings ShaleDB cannot honour and must not ignore, because they could change
// what a read returns or where the DB's files are (other table formats, an info logger object,
// db_paths, a WAL or LOG directory of its own): the setters record them in the options handle
// and the open refuses them (CheckOptionsForOpen). Also the open-time mapping of the options
// (ShaleOptionsFor) and the LOG text of the knobs accepted without effect.
//
// Thread-safety: as options.cc.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/compression_type.h"
#include "shale/options.h"
#include "shale/status.h"

namespace shale::rocksdb_capi {

namespace {

// A directory path without its trailing slashes ("/" stays "/").
std::string_view WithoutTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

// OK when `dir` (wal_dir or db_log_dir) is unset or the DB directory itself.
Status CheckDirIsDbDir(std::string_view option, std::string_view dir, std::string_view db_name) {
  if (dir.empty() || WithoutTrailingSlashes(dir) == WithoutTrailingSlashes(db_name)) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      std::string(option) + " is not supported by ShaleDB (set by rocksdb_options_set_" +
      std::string(option) + " to \"" + std::string(dir) +
      "\"): ShaleDB keeps its WAL and info LOG in the DB directory");
}

}  // namespace

void SetUnsupported(rocksdb_options_t* options, const char* option, const char* function,
                    bool set) {
  if (set) {
    options->unsupported[option] = function;
  } else {
    options->unsupported.erase(option);
    options->owned.erase(option);
  }
}

Status CheckOptionsForOpen(const rocksdb_options_t* options, std::string_view db_name) {
  if (!options->unsupported.empty()) {
    const auto& [option, function] = *options->unsupported.begin();
    return Status::InvalidArgument(option + " is not supported by ShaleDB (set by " + function +
                                   ")");
  }
  Status s = CheckDirIsDbDir("wal_dir", options->wal_dir, db_name);
  if (s.ok()) s = CheckDirIsDbDir("db_log_dir", options->db_log_dir, db_name);
  if (!s.ok()) return s;
  // Each type of the per-level list must be one the engine compresses with: ask its validation.
  for (size_t i = 0; i < options->compression_per_level.size(); i++) {
    const int type = options->compression_per_level[i];
    Options probe;
    probe.compression = type >= 0 && type <= 0xff ? static_cast<CompressionType>(type)
                                                  : static_cast<CompressionType>(0xfe);
    Status valid = probe.Validate();
    if (!valid.ok()) {
      return Status::InvalidArgument("compression_per_level[" + std::to_string(i) +
                                         "] = " + std::to_string(type),
                                     valid.message());
    }
  }
  return Status::OK();
}

Options ShaleOptionsFor(const rocksdb_options_t* options) {
  Options o = options->rep;
  const std::vector<int>& per_level = options->compression_per_level;
  if (!per_level.empty()) {
    const size_t above_bottom = per_level.size() >= 2 ? per_level.size() - 2 : 0;
    o.compression = static_cast<CompressionType>(per_level[above_bottom]);
    if (o.bottommost_compression == kDisableCompressionOption) {
      o.bottommost_compression = static_cast<CompressionType>(per_level.back());
    }
  }
  const int64_t compactions = KnobInt(options, "max_background_compactions", -1);
  const int64_t flushes = KnobInt(options, "max_background_flushes", -1);
  if (compactions != -1 || flushes != -1) {
    const int64_t jobs = (compactions == -1 ? 1 : compactions) + (flushes == -1 ? 1 : flushes);
    o.max_background_jobs = static_cast<int>(jobs);
  }
  return o;
}

std::string AcceptedKnobsLogText(const rocksdb_options_t* options) {
  std::string text;
  for (const auto& [name, value] : options->accepted_knobs) {
    text += "RocksDB option " + name + "=" + value +
            " accepted without effect: ShaleDB has no counterpart\n";
  }
  if (!options->compression_per_level.empty()) {
    const Options mapped = ShaleOptionsFor(options);
    text += "RocksDB option compression_per_level mapped onto compression=" +
            std::to_string(mapped.compression) +
            " and bottommost_compression=" + std::to_string(mapped.bottommost_compression) +
            ": ShaleDB has one compression type above the bottommost level\n";
  }
  return text;
}

}  // namespace shale::rocksdb_capi

using shale::rocksdb_capi::SetUnsupported;

extern "C" {

// Other table formats than the block-based one are not built. A NULL argument is ignored, as
// RocksDB does.
void rocksdb_options_set_cuckoo_table_factory(rocksdb_options_t* opt,
                                              rocksdb_cuckoo_table_options_t* table_options) {
  if (table_options == nullptr) return;
  SetUnsupported(opt, "table_factory", "rocksdb_options_set_cuckoo_table_factory");
}

void rocksdb_options_set_plain_table_factory(rocksdb_options_t* opt, uint32_t user_key_len,
                                             int bloom_bits_per_key, double hash_table_ratio,
                                             size_t index_sparseness) {
  SetUnsupported(opt, "table_factory", "rocksdb_options_set_plain_table_factory");
}

// Spreading table files over several directories is not built; no paths is the default.
void rocksdb_options_set_db_paths(rocksdb_options_t* opt, const rocksdb_dbpath_t** path_values,
                                  size_t num_paths) {
  SetUnsupported(opt, "db_paths", "rocksdb_options_set_db_paths", num_paths > 0);
}

// ShaleDB writes its own info LOG; a logger object cannot be handed to it. (RocksDB 7.8's C API
// has no function that makes one, so only NULL, which RocksDB ignores, is seen in practice.)
void rocksdb_options_set_info_log(rocksdb_options_t* opt, rocksdb_logger_t* l) {
  if (l == nullptr) return;
  SetUnsupported(opt, "info_log", "rocksdb_options_set_info_log");
}

// Refused at open unless the DB directory itself (CheckOptionsForOpen), since only then is the
// directory known.
void rocksdb_options_set_wal_dir(rocksdb_options_t* opt, const char* dir) {
  opt->wal_dir = dir != nullptr ? dir : "";
}

void rocksdb_options_set_db_log_dir(rocksdb_options_t* opt, const char* dir) {
  opt->db_log_dir = dir != nullptr ? dir : "";
}

}  // extern "C"
