// The named fields of Options and of the structs nested in it, with RocksDB's names: the one
// place that says how each option is spelled, read and printed. Strings, OPTIONS files and
// validation messages all go through these tables. A new Options field needs one line here
// (and the round-trip test's equality helper checks that it was added). Each field is in the
// table of its scope, DBOptionsFields or ColumnFamilyOptionsFields (RocksDB's split), and says
// whether it is dynamic (changeable on an open DB).
//
// Thread-safety: immutable tables.
#ifndef SHALE_OPTIONS_OPTION_FIELDS_H_
#define SHALE_OPTIONS_OPTION_FIELDS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "options/option_list.h"
#include "shale/options.h"

namespace shale {

// The fields of DBOptions (except file_system and statistics), in printing order.
std::span<const OptionField<DBOptions>> DBOptionsFields();
// The fields of ColumnFamilyOptions, in printing order, block_based_table_factory (the nested
// table options) last.
std::span<const OptionField<ColumnFamilyOptions>> ColumnFamilyOptionsFields();
// Every Options field except file_system and statistics, in printing order: the DB options,
// then the column-family options (the two tables above, in one).
std::span<const OptionField<Options>> OptionsFields();
std::span<const OptionField<TableOptions>> TableOptionsFields();
std::span<const OptionField<CompactionOptionsUniversal>> UniversalCompactionFields();
std::span<const OptionField<CompactionOptionsFIFO>> FifoCompactionFields();

// Which struct a top-level option belongs to: DBOptions or ColumnFamilyOptions (RocksDB's
// split).
enum class OptionScope { kDB, kColumnFamily };

// The scope of the top-level option `name`, or nullopt when no option has that name.
std::optional<OptionScope> FindOptionScope(std::string_view name);

// "DB" or "column family".
std::string_view OptionScopeName(OptionScope scope);

// InvalidArgument "<name> is a <scope> option, not a <other scope> option", for a name of
// `scope` given where the other scope's options are expected.
Status WrongScopeOption(std::string_view name, OptionScope scope);

// The value of the option named `qualified` ("write_buffer_size",
// "block_based_table_factory.block_size") as printed, or "?" if there is no such option.
std::string PrintOptionByName(const Options& options, std::string_view qualified);

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTION_FIELDS_H_
