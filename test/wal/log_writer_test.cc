// log::Writer: the exact bytes of the format, fragmentation at every block position, reopening
// a log to append to it, flush policy, and sticky errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "wal/log_test_util.h"
#include "testutil/status_matchers.h"
#include "util/checksum.h"
#include "util/random.h"

namespace shale::log::test {
namespace {

// The header of the physical record at `pos`.
struct Header {
  uint32_t checksum;
  uint16_t length;
  uint8_t type;
};
Header HeaderAt(const std::string& log, size_t pos) {
  return {DecodeFixed32(log.data() + pos), DecodeFixed16(log.data() + pos + 4),
          static_cast<uint8_t>(log[pos + 6])};
}

std::vector<size_t> Sizes(const std::vector<std::string>& records) {
  std::vector<size_t> sizes;
  for (const std::string& r : records) sizes.push_back(r.size());
  return sizes;
}

// Writes the records, checks the log's length and record offsets against the model, and reads
// them back (in every mode) as they were written.
void CheckRoundTrip(const std::vector<std::string>& records) {
  const std::string log = WriteLog(records);
  const Layout layout = ModelLayout(Sizes(records));
  ASSERT_EQ(log.size(), layout.length);
  for (WalRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(WalRecoveryModeName(mode));
    ReadResult result = ReadAll(log, mode);
    ASSERT_OK(result.status);
    ASSERT_EQ(result.records, records);
    EXPECT_EQ(result.offsets, layout.offsets);
    EXPECT_FALSE(result.torn_tail);
    EXPECT_EQ(result.corruption_count, 0u);
    EXPECT_TRUE(result.reporter.corruptions.empty());
    EXPECT_TRUE(result.reporter.torn_tails.empty());
  }
}

TEST(LogWriterTest, GoldenBytes) {
  const std::string log = WriteLog({"abc", ""});
  ASSERT_EQ(log.size(), 2 * kHeaderSize + 3);
  Header h = HeaderAt(log, 0);
  EXPECT_EQ(h.checksum, ChecksumWithLastByte("abc", 3, kFullType));
  EXPECT_EQ(h.length, 3);
  EXPECT_EQ(h.type, kFullType);
  EXPECT_EQ(log.substr(kHeaderSize, 3), "abc");
  h = HeaderAt(log, kHeaderSize + 3);
  EXPECT_EQ(h.checksum, ChecksumWithLastByte("", 0, kFullType));
  EXPECT_EQ(h.length, 0);
  EXPECT_EQ(h.type, kFullType);
}

TEST(LogWriterTest, FragmentsAcrossBlocks) {
  // 2 blocks + 100 bytes of payload: first, middle, last.
  const std::string big(kMaxFragmentPayload * 2 + 100, 'x');
  const std::string log = WriteLog({big});
  ASSERT_EQ(log.size(), 2 * kBlockSize + kHeaderSize + 100);
  const Header first = HeaderAt(log, 0);
  const Header middle = HeaderAt(log, kBlockSize);
  const Header last = HeaderAt(log, 2 * kBlockSize);
  EXPECT_EQ(first.type, kFirstType);
  EXPECT_EQ(first.length, kMaxFragmentPayload);
  EXPECT_EQ(middle.type, kMiddleType);
  EXPECT_EQ(middle.length, kMaxFragmentPayload);
  EXPECT_EQ(last.type, kLastType);
  EXPECT_EQ(last.length, 100);
  EXPECT_EQ(last.checksum, ChecksumWithLastByte(big.data(), 100, kLastType));
}

TEST(LogWriterTest, TrailerIsZeroFilled) {
  for (size_t trailer = 1; trailer < kHeaderSize; ++trailer) {
    SCOPED_TRACE(trailer);
    const std::string first(kMaxFragmentPayload - trailer, 'a');
    const std::string log = WriteLog({first, "next"});
    ASSERT_EQ(log.size(), kBlockSize + kHeaderSize + 4);
    EXPECT_EQ(log.substr(kBlockSize - trailer, trailer), std::string(trailer, '\0'));
    EXPECT_EQ(HeaderAt(log, kBlockSize).type, kFullType);
    CheckRoundTrip({first, "next"});
  }
}

TEST(LogWriterTest, ExactlySevenBytesLeftMakesAnEmptyFirstFragment) {
  const std::string first(kMaxFragmentPayload - kHeaderSize, 'a');
  const std::string log = WriteLog({first, "next"});
  const Header h = HeaderAt(log, kBlockSize - kHeaderSize);
  EXPECT_EQ(h.type, kFirstType);
  EXPECT_EQ(h.length, 0);
  EXPECT_EQ(HeaderAt(log, kBlockSize).type, kLastType);
  CheckRoundTrip({first, "next"});
}

TEST(LogWriterTest, EveryEndOfBlockPosition) {
  // A first record leaves `left` bytes in block 0; then records that start there.
  const std::vector<size_t> seconds = {0,
                                       1,
                                       kMaxFragmentPayload - 1,
                                       kMaxFragmentPayload,
                                       kMaxFragmentPayload + 1,
                                       2 * kBlockSize};
  for (size_t left = 0; left <= kHeaderSize + 2; ++left) {
    for (size_t second : seconds) {
      SCOPED_TRACE(testing::Message() << "left " << left << " second " << second);
      CheckRoundTrip({std::string(kMaxFragmentPayload - left, 'a'), std::string(second, 'b'),
                      "tail"});
    }
  }
}

TEST(LogWriterTest, RandomSizesRoundTrip) {
  Random rnd(301);
  std::vector<std::string> records;
  for (int i = 0; i < 120; ++i) {
    size_t size;
    switch (rnd.Uniform(4)) {
      case 0:
        size = rnd.Uniform(200 * 1024 + 1);  // up to 200 KB, spanning blocks
        break;
      case 1:
        size = kMaxFragmentPayload * (1 + rnd.Uniform(3)) - rnd.Uniform(8);  // near fills
        break;
      default:
        size = rnd.Skewed(12);  // mostly small
    }
    records.push_back(NonZeroString(size, i));
  }
  CheckRoundTrip(records);
  // The same bytes when read from a file that returns its own, reused memory.
  const std::string log = WriteLog(records);
  ReadResult result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency, 0,
                              StringSource::Mode::kOwnBuffer);
  ASSERT_OK(result.status);
  EXPECT_EQ(result.records, records);
}

TEST(LogWriterTest, ReopenAndAppendContinuesTheBlocks) {
  for (size_t left : {size_t{0}, size_t{1}, size_t{3}, size_t{6}, size_t{7}, size_t{100}}) {
    SCOPED_TRACE(left);
    SinkState state;
    const std::vector<std::string> before = {"one", std::string(kMaxFragmentPayload - 3 - 7, 'p'),
                                             std::string(kMaxFragmentPayload - left, 'q')};
    AppendLog(&state, before);
    ASSERT_EQ(state.contents.size() % kBlockSize, (kBlockSize - left) % kBlockSize);
    const std::vector<std::string> after = {"two", std::string(70000, 'r'), ""};
    AppendLog(&state, after);

    std::vector<std::string> all = before;
    all.insert(all.end(), after.begin(), after.end());
    EXPECT_EQ(state.contents, WriteLog(all)) << "a reopened log is the same as one written at once";
    ReadResult result = ReadAll(state.contents, WalRecoveryMode::kAbsoluteConsistency);
    ASSERT_OK(result.status);
    EXPECT_EQ(result.records, all);
  }
}

TEST(LogWriterTest, LengthAndFlushPolicy) {
  SinkState state;
  {
    Writer writer(std::make_unique<StringSink>(&state));
    ASSERT_OK(writer.AddRecord("a"));
    ASSERT_OK(writer.AddRecord(std::string(kBlockSize, 'b')));
    EXPECT_EQ(writer.length(), state.contents.size());
    EXPECT_EQ(state.flushes, 2);
    ASSERT_OK(writer.Sync());
    EXPECT_EQ(state.syncs, 1);
    ASSERT_OK(writer.Close());
  }
  EXPECT_TRUE(state.closed);

  SinkState manual;
  Writer writer(std::make_unique<StringSink>(&manual), 0, Writer::FlushPolicy::kManual);
  ASSERT_OK(writer.AddRecord("a"));
  ASSERT_OK(writer.AddRecord("b"));
  EXPECT_EQ(manual.flushes, 0);
  ASSERT_OK(writer.Flush());
  EXPECT_EQ(manual.flushes, 1);
}

TEST(LogWriterTest, SmallRecordIsOneAppend) {
  SinkState state;
  Writer writer(std::make_unique<StringSink>(&state));
  ASSERT_OK(writer.AddRecord(std::string(100, 'x')));
  EXPECT_EQ(state.appends, 1);
  // Leave 3 bytes in block 0: the next record's trailer and fragment go in one Append.
  ASSERT_OK(writer.AddRecord(std::string(kBlockSize - 107 - 3 - kHeaderSize, 'y')));
  int appends = state.appends;
  ASSERT_OK(writer.AddRecord(std::string(100, 'z')));
  EXPECT_EQ(state.appends, appends + 1);
  EXPECT_EQ(HeaderAt(state.contents, kBlockSize).type, kFullType);
  // Leave 50 bytes in block 1: a record split in two small fragments is one Append too.
  ASSERT_OK(writer.AddRecord(std::string(kBlockSize - 107 - 50 - kHeaderSize, 'y')));
  appends = state.appends;
  ASSERT_OK(writer.AddRecord(std::string(200, 'w')));
  EXPECT_EQ(state.appends, appends + 1);
  EXPECT_EQ(HeaderAt(state.contents, 2 * kBlockSize - 50).type, kFirstType);
  EXPECT_EQ(HeaderAt(state.contents, 2 * kBlockSize).type, kLastType);
}

TEST(LogWriterTest, WriteErrorIsSticky) {
  for (int fail_append : {0, 1, 2, 3}) {
    SCOPED_TRACE(fail_append);
    SinkState state;
    state.fail_append = fail_append;
    Writer writer(std::make_unique<StringSink>(&state));
    // Appends: "a"; then for each of the big record's fragments its header and its payload.
    std::vector<std::string> records = {"a", std::string(3 * kBlockSize, 'b'), "c"};
    Status first_error;
    size_t written = 0;
    for (const std::string& r : records) {
      Status s = writer.AddRecord(r);
      if (!s.ok()) {
        first_error = s;
        break;
      }
      ++written;
    }
    ASSERT_TRUE(first_error.IsNoSpace()) << first_error.ToString();
    const int appends = state.appends;
    Status again = writer.AddRecord("d");
    EXPECT_TRUE(again.IsNoSpace());
    EXPECT_EQ(again.ToString(), first_error.ToString());
    EXPECT_EQ(writer.Sync().ToString(), first_error.ToString());
    EXPECT_EQ(writer.Flush().ToString(), first_error.ToString());
    EXPECT_EQ(writer.status().ToString(), first_error.ToString());
    EXPECT_EQ(state.appends, appends) << "nothing more reaches the file";
    EXPECT_EQ(state.syncs, 0);
    EXPECT_EQ(writer.Close().ToString(), first_error.ToString());
    EXPECT_TRUE(state.closed);

    // The half-written record is a torn tail: what was written before it reads back.
    for (WalRecoveryMode mode : kAllModes) {
      ReadResult result = ReadAll(state.contents, mode);
      ASSERT_OK(result.status);
      EXPECT_EQ(result.records,
                std::vector<std::string>(records.begin(), records.begin() + written));
      EXPECT_EQ(result.corruption_count, 0u);
    }
  }
}

TEST(LogWriterTest, SyncErrorIsSticky) {
  SinkState state;
  state.fail_sync = true;
  Writer writer(std::make_unique<StringSink>(&state));
  ASSERT_OK(writer.AddRecord("a"));
  Status s = writer.Sync();
  ASSERT_TRUE(s.IsIOError());
  const int appends = state.appends;
  EXPECT_EQ(writer.AddRecord("b").ToString(), s.ToString());
  EXPECT_EQ(state.appends, appends);
}

TEST(LogWriterTest, UseAfterCloseFails) {
  SinkState state;
  Writer writer(std::make_unique<StringSink>(&state));
  ASSERT_OK(writer.Close());
  EXPECT_EQ(writer.file(), nullptr);
  EXPECT_TRUE(writer.AddRecord("a").IsIOError());
  EXPECT_TRUE(writer.Sync().IsIOError());
  EXPECT_TRUE(writer.Close().IsIOError());
  EXPECT_TRUE(state.contents.empty());
}

}  // namespace
}  // namespace shale::log::test
