// Helpers for the log tests: files over a std::string that can be made to fail, a reporter that
// records what it is told, and functions that write a log and read one back in full.
#ifndef SHALE_TEST_WAL_LOG_TEST_UTIL_H_
#define SHALE_TEST_WAL_LOG_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "shale/file_system.h"
#include "util/coding.h"
#include "wal/log_format.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale::log::test {

inline constexpr WalRecoveryMode kAllModes[] = {
    WalRecoveryMode::kTolerateCorruptedTailRecords, WalRecoveryMode::kAbsoluteConsistency,
    WalRecoveryMode::kPointInTimeRecovery, WalRecoveryMode::kSkipAnyCorruptedRecords};

// What a StringSink wrote and was asked to do; owned by the test, outlives the sink.
struct SinkState {
  std::string contents;
  int appends = 0;
  int flushes = 0;
  int syncs = 0;
  bool closed = false;
  // The Append with this index (0-based) writes half its data and fails; -1: none.
  int fail_append = -1;
  bool fail_sync = false;
};

// A WritableFile appending to SinkState::contents.
class StringSink final : public WritableFile {
 public:
  explicit StringSink(SinkState* state) : state_(state) {}
  Status Append(std::string_view data) override {
    if (state_->appends++ == state_->fail_append) {
      state_->contents.append(data.substr(0, data.size() / 2));
      return Status::NoSpace("sink", "injected write error");
    }
    state_->contents.append(data);
    return Status::OK();
  }
  Status Flush() override {
    ++state_->flushes;
    return Status::OK();
  }
  Status Sync() override {
    ++state_->syncs;
    return state_->fail_sync ? Status::IOError("sink", "injected sync error") : Status::OK();
  }
  Status Close() override {
    state_->closed = true;
    return Status::OK();
  }
  uint64_t GetFileSize() const override { return state_->contents.size(); }

 private:
  SinkState* const state_;
};

// A SequentialFile over a string that it does not own.
class StringSource final : public SequentialFile {
 public:
  enum class Mode {
    kScratch,    // results are copied into the caller's scratch
    kOwnBuffer,  // results point into a buffer of the file's that the next Read overwrites
  };
  explicit StringSource(std::string_view data, Mode mode = Mode::kScratch,
                        uint64_t fail_at = std::numeric_limits<uint64_t>::max())
      : data_(data), mode_(mode), fail_at_(fail_at) {}

  Status Read(size_t n, std::string_view* result, char* scratch) override {
    ++reads_;
    n = std::min<uint64_t>(n, data_.size() - pos_);
    if (pos_ + n > fail_at_) return Status::IOError("source", "injected read error");
    char* dst = scratch;
    if (mode_ == Mode::kOwnBuffer) {
      own_.assign(n, '\xAB');  // overwritten by every Read: a stale view sees other bytes
      dst = own_.data();
    }
    std::memcpy(dst, data_.data() + pos_, n);
    *result = std::string_view(dst, n);
    pos_ += n;
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ = std::min<uint64_t>(data_.size(), pos_ + n);
    return Status::OK();
  }
  int reads() const { return reads_; }

 private:
  std::string_view data_;
  const Mode mode_;
  const uint64_t fail_at_;
  uint64_t pos_ = 0;
  int reads_ = 0;
  std::string own_;
};

// Records every report.
class RecordingReporter final : public Reader::Reporter {
 public:
  void Corruption(size_t bytes, const Status& reason) override {
    corruptions.emplace_back(bytes, reason.ToString());
  }
  void TornTail(size_t bytes, const Status& reason) override {
    torn_tails.emplace_back(bytes, reason.ToString());
  }
  std::vector<std::pair<size_t, std::string>> corruptions;
  std::vector<std::pair<size_t, std::string>> torn_tails;
};

// Everything a full read of a log produced.
struct ReadResult {
  std::vector<std::string> records;
  std::vector<uint64_t> offsets;  // LastRecordOffset() after each record
  Status status;
  bool torn_tail = false;
  uint64_t torn_tail_bytes = 0;
  bool stopped_at_corruption = false;
  uint64_t corruption_count = 0;
  uint64_t corrupted_bytes = 0;
  RecordingReporter reporter;
};

inline ReadResult ReadAll(std::string_view contents, WalRecoveryMode mode,
                          uint64_t initial_offset = 0,
                          StringSource::Mode source_mode = StringSource::Mode::kScratch,
                          bool checksum = true) {
  ReadResult result;
  StringSource source(contents, source_mode);
  Reader reader(&source, &result.reporter, checksum, initial_offset, mode, "test.log");
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    result.records.emplace_back(record);
    result.offsets.push_back(reader.LastRecordOffset());
  }
  // Reading on after the end changes nothing.
  EXPECT_FALSE(reader.ReadRecord(&record, &scratch));
  result.status = reader.status();
  result.torn_tail = reader.torn_tail();
  result.torn_tail_bytes = reader.torn_tail_bytes();
  result.stopped_at_corruption = reader.stopped_at_corruption();
  result.corruption_count = reader.corruption_count();
  result.corrupted_bytes = reader.corrupted_bytes();
  return result;
}

// Appends the records to the log in state->contents (empty: a new log) through a new Writer.
inline void AppendLog(SinkState* state, const std::vector<std::string>& records) {
  Writer writer(std::make_unique<StringSink>(state), state->contents.size());
  for (const std::string& r : records) {
    Status s = writer.AddRecord(r);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  EXPECT_TRUE(writer.Close().ok());
}

inline std::string WriteLog(const std::vector<std::string>& records) {
  SinkState state;
  AppendLog(&state, records);
  return state.contents;
}

// Independent model of the framing: the physical offset at which each record starts and the
// log's length, for records of the given sizes appended to a log `initial` bytes long.
struct Layout {
  std::vector<uint64_t> offsets;
  uint64_t length = 0;
};
inline Layout ModelLayout(const std::vector<size_t>& sizes, uint64_t initial = 0) {
  Layout layout;
  uint64_t pos = initial;
  auto skip_trailer = [&pos] {
    if (kBlockSize - pos % kBlockSize < kHeaderSize) pos += kBlockSize - pos % kBlockSize;
  };
  for (size_t size : sizes) {
    skip_trailer();
    layout.offsets.push_back(pos);
    size_t left = size;
    do {
      skip_trailer();
      const size_t n = std::min<size_t>(left, kBlockSize - pos % kBlockSize - kHeaderSize);
      pos += kHeaderSize + n;
      left -= n;
    } while (left > 0);
  }
  layout.length = pos;
  return layout;
}

// Appends one physical record with a correct checksum to a raw log (no block handling).
inline void AppendPhysical(std::string* log, uint8_t type, std::string_view payload) {
  PutFixed32(log, RecordChecksum(static_cast<RecordType>(type), payload));
  PutFixed16(log, static_cast<uint16_t>(payload.size()));
  log->push_back(static_cast<char>(type));
  log->append(payload);
}

// A string of `n` bytes with no zero byte, determined by `seed`.
inline std::string NonZeroString(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (char& c : s) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(1 + x % 255);
  }
  return s;
}

}  // namespace shale::log::test

#endif  // SHALE_TEST_WAL_LOG_TEST_UTIL_H_
