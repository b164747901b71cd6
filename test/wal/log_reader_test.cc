// log::Reader: torn tails at every offset, zero-filled space, corruption in the middle under each
// recovery mode, broken fragment sequences, initial offsets and read errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wal/log_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::log::test {
namespace {

using Records = std::vector<std::string>;

Records Prefix(const Records& records, size_t n) {
  return Records(records.begin(), records.begin() + n);
}

// The end offset of each record of a log written at once.
std::vector<uint64_t> RecordEnds(const Records& records) {
  std::vector<uint64_t> ends;
  std::vector<size_t> sizes;
  for (const std::string& r : records) {
    sizes.push_back(r.size());
    ends.push_back(ModelLayout(sizes).length);
  }
  return ends;
}

// Cuts the log at `cut` (and, if `fill_to` > cut, pads it with zeros to that length, as a
// crash into preallocated space would) and checks that every mode returns the records that
// were whole before the cut, with no error, flagging a torn tail when a record was cut.
void CheckCut(const Records& records, const std::string& log, uint64_t cut, uint64_t fill_to) {
  const Layout layout = ModelLayout([&] {
    std::vector<size_t> sizes;
    for (const std::string& r : records) sizes.push_back(r.size());
    return sizes;
  }());
  const std::vector<uint64_t> ends = RecordEnds(records);
  size_t whole = 0;
  while (whole < records.size() && ends[whole] <= cut) ++whole;
  const bool torn = whole < records.size() && layout.offsets[whole] < cut;

  std::string damaged = log.substr(0, cut);
  if (fill_to > cut) damaged.append(fill_to - cut, '\0');
  for (WalRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(testing::Message() << WalRecoveryModeName(mode) << " cut " << cut << " fill "
                                    << fill_to);
    ReadResult result = ReadAll(damaged, mode);
    ASSERT_OK(result.status);
    ASSERT_EQ(result.records, Prefix(records, whole));
    ASSERT_EQ(result.torn_tail, torn);
    ASSERT_EQ(result.reporter.torn_tails.size(), torn ? 1u : 0u);
    if (torn) {
      ASSERT_EQ(result.torn_tail_bytes, damaged.size() - layout.offsets[whole]);
      ASSERT_EQ(result.reporter.torn_tails[0].first, result.torn_tail_bytes);
    }
    ASSERT_EQ(result.corruption_count, 0u);
    ASSERT_FALSE(result.stopped_at_corruption);
  }
}

Records SmallLog() {
  return {NonZeroString(5, 1), NonZeroString(200, 2), "", NonZeroString(50, 3),
          NonZeroString(300, 4)};
}

TEST(LogReaderTest, TornTailAtEveryOffsetOfTheLastRecord) {
  const Records records = SmallLog();
  const std::string log = WriteLog(records);
  const uint64_t last_start = ModelLayout({5, 200, 0, 50}).length;
  for (uint64_t cut = last_start; cut <= log.size(); ++cut) {
    CheckCut(records, log, cut, cut);
    CheckCut(records, log, cut, log.size());            // zeros in place of the lost bytes
    CheckCut(records, log, cut, kBlockSize + 100);      // and beyond, into the next block
  }
}

TEST(LogReaderTest, TornTailAtEveryOffsetOfASmallLog) {
  const Records records = SmallLog();
  const std::string log = WriteLog(records);
  for (uint64_t cut = 0; cut <= log.size(); ++cut) CheckCut(records, log, cut, cut + 50);
}

TEST(LogReaderTest, TornTailOfRecordsSpanningBlocks) {
  const Records records = {NonZeroString(1000, 1), NonZeroString(40000, 2),
                           NonZeroString(kMaxFragmentPayload - 3, 3),  // leaves a 3-byte trailer
                           NonZeroString(70000, 4)};
  const std::string log = WriteLog(records);
  // Every offset near a block boundary, and a stride elsewhere.
  for (uint64_t cut = 0; cut <= log.size(); ++cut) {
    const uint64_t in_block = cut % kBlockSize;
    if (in_block > 20 && in_block < kBlockSize - 20 && cut % 251 != 0) continue;
    CheckCut(records, log, cut, cut);
    CheckCut(records, log, cut, (cut / kBlockSize + 2) * kBlockSize);
  }
}

TEST(LogReaderTest, ZeroFilledTailIsTheEnd) {
  const Records records = SmallLog();
  const std::string log = WriteLog(records);
  for (uint64_t zeros : {uint64_t{1}, uint64_t{6}, uint64_t{7}, uint64_t{8}, uint64_t{100},
                         kBlockSize - log.size(), 3 * kBlockSize}) {
    SCOPED_TRACE(zeros);
    const std::string padded = log + std::string(zeros, '\0');
    for (WalRecoveryMode mode : kAllModes) {
      ReadResult result = ReadAll(padded, mode);
      ASSERT_OK(result.status);
      EXPECT_EQ(result.records, records);
      EXPECT_FALSE(result.torn_tail);
      EXPECT_EQ(result.corruption_count, 0u);
    }
  }
}

// Three records fill block 0 (C last, leaving `trailer` bytes), two more follow.
struct MiddleLog {
  Records records;
  std::string log;
  uint64_t c_offset;
  size_t c_length;  // header + payload
};
MiddleLog MakeMiddleLog(size_t trailer) {
  MiddleLog m;
  const size_t a = 20000, c = 500;
  const size_t b = kBlockSize - (a + kHeaderSize) - (c + kHeaderSize) - trailer - kHeaderSize;
  m.records = {NonZeroString(a, 1), NonZeroString(b, 2), NonZeroString(c, 3),
               NonZeroString(300, 4), NonZeroString(40000, 5)};
  m.log = WriteLog(m.records);
  m.c_offset = ModelLayout({a, b}).length;
  m.c_length = kHeaderSize + c;
  EXPECT_EQ(m.c_offset + m.c_length + trailer, kBlockSize);
  return m;
}

TEST(LogReaderTest, FlippedByteInTheMiddleRecord) {
  for (size_t trailer : {size_t{0}, size_t{3}}) {
    const MiddleLog m = MakeMiddleLog(trailer);
    const std::string where = "at offset " + std::to_string(m.c_offset);
    for (size_t i = 0; i < m.c_length; ++i) {
      for (int mask : {0x01, 0x80, 0xFF}) {
        SCOPED_TRACE(testing::Message()
                     << "trailer " << trailer << " byte " << i << " mask " << mask);
        std::string damaged = m.log;
        damaged[m.c_offset + i] ^= static_cast<char>(mask);

        for (WalRecoveryMode mode : {WalRecoveryMode::kAbsoluteConsistency,
                                     WalRecoveryMode::kTolerateCorruptedTailRecords}) {
          ReadResult result = ReadAll(damaged, mode);
          ASSERT_TRUE(result.status.IsCorruption()) << result.status.ToString();
          ASSERT_NE(result.status.ToString().find(where), std::string::npos)
              << result.status.ToString();
          ASSERT_EQ(result.records, Prefix(m.records, 2));
          ASSERT_EQ(result.reporter.corruptions.size(), 1u);
          ASSERT_FALSE(result.torn_tail);
        }

        ReadResult pit = ReadAll(damaged, WalRecoveryMode::kPointInTimeRecovery);
        ASSERT_OK(pit.status);
        ASSERT_EQ(pit.records, Prefix(m.records, 2));
        ASSERT_TRUE(pit.stopped_at_corruption);
        ASSERT_EQ(pit.corruption_count, 1u);
        ASSERT_NE(pit.reporter.corruptions[0].second.find(where), std::string::npos);

        ReadResult skip = ReadAll(damaged, WalRecoveryMode::kSkipAnyCorruptedRecords);
        ASSERT_OK(skip.status);
        ASSERT_EQ(skip.records, (Records{m.records[0], m.records[1], m.records[3], m.records[4]}));
        ASSERT_EQ(skip.corruption_count, 1u);
        ASSERT_EQ(skip.corrupted_bytes, kBlockSize - m.c_offset);
        ASSERT_EQ(skip.reporter.corruptions[0].first, kBlockSize - m.c_offset);
        ASSERT_FALSE(skip.stopped_at_corruption);
      }
    }
  }
}

TEST(LogReaderTest, FlippedLastRecordIsACorruptionUnlessItEndsInZeros) {
  // A flipped byte in the last record, with nothing after it, is not a crash's doing.
  const Records records = SmallLog();
  std::string damaged = WriteLog(records);
  damaged[damaged.size() - 10] ^= 1;
  ReadResult result = ReadAll(damaged, WalRecoveryMode::kAbsoluteConsistency);
  EXPECT_TRUE(result.status.IsCorruption());
  EXPECT_EQ(result.records, Prefix(records, 4));
  // The same record cut short by zeros is a torn tail.
  damaged[damaged.size() - 1] = '\0';
  result = ReadAll(damaged, WalRecoveryMode::kAbsoluteConsistency);
  ASSERT_OK(result.status);
  EXPECT_TRUE(result.torn_tail);
  EXPECT_EQ(result.records, Prefix(records, 4));
}

TEST(LogReaderTest, SkipResumesAtTheNextBlock) {
  // Small records share block 0: skipping a damaged one drops the rest of its block (the
  // length that would lead to the next record cannot be trusted), then reading goes on.
  Records records;
  for (int i = 0; i < 40; ++i) records.push_back(NonZeroString(100 + i, i));
  records.push_back(NonZeroString(kBlockSize, 99));  // spans into block 1
  for (int i = 0; i < 3; ++i) records.push_back(NonZeroString(10, 100 + i));
  const std::string log = WriteLog(records);
  std::vector<size_t> sizes;
  for (const std::string& r : records) sizes.push_back(r.size());
  const Layout layout = ModelLayout(sizes);
  std::string damaged = log;
  damaged[layout.offsets[10] + 20] ^= 0x10;

  ReadResult skip = ReadAll(damaged, WalRecoveryMode::kSkipAnyCorruptedRecords);
  ASSERT_OK(skip.status);
  Records expected = Prefix(records, 10);
  expected.insert(expected.end(), records.end() - 3, records.end());
  EXPECT_EQ(skip.records, expected);
  // The damaged block, then the big record's fragments in block 1 whose first one was lost.
  ASSERT_EQ(skip.reporter.corruptions.size(), 2u);
  EXPECT_NE(skip.reporter.corruptions[0].second.find("checksum mismatch at offset " +
                                                      std::to_string(layout.offsets[10])),
            std::string::npos);
  EXPECT_NE(skip.reporter.corruptions[1].second.find("without a first fragment"),
            std::string::npos);
}

TEST(LogReaderTest, ZeroFilledSpaceFollowedByDataIsACorruption) {
  const MiddleLog m = MakeMiddleLog(0);
  std::string damaged = m.log;
  std::fill(damaged.begin() + m.c_offset, damaged.begin() + kBlockSize, '\0');
  ReadResult result = ReadAll(damaged, WalRecoveryMode::kTolerateCorruptedTailRecords);
  EXPECT_TRUE(result.status.IsCorruption());
  EXPECT_NE(result.status.ToString().find("zero-filled space followed by data at offset " +
                                          std::to_string(m.c_offset)),
            std::string::npos)
      << result.status.ToString();
  EXPECT_EQ(result.records, Prefix(m.records, 2));

  ReadResult skip = ReadAll(damaged, WalRecoveryMode::kSkipAnyCorruptedRecords);
  ASSERT_OK(skip.status);
  EXPECT_EQ(skip.records, (Records{m.records[0], m.records[1], m.records[3], m.records[4]}));

  // A whole zeroed block between records, found by reading ahead.
  Records records = {NonZeroString(kMaxFragmentPayload, 1), NonZeroString(kMaxFragmentPayload, 2),
                     NonZeroString(kMaxFragmentPayload, 3), NonZeroString(10, 4)};
  std::string log = WriteLog(records);
  std::fill(log.begin() + kBlockSize, log.begin() + 2 * kBlockSize, '\0');
  for (auto source : {StringSource::Mode::kScratch, StringSource::Mode::kOwnBuffer}) {
    result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency, 0, source);
    EXPECT_TRUE(result.status.IsCorruption());
    EXPECT_EQ(result.records, Prefix(records, 1));
    skip = ReadAll(log, WalRecoveryMode::kSkipAnyCorruptedRecords, 0, source);
    ASSERT_OK(skip.status);
    EXPECT_EQ(skip.records, (Records{records[0], records[2], records[3]}));
    EXPECT_EQ(skip.corrupted_bytes, kBlockSize);
  }
}

