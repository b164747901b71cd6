// Table round trips: tables written under a matrix of options, read back through Get and
// iterators, and compared with a model (the sorted list of entries that went in).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shale/filter_policy.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "table/table_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

// The entries of one table: point entries in internal-key order, range deletions apart.
struct Dataset {
  std::vector<Entry> points;
  std::vector<Entry> range_dels;
  std::vector<std::string> user_keys;  // distinct, sorted
  SequenceNumber max_seq = 0;
};

std::string RandomUserKey(Random* rnd) {
  std::string k(rnd->Uniform(13), 'a');
  // A short alphabet, so that keys share prefixes.
  for (char& c : k) c = static_cast<char>('a' + rnd->Uniform(5));
  return k;
}

ValueType RandomType(Random* rnd) {
  uint64_t r = rnd->Uniform(100);
  if (r < 70) return kTypeValue;
  if (r < 85) return kTypeDeletion;
  if (r < 95) return kTypeMerge;
  return kTypeSingleDeletion;
}

std::string RandomValue(Random* rnd) {
  if (rnd->OneIn(100)) return RandomString(rnd, 10000 + rnd->Uniform(40000));
  return CompressibleString(rnd, 0.5, rnd->Skewed(8));
}

// Keys of 0 to 10 KB, values of 0 to 50 KB (plus one of 1 MB when `huge_value`), several
// versions per key (some with dozens, so that they span blocks), a few range deletions.
Dataset MakeDataset(uint64_t seed, bool huge_value) {
  Random rnd(seed);
  std::set<std::string> keys = {""};
  const size_t n = 150 + rnd.Uniform(100);
  while (keys.size() < n) keys.insert(RandomUserKey(&rnd));
  for (int i = 0; i < 3; i++) keys.insert(RandomString(&rnd, 1000 + rnd.Uniform(9241)));
  Dataset d;
  d.user_keys.assign(keys.begin(), keys.end());
  SequenceNumber seq = 1;
  for (const std::string& k : d.user_keys) {
    uint64_t r = rnd.Uniform(100);
    size_t versions = r < 70 ? 1 : r < 95 ? 2 + rnd.Uniform(3) : 20 + rnd.Uniform(21);
    std::vector<SequenceNumber> seqs;
    for (size_t v = 0; v < versions; v++) {
      seq += 1 + rnd.Uniform(3);
      seqs.push_back(seq);
    }
    std::reverse(seqs.begin(), seqs.end());  // newest first
    for (SequenceNumber s : seqs) {
      ValueType t = RandomType(&rnd);
      std::string value = t == kTypeDeletion || t == kTypeSingleDeletion ? "" : RandomValue(&rnd);
      d.points.emplace_back(MakeInternalKey(k, s, t), value);
    }
  }
  if (huge_value) d.points[d.points.size() / 2].second = RandomString(&rnd, 1 << 20);
  for (int i = 0; i < 6; i++) {
    std::string a = RandomUserKey(&rnd), b = RandomUserKey(&rnd);
    if (a == b) b += "z";
    if (b < a) std::swap(a, b);
    d.range_dels.emplace_back(MakeInternalKey(a, 1 + rnd.Uniform(seq), kTypeRangeDeletion), b);
  }
  d.max_seq = seq;
  return d;
}

enum class Layout { kBinaryFull, kTwoLevelFull, kTwoLevelPartitioned };

struct Config {
  size_t block_size;
  int restart_interval;
  CompressionType compression;
  Layout layout;
  bool hash_index;
  bool index_compression;
};

std::string ConfigName(const Config& c) {
  const char* layout = c.layout == Layout::kBinaryFull     ? "BinaryFull"
                       : c.layout == Layout::kTwoLevelFull ? "TwoLevelFull"
                                                           : "TwoLevelPartitioned";
  return absl::StrCat("B", c.block_size, "_R", c.restart_interval,
                      c.compression == kZSTD ? "_Zstd_" : "_None_", layout,
                      c.hash_index ? "_Hash" : "_Bin",
                      c.index_compression ? "_IdxComp" : "_IdxRaw");
}

std::vector<Config> AllConfigs() {
  std::vector<Config> all;
  for (size_t bs : {size_t{256}, size_t{4096}, size_t{65536}}) {
    for (int ri : {1, 16}) {
      for (CompressionType ct : {kNoCompression, kZSTD}) {
        for (Layout l :
             {Layout::kBinaryFull, Layout::kTwoLevelFull, Layout::kTwoLevelPartitioned}) {
          for (bool hash : {false, true}) {
            for (bool ic : {false, true}) all.push_back({bs, ri, ct, l, hash, ic});
          }
        }
      }
    }
  }
  return all;
}

