// WalRecoveryMode: what log::Reader does when a log is damaged. The public Options enum maps
// onto it one to one (same names and numbers as RocksDB's WALRecoveryMode).
//
// The reader sorts every defect into one of two kinds (doc/wal_format.md, "Reading"):
// - a torn tail: the last record was cut short or zero-filled by a crash while it was being
//   written (the header or payload runs past the end of the file, or the damaged record ends in
//   zeros that continue to the end of the file). It is dropped silently in EVERY mode and
//   flagged (Reader::torn_tail()); the records before it are returned.
// - a corruption: anything else (a bad checksum followed by more data, an unknown type, a
//   length that runs past its block, fragments out of order, zero-filled space followed by
//   data). Each mode below says what happens then.
#ifndef SHALE_WAL_WAL_RECOVERY_MODE_H_
#define SHALE_WAL_WAL_RECOVERY_MODE_H_

namespace shale::log {

enum class WalRecoveryMode : unsigned char {
  // A corruption fails the read (Reader::status() is the Corruption). Only a torn tail is
  // tolerated.
  kTolerateCorruptedTailRecords = 0,
  // A corruption fails the read. (RocksDB's mode of this name also fails on an incomplete
  // trailing record; here a torn tail is dropped in every mode, and a caller that wants that
  // stricter rule checks Reader::torn_tail().)
  kAbsoluteConsistency = 1,
  // Reading stops at the first corruption: the records before it are returned, status() is OK
  // and Reader::stopped_at_corruption() is true (recovery must not replay later logs).
  kPointInTimeRecovery = 2,
  // A corruption is reported and skipped; reading resumes at the next block boundary.
  kSkipAnyCorruptedRecords = 3,
};

// "kPointInTimeRecovery" etc., for messages.
inline const char* WalRecoveryModeName(WalRecoveryMode mode) {
  switch (mode) {
    case WalRecoveryMode::kTolerateCorruptedTailRecords:
      return "kTolerateCorruptedTailRecords";
    case WalRecoveryMode::kAbsoluteConsistency:
      return "kAbsoluteConsistency";
    case WalRecoveryMode::kPointInTimeRecovery:
      return "kPointInTimeRecovery";
    case WalRecoveryMode::kSkipAnyCorruptedRecords:
      return "kSkipAnyCorruptedRecords";
  }
  return "unknown";
}

}  // namespace shale::log

#endif  // SHALE_WAL_WAL_RECOVERY_MODE_H_
