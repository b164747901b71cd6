#include "table/table_properties.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/coding.h"

namespace shale {

namespace {

// The property names and the fields they are stored from. Names are part of the format
// (doc/table_format.md): never rename one.
struct NumberProperty {
  const char* name;
  uint64_t TableProperties::*field;
};
struct FlagProperty {
  const char* name;
  bool TableProperties::*field;
};
struct StringProperty {
  const char* name;
  std::string TableProperties::*field;
};

constexpr NumberProperty kNumbers[] = {
    {"shale.num.entries", &TableProperties::num_entries},
    {"shale.num.deletions", &TableProperties::num_deletions},
    {"shale.num.merge.operands", &TableProperties::num_merge_operands},
    {"shale.num.range.deletions", &TableProperties::num_range_deletions},
    {"shale.raw.key.size", &TableProperties::raw_key_size},
    {"shale.raw.value.size", &TableProperties::raw_value_size},
    {"shale.data.size", &TableProperties::data_size},
    {"shale.index.size", &TableProperties::index_size},
    {"shale.filter.size", &TableProperties::filter_size},
    {"shale.num.data.blocks", &TableProperties::num_data_blocks},
    {"shale.index.partitions", &TableProperties::index_partitions},
    {"shale.top.level.index.size", &TableProperties::top_level_index_size},
    {"shale.max.block.size", &TableProperties::max_block_size},
    {"shale.smallest.seqno", &TableProperties::smallest_seqno},
    {"shale.largest.seqno", &TableProperties::largest_seqno},
    {"shale.index.type", &TableProperties::index_type},
    {"shale.block.size", &TableProperties::block_size},
    {"shale.block.restart.interval", &TableProperties::block_restart_interval},
    {"shale.index.block.restart.interval", &TableProperties::index_block_restart_interval},
    {"shale.format.version", &TableProperties::format_version},
    {"shale.creation.time", &TableProperties::creation_time},
};

constexpr FlagProperty kFlags[] = {
    {"shale.partitioned.filters", &TableProperties::partitioned_filters},
    {"shale.data.block.hash.index", &TableProperties::data_block_hash_index},
};

constexpr StringProperty kStrings[] = {
    {"shale.compression", &TableProperties::compression_name},
    {"shale.comparator", &TableProperties::comparator_name},
    {"shale.filter.policy", &TableProperties::filter_policy_name},
    {"shale.smallest.user.key", &TableProperties::smallest_user_key},
    {"shale.largest.user.key", &TableProperties::largest_user_key},
    {"shale.smallest.range.del.key", &TableProperties::smallest_range_del_key},
    {"shale.largest.range.del.key", &TableProperties::largest_range_del_key},
};

// The column family pair, stored only when the family is known (see table_properties.h).
constexpr const char* kColumnFamilyIdName = "shale.column.family.id";
constexpr const char* kColumnFamilyNameName = "shale.column.family.name";

Status DecodeNumber(std::string_view name, std::string_view value, uint64_t* out) {
  if (!GetVarint64(&value, out) || !value.empty()) {
    return Status::Corruption("bad table property", name);
  }
  return Status::OK();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TableProperties::Encode() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const NumberProperty& p : kNumbers) {
    std::string v;
    PutVarint64(&v, this->*p.field);
    out.emplace_back(p.name, std::move(v));
  }
  for (const FlagProperty& p : kFlags) {
    out.emplace_back(p.name, std::string(1, (this->*p.field) ? '\1' : '\0'));
  }
  for (const StringProperty& p : kStrings) out.emplace_back(p.name, this->*p.field);
  if (has_column_family()) {
    std::string id;
    PutVarint64(&id, column_family_id);
    out.emplace_back(kColumnFamilyIdName, std::move(id));
    out.emplace_back(kColumnFamilyNameName, column_family_name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Status TableProperties::DecodeEntry(std::string_view name, std::string_view value) {
  for (const NumberProperty& p : kNumbers) {
    if (name == p.name) return DecodeNumber(name, value, &(this->*p.field));
  }
  for (const FlagProperty& p : kFlags) {
    if (name == p.name) {
      uint64_t v = 0;
      Status s = DecodeNumber(name, value, &v);
      if (s.ok() && v > 1) s = Status::Corruption("bad table property", name);
      this->*p.field = (v == 1);
      return s;
    }
  }
  for (const StringProperty& p : kStrings) {
    if (name == p.name) {
      (this->*p.field).assign(value.data(), value.size());
      return Status::OK();
    }
  }
  if (name == kColumnFamilyIdName) return DecodeNumber(name, value, &column_family_id);
  if (name == kColumnFamilyNameName) {
    column_family_name.assign(value.data(), value.size());
    return Status::OK();
  }
  return Status::OK();  // a property of a newer writer
}

std::string TableProperties::ToString() const {
  std::string r;
  for (const NumberProperty& p : kNumbers) absl::StrAppend(&r, p.name, ": ", this->*p.field, "\n");
  for (const FlagProperty& p : kFlags) {
    absl::StrAppend(&r, p.name, ": ", (this->*p.field) ? "true" : "false", "\n");
  }
  for (const StringProperty& p : kStrings) {
    absl::StrAppend(&r, p.name, ": ", absl::CEscape(ToAbsl(this->*p.field)), "\n");
  }
  if (has_column_family()) {
    absl::StrAppend(&r, kColumnFamilyIdName, ": ", column_family_id, "\n", kColumnFamilyNameName,
                    ": ", absl::CEscape(ToAbsl(column_family_name)), "\n");
  }
  return r;
}

}  // namespace shale