TEST(LogReaderTest, BrokenFragmentSequences) {
  // First without Last, followed by a whole record.
  std::string log;
  AppendPhysical(&log, kFullType, "a");
  const uint64_t broken = log.size();
  AppendPhysical(&log, kFirstType, "b1");
  AppendPhysical(&log, kFullType, "c");
  ReadResult result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency);
  EXPECT_TRUE(result.status.IsCorruption());
  EXPECT_NE(result.status.ToString().find("first fragment without a last fragment at offset " +
                                          std::to_string(broken)),
            std::string::npos)
      << result.status.ToString();
  EXPECT_EQ(result.records, Records{"a"});
  result = ReadAll(log, WalRecoveryMode::kSkipAnyCorruptedRecords);
  ASSERT_OK(result.status);
  EXPECT_EQ(result.records, (Records{"a", "c"}));
  EXPECT_EQ(result.corrupted_bytes, kHeaderSize + 2);

  // Middle and Last without First.
  log.clear();
  AppendPhysical(&log, kFullType, "a");
  AppendPhysical(&log, kMiddleType, "x");
  AppendPhysical(&log, kLastType, "y");
  AppendPhysical(&log, kFirstType, "c1");
  AppendPhysical(&log, kLastType, "c2");
  result = ReadAll(log, WalRecoveryMode::kPointInTimeRecovery);
  ASSERT_OK(result.status);
  EXPECT_TRUE(result.stopped_at_corruption);
  EXPECT_EQ(result.records, Records{"a"});
  result = ReadAll(log, WalRecoveryMode::kSkipAnyCorruptedRecords);
  ASSERT_OK(result.status);
  EXPECT_EQ(result.records, (Records{"a", "c1c2"}));
  EXPECT_EQ(result.corruption_count, 2u);

  // A First at the very end: the writer died before the rest (a torn tail, not a corruption).
  log.clear();
  AppendPhysical(&log, kFullType, "a");
  AppendPhysical(&log, kFirstType, "b1");
  AppendPhysical(&log, kMiddleType, "b2");
  for (WalRecoveryMode mode : kAllModes) {
    result = ReadAll(log, mode);
    ASSERT_OK(result.status);
    EXPECT_EQ(result.records, Records{"a"});
    EXPECT_TRUE(result.torn_tail);
    EXPECT_EQ(result.torn_tail_bytes, log.size() - (kHeaderSize + 1));
  }
}