TableOptions ToOptions(const Config& c) {
  TableOptions o;
  o.block_size = c.block_size;
  o.block_restart_interval = c.restart_interval;
  o.index_type = c.layout == Layout::kBinaryFull ? TableOptions::kBinarySearch
                                                 : TableOptions::kTwoLevelIndexSearch;
  o.partition_filters = c.layout == Layout::kTwoLevelPartitioned;
  o.filter_policy = NewBloomFilterPolicy(10);
  o.data_block_index_type =
      c.hash_index ? TableOptions::kDataBlockBinaryAndHash : TableOptions::kDataBlockBinarySearch;
  o.enable_index_compression = c.index_compression;
  o.metadata_block_size = 64;  // small partitions, so that small tables still have several
  return o;
}

class TableRoundTripTest : public ::testing::TestWithParam<size_t> {
 protected:
  TableRoundTripTest() : cmp_(BytewiseComparator()), fs_(NewMemFileSystem()) {}

  const Config& config() const { return configs_[GetParam()]; }

  void SetUp() override {
    data_ = MakeDataset(1000 + GetParam(), /*huge_value=*/GetParam() % 12 == 0);
    std::vector<Entry> all = data_.points;
    // Range deletions may come anywhere: interleave them.
    for (size_t i = 0; i < data_.range_dels.size(); i++) {
      all.insert(all.begin() + static_cast<long>(i * all.size() / data_.range_dels.size()),
                 data_.range_dels[i]);
    }
    ASSERT_OK(BuildTable(fs_.get(), "/t.sst", ToOptions(config()), config().compression, &cmp_,
                         all, &built_props_));
    // Through a caching source (as the block cache will be): a lookup in a 64 KiB zstd table
    // would otherwise decompress a whole block every time.
    ASSERT_OK(OpenTable(fs_.get(), "/t.sst", &cmp_, &reader_, &cache_));
  }

  // Index of the first point entry >= target.
  size_t LowerBound(std::string_view target) const {
    return std::partition_point(data_.points.begin(), data_.points.end(),
                                [&](const Entry& e) { return cmp_.Compare(e.first, target) < 0; }) -
           data_.points.begin();
  }

  void ExpectAt(InternalIterator* it, size_t i) {
    if (i >= data_.points.size()) {
      ASSERT_FALSE(it->Valid());
      ASSERT_OK(it->status());
      return;
    }
    ASSERT_TRUE(it->Valid()) << it->status().ToString();
    ASSERT_EQ(it->key(), data_.points[i].first);
    ASSERT_EQ(it->value(), data_.points[i].second);
  }

  std::string RandomTarget(Random* rnd) {
    if (rnd->OneIn(2)) return data_.points[rnd->Uniform(data_.points.size())].first;
    std::string u = rnd->OneIn(2) ? RandomUserKey(rnd)
                                  : data_.user_keys[rnd->Uniform(data_.user_keys.size())];
    return MakeInternalKey(u, rnd->Uniform(data_.max_seq + 2), kValueTypeForSeek);
  }

  std::vector<Config> configs_ = AllConfigs();
  InternalKeyComparator cmp_;
  std::shared_ptr<FileSystem> fs_;
  Dataset data_;
  TableProperties built_props_;
  MapBlockSource cache_;
  std::unique_ptr<TableReader> reader_;
};

TEST_P(TableRoundTripTest, ScansMatchTheModel) {
  std::unique_ptr<InternalIterator> it = reader_->NewIterator(TableReadOptions());
  std::vector<Entry> got;
  ASSERT_OK(ScanAll(it.get(), &got));
  ASSERT_EQ(got.size(), data_.points.size());
  EXPECT_TRUE(got == data_.points);
  size_t i = data_.points.size();
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    ASSERT_GT(i, 0u);
    i--;
    ASSERT_EQ(it->key(), data_.points[i].first);
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(i, 0u);
}

TEST_P(TableRoundTripTest, SeeksAndStepsMatchTheModel) {
  Random rnd(GetParam());
  std::unique_ptr<InternalIterator> it = reader_->NewIterator(TableReadOptions());
  for (int round = 0; round < 150; round++) {
    std::string target = RandomTarget(&rnd);
    size_t pos;
    if (rnd.OneIn(2)) {
      it->Seek(target);
      pos = LowerBound(target);
    } else {
      it->SeekForPrev(target);
      size_t ub = std::partition_point(data_.points.begin(), data_.points.end(),
                                       [&](const Entry& e) {
                                         return cmp_.Compare(e.first, target) <= 0;
                                       }) -
                  data_.points.begin();
      pos = ub == 0 ? SIZE_MAX : ub - 1;
    }
    ASSERT_NO_FATAL_FAILURE(ExpectAt(it.get(), pos)) << "round " << round;
    for (int step = 0; step < 4 && it->Valid(); step++) {
      if (rnd.OneIn(2)) {
        it->Next();
        pos++;
      } else {
        it->Prev();
        pos = pos == 0 ? SIZE_MAX : pos - 1;
      }
      ASSERT_NO_FATAL_FAILURE(ExpectAt(it.get(), pos)) << "round " << round << " step " << step;
    }
  }
}

