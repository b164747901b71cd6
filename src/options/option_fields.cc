#include "options/option_fields.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// ---- Fields that are not plain scalars.

// "leveldb.BytewiseComparator", the name of the comparator already there (so a custom
// comparator survives a round trip), or "nullptr".
template <typename S>
Status ParseComparator(std::string_view name, std::string_view value, const OptionParseContext&,
                       S* target) {
  if (value == "nullptr") {
    target->comparator = nullptr;
  } else if (target->comparator != nullptr && value == target->comparator->Name()) {
    // Keep it.
  } else if (value == BytewiseComparator()->Name()) {
    target->comparator = BytewiseComparator();
  } else {
    return BadOptionValue(name, value,
                          "leveldb.BytewiseComparator or the name of the base options' comparator");
  }
  return Status::OK();
}

template <typename S>
std::string PrintComparator(const S& source) {
  return source.comparator == nullptr ? "nullptr" : source.comparator->Name();
}

// The operator's GetId() (CreateMergeOperatorFromString's form for the built-ins), or "nullptr".
// A custom operator survives a round trip when the target already holds it (same GetId()). In
// an OPTIONS file (lenient), an operator this process cannot make is skipped with a note and
// the target's operator is kept: the caller supplies custom operators.
template <typename S>
Status ParseMergeOperator(std::string_view name, std::string_view value,
                          const OptionParseContext& ctx, S* target) {
  if (target->merge_operator != nullptr && value == target->merge_operator->GetId()) {
    return Status::OK();  // keep it
  }
  std::shared_ptr<MergeOperator> op;
  Status s = CreateMergeOperatorFromString(value, &op);
  if (!s.ok() && ctx.warnings != nullptr) {
    ctx.warnings->push_back(absl::StrCat("skipped merge_operator '", ToAbsl(value),
                                         "': not a built-in; set Options::merge_operator"));
    return Status::OK();
  }
  if (!s.ok()) {
    return BadOptionValue(name, value,
                          "nullptr, a built-in (uint64add, max, stringappend[:<delimiter>], "
                          "sortedset64[:<index_interval>]) or the base options' operator");
  }
  target->merge_operator = std::move(op);
  return Status::OK();
}

template <typename S>
std::string PrintMergeOperator(const S& source) {
  return source.merge_operator == nullptr ? "nullptr" : source.merge_operator->GetId();
}

// The only table format ShaleDB has; RocksDB's OPTIONS files name it the same way.
constexpr std::string_view kBlockBasedTable = "BlockBasedTable";

template <typename S>
Status ParseTableFactory(std::string_view name, std::string_view value, const OptionParseContext&,
                         S*) {
  if (value != kBlockBasedTable) return BadOptionValue(name, value, "BlockBasedTable");
  return Status::OK();
}

template <typename S>
std::string PrintTableFactory(const S&) { return std::string(kBlockBasedTable); }

// "bloomfilter:<bits_per_key>[:<use_block_based_builder>]" (RocksDB's spelling; the last part
// chose RocksDB's deprecated block-based filter and is ignored), or "nullptr" for none.
std::string PrintFilterPolicy(const TableOptions& source) {
  if (source.filter_policy == nullptr) return "nullptr";
  return absl::StrCat("bloomfilter:", PrintOptionDouble(source.filter_policy->bits_per_key()),
                      ":false");
}

Status ParseFilterPolicy(std::string_view name, std::string_view value, const OptionParseContext&,
                         TableOptions* target) {
  constexpr std::string_view kExpected = "nullptr or bloomfilter:<bits_per_key>[:false]";
  if (value == "nullptr" || value.empty()) {
    target->filter_policy = nullptr;
    return Status::OK();
  }
  if (target->filter_policy != nullptr && value == PrintFilterPolicy(*target)) {
    return Status::OK();  // the same policy: keep the object
  }
  constexpr std::string_view kPrefix = "bloomfilter:";
  if (value.substr(0, kPrefix.size()) != kPrefix) return BadOptionValue(name, value, kExpected);
  std::string_view rest = value.substr(kPrefix.size());
  size_t colon = rest.find(':');
  bool ignored;
  if (colon != std::string_view::npos && !ParseOptionBool(rest.substr(colon + 1), &ignored)) {
    return BadOptionValue(name, value, kExpected);
  }
  double bits = 0;
  if (!ParseOptionDouble(rest.substr(0, colon), &bits)) {
    return BadOptionValue(name, value, kExpected);
  }
  // As RocksDB: below 0.5 bits per key means no filter; NewBloomFilterPolicy takes values
  // below 1 as 1 and above 100 as 100 (RocksDB's bounds too).
  target->filter_policy = bits < 0.5 ? nullptr : NewBloomFilterPolicy(bits);
  return Status::OK();
}