TEST(LogReaderTest, UnknownTypeWithAValidChecksum) {
  std::string log;
  AppendPhysical(&log, kFullType, "a");
  AppendPhysical(&log, 9, "future");
  AppendPhysical(&log, kFullType, "c");
  ReadResult result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency);
  EXPECT_TRUE(result.status.IsCorruption());
  EXPECT_NE(result.status.ToString().find("unknown record type"), std::string::npos);
  EXPECT_EQ(result.records, Records{"a"});
}

TEST(LogReaderTest, WithoutChecksumsOnlyHeadersAreChecked) {
  const MiddleLog m = MakeMiddleLog(0);
  std::string damaged = m.log;
  damaged[m.c_offset + kHeaderSize + 10] ^= 1;  // payload
  ReadResult result = ReadAll(damaged, WalRecoveryMode::kAbsoluteConsistency, 0,
                              StringSource::Mode::kScratch, /*checksum=*/false);
  ASSERT_OK(result.status);
  ASSERT_EQ(result.records.size(), m.records.size());
  EXPECT_NE(result.records[2], m.records[2]);
  damaged[m.c_offset + 6] = 7;  // type
  result = ReadAll(damaged, WalRecoveryMode::kAbsoluteConsistency, 0,
                   StringSource::Mode::kScratch, /*checksum=*/false);
  EXPECT_TRUE(result.status.IsCorruption());
}

