// Reading and printing single option values, the RocksDB way:
//   - integers: decimal, optionally negative for signed types, with a K/M/G/T suffix (any case)
//     multiplying by a power of 1024 ("64M" = 67108864); out-of-range values are rejected;
//   - booleans: true/false/1/0 (any case);
//   - doubles: anything std::from_chars accepts; printed in the shortest form that reads back
//     to the same double;
//   - enums: RocksDB's names (kCompactionStyleLevel, kZSTD, ...), exact case.
// Parse* functions return false on a bad value and leave *out untouched; they never allocate.
// Print* results always parse back to the same value.
//
// Thread-safety: stateless functions.
#ifndef SHALE_OPTIONS_OPTION_VALUE_H_
#define SHALE_OPTIONS_OPTION_VALUE_H_

#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "shale/options.h"

namespace shale {

// `s` without leading and trailing spaces, tabs, CRs and LFs.
std::string_view TrimOptionText(std::string_view s);

bool ParseOptionBool(std::string_view s, bool* out);
inline std::string PrintOptionBool(bool b) { return b ? "true" : "false"; }

// The signed and unsigned cores of ParseOptionInt: the value with its suffix applied, checked
// against [min, max].
bool ParseOptionSigned(std::string_view s, int64_t min, int64_t max, int64_t* out);
bool ParseOptionUnsigned(std::string_view s, uint64_t max, uint64_t* out);

template <std::integral T>
  requires(!std::same_as<T, bool>)
bool ParseOptionInt(std::string_view s, T* out) {
  if constexpr (std::is_signed_v<T>) {
    int64_t v;
    if (!ParseOptionSigned(s, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), &v)) {
      return false;
    }
    *out = static_cast<T>(v);
  } else {
    uint64_t v;
    if (!ParseOptionUnsigned(s, std::numeric_limits<T>::max(), &v)) return false;
    *out = static_cast<T>(v);
  }
  return true;
}

bool ParseOptionDouble(std::string_view s, double* out);
std::string PrintOptionDouble(double d);

// One name of an enum value. An enum may have aliases: the first entry of a value is the one
// printed.
template <typename E>
struct EnumName {
  std::string_view name;
  E value;
};

// The names of each option enum (RocksDB's spelling).
std::span<const EnumName<CompactionStyle>> OptionEnumNames(CompactionStyle);
std::span<const EnumName<WALRecoveryMode>> OptionEnumNames(WALRecoveryMode);
std::span<const EnumName<CompressionType>> OptionEnumNames(CompressionType);
std::span<const EnumName<TableOptions::IndexType>> OptionEnumNames(TableOptions::IndexType);
std::span<const EnumName<TableOptions::DataBlockIndexType>> OptionEnumNames(
    TableOptions::DataBlockIndexType);

template <typename E>
bool ParseOptionEnum(std::string_view s, E* out) {
  for (const EnumName<E>& entry : OptionEnumNames(E{})) {
    if (entry.name == s) {
      *out = entry.value;
      return true;
    }
  }
  return false;
}

// The name of `value`, or its number in decimal when it has none (a value cast from an
// integer); such a number does not parse back.
template <typename E>
std::string PrintOptionEnum(E value) {
  for (const EnumName<E>& entry : OptionEnumNames(E{})) {
    if (entry.value == value) return std::string(entry.name);
  }
  return std::to_string(static_cast<int64_t>(value));
}

// "one of kA, kB, kC": the accepted names, for error messages.
template <typename E>
std::string OptionEnumChoices() {
  std::string choices = "one of ";
  bool first = true;
  for (const EnumName<E>& entry : OptionEnumNames(E{})) {
    if (!first) choices += ", ";
    choices += entry.name;
    first = false;
  }
  return choices;
}

}  // namespace shale

#endif  // SHALE_OPTIONS_OPTION_VALUE_H_
