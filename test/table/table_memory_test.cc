// What an open reader keeps in memory (outside the block source), measured on a table of 1M
// entries with 16-byte keys and 100-byte values: full filter + binary index, against
// partitioned filter + two-level index. Printed, and bounded so that a regression shows.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "absl/strings/str_format.h"
#include "shale/filter_policy.h"
#include "table/table_test_util.h"

namespace shale {
namespace {

constexpr int kEntries = 1000000;

// Builds the table straight through TableBuilder (no entry vector: 1M entries would cost more
// memory and time than the table itself).
void BuildMillion(FileSystem* fs, const TableOptions& options, const InternalKeyComparator* cmp) {
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs->NewWritableFile("/m.sst", &file));
  TableBuilder builder(options, kNoCompression, 0, cmp, file.get(), "/m.sst");
  std::string value(100, 'v');
  char key[16];
  for (int i = 0; i < kEntries; i++) {
    std::snprintf(key, sizeof(key), "%015d", i);  // 15 digits + NUL: 16 bytes
    value[i % 100] = static_cast<char>('a' + i % 26);
    builder.Add(MakeInternalKey(std::string_view(key, 16), 1, kTypeValue), value);
  }
  ASSERT_OK(builder.Finish());
  ASSERT_OK(file->Close());
}

TEST(TableMemoryTest, ReaderMemoryForOneMillionEntries) {
  const InternalKeyComparator cmp(BytewiseComparator());
  TableOptions full;
  full.filter_policy = NewBloomFilterPolicy(10);
  TableOptions partitioned = full;
  partitioned.index_type = TableOptions::kTwoLevelIndexSearch;
  partitioned.partition_filters = true;
  size_t usage[2];
  for (int v = 0; v < 2; v++) {
    std::shared_ptr<FileSystem> fs = NewMemFileSystem();
    ASSERT_NO_FATAL_FAILURE(BuildMillion(fs.get(), v == 0 ? full : partitioned, &cmp));
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(OpenTable(fs.get(), "/m.sst", &cmp, &reader));
    const TableProperties& p = reader->properties();
    usage[v] = reader->ApproximateMemoryUsage();
    std::printf(
        "[ measured ] %s: file %.1f MB, %llu data blocks, index %.1f KB (%llu partitions, top "
        "level %.1f KB), filter %.1f KB -> reader keeps %zu bytes (%.1f KB)\n",
        v == 0 ? "full filter + binary index" : "partitioned filter + two-level index",
        reader->file_size() / 1e6, static_cast<unsigned long long>(p.num_data_blocks),
        p.index_size / 1e3, static_cast<unsigned long long>(p.index_partitions),
        p.top_level_index_size / 1e3, p.filter_size / 1e3, usage[v], usage[v] / 1e3);
    std::vector<Entry> got;
    ASSERT_OK(GetAll(*reader, absl::StrFormat("%015d", 123456) + std::string(1, '\0'),
                     kMaxSequenceNumber, &got));
    ASSERT_EQ(got.size(), 1u);
    // The full reader holds the whole index and filter; the partitioned one only top levels.
    if (v == 0) {
      EXPECT_GT(usage[v], p.filter_size + p.index_size - 64 * 1024);
    } else {
      // The top-level index and filter index also keep 4-byte restart prefixes (one per
      // partition each: Block::BuildRestartPrefixes).
      EXPECT_LT(usage[v], p.top_level_index_size + 8 * p.index_partitions + 16 * 1024);
    }
  }
  EXPECT_LT(usage[1] * 20, usage[0]);
}

}  // namespace
}  // namespace shale
