// The shale CLI's progress line (tools/shale/progress_line.h): the text of a report, bytes and
// durations.
#include "progress_line.h"

#include "gtest/gtest.h"

namespace shale::cli {
namespace {

TEST(ProgressLineTest, FormatsBytesInBinaryUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(2.6 * (1ull << 30)), "2.6 GiB");
  EXPECT_EQ(FormatBytes(3.0 * (1ull << 50) * 1024), "3072.0 PiB");
}

TEST(ProgressLineTest, FormatsDurationsAsHoursMinutesSeconds) {
  EXPECT_EQ(FormatDuration(0), "0:00:00");
  EXPECT_EQ(FormatDuration(12.4), "0:00:12");
  EXPECT_EQ(FormatDuration(43425), "12:03:45");
  EXPECT_EQ(FormatDuration(-3), "0:00:00");
}

TEST(ProgressLineTest, ShowsFractionRateAndTimeLeft) {
  Progress p;
  p.operation = "compact_range";
  p.bytes_total = 2ull << 30;
  p.bytes_done = 1ull << 30;
  p.bytes_per_second = 100 << 20;
  p.eta_seconds = 10.2;
  EXPECT_EQ(FormatProgress(p), "compact_range: 50.0% of 2.0 GiB, 100.0 MiB/s, 0:00:10 left");
  p.stage = "write_tables";
  p.operation = "bulk_load";
  p.eta_seconds = -1;
  p.elapsed_seconds = 3.25;
  EXPECT_EQ(FormatProgress(p), "bulk_load (write_tables): 50.0% of 2.0 GiB, 100.0 MiB/s, 3.2 s");
}

TEST(ProgressLineTest, WithoutAByteTotalShowsEntries) {
  Progress p;
  p.operation = "verify";
  p.stage = "scan";
  p.entries_done = 1200;
  p.entries_total = 3000;
  p.eta_seconds = 3;
  EXPECT_EQ(FormatProgress(p), "verify (scan): 1200 of ~3000 entries, 0:00:03 left");
  p.entries_total = 0;
  p.eta_seconds = -1;
  p.elapsed_seconds = 2;
  EXPECT_EQ(FormatProgress(p), "verify (scan): 1200 entries, 2.0 s");
}

TEST(ProgressLineTest, TheFinalReportSaysDone) {
  Progress p;
  p.operation = "compact_range";
  p.finished = true;
  p.bytes_done = 1536;
  p.elapsed_seconds = 21.34;
  EXPECT_EQ(FormatProgress(p), "compact_range: done, 1.5 KiB in 21.3 s");
  p.bytes_done = 0;
  p.entries_done = 7;
  EXPECT_EQ(FormatProgress(p), "compact_range: done, 7 entries in 21.3 s");
}

}  // namespace
}  // namespace shale::cli