// A RocksDB file's format_version numbers RocksDB's table formats, not ShaleDB's.
Status ParseFormatVersion(std::string_view name, std::string_view value,
                          const OptionParseContext& ctx, TableOptions* target) {
  if (ctx.foreign_table_format && ctx.warnings != nullptr) {
    ctx.warnings->push_back(absl::StrCat("skipped ", ToAbsl(name), "=", ToAbsl(value),
                                         ": it numbers RocksDB's table formats, not ShaleDB's"));
    return Status::OK();
  }
  return ParseScalarMember<TableOptions, &TableOptions::format_version>(name, value, ctx, target);
}

// The block cache's capacity in bytes, or "nullptr" for none set (then the DB makes its own).
std::string PrintBlockCache(const TableOptions& source) {
  if (source.block_cache == nullptr) return "nullptr";
  return std::to_string(source.block_cache->GetCapacity());
}

// "nullptr", or a capacity ("64M", "8388608"): a new LRU cache of that size. The cache already
// there is kept when its capacity is the one named (so a round trip keeps a shared cache).
Status ParseBlockCache(std::string_view name, std::string_view value, const OptionParseContext&,
                       TableOptions* target) {
  if (value == "nullptr" || value.empty()) {
    target->block_cache = nullptr;
    return Status::OK();
  }
  uint64_t capacity = 0;
  if (!ParseOptionInt(value, &capacity)) {
    return BadOptionValue(name, value, "nullptr or a capacity in bytes (K, M, G suffixes)");
  }
  if (target->block_cache != nullptr && target->block_cache->GetCapacity() == capacity) {
    return Status::OK();
  }
  target->block_cache = NewLRUCache(static_cast<size_t>(capacity));
  return Status::OK();
}

// ---- RocksDB's compression_opts and bottommost_compression_opts (doc/options.md): read, never
// printed (ShaleDB's own spelling is compression_level).

// RocksDB's kDefaultCompressionLevel: "the codec's default", zstd's 3; ShaleDB's 0.
constexpr int kRocksDbDefaultCompressionLevel = 32767;

// The fields of RocksDB's CompressionOptions, in the order of its colon form
// ("window_bits:level:strategy:max_dict_bytes:zstd_max_train_bytes:parallel_threads:enabled:
// max_dict_buffer_bytes:use_zstd_dict_trainer"), then the ones only the nested form has.
struct RocksDbCompressionOptions {
  int64_t window_bits = -14;
  int64_t level = kRocksDbDefaultCompressionLevel;
  int64_t strategy = 0;
  uint64_t max_dict_bytes = 0;
  uint64_t zstd_max_train_bytes = 0;
  uint64_t parallel_threads = 1;
  bool enabled = false;
  uint64_t max_dict_buffer_bytes = 0;
  bool use_zstd_dict_trainer = true;
  int64_t max_compressed_bytes_per_kb = 896;
  bool checksum = false;
  bool level_given = false;
};

