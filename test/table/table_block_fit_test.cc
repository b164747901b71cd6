// Data blocks are cut so that a block kept by a block cache takes one allocation of the
// allocator's block_size class (issue 21): the LoadedBlock, room for its restart prefixes, the
// block and its trailer share one allocation, and 4 KiB blocks cut at ~4090 bytes used to push
// it into the next class (5 KiB: a quarter of a cache's memory, and 17% more peak RSS than
// RocksDB's with every block cached). Checked for the default restart interval and RocksDB's.
//
// Thread-safety: single-threaded.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "shale/file_system.h"
#include "table/table_test_util.h"

namespace shale {
namespace {

TEST(TableBlockFitTest, AKeptFourKiBBlockFitsAFourKiBAllocation) {
  for (const int interval : {4, 16}) {
    SCOPED_TRACE("restart interval " + std::to_string(interval));
    std::shared_ptr<FileSystem> fs = NewMemFileSystem();
    const InternalKeyComparator icmp(BytewiseComparator());
    std::vector<Entry> entries;
    for (int i = 0; i < 20000; i++) {  // 16-byte user keys, 100-byte values
      char user[17];
      std::snprintf(user, sizeof(user), "%016d", i);
      entries.emplace_back(MakeInternalKey(user, 1, kTypeValue), std::string(100, 'v'));
    }
    TableOptions options;
    options.block_restart_interval = interval;
    ASSERT_OK(BuildTable(fs.get(), "/t.sst", options, kNoCompression, &icmp, entries));
    MapBlockSource source;
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(OpenTable(fs.get(), "/t.sst", &icmp, &reader, &source));
    std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
    std::vector<Entry> read;
    ASSERT_OK(ScanAll(it.get(), &read));
    ASSERT_EQ(read.size(), entries.size());
    it.reset();
    const uint64_t blocks = source.loads(BlockKind::kData);
    ASSERT_GT(blocks, 500U);
    // Each charge is the allocation's footprint plus the cache entry's bookkeeping (a few
    // hundred bytes); a 5 KiB allocation puts the mean far above this.
    EXPECT_LT(source.charge() / blocks, 4096U + 512U)
        << "kept blocks take the allocator's next size class";
  }
}

}  // namespace
}  // namespace shale
