// Gets and seeks through a table whose kept blocks carry restart prefixes (perf review of
// issue 21): blocks read straight into their cache memory (LoadedBlock::ReadBlockInPlace),
// made from uncompressed bytes (compressed blocks), and index, index-partition and filter-index
// blocks pinned by the reader or kept by the cache, all return exactly a std::map model's
// answer for keys shaped where a 4-byte prefix order could disagree with the key order: long
// shared prefixes, user keys shorter than the shared prefix and than 4 bytes, 0x00 and 0xff
// bytes, many versions of one user key across restart points.
//
// Thread-safety: single-threaded.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cache/lru_cache.h"
#include "shale/cache.h"
#include "shale/filter_policy.h"
#include "table/table_test_util.h"

namespace shale {
namespace {

std::string RandomBytes(std::mt19937& rng, size_t n) {
  static const char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\x7f', '\x80', '\xfe', '\xff'};
  std::string s;
  for (size_t i = 0; i < n; i++) s.push_back(kAlphabet[rng() % sizeof(kAlphabet)]);
  return s;
}

// User key -> its versions (sequence -> value), newest first.
using Model = std::map<std::string, std::map<uint64_t, std::string, std::greater<>>>;

Model MakeModel(std::mt19937& rng) {
  Model model;
  const std::string shared = "tenant/0000000042/";
  for (int i = 0; i < 3000; i++) {
    std::string user;
    switch (rng() % 4) {
      case 0:
        user = RandomBytes(rng, rng() % 4);
        break;  // short, maybe empty
      case 1:
        user = shared.substr(0, rng() % shared.size()) + RandomBytes(rng, rng() % 3);
        break;
      default:
        user = shared + RandomBytes(rng, rng() % 8);
        break;  // behind the prefix
    }
    const int versions = rng() % 8 == 0 ? 40 : 1;  // some keys span restart points
    for (int v = 0; v < versions; v++) {
      model[user][1 + rng() % 100000] = RandomBytes(rng, 20 + rng() % 80);
    }
  }
  return model;
}

std::vector<Entry> Entries(const Model& model) {
  std::vector<Entry> entries;
  for (const auto& [user, versions] : model) {
    for (const auto& [seq, value] : versions) {
      entries.emplace_back(MakeInternalKey(user, seq, kTypeValue), value);
    }
  }
  return entries;
}

// (two-level index, compression, cache index and filter blocks, hash index)
using Params = std::tuple<bool, bool, bool, bool>;

class TableRestartPrefixGetTest : public ::testing::TestWithParam<Params> {};

TEST_P(TableRestartPrefixGetTest, GetsAndSeeksMatchTheModel) {
  const auto [two_level, compress, cache_index, hash] = GetParam();
  std::mt19937 rng(7 + two_level * 1 + compress * 2 + cache_index * 4 + hash * 8);
  const Model model = MakeModel(rng);
  InternalKeyComparator cmp(BytewiseComparator());
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  TableOptions options;
  options.block_size = 1024;
  options.index_block_restart_interval = 2;
  options.filter_policy = NewBloomFilterPolicy(10);
  if (two_level) {
    options.index_type = TableOptions::kTwoLevelIndexSearch;
    options.partition_filters = true;
    options.metadata_block_size = 512;
  }
  if (hash) options.data_block_index_type = TableOptions::kDataBlockBinaryAndHash;
  ASSERT_OK(BuildTable(fs.get(), "/t.sst", options, compress ? kSnappyCompression : kNoCompression,
                       &cmp, Entries(model)));
  std::shared_ptr<Cache> cache = NewLRUCache(64 << 20, 0);
  TableReaderOptions reader_options;
  reader_options.cache_index_and_filter_blocks = cache_index;
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(OpenTable(fs.get(), "/t.sst", &cmp, &reader, LRUCache::FromCache(cache.get()),
                      reader_options));
  std::vector<std::string> targets;
  for (const auto& [user, versions] : model) {
    targets.push_back(user);
    targets.push_back(user + '\0');
    if (!user.empty()) targets.push_back(user.substr(0, user.size() - 1));
  }
  for (int i = 0; i < 2000; i++) targets.push_back(RandomBytes(rng, rng() % 24));
  for (int pass = 0; pass < 2; pass++) {  // a miss loads the blocks, then the cache serves them
    for (const std::string& user : targets) {
      const uint64_t snapshot = rng() % 2 ? kMaxSequenceNumber : 1 + rng() % 100000;
      std::vector<Entry> got;
      ASSERT_OK(GetAll(*reader, user, snapshot, &got));
      std::vector<Entry> want;
      if (auto it = model.find(user); it != model.end()) {
        for (const auto& [seq, value] : it->second) {
          if (seq <= snapshot) want.emplace_back(MakeInternalKey(user, seq, kTypeValue), value);
        }
      }
      ASSERT_EQ(got.size(), want.size()) << "user key of " << user.size() << " bytes";
      ASSERT_EQ(got, want);
    }
  }
  // Seeks through the table iterator land where the model says.
  std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
  for (int i = 0; i < 2000; i++) {
    const std::string user = targets[rng() % targets.size()];
    const uint64_t seq = rng() % 100001;
    const std::string target = MakeInternalKey(user, seq, kValueTypeForSeek);
    it->Seek(target);
    // The model's first entry >= target.
    std::string want;
    for (auto u = model.lower_bound(user); u != model.end() && want.empty(); ++u) {
      for (const auto& [s, value] : u->second) {
        if (u->first != user || s <= seq) {
          want = MakeInternalKey(u->first, s, kTypeValue);
          break;
        }
      }
    }
    ASSERT_OK(it->status());
    if (want.empty()) {
      ASSERT_FALSE(it->Valid());
    } else {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(std::string(it->key()), want);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TableRestartPrefixGetTest,
                         testing::Combine(testing::Bool(), testing::Bool(), testing::Bool(),
                                          testing::Bool()));

}  // namespace
}  // namespace shale