// Reads one field of a RocksDB CompressionOptions. Unknown names: UnknownOption (an error in
// strings, a note in OPTIONS files).
Status ParseRocksDbCompressionField(std::string_view qualified, std::string_view field,
                                    std::string_view value, const OptionParseContext& ctx,
                                    RocksDbCompressionOptions* out) {
  value = TrimOptionText(value);
  bool ok = true;
  std::string_view expected = "an integer in range";
  if (field == "window_bits") {
    ok = ParseOptionInt(value, &out->window_bits);
  } else if (field == "level") {
    ok = ParseOptionInt(value, &out->level) && out->level >= INT32_MIN && out->level <= INT32_MAX;
    out->level_given = true;
  } else if (field == "strategy") {
    ok = ParseOptionInt(value, &out->strategy);
  } else if (field == "max_dict_bytes") {
    ok = ParseOptionInt(value, &out->max_dict_bytes);
  } else if (field == "zstd_max_train_bytes") {
    ok = ParseOptionInt(value, &out->zstd_max_train_bytes);
  } else if (field == "parallel_threads") {
    ok = ParseOptionInt(value, &out->parallel_threads);
  } else if (field == "max_dict_buffer_bytes") {
    ok = ParseOptionInt(value, &out->max_dict_buffer_bytes);
  } else if (field == "max_compressed_bytes_per_kb") {
    ok = ParseOptionInt(value, &out->max_compressed_bytes_per_kb);
  } else if (field == "enabled" || field == "use_zstd_dict_trainer" || field == "checksum") {
    bool* target = field == "enabled"                 ? &out->enabled
                   : field == "use_zstd_dict_trainer" ? &out->use_zstd_dict_trainer
                                                      : &out->checksum;
    ok = ParseOptionBool(value, target);
    expected = "true, false, 1 or 0";
  } else {
    return UnknownOption(absl::StrCat(ToAbsl(qualified), ".", ToAbsl(field)), value, ctx);
  }
  if (!ok) return BadOptionValue(absl::StrCat(ToAbsl(qualified), ".", ToAbsl(field)), value, expected);
  return Status::OK();
}

// "{level=3;window_bits=-14;...}" (nested) or "-14:3:0:0[:...]" (RocksDB's older colon form).
Status ParseRocksDbCompressionOptions(std::string_view name, std::string_view value,
                                      const OptionParseContext& ctx,
                                      RocksDbCompressionOptions* out) {
  if (value.size() >= 2 && value.front() == '{' && value.back() == '}') {
    value = value.substr(1, value.size() - 2);
  }
  if (value.find('=') != std::string_view::npos || TrimOptionText(value).empty()) {
    OptionParseContext nested = ctx;
    nested.prefix.clear();  // the qualified name is built per field
    std::vector<OptionPair> pairs;
    Status s = SplitOptionList(value, nested, &pairs);
    for (size_t i = 0; s.ok() && i < pairs.size(); i++) {
      s = ParseRocksDbCompressionField(name, pairs[i].name, pairs[i].value, ctx, out);
    }
    return s;
  }
  static constexpr std::string_view kColonOrder[] = {
      "window_bits",      "level",   "strategy", "max_dict_bytes", "zstd_max_train_bytes",
      "parallel_threads", "enabled", "max_dict_buffer_bytes", "use_zstd_dict_trainer"};
  size_t index = 0;
  while (true) {
    const size_t colon = value.find(':');
    if (index >= std::size(kColonOrder)) {
      return BadOptionValue(name, value, "at most 9 colon-separated fields");
    }
    Status s = ParseRocksDbCompressionField(name, kColonOrder[index], value.substr(0, colon),
                                            ctx, out);
    if (!s.ok()) return s;
    index++;
    if (colon == std::string_view::npos) break;
    value.remove_prefix(colon + 1);
  }
  if (index < 4) {
    return BadOptionValue(name, value,
                          "{level=<n>;...} or window_bits:level:strategy:max_dict_bytes[:...]");
  }
  return Status::OK();
}

// Refuses the fields that would change behaviour ShaleDB cannot honour: dictionary compression.
Status RefuseDictionary(std::string_view name, const RocksDbCompressionOptions& o) {
  if (o.max_dict_bytes != 0) {
    return Status::InvalidArgument(
        absl::StrCat(ToAbsl(name), ".max_dict_bytes"),
        absl::StrCat("dictionary compression is not supported (must be 0); got ",
                     o.max_dict_bytes));
  }
  if (o.zstd_max_train_bytes != 0) {
    return Status::InvalidArgument(
        absl::StrCat(ToAbsl(name), ".zstd_max_train_bytes"),
        absl::StrCat("dictionary compression is not supported (must be 0); got ",
                     o.zstd_max_train_bytes));
  }
  return Status::OK();
}