TEST(LogReaderTest, InitialOffset) {
  const Records records = {NonZeroString(10, 1),    NonZeroString(40000, 2),
                           NonZeroString(100, 3),   NonZeroString(kMaxFragmentPayload - 3, 4),
                           NonZeroString(0, 5),     NonZeroString(70000, 6),
                           NonZeroString(5, 7)};
  const std::string log = WriteLog(records);
  std::vector<size_t> sizes;
  for (const std::string& r : records) sizes.push_back(r.size());
  const Layout layout = ModelLayout(sizes);
  for (size_t k = 0; k < records.size(); ++k) {
    SCOPED_TRACE(k);
    for (uint64_t delta : {uint64_t{0}, uint64_t{1}}) {
      ReadResult result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency,
                                  layout.offsets[k] + delta);
      ASSERT_OK(result.status);
      EXPECT_EQ(result.records, Records(records.begin() + k + delta, records.end()));
      EXPECT_EQ(result.offsets,
                std::vector<uint64_t>(layout.offsets.begin() + k + delta, layout.offsets.end()));
      EXPECT_EQ(result.corruption_count, 0u);
    }
  }
  // Offsets in a block trailer, at and past the end.
  ReadResult result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency, 2 * kBlockSize - 2);
  ASSERT_OK(result.status);
  EXPECT_EQ(result.records, Records(records.begin() + 4, records.end()));
  for (uint64_t offset : {uint64_t{log.size()}, uint64_t{log.size() + 10 * kBlockSize}}) {
    result = ReadAll(log, WalRecoveryMode::kAbsoluteConsistency, offset);
    ASSERT_OK(result.status);
    EXPECT_TRUE(result.records.empty());
  }
}

