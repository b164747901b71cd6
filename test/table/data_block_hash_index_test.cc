// The data-block hash index on its own: bucket counts, lookups, collisions, and malformed input.
#include "table/data_block_hash_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "testutil/status_matchers.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace shale {
namespace {

TEST(DataBlockHashIndexTest, NumBucketsIsOddAndFollowsTheRatio) {
  EXPECT_EQ(HashIndexNumBuckets(0, 0.75), 1);
  EXPECT_EQ(HashIndexNumBuckets(1, 0.75), 1);
  EXPECT_EQ(HashIndexNumBuckets(3, 0.75), 5);     // 4 -> odd
  EXPECT_EQ(HashIndexNumBuckets(100, 0.5), 201);  // 200 -> odd
  EXPECT_EQ(HashIndexNumBuckets(100, 1.0), 101);
  EXPECT_EQ(HashIndexNumBuckets(100, 2.0), 51);
  EXPECT_EQ(HashIndexNumBuckets(100, 0.0), HashIndexNumBuckets(100, 0.75));
  EXPECT_EQ(HashIndexNumBuckets(100, -1.0), HashIndexNumBuckets(100, 0.75));
  EXPECT_EQ(HashIndexNumBuckets(1000000, 0.75), 65535);
  for (size_t n = 0; n < 500; n++) EXPECT_EQ(HashIndexNumBuckets(n, 0.75) % 2, 1);
}

// Every added key looks up its own restart, or the collision marker when a key of another
// restart shares its bucket; the markers appear exactly where the model says.
TEST(DataBlockHashIndexTest, LookupsMatchAModelOfTheBuckets) {
  for (double ratio : {0.25, 0.75, 1.5}) {
    DataBlockHashIndexBuilder builder(ratio);
    std::vector<std::pair<std::string, uint32_t>> keys;
    for (int i = 0; i < 200; i++) keys.emplace_back("user" + std::to_string(i), i / 4);
    for (const auto& [k, r] : keys) builder.Add(k, r);
    EXPECT_EQ(builder.num_keys(), keys.size());

    std::string region = "prefix bytes";
    builder.Finish(&region);
    uint16_t num_buckets = HashIndexNumBuckets(keys.size(), ratio);
    EXPECT_EQ(region.size(), 12 + builder.EstimateSize());
    EXPECT_EQ(builder.EstimateSize(), num_buckets + kHashIndexTrailerSize);

    DataBlockHashIndex index;
    size_t index_size = 0;
    ASSERT_OK(index.Init(region, 50, &index_size));
    EXPECT_EQ(index_size, num_buckets + kHashIndexTrailerSize);
    EXPECT_EQ(index.num_buckets(), num_buckets);

    std::map<uint64_t, std::vector<uint32_t>> restarts_of_bucket;
    for (const auto& [k, r] : keys) {
      restarts_of_bucket[Hash64(k, kDataBlockHashSeed) % num_buckets].push_back(r);
    }
    int collisions = 0;
    for (const auto& [k, r] : keys) {
      const auto& rs = restarts_of_bucket[Hash64(k, kDataBlockHashSeed) % num_buckets];
      bool mixed = std::count(rs.begin(), rs.end(), r) != static_cast<long>(rs.size());
      EXPECT_EQ(index.Lookup(k), mixed ? kHashIndexCollision : r) << k;
      collisions += mixed;
    }
    if (ratio > 1) {
      EXPECT_GT(collisions, 0);  // more keys than buckets
    }
    int empty_hits = 0;
    for (int i = 0; i < 1000; i++) {
      std::string absent = "absent" + std::to_string(i);
      uint8_t b = index.Lookup(absent);
      EXPECT_EQ(b == kHashIndexNoEntry,
                restarts_of_bucket.count(Hash64(absent, kDataBlockHashSeed) % num_buckets) == 0);
      empty_hits += b == kHashIndexNoEntry;
    }
    EXPECT_GT(empty_hits, 50);
  }
}

TEST(DataBlockHashIndexTest, ResetForgetsKeys) {
  DataBlockHashIndexBuilder builder;
  builder.Add("a", 0);
  builder.Reset();
  EXPECT_EQ(builder.num_keys(), 0u);
  std::string region;
  builder.Finish(&region);
  ASSERT_EQ(region.size(), 3u);  // one empty bucket + count
  EXPECT_EQ(static_cast<uint8_t>(region[0]), kHashIndexNoEntry);
}

TEST(DataBlockHashIndexTest, MalformedIndexIsCorruption) {
  DataBlockHashIndex index;
  size_t size = 0;
  EXPECT_TRUE(index.Init("", 1, &size).IsCorruption());
  EXPECT_TRUE(index.Init("x", 1, &size).IsCorruption());

  std::string zero;
  PutFixed16(&zero, 0);
  EXPECT_TRUE(index.Init(zero, 1, &size).IsCorruption());

  std::string too_big("\x00\x01", 2);
  PutFixed16(&too_big, 3);  // 3 buckets in 2 bytes
  EXPECT_TRUE(index.Init(too_big, 5, &size).IsCorruption());

  std::string bad_restart("\x00\x07\xff", 3);
  PutFixed16(&bad_restart, 3);
  EXPECT_TRUE(index.Init(bad_restart, 7, &size).IsCorruption());  // names restart 7 of 7
  EXPECT_OK(index.Init(bad_restart, 8, &size));
  EXPECT_EQ(size, 5u);

  std::string ok("\xfe\xff\x00", 3);
  PutFixed16(&ok, 3);
  EXPECT_TRUE(index.Init(ok, kMaxRestartsWithHashIndex + 1, &size).IsCorruption());
  EXPECT_OK(index.Init(ok, 1, &size));
}

}  // namespace
}  // namespace shale
