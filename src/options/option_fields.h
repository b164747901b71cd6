// The named fields of Options and of the structs nested in it, with RocksDB's names: the one
// place that says how each option is spelled, read and printed. Strings, OPTIONS files and
// validation messages all go through these tables. A new Options field needs one line here
// (and the round-trip test's equality helper checks that it was added).
//
// Thread-safety: immutable tables.
#ifndef SHALE_OPTIONS_OPTION_FIELDS_H_
#define SHALE_OPTIONS_OPTION_FIELDS_H_

#include <span>
#include <string>
#include <string_view>

#include "options/option_list.h"
#include "shale/options.h"

namespace shale {

// Every Options field except file_system, in printing order: DB options, then column-family
// options, then block_based_table_factory (the nested table options).
std::span<const OptionField<Options>> OptionsFields();
std::span<const OptionField<TableOptions>> TableOptionsFields();
std::span<const OptionField<CompactionOptionsUniversal>> UniversalCompactionFields();
std::span<const OptionField<CompactionOptionsFIFO>> FifoCompactionFields();

// The value of the option named `qualified` ("write_buffer_size",
// "block_based_table_factory.block_size") as printed, or "?" if there is no such option.
std::string PrintOptionByName(const Options& options, std::string_view qualified);

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTION_FIELDS_H_
