// libFuzzer entry point for the log reader (wal/log_reader.h), which reads both WALs and the
// MANIFEST. The first input byte picks a mode:
//   - raw (bit 0 clear): the rest of the input is a log file (on the in-memory file system). It is
//     read in every WalRecoveryMode from offset 0, then from an offset taken from the second byte
//     and without checksums. Damage is fine, but the reader must keep its promises: the records
//     it returns fit in the file, kPointInTimeRecovery and kSkipAnyCorruptedRecords end
//     with OK status (the in-memory file never fails a read), and an error is a Corruption.
//   - written (bit 0 set): the rest of the input is split into records, which log::Writer writes
//     (records may span blocks); then up to 4 bytes of the file may be overwritten, also as the
//     input says. An undamaged log must read back exactly, in every mode.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/file_system.h"
#include "shale/status.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace {

using shale::log::WalRecoveryMode;

constexpr WalRecoveryMode kModes[] = {
    WalRecoveryMode::kTolerateCorruptedTailRecords, WalRecoveryMode::kAbsoluteConsistency,
    WalRecoveryMode::kPointInTimeRecovery, WalRecoveryMode::kSkipAnyCorruptedRecords};

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "wal_reader_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

class CountingReporter final : public shale::log::Reader::Reporter {
 public:
  void Corruption(size_t bytes, const shale::Status& reason) override {
    Check(reason.IsCorruption(), "Reporter::Corruption is given a Corruption");
    dropped += bytes;
  }
  size_t dropped = 0;
};

struct ReadResult {
  std::vector<std::string> records;
  shale::Status status;
  bool damaged = false;  // a torn tail or a corruption was found
};

ReadResult ReadLog(shale::FileSystem* fs, const std::string& path, size_t file_size,
                   WalRecoveryMode mode, bool checksum, uint64_t initial_offset) {
  ReadResult result;
  std::unique_ptr<shale::SequentialFile> file;
  Check(fs->NewSequentialFile(path, &file).ok(), "open the log");
  CountingReporter reporter;
  shale::log::Reader reader(file.get(), &reporter, checksum, initial_offset, mode, path);
  std::string_view record;
  std::string scratch;
  size_t total = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    total += record.size();
    Check(total <= file_size, "the records fit in the file");
    Check(reader.LastRecordEnd() <= file_size, "LastRecordEnd is in the file");
    result.records.emplace_back(record);
  }
  result.status = reader.status();
  result.damaged = reader.torn_tail() || reader.corruption_count() > 0;
  Check(result.status.ok() || result.status.IsCorruption(), "only Corruption can fail a read");
  if (mode == WalRecoveryMode::kPointInTimeRecovery ||
      mode == WalRecoveryMode::kSkipAnyCorruptedRecords) {
    Check(result.status.ok(), "this mode never fails on a damaged log");
  }
  return result;
}

void ExerciseRaw(std::string_view bytes) {
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  const std::string path = "/000001.log";
  uint64_t offset = bytes.empty() ? 0 : static_cast<uint8_t>(bytes[0]) * 1021u;
  Check(shale::WriteStringToFile(fs.get(), bytes, path, false).ok(), "write the log");
  for (WalRecoveryMode mode : kModes) ReadLog(fs.get(), path, bytes.size(), mode, true, 0);
  // Without checksums damage is found only in headers: the most lenient mode meets the most.
  ReadLog(fs.get(), path, bytes.size(), WalRecoveryMode::kSkipAnyCorruptedRecords, false, 0);
  ReadLog(fs.get(), path, bytes.size(), WalRecoveryMode::kTolerateCorruptedTailRecords, true,
          offset);
}

void ExerciseWritten(FuzzedDataProvider* in) {
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  const std::string path = "/000002.log";
  std::vector<std::string> records;
  const int damage = in->ConsumeIntegralInRange<int>(0, 4);
  std::vector<std::pair<size_t, char>> edits;
  for (int i = 0; i < damage; i++) {
    edits.emplace_back(in->ConsumeIntegral<uint16_t>(), in->ConsumeIntegral<char>());
  }
  {
    std::unique_ptr<shale::WritableFile> file;
    Check(fs->NewWritableFile(path, &file).ok(), "create the log");
    shale::log::Writer writer(std::move(file));
    while (in->remaining_bytes() > 0) {
      // A record of up to 64 KiB (several blocks) when the input asks for one.
      size_t repeat = in->ConsumeBool() ? in->ConsumeIntegralInRange<size_t>(1, 1000) : 1;
      std::string piece = in->ConsumeRandomLengthString(64);
      std::string record;
      for (size_t r = 0; r < repeat; r++) record += piece;
      Check(writer.AddRecord(record).ok(), "AddRecord");
      records.push_back(std::move(record));
    }
    Check(writer.Close().ok(), "close the log");
  }
  std::string contents;
  Check(shale::ReadFileToString(fs.get(), path, &contents).ok(), "read the log");
  bool changed = false;
  for (const auto& [pos, byte] : edits) {
    if (contents.empty()) break;
    char& c = contents[pos % contents.size()];
    changed |= c != byte;
    c = byte;
  }
  Check(shale::WriteStringToFile(fs.get(), contents, path, false).ok(), "rewrite the log");
  for (WalRecoveryMode mode : kModes) {
    ReadResult r = ReadLog(fs.get(), path, contents.size(), mode, true, 0);
    if (changed) continue;
    Check(r.status.ok() && !r.damaged, "an undamaged log reads cleanly");
    Check(r.records == records, "an undamaged log reads back what was written");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if ((data[0] & 1) == 0) {
    ExerciseRaw(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    ExerciseWritten(&in);
  }
  return 0;
}