// compression_opts: its level becomes compression_level (RocksDB's 32767, "the codec's
// default", becomes 0, zstd's default here too); tuning-only fields are accepted and ignored.
template <typename S>
Status ParseCompressionOpts(std::string_view name, std::string_view value,
                            const OptionParseContext& ctx, S* target) {
  RocksDbCompressionOptions parsed;
  Status s = ParseRocksDbCompressionOptions(name, value, ctx, &parsed);
  if (s.ok()) s = RefuseDictionary(name, parsed);
  if (!s.ok()) return s;
  if (parsed.level_given) {
    target->compression_level = parsed.level == kRocksDbDefaultCompressionLevel
                                    ? 0
                                    : static_cast<int>(parsed.level);
  }
  return Status::OK();
}

// bottommost_compression_opts: RocksDB reads it only with enabled=true; otherwise the bottommost
// level uses compression_opts. ShaleDB has one level for all levels, so enabled=true is refused
// (a separate bottommost level would silently not be honoured); enabled=false is accepted and
// ignored.
template <typename S>
Status ParseBottommostCompressionOpts(std::string_view name, std::string_view value,
                                      const OptionParseContext& ctx, S*) {
  RocksDbCompressionOptions parsed;
  Status s = ParseRocksDbCompressionOptions(name, value, ctx, &parsed);
  if (s.ok()) s = RefuseDictionary(name, parsed);
  if (!s.ok()) return s;
  if (parsed.enabled) {
    return Status::InvalidArgument(
        absl::StrCat(ToAbsl(name), ".enabled"),
        "true (a compression level of its own for the bottommost level) is not supported: "
        "ShaleDB has one compression_level for every level; got true");
  }
  return Status::OK();
}

}  // namespace

