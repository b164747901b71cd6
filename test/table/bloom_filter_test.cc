// The cache-line-local bloom filter: no false negatives, a false-positive rate that matches the
// theory of its layout, the policy's clamping, and malformed filters.
#include "table/bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "shale/filter_policy.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"

namespace shale {
namespace {

std::string Key(uint64_t i) {
  std::string k = "user_key_";
  PutFixed64(&k, i);
  return k;
}

std::unique_ptr<BloomFilterReader> Reader(const std::string& filter) {
  std::unique_ptr<BloomFilterReader> reader;
  Status s = BloomFilterReader::Create(filter, &reader);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return reader;
}

TEST(BloomFilterTest, NoFalseNegatives) {
  for (double bpk : {1.0, 2.5, 5.0, 10.0, 16.0, 23.4, 100.0}) {
    for (uint64_t n : {1, 2, 10, 1000, 30000}) {
      BloomFilterBuilder builder(bpk);
      for (uint64_t i = 0; i < n; i++) builder.AddKey(Key(i));
      EXPECT_EQ(builder.num_keys(), n);
      size_t estimate = builder.EstimateSize();
      std::string filter = builder.Finish();
      EXPECT_EQ(filter.size(), estimate);
      auto reader = Reader(filter);
      ASSERT_NE(reader, nullptr);
      EXPECT_EQ(reader->num_lines(), static_cast<uint32_t>(std::ceil(n * bpk / 512)));
      EXPECT_EQ(reader->num_probes(), BloomNumProbes(bpk));
      for (uint64_t i = 0; i < n; i++) ASSERT_TRUE(reader->MayMatch(Key(i))) << bpk << " " << i;
    }
  }
}

// The expected false-positive rate of a cache-local bloom filter with L lines of B = 512 bits,
// N keys and k probes per key. A query's line holds n keys, n ~ Binomial(N, 1/L), which is
// Poisson with mean lambda = N / L to a close approximation. Given n, the line is a standard
// bloom filter of B bits with n keys, whose false-positive rate is (1 - (1 - 1/B)^(k n))^k
// (probes independent and uniform over the line). So
//   FP = sum_{n >= 0} e^-lambda lambda^n / n!  *  (1 - (1 - 1/B)^(k n))^k.
// It exceeds the standard bloom's (1 - e^(-k N / (L B)))^k because crowded lines cost more
// than sparse lines save.
double CacheLocalBloomTheory(double keys_per_line, int k) {
  const double b = kBloomLineBits;
  double fp = 0;
  double poisson = std::exp(-keys_per_line);  // P(n = 0)
  for (int n = 0; n < 1000; n++) {
    if (n > 0) poisson *= keys_per_line / n;
    fp += poisson * std::pow(1 - std::pow(1 - 1 / b, k * n), k);
  }
  return fp;
}

TEST(BloomFilterTest, FalsePositiveRateMatchesTheory) {
  for (double bpk : {6.0, 10.0}) {
    const uint64_t n = 100000;
    BloomFilterBuilder builder(bpk);
    for (uint64_t i = 0; i < n; i++) builder.AddKey(Key(i));
    std::string filter = builder.Finish();
    auto reader = Reader(filter);
    ASSERT_NE(reader, nullptr);
    const uint64_t queries = 200000;
    uint64_t hits = 0;
    for (uint64_t i = 0; i < queries; i++) hits += reader->MayMatch(Key(n + 1000000 + i));
    double measured = static_cast<double>(hits) / queries;
    double theory = CacheLocalBloomTheory(static_cast<double>(n) / reader->num_lines(),
                                          reader->num_probes());
    double standard = std::pow(
        1 - std::exp(-reader->num_probes() * static_cast<double>(n) /
                     (reader->num_lines() * static_cast<double>(kBloomLineBits))),
        reader->num_probes());
    EXPECT_NEAR(measured, theory, 0.2 * theory)
        << "bpk " << bpk << " measured " << measured << " theory " << theory;
    EXPECT_GT(theory, standard);  // the theory models the cache-line locality
    if (bpk == 10.0) {
      EXPECT_LT(measured, 0.0125);  // "about 1%", as filter_policy.h promises
    }
  }
}

TEST(BloomFilterTest, ConsecutiveDuplicatesAreAddedOnce) {
  BloomFilterBuilder builder(10);
  builder.AddKey("a");
  builder.AddKey("a");
  builder.AddKey("b");
  builder.AddKey("a");
  EXPECT_EQ(builder.num_keys(), 3u);
}

TEST(BloomFilterTest, FinishResetsTheBuilder) {
  BloomFilterBuilder builder(10);
  builder.AddKey("a");
  std::string first = builder.Finish();
  EXPECT_EQ(builder.num_keys(), 0u);
  EXPECT_EQ(first.size(), kBloomLineBytes + kBloomTrailerSize);
  std::string empty = builder.Finish();
  EXPECT_EQ(empty.size(), kBloomTrailerSize);
  EXPECT_EQ(builder.EstimateSize(), kBloomTrailerSize);
  auto reader = Reader(empty);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_lines(), 0u);
  EXPECT_FALSE(reader->MayMatch("a"));  // an empty filter matches nothing
  EXPECT_FALSE(reader->MayMatch(""));
  builder.AddKey("b");
  auto second = Reader(builder.Finish());
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(Reader(first)->MayMatch("a"));
}

TEST(BloomFilterTest, ProbesFollowBitsPerKey) {
  EXPECT_EQ(BloomNumProbes(10), 7);
  EXPECT_EQ(BloomNumProbes(6), 4);
  EXPECT_EQ(BloomNumProbes(1), 1);
  EXPECT_EQ(BloomNumProbes(0.1), 1);
  EXPECT_EQ(BloomNumProbes(100), kBloomMaxProbes);
  EXPECT_EQ(BloomNumProbes(1000), kBloomMaxProbes);
  EXPECT_EQ(ClampBloomBitsPerKey(0.5), 1.0);
  EXPECT_EQ(ClampBloomBitsPerKey(std::nan("")), 1.0);
  EXPECT_EQ(ClampBloomBitsPerKey(7.5), 7.5);
  EXPECT_EQ(ClampBloomBitsPerKey(250), 100.0);
}

TEST(BloomFilterTest, PolicyClampsBitsPerKey) {
  EXPECT_EQ(NewBloomFilterPolicy(0.5)->bits_per_key(), 1.0);
  EXPECT_EQ(NewBloomFilterPolicy(7.5)->bits_per_key(), 7.5);
  EXPECT_EQ(NewBloomFilterPolicy(200)->bits_per_key(), 100.0);
  EXPECT_STREQ(NewBloomFilterPolicy(10)->Name(), "shale.CacheLocalBloomFilter");
}

TEST(BloomFilterTest, ReaderIsSmall) {
  BloomFilterBuilder builder(10);
  builder.AddKey("a");
  auto reader = Reader(builder.Finish());
  ASSERT_NE(reader, nullptr);
  EXPECT_LT(reader->ApproximateMemoryUsage(), 64u);
}

Status CreateStatus(std::string_view data) {
  std::unique_ptr<BloomFilterReader> reader;
  return BloomFilterReader::Create(data, &reader);
}

TEST(BloomFilterCorruptionTest, MalformedFiltersFailCreate) {
  BloomFilterBuilder builder(10);
  for (int i = 0; i < 500; i++) builder.AddKey(Key(i));
  const std::string good = builder.Finish();
  ASSERT_OK(CreateStatus(good));
  const size_t t = good.size() - kBloomTrailerSize;

  EXPECT_TRUE(CreateStatus("").IsCorruption());
  EXPECT_TRUE(CreateStatus("abcde").IsCorruption());
  // Every truncation and a few extensions.
  for (size_t len = 0; len < good.size(); len++) {
    EXPECT_TRUE(CreateStatus(std::string_view(good).substr(0, len)).IsCorruption()) << len;
  }
  EXPECT_TRUE(CreateStatus(good + std::string(1, '\0')).IsCorruption());
  EXPECT_TRUE(CreateStatus(std::string(64, '\0') + good).IsCorruption());

  auto with_byte = [&](size_t at, char c) {
    std::string bad = good;
    bad[at] = c;
    return bad;
  };
  EXPECT_TRUE(CreateStatus(with_byte(t + 5, '\x00')).IsCorruption());  // format
  EXPECT_TRUE(CreateStatus(with_byte(t + 5, '\xc2')).IsCorruption());
  EXPECT_TRUE(CreateStatus(with_byte(t + 4, 0)).IsCorruption());       // probes
  EXPECT_TRUE(CreateStatus(with_byte(t + 4, kBloomMaxProbes + 1)).IsCorruption());
  EXPECT_OK(CreateStatus(with_byte(t + 4, kBloomMaxProbes)));
  EXPECT_TRUE(CreateStatus(with_byte(t, static_cast<char>(good[t] + 1))).IsCorruption());  // lines
  EXPECT_TRUE(CreateStatus(with_byte(t + 3, '\x80')).IsCorruption());

  Status s = CreateStatus(with_byte(t + 4, 0));
  EXPECT_NE(s.message().find("probes"), std::string_view::npos) << s.ToString();
}

}  // namespace
}  // namespace shale
