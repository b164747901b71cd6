#include "options/option_value.h"

#include <array>
#include <charconv>
#include <cmath>

namespace shale {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

// The power of 1024 a size suffix stands for, or 0 if `c` is not one.
int SuffixShift(char c) {
  switch (c) {
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    case 't': case 'T': return 40;
    default: return 0;
  }
}

// Reads "<digits>[suffix]" (no sign) into *magnitude; false if malformed or >= 2^64.
bool ParseMagnitude(std::string_view s, uint64_t* magnitude) {
  if (s.empty()) return false;
  int shift = SuffixShift(s.back());
  if (shift != 0) s.remove_suffix(1);
  if (s.empty()) return false;
  uint64_t digits = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), digits, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  if (shift != 0 && digits > (UINT64_MAX >> shift)) return false;
  *magnitude = digits << shift;
  return true;
}

}  // namespace

std::string_view TrimOptionText(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

bool ParseOptionBool(std::string_view s, bool* out) {
  s = TrimOptionText(s);
  if (EqualsIgnoreCase(s, "true") || s == "1") {
    *out = true;
  } else if (EqualsIgnoreCase(s, "false") || s == "0") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

bool ParseOptionSigned(std::string_view s, int64_t min, int64_t max, int64_t* out) {
  s = TrimOptionText(s);
  bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  uint64_t magnitude;
  if (!ParseMagnitude(s, &magnitude)) return false;
  if (negative) {
    // -min as unsigned, without overflowing when min is INT64_MIN.
    uint64_t limit = static_cast<uint64_t>(-(min + 1)) + 1;
    if (min >= 0 || magnitude > limit) return false;
    *out = magnitude == 0 ? 0 : -static_cast<int64_t>(magnitude - 1) - 1;
  } else {
    if (magnitude > static_cast<uint64_t>(max)) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

bool ParseOptionUnsigned(std::string_view s, uint64_t max, uint64_t* out) {
  uint64_t magnitude;
  if (!ParseMagnitude(TrimOptionText(s), &magnitude) || magnitude > max) return false;
  *out = magnitude;
  return true;
}

bool ParseOptionDouble(std::string_view s, double* out) {
  s = TrimOptionText(s);
  if (s.empty()) return false;
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

std::string PrintOptionDouble(double d) {
  std::array<char, 64> buf;
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), d);
  return std::string(buf.data(), ec == std::errc() ? end : buf.data());
}

std::span<const EnumName<CompactionStyle>> OptionEnumNames(CompactionStyle) {
  static constexpr EnumName<CompactionStyle> kNames[] = {
      {"kCompactionStyleLevel", kCompactionStyleLevel},
      {"kCompactionStyleUniversal", kCompactionStyleUniversal},
      {"kCompactionStyleFIFO", kCompactionStyleFIFO},
      {"kCompactionStyleNone", kCompactionStyleNone},
  };
  return kNames;
}

std::span<const EnumName<WALRecoveryMode>> OptionEnumNames(WALRecoveryMode) {
  static constexpr EnumName<WALRecoveryMode> kNames[] = {
      {"kTolerateCorruptedTailRecords", WALRecoveryMode::kTolerateCorruptedTailRecords},
      {"kAbsoluteConsistency", WALRecoveryMode::kAbsoluteConsistency},
      {"kPointInTimeRecovery", WALRecoveryMode::kPointInTimeRecovery},
      {"kSkipAnyCorruptedRecords", WALRecoveryMode::kSkipAnyCorruptedRecords},
  };
  return kNames;
}

std::span<const EnumName<CompressionType>> OptionEnumNames(CompressionType) {
  static constexpr EnumName<CompressionType> kNames[] = {
      {"kNoCompression", kNoCompression},
      {"kSnappyCompression", kSnappyCompression},
      {"kZlibCompression", kZlibCompression},
      {"kBZip2Compression", kBZip2Compression},
      {"kLZ4Compression", kLZ4Compression},
      {"kLZ4HCCompression", kLZ4HCCompression},
      {"kXpressCompression", kXpressCompression},
      {"kZSTD", kZSTD},
      // RocksDB's name for zstd before its format was final; the same format today.
      {"kZSTDNotFinalCompression", kZSTD},
      {"kDisableCompressionOption", kDisableCompressionOption},
  };
  return kNames;
}

std::span<const EnumName<TableOptions::IndexType>> OptionEnumNames(TableOptions::IndexType) {
  static constexpr EnumName<TableOptions::IndexType> kNames[] = {
      {"kBinarySearch", TableOptions::kBinarySearch},
      {"kTwoLevelIndexSearch", TableOptions::kTwoLevelIndexSearch},
  };
  return kNames;
}

std::span<const EnumName<TableOptions::DataBlockIndexType>> OptionEnumNames(
    TableOptions::DataBlockIndexType) {
  static constexpr EnumName<TableOptions::DataBlockIndexType> kNames[] = {
      {"kDataBlockBinarySearch", TableOptions::kDataBlockBinarySearch},
      {"kDataBlockBinaryAndHash", TableOptions::kDataBlockBinaryAndHash},
  };
  return kNames;
}

}  // namespace shale
