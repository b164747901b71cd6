// shale_bench's generators and report: key and value generation, run accounting (Duration,
// ThreadStats), the report line and the JSON encoding.
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "generators.h"
#include "gtest/gtest.h"
#include "json_report.h"
#include "report.h"
#include "thread_stats.h"
#include "util/random.h"
#include "workload_context.h"

namespace shale::bench {
namespace {

TEST(KeyFormatterTest, BigEndianNumberPaddedWithZeros) {
  KeyFormatter keys(16);
  EXPECT_EQ(keys.Format(0x0102), std::string("\0\0\0\0\0\0\x01\x02", 8) + "00000000");
  KeyFormatter short_keys(4);
  EXPECT_EQ(short_keys.Format(0x0A0B0C0D0Eull), std::string("\x0B\x0C\x0D\x0E", 4));
  KeyFormatter one(1);
  EXPECT_EQ(one.Format(0x1FF), std::string("\xFF", 1));
}

TEST(KeyFormatterTest, NumericOrderIsKeyOrder) {
  Random rnd(17);
  KeyFormatter keys(16);
  for (int i = 0; i < 1000; i++) {
    const uint64_t a = rnd.Next64() >> rnd.Uniform(64);
    const uint64_t b = rnd.Next64() >> rnd.Uniform(64);
    const std::string ka(keys.Format(a));
    const std::string kb(keys.Format(b));
    EXPECT_EQ(a < b, ka < kb) << a << " vs " << b;
    EXPECT_EQ(ka.size(), 16u);
  }
}

TEST(ValueGeneratorTest, PiecesRepeatToTheCompressionRatio) {
  for (double ratio : {0.25, 0.5, 1.0}) {
    ValueShape shape;
    shape.compression_ratio = ratio;
    ValueGenerator gen(shape, 1);
    // The buffer is made of 100-byte pieces: a random run of 100 * ratio bytes, repeated.
    const std::string piece(gen.Slice(100));
    const size_t run = static_cast<size_t>(100 * ratio);
    EXPECT_EQ(piece.substr(0, 100 - run), piece.substr(run)) << ratio;
    if (ratio < 1.0) {
      EXPECT_NE(piece.substr(0, run), piece.substr(1, run)) << ratio;
    }
  }
}

TEST(ValueGeneratorTest, SizesFollowTheDistribution) {
  ValueShape fixed;
  fixed.fixed_size = 37;
  ValueGenerator f(fixed, 1);
  for (int i = 0; i < 100; i++) EXPECT_EQ(f.Next().size(), 37u);

  for (auto dist : {ValueSizeDistribution::kUniform, ValueSizeDistribution::kNormal}) {
    ValueShape shape;
    shape.distribution = dist;
    shape.min_size = 10;
    shape.max_size = 5000;
    ValueGenerator g(shape, 7);
    size_t lo = SIZE_MAX, hi = 0;
    double sum = 0;
    for (int i = 0; i < 5000; i++) {
      const size_t n = g.Next().size();
      ASSERT_GE(n, 10u);
      ASSERT_LE(n, 5000u);
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      sum += static_cast<double>(n);
    }
    EXPECT_NEAR(sum / 5000, 2505, 150);  // both are centred on (min + max) / 2
    if (dist == ValueSizeDistribution::kUniform) {
      EXPECT_LT(lo, 100u);
      EXPECT_GT(hi, 4900u);
    }
  }
}

TEST(DurationTest, CountedRunEndsExactlyWithPartialBatch) {
  SharedState shared(1);
  Duration run(0, 10, &shared);
  int64_t total = 0;
  int batches = 0;
  for (int64_t n = run.NextBatch(4); !run.Done(n); n = run.NextBatch(4)) {
    total += n;
    batches++;
  }
  EXPECT_EQ(total, 10);
  EXPECT_EQ(batches, 3);
}

TEST(DurationTest, StopsWhenAThreadFailed) {
  SharedState shared(1);
  Duration run(0, 1000, &shared);
  EXPECT_FALSE(run.Done(1));
  shared.Fail(Status::IOError("disk"), "put");
  EXPECT_TRUE(run.Done(1));
  EXPECT_TRUE(shared.error().IsIOError());
  EXPECT_EQ(shared.error_context(), "put");
}

TEST(ColumnFamilyNameTest, DbBenchNames) {
  EXPECT_EQ(ColumnFamilyName(0), "default");
  EXPECT_EQ(ColumnFamilyName(1), "column_family_name_000001");
  EXPECT_EQ(ColumnFamilyName(12), "column_family_name_000012");
  EXPECT_EQ(ColumnFamilyName(123456), "column_family_name_123456");
}

TEST(WorkloadEnvTest, KeyNumberModuloFamiliesPicksTheFamily) {
  // Stand-in handles: FamilyOf only picks one of the pointers, it never calls them.
  std::vector<ColumnFamilyHandle*> families;
  for (uintptr_t i = 1; i <= 3; i++) families.push_back(reinterpret_cast<ColumnFamilyHandle*>(i));
  WorkloadEnv env;
  env.families = families;
  for (uint64_t k : {0u, 1u, 2u, 3u, 4u, 5u, 999u}) {
    EXPECT_EQ(env.FamilyOf(k), families[k % 3]) << k;
  }
  EXPECT_EQ(env.AllFamilies(), families);
}

TEST(ThreadStatsTest, MergeAddsCountsAndKeepsTheWidestSpan) {
  StatsConfig config;
  config.measure_latency = true;
  ThreadStats a(0, config), b(1, config);
  a.Start();
  b.Start();
  for (int i = 0; i < 10; i++) a.FinishedOps(1, OpType::kRead);
  b.FinishedOps(5, OpType::kWrite);
  a.AddBytes(100);
  b.AddBytes(50);
  b.AddMessage("(b)");
  a.Stop();
  b.Stop();
  a.Merge(b);
  EXPECT_EQ(a.done(), 15u);
  EXPECT_EQ(a.bytes(), 150u);
  EXPECT_EQ(a.message(), "(b)");
  EXPECT_EQ(a.histograms().size(), 2u);
  EXPECT_EQ(a.AllLatencies().Count(), 11u);
  EXPECT_GE(a.ElapsedSeconds() * 2 + 1e-9, a.ThreadSeconds() / 2);
}

TEST(ReportTest, LineMatchesDbBench) {
  BenchResult r;
  r.name = "fillseq";
  r.ops = 10000;
  r.bytes = 1;
  r.seconds = 0.048;
  r.micros_per_op = 4.84;
  r.ops_per_sec = 206240.2;
  r.mb_per_sec = 22.8;
  // A line RocksDB 7.8.3's db_bench printed.
  EXPECT_EQ(FormatReportLine(r),
            "fillseq      :       4.840 micros/op 206240 ops/sec 0.048 seconds 10000 "
            "operations;   22.8 MB/s\n");
  r.name = "readrandom";
  r.message = "(6296 of 10000 found)";
  EXPECT_EQ(FormatReportLine(r),
            "readrandom   :       4.840 micros/op 206240 ops/sec 0.048 seconds 10000 "
            "operations;   22.8 MB/s (6296 of 10000 found)\n");
  r.bytes = 0;
  r.name = "readrandomwriterandom";
  EXPECT_EQ(FormatReportLine(r),
            "readrandomwriterandom :       4.840 micros/op 206240 ops/sec 0.048 seconds 10000 "
            "operations; (6296 of 10000 found)\n");
}

TEST(ReportTest, SummarizeComputesRates) {
  StatsConfig config;
  ThreadStats s(0, config);
  s.Start();
  s.FinishedOps(1000, OpType::kWrite);
  s.AddBytes(1 << 20);
  s.Stop();
  const BenchResult r = Summarize("x", 1, s);
  EXPECT_EQ(r.ops, 1000u);
  EXPECT_NEAR(r.ops_per_sec, 1000 / r.seconds, 1e-6 * r.ops_per_sec);
  EXPECT_NEAR(r.mb_per_sec, 1 / r.seconds, 1e-6 * r.mb_per_sec);
  EXPECT_EQ(r.p99_micros, 0);  // latencies were not measured
  EXPECT_TRUE(std::regex_match(FormatReportLine(r),
                               std::regex(R"(x +: +\d+\.\d{3} micros/op \d+ ops/sec \d+\.\d{3} )"
                                          R"(seconds 1000 operations; +\d+\.\d MB/s\n)")));
}

TEST(ReportTest, PeakRssIsKnown) { EXPECT_GT(PeakRssBytes(), 1u << 20); }

TEST(JsonTest, StringsAreEscaped) {
  EXPECT_EQ(JsonString("a\"b\\c\nd"), R"("a\"b\\c\nd")");
  EXPECT_EQ(JsonString(std::string("\x01\xff", 2)), R"("\u0001\u00ff")");
}

TEST(JsonTest, ReportHoldsFieldsAndBenchmarks) {
  JsonReport report;
  report.SetString("tool", "shale_bench");
  report.SetNumber("num", 1000);
  BenchResult r;
  r.name = "fillseq";
  r.ops = 1000;
  r.throughput = {{1.0, 500.0}};
  report.Add(r);
  const std::string json = report.ToJson();
  EXPECT_NE(json.find(R"("tool": "shale_bench")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("num": 1000)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("benchmarks": [)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("throughput": [{"seconds": 1, "ops_per_sec": 500}])"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace shale::bench
