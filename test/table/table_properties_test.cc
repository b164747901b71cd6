// TableProperties encoding and the meta-index / properties blocks.
#include "table/table_properties.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "table/block_builder.h"
#include "table/meta_blocks.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"

namespace shale {
namespace {

TableProperties SampleProperties() {
  TableProperties p;
  uint64_t n = 1;
  for (uint64_t* f : {&p.num_entries, &p.num_deletions, &p.num_merge_operands,
                      &p.num_range_deletions, &p.raw_key_size, &p.raw_value_size, &p.data_size,
                      &p.index_size, &p.filter_size, &p.num_data_blocks, &p.index_partitions,
                      &p.top_level_index_size, &p.max_block_size, &p.smallest_seqno,
                      &p.largest_seqno, &p.index_type, &p.block_size, &p.block_restart_interval,
                      &p.index_block_restart_interval, &p.format_version, &p.creation_time}) {
    *f = n;
    n = n * 131 + 7;  // distinct values, some needing long varints
  }
  p.partitioned_filters = true;
  p.data_block_hash_index = true;
  p.compression_name = std::string("ZSTD");
  p.comparator_name = std::string("leveldb.BytewiseComparator");
  p.filter_policy_name = std::string("shale.CacheLocalBloomFilter");
  p.smallest_user_key = std::string("a\0b", 3);
  p.largest_user_key = std::string("zzz");
  p.smallest_range_del_key = std::string("k");
  p.largest_range_del_key = std::string("m");
  return p;
}

void ExpectEqual(const TableProperties& a, const TableProperties& b) {
  EXPECT_EQ(a.ToString(), b.ToString());
  EXPECT_EQ(a.smallest_user_key, b.smallest_user_key);  // ToString escapes; check raw too
}

TEST(TablePropertiesTest, EncodeDecodeRoundTripsEveryField) {
  TableProperties p = SampleProperties();
  auto encoded = p.Encode();
  EXPECT_TRUE(std::is_sorted(encoded.begin(), encoded.end()));
  TableProperties d;
  for (const auto& [name, value] : encoded) ASSERT_OK(d.DecodeEntry(name, value));
  ExpectEqual(p, d);
  // And a default-constructed one decodes to defaults.
  TableProperties z, dz;
  for (const auto& [name, value] : z.Encode()) ASSERT_OK(dz.DecodeEntry(name, value));
  ExpectEqual(z, dz);
  EXPECT_NE(p.ToString(), z.ToString());
}

TEST(TablePropertiesTest, UnknownNamesAreIgnoredAndBadNumbersAreCorruption) {
  TableProperties d;
  ASSERT_OK(d.DecodeEntry("shale.some.future.property", "\xff\xff"));
  Status s = d.DecodeEntry("shale.num.entries", "\xff");  // truncated varint
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("shale.num.entries"), std::string::npos);
  EXPECT_TRUE(d.DecodeEntry("shale.num.entries", std::string("\x01\x01", 2)).IsCorruption());
  EXPECT_TRUE(d.DecodeEntry("shale.partitioned.filters", "\x02").IsCorruption());
}

TEST(MetaBlocksTest, PropertiesBlockRoundTrip) {
  TableProperties p = SampleProperties();
  std::unique_ptr<Block> block;
  ASSERT_OK(Block::Create(BuildPropertiesBlock(p), &block));
  TableProperties d;
  ASSERT_OK(ParsePropertiesBlock(*block, &d));
  ExpectEqual(p, d);
}

TEST(MetaBlocksTest, MetaIndexRoundTrip) {
  MetaIndex m = {{kPropertiesBlockName, BlockHandle(10, 20)},
                 {kFullFilterBlockName, BlockHandle(30, 40)},
                 {kRangeDelBlockName, BlockHandle(1ull << 40, 5)}};
  std::unique_ptr<Block> block;
  ASSERT_OK(Block::Create(BuildMetaIndexBlock(m), &block));
  MetaIndex d;
  ASSERT_OK(ParseMetaIndexBlock(*block, &d));
  EXPECT_EQ(d, m);
}

TEST(MetaBlocksTest, MalformedHandleIsCorruptionNamingTheEntry) {
  BlockBuilder b(1);
  b.Add("shale.properties", "\xff");
  std::unique_ptr<Block> block;
  ASSERT_OK(Block::Create(std::string(b.Finish()), &block));
  MetaIndex d;
  Status s = ParseMetaIndexBlock(*block, &d);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("shale.properties"), std::string::npos);
}

}  // namespace
}  // namespace shale