TEST(LogReaderTest, DamageBeforeTheInitialOffsetIsIgnored) {
  const MiddleLog m = MakeMiddleLog(0);
  std::string damaged = m.log;
  damaged[m.c_offset + kHeaderSize] ^= 1;  // C, in block 0
  ReadResult result = ReadAll(damaged, WalRecoveryMode::kAbsoluteConsistency, kBlockSize);
  ASSERT_OK(result.status);
  EXPECT_EQ(result.records, (Records{m.records[3], m.records[4]}));
}

TEST(LogReaderTest, ReadErrorFailsInEveryMode) {
  const MiddleLog m = MakeMiddleLog(0);
  for (WalRecoveryMode mode : kAllModes) {
    SCOPED_TRACE(WalRecoveryModeName(mode));
    StringSource source(m.log, StringSource::Mode::kScratch, kBlockSize + 10);
    RecordingReporter reporter;
    Reader reader(&source, &reporter, true, 0, mode);
    std::string_view record;
    std::string scratch;
    int n = 0;
    while (reader.ReadRecord(&record, &scratch)) ++n;
    EXPECT_EQ(n, 3);
    EXPECT_TRUE(reader.status().IsIOError()) << reader.status().ToString();
    EXPECT_TRUE(reporter.corruptions.empty());
  }
}

TEST(LogReaderTest, Offsets) {
  const Records records = {"abc", NonZeroString(kBlockSize, 1), "xyz"};
  const std::string log = WriteLog(records);
  StringSource source(log);
  Reader reader(&source, nullptr, true, 0, WalRecoveryMode::kAbsoluteConsistency);
  std::string_view record;
  std::string scratch;
  ASSERT_TRUE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ(record, "abc");
  EXPECT_EQ(reader.LastRecordOffset(), 0u);
  EXPECT_EQ(reader.LastRecordEnd(), kHeaderSize + 3);
  EXPECT_EQ(reader.EndOfBufferOffset(), kBlockSize);
  ASSERT_TRUE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ(reader.LastRecordOffset(), kHeaderSize + 3);
  EXPECT_EQ(reader.LastRecordEnd(), kBlockSize + kHeaderSize + 10 + kHeaderSize);
  ASSERT_TRUE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ(record, "xyz");
  EXPECT_EQ(reader.LastRecordEnd(), log.size());
  EXPECT_FALSE(reader.ReadRecord(&record, &scratch));
  EXPECT_EQ(reader.EndOfBufferOffset(), log.size());
  EXPECT_OK(reader.status());
}

}  // namespace
}  // namespace shale::log::test