TEST_P(TableRoundTripTest, GetsMatchTheModel) {
  Random rnd(GetParam() * 7 + 1);
  std::vector<std::string> probes = data_.user_keys;
  for (int i = 0; i < 60; i++) probes.push_back(RandomUserKey(&rnd) + "x");  // mostly misses
  std::vector<Entry> got, want;
  for (const std::string& u : probes) {
    for (SequenceNumber snap : {kMaxSequenceNumber, rnd.Uniform(data_.max_seq + 2)}) {
      ASSERT_OK(GetAll(*reader_, u, snap, &got));
      want.clear();
      for (size_t i = LowerBound(LookupKey(u, snap).internal_key());
           i < data_.points.size() && ExtractUserKey(data_.points[i].first) == u; i++) {
        want.push_back(data_.points[i]);
      }
      ASSERT_EQ(got.size(), want.size()) << "key size " << u.size() << " snapshot " << snap;
      ASSERT_TRUE(got == want);
      // The callback stops the lookup.
      ASSERT_OK(GetAll(*reader_, u, snap, &got, /*stop_after=*/1));
      ASSERT_EQ(got.size(), std::min<size_t>(want.size(), 1));
    }
  }
}

TEST_P(TableRoundTripTest, RangeDeletionsReadBack) {
  std::vector<Entry> want = data_.range_dels;
  std::stable_sort(want.begin(), want.end(),
                   [&](const Entry& a, const Entry& b) {
                     return cmp_.Compare(a.first, b.first) < 0;
                   });
  std::unique_ptr<InternalIterator> it = reader_->NewRangeTombstoneIterator();
  std::vector<Entry> got;
  ASSERT_OK(ScanAll(it.get(), &got));
  EXPECT_TRUE(got == want);
}

TEST_P(TableRoundTripTest, PropertiesDescribeTheTable) {
  const TableProperties& p = reader_->properties();
  EXPECT_EQ(p.ToString(), built_props_.ToString());
  EXPECT_EQ(p.num_entries, data_.points.size() + data_.range_dels.size());
  EXPECT_EQ(p.num_range_deletions, data_.range_dels.size());
  EXPECT_EQ(p.smallest_user_key, data_.user_keys.front());
  EXPECT_EQ(p.largest_user_key, data_.user_keys.back());
  EXPECT_EQ(p.compression_name, config().compression == kZSTD ? "ZSTD" : "NoCompression");
  EXPECT_EQ(p.comparator_name, "leveldb.BytewiseComparator");
  EXPECT_EQ(p.filter_policy_name, "shale.CacheLocalBloomFilter");
  EXPECT_EQ(p.partitioned_filters, config().layout == Layout::kTwoLevelPartitioned);
  EXPECT_EQ(p.data_block_hash_index, config().hash_index);
  EXPECT_EQ(p.block_size, config().block_size);
  EXPECT_GT(p.num_data_blocks, 0u);
  if (config().layout == Layout::kBinaryFull) {
    EXPECT_EQ(p.index_partitions, 0u);
  } else {
    EXPECT_GE(p.index_partitions, 1u);
    if (p.num_data_blocks >= 8) {
      EXPECT_GT(p.index_partitions, 1u);
    }
  }
  uint64_t raw_keys = 0;
  for (const Entry& e : data_.points) raw_keys += e.first.size();
  for (const Entry& e : data_.range_dels) raw_keys += e.first.size();
  EXPECT_EQ(p.raw_key_size, raw_keys);
  EXPECT_LT(p.data_size, reader_->file_size());
}

TEST_P(TableRoundTripTest, VerifyChecksumsAndApproximateOffsets) {
  ASSERT_OK(reader_->VerifyChecksums());
  uint64_t prev = 0;
  for (size_t i = 0; i < data_.points.size(); i += 7) {
    uint64_t off = reader_->ApproximateOffsetOf(data_.points[i].first);
    EXPECT_GE(off, prev);
    EXPECT_LE(off, reader_->file_size());
    prev = off;
  }
  EXPECT_EQ(reader_->ApproximateOffsetOf(MakeInternalKey("\xff\xff\xff", 0, kTypeValue)),
            reader_->file_size());
  EXPECT_EQ(reader_->ApproximateOffsetOf(data_.points[0].first), 0u);
}

INSTANTIATE_TEST_SUITE_P(Matrix, TableRoundTripTest,
                         ::testing::Range<size_t>(0, AllConfigs().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return ConfigName(AllConfigs()[info.param]);
                         });

}  // namespace
}  // namespace shale