#define SHALE_SCALAR(Struct, field, group) \
  ScalarField<Struct, &Struct::field>(#field, OptionGroup::group)
#define SHALE_NESTED(Struct, field, table, group) \
  NestedField<Struct, &Struct::field, &table>(#field, OptionGroup::group)

std::span<const OptionField<CompactionOptionsUniversal>> UniversalCompactionFields() {
  using U = CompactionOptionsUniversal;
  static constexpr OptionField<U> kFields[] = {
      SHALE_SCALAR(U, size_ratio, kCF),
      SHALE_SCALAR(U, min_merge_width, kCF),
      SHALE_SCALAR(U, max_merge_width, kCF),
      SHALE_SCALAR(U, max_size_amplification_percent, kCF),
  };
  return kFields;
}

std::span<const OptionField<CompactionOptionsFIFO>> FifoCompactionFields() {
  using F = CompactionOptionsFIFO;
  static constexpr OptionField<F> kFields[] = {
      SHALE_SCALAR(F, max_table_files_size, kCF),
      SHALE_SCALAR(F, allow_compaction, kCF),
  };
  return kFields;
}

std::span<const OptionField<TableOptions>> TableOptionsFields() {
  using T = TableOptions;
  static constexpr OptionField<T> kFields[] = {
      SHALE_SCALAR(T, block_size, kTableFactory),
      SHALE_SCALAR(T, block_restart_interval, kTableFactory),
      SHALE_SCALAR(T, index_block_restart_interval, kTableFactory),
      SHALE_SCALAR(T, index_type, kTableFactory),
      SHALE_SCALAR(T, data_block_index_type, kTableFactory),
      SHALE_SCALAR(T, data_block_hash_table_util_ratio, kTableFactory),
      {"filter_policy", OptionGroup::kTableFactory, &ParseFilterPolicy, &PrintFilterPolicy},
      SHALE_SCALAR(T, partition_filters, kTableFactory),
      SHALE_SCALAR(T, metadata_block_size, kTableFactory),
      SHALE_SCALAR(T, enable_index_compression, kTableFactory),
      SHALE_SCALAR(T, whole_key_filtering, kTableFactory),
      {"format_version", OptionGroup::kTableFactory, &ParseFormatVersion,
       &PrintScalarMember<T, &T::format_version>},
      {"block_cache", OptionGroup::kTableFactory, &ParseBlockCache, &PrintBlockCache},
      SHALE_SCALAR(T, no_block_cache, kTableFactory),
      SHALE_SCALAR(T, cache_index_and_filter_blocks, kTableFactory),
      SHALE_SCALAR(T, pin_top_level_index_and_filter, kTableFactory),
      SHALE_SCALAR(T, pin_l0_filter_and_index_blocks_in_cache, kTableFactory),
      SHALE_SCALAR(T, charge_table_reader_memory, kTableFactory),
  };
  return kFields;
}

namespace {

// Marks a field as one DB::SetOptions (column-family options) or DB::SetDBOptions (DB options)
// may change on an open DB.
template <typename S>
constexpr OptionField<S> Dynamic(OptionField<S> field) {
  field.dynamic = true;
  return field;
}

// The DB options' fields, for S = DBOptions or Options (which derives from it).
template <typename S>
constexpr auto DBOptionFieldArray() {
  return std::array{
      SHALE_SCALAR(S, create_if_missing, kDB),
      SHALE_SCALAR(S, error_if_exists, kDB),
      SHALE_SCALAR(S, create_missing_column_families, kDB),
      SHALE_SCALAR(S, paranoid_checks, kDB),
      SHALE_SCALAR(S, max_open_files, kDB),
      Dynamic(SHALE_SCALAR(S, max_background_jobs, kDB)),
      Dynamic(SHALE_SCALAR(S, max_subcompactions, kDB)),
      SHALE_SCALAR(S, db_write_buffer_size, kDB),
      Dynamic(SHALE_SCALAR(S, max_total_wal_size, kDB)),
      SHALE_SCALAR(S, atomic_flush, kDB),
      Dynamic(SHALE_SCALAR(S, avoid_flush_during_shutdown, kDB)),
      Dynamic(SHALE_SCALAR(S, delayed_write_rate, kDB)),
      SHALE_SCALAR(S, wal_recovery_mode, kDB),
      SHALE_SCALAR(S, use_fsync, kDB),
      SHALE_SCALAR(S, max_manifest_file_size, kDB),
      SHALE_SCALAR(S, allow_ingest_behind, kDB),
      SHALE_SCALAR(S, skip_checking_sst_file_sizes_on_db_open, kDB),
      SHALE_SCALAR(S, stats_dump_period_sec, kDB),
  };
}

// The column-family options' fields, for S = ColumnFamilyOptions or Options.
template <typename S>
constexpr auto ColumnFamilyOptionFieldArray() {
  return std::array{
      OptionField<S>{"comparator", OptionGroup::kCF, &ParseComparator<S>, &PrintComparator<S>},
      OptionField<S>{"merge_operator", OptionGroup::kCF, &ParseMergeOperator<S>,
                     &PrintMergeOperator<S>},
      Dynamic(SHALE_SCALAR(S, write_buffer_size, kCF)),
      Dynamic(SHALE_SCALAR(S, max_write_buffer_number, kCF)),
      SHALE_SCALAR(S, min_write_buffer_number_to_merge, kCF),
      Dynamic(SHALE_SCALAR(S, max_successive_merges, kCF)),
      Dynamic(SHALE_SCALAR(S, compression, kCF)),
      Dynamic(SHALE_SCALAR(S, bottommost_compression, kCF)),
      Dynamic(SHALE_SCALAR(S, compression_level, kCF)),
      // RocksDB's spellings of the compression level: read, not printed (print == nullptr).
      OptionField<S>{"compression_opts", OptionGroup::kCF, &ParseCompressionOpts<S>, nullptr},
      OptionField<S>{"bottommost_compression_opts", OptionGroup::kCF,
                     &ParseBottommostCompressionOpts<S>, nullptr},
      SHALE_SCALAR(S, num_levels, kCF),
      Dynamic(SHALE_SCALAR(S, level0_file_num_compaction_trigger, kCF)),
      Dynamic(SHALE_SCALAR(S, level0_slowdown_writes_trigger, kCF)),
      Dynamic(SHALE_SCALAR(S, level0_stop_writes_trigger, kCF)),
      Dynamic(SHALE_SCALAR(S, target_file_size_base, kCF)),
      Dynamic(SHALE_SCALAR(S, target_file_size_multiplier, kCF)),
      Dynamic(SHALE_SCALAR(S, max_bytes_for_level_base, kCF)),
      Dynamic(SHALE_SCALAR(S, max_bytes_for_level_multiplier, kCF)),
      SHALE_SCALAR(S, level_compaction_dynamic_level_bytes, kCF),
      SHALE_SCALAR(S, compaction_style, kCF),
      Dynamic(SHALE_SCALAR(S, disable_auto_compactions, kCF)),
      Dynamic(SHALE_NESTED(S, compaction_options_universal, UniversalCompactionFields, kCF)),
      Dynamic(SHALE_NESTED(S, compaction_options_fifo, FifoCompactionFields, kCF)),
      Dynamic(SHALE_SCALAR(S, ttl, kCF)),
      Dynamic(SHALE_SCALAR(S, soft_pending_compaction_bytes_limit, kCF)),
      Dynamic(SHALE_SCALAR(S, hard_pending_compaction_bytes_limit, kCF)),
      OptionField<S>{"table_factory", OptionGroup::kCF, &ParseTableFactory<S>,
                     &PrintTableFactory<S>},
      // The table options: nested in strings, a section of their own in OPTIONS files.
      NestedField<S, &S::table_options, &TableOptionsFields>("block_based_table_factory",
                                                             OptionGroup::kTableFactory),
  };
}

template <typename T, size_t N, size_t M>
constexpr std::array<T, N + M> ConcatFields(const std::array<T, N>& a, const std::array<T, M>& b) {
  std::array<T, N + M> all{};
  for (size_t i = 0; i < N; i++) all[i] = a[i];
  for (size_t i = 0; i < M; i++) all[N + i] = b[i];
  return all;
}

}  // namespace

std::span<const OptionField<DBOptions>> DBOptionsFields() {
  static constexpr auto kFields = DBOptionFieldArray<DBOptions>();
  return kFields;
}

std::span<const OptionField<ColumnFamilyOptions>> ColumnFamilyOptionsFields() {
  static constexpr auto kFields = ColumnFamilyOptionFieldArray<ColumnFamilyOptions>();
  return kFields;
}

std::span<const OptionField<Options>> OptionsFields() {
  static constexpr auto kFields =
      ConcatFields(DBOptionFieldArray<Options>(), ColumnFamilyOptionFieldArray<Options>());
  return kFields;
}

std::optional<OptionScope> FindOptionScope(std::string_view name) {
  if (FindOptionField(DBOptionsFields(), name) != nullptr) return OptionScope::kDB;
  if (FindOptionField(ColumnFamilyOptionsFields(), name) != nullptr) {
    return OptionScope::kColumnFamily;
  }
  return std::nullopt;
}

std::string_view OptionScopeName(OptionScope scope) {
  return scope == OptionScope::kDB ? "DB" : "column family";
}

Status WrongScopeOption(std::string_view name, OptionScope scope) {
  const OptionScope other =
      scope == OptionScope::kDB ? OptionScope::kColumnFamily : OptionScope::kDB;
  return Status::InvalidArgument(absl::StrCat(ToAbsl(name), " is a ",
                                              ToAbsl(OptionScopeName(scope)), " option, not a ",
                                              ToAbsl(OptionScopeName(other)), " option"));
}

#undef SHALE_SCALAR
#undef SHALE_NESTED

std::string PrintOptionByName(const Options& options, std::string_view qualified) {
  size_t dot = qualified.find('.');
  std::string_view head = qualified.substr(0, dot);
  std::string_view tail = dot == std::string_view::npos ? "" : qualified.substr(dot + 1);
  if (dot == std::string_view::npos) {
    const OptionField<Options>* field = FindOptionField(OptionsFields(), head);
    return field == nullptr || field->print == nullptr ? "?" : field->print(options);
  }
  if (head == "block_based_table_factory") {
    const OptionField<TableOptions>* field = FindOptionField(TableOptionsFields(), tail);
    return field == nullptr ? "?" : field->print(options.table_options);
  }
  if (head == "compaction_options_universal") {
    auto* field = FindOptionField(UniversalCompactionFields(), tail);
    return field == nullptr ? "?" : field->print(options.compaction_options_universal);
  }
  if (head == "compaction_options_fifo") {
    auto* field = FindOptionField(FifoCompactionFields(), tail);
    return field == nullptr ? "?" : field->print(options.compaction_options_fifo);
  }
  return "?";
}

}  // namespace shale
