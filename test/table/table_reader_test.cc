// Targeted promises of TableBuilder and TableReader: what Open reads, what the filter saves,
// how the block source is used, edge-case tables, and the builder's errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "absl/strings/str_format.h"
#include "shale/filter_policy.h"
#include "table/table_test_util.h"
#include "util/random.h"

namespace shale {
namespace {

std::string Key(int i) { return absl::StrFormat("key%08d", i); }

// Even-numbered keys 0, 2, ..., 2 * (n - 1), one version each.
std::vector<Entry> EvenKeys(int n, size_t value_size = 100) {
  std::vector<Entry> entries;
  for (int i = 0; i < n; i++) {
    entries.emplace_back(MakeInternalKey(Key(2 * i), 100, kTypeValue),
                         std::string(value_size, static_cast<char>('a' + i % 26)));
  }
  return entries;
}

TableOptions PartitionedOptions() {
  TableOptions o;
  o.index_type = TableOptions::kTwoLevelIndexSearch;
  o.partition_filters = true;
  o.filter_policy = NewBloomFilterPolicy(10);
  return o;
}

// Counts the reads made through a RandomAccessFile.
class CountingFile final : public RandomAccessFile {
 public:
  explicit CountingFile(std::unique_ptr<RandomAccessFile> base) : base_(std::move(base)) {}
  Status Read(uint64_t offset, size_t n, std::string_view* result, char* scratch) const override {
    reads_++;
    return base_->Read(offset, n, result, scratch);
  }
  Status GetSize(uint64_t* size) const override { return base_->GetSize(size); }
  int reads() const { return reads_; }

 private:
  std::unique_ptr<RandomAccessFile> base_;
  mutable std::atomic<int> reads_{0};
};

class TableReaderTest : public ::testing::Test {
 protected:
  TableReaderTest() : cmp_(BytewiseComparator()), fs_(NewMemFileSystem()) {}

  void Build(const TableOptions& options, const std::vector<Entry>& entries,
             CompressionType compression = kNoCompression) {
    ASSERT_OK(BuildTable(fs_.get(), "/t.sst", options, compression, &cmp_, entries));
  }
  void Open(BlockSource* source = nullptr, TableReaderOptions options = TableReaderOptions()) {
    ASSERT_OK(OpenTable(fs_.get(), "/t.sst", &cmp_, &reader_, source, options));
  }

  InternalKeyComparator cmp_;
  std::shared_ptr<FileSystem> fs_;
  std::unique_ptr<TableReader> reader_;
};

TEST_F(TableReaderTest, OpenReadsTheFooterAndTheTailAndNothingElse) {
  for (const TableOptions& options : {TableOptions(), PartitionedOptions()}) {
    Build(options, EvenKeys(20000));
    uint64_t size;
    ASSERT_OK(fs_->GetFileSize("/t.sst", &size));
    std::unique_ptr<RandomAccessFile> base;
    ASSERT_OK(fs_->NewRandomAccessFile("/t.sst", &base));
    auto counting = std::make_unique<CountingFile>(std::move(base));
    const CountingFile* file = counting.get();
    MapBlockSource source;
    ASSERT_OK(TableReader::Open(TableReaderOptions(), std::move(counting), size, "/t.sst", 9,
                                &cmp_, &source, &reader_));
    EXPECT_EQ(file->reads(), 2);
    EXPECT_EQ(source.total_loads() + source.hits(), 0u);  // no data block, no partition
    std::vector<Entry> got;
    ASSERT_OK(GetAll(*reader_, Key(500), kMaxSequenceNumber, &got));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(file->reads(), options.partition_filters ? 5 : 3);  // partitions + data block
  }
}

TEST_F(TableReaderTest, FiltersSpareDataBlockReadsForMissingKeys) {
  TableOptions full;
  full.filter_policy = NewBloomFilterPolicy(10);
  TableOptions none;
  for (const TableOptions& options : {full, PartitionedOptions(), none}) {
    Build(options, EvenKeys(20000));
    MapBlockSource source;
    Open(&source);
    std::vector<Entry> got;
    for (int i = 0; i < 2000; i++) {
      ASSERT_OK(GetAll(*reader_, Key(2 * i + 1), kMaxSequenceNumber, &got));
      ASSERT_TRUE(got.empty());
    }
    const uint64_t data_reads = source.loads(BlockKind::kData) + source.hits();
    if (options.filter_policy == nullptr) {
      EXPECT_GE(data_reads, 2000u);
    } else {
      // About 1% false positives (and each partitioned miss reads one filter partition).
      EXPECT_LT(source.loads(BlockKind::kData), 80u) << data_reads;
    }
  }
}

TEST_F(TableReaderTest, UseFilterFalseKeepsNoFilterAndStillFindsKeys) {
  Build(PartitionedOptions(), EvenKeys(5000));
  Open();
  const size_t with_filter = reader_->ApproximateMemoryUsage();
  TableReaderOptions options;
  options.use_filter = false;
  Open(nullptr, options);
  EXPECT_LT(reader_->ApproximateMemoryUsage(), with_filter);
  std::vector<Entry> got;
  ASSERT_OK(GetAll(*reader_, Key(1234), kMaxSequenceNumber, &got));
  EXPECT_EQ(got.size(), 1u);
  ASSERT_OK(reader_->VerifyChecksums());  // still verifies the filter partitions
}

TEST_F(TableReaderTest, BlockSourceServesRepeatedReadsAndHonoursFillCache) {
  Build(PartitionedOptions(), EvenKeys(5000));
  MapBlockSource source;
  Open(&source);
  std::vector<Entry> got;
  ASSERT_OK(GetAll(*reader_, Key(100), kMaxSequenceNumber, &got));
  const uint64_t loads = source.total_loads();
  EXPECT_EQ(loads, 3u);  // filter partition, index partition, data block
  ASSERT_OK(GetAll(*reader_, Key(100), kMaxSequenceNumber, &got));
  EXPECT_EQ(source.total_loads(), loads);
  EXPECT_EQ(source.hits(), 3u);
  TableReadOptions no_fill;
  no_fill.fill_cache = false;
  ASSERT_OK(GetAll(*reader_, Key(9000), kMaxSequenceNumber, &got, SIZE_MAX, no_fill));
  ASSERT_OK(GetAll(*reader_, Key(9000), kMaxSequenceNumber, &got, SIZE_MAX, no_fill));
  EXPECT_EQ(source.total_loads(), loads + 6);  // nothing kept: loaded twice
  EXPECT_GT(source.charge(), 0u);
}

TEST_F(TableReaderTest, EmptyTable) {
  TableProperties props;
  ASSERT_OK(BuildTable(fs_.get(), "/t.sst", PartitionedOptions(), kZSTD, &cmp_, {}, &props));
  Open();
  EXPECT_EQ(reader_->properties().num_entries, 0u);
  EXPECT_EQ(reader_->properties().num_data_blocks, 0u);
  std::vector<Entry> got;
  ASSERT_OK(ScanAll(reader_->NewIterator(TableReadOptions()).get(), &got));
  EXPECT_TRUE(got.empty());
  ASSERT_OK(GetAll(*reader_, "a", kMaxSequenceNumber, &got));
  EXPECT_TRUE(got.empty());
  std::unique_ptr<InternalIterator> it = reader_->NewIterator(TableReadOptions());
  it->SeekForPrev(MakeInternalKey("z", 0, kTypeValue));
  EXPECT_FALSE(it->Valid());
  ASSERT_OK(it->status());
  Status vs = reader_->VerifyChecksums();
  ASSERT_TRUE(vs.ok()) << vs.ToString();
  EXPECT_EQ(reader_->ApproximateOffsetOf(MakeInternalKey("a", 0, kTypeValue)), 0u);
}

TEST_F(TableReaderTest, OnlyRangeDeletions) {
  std::vector<Entry> entries = {{MakeInternalKey("m", 5, kTypeRangeDeletion), "p"},
                                {MakeInternalKey("a", 7, kTypeRangeDeletion), "c"}};
  TableProperties props;
  ASSERT_OK(BuildTable(fs_.get(), "/t.sst", TableOptions(), kNoCompression, &cmp_, entries,
                       &props));
  EXPECT_EQ(props.smallest_range_del_key, "a");
  EXPECT_EQ(props.largest_range_del_key, "p");
  EXPECT_EQ(props.smallest_seqno, 5u);
  EXPECT_EQ(props.largest_seqno, 7u);
  Open();
  std::vector<Entry> got;
  ASSERT_OK(ScanAll(reader_->NewRangeTombstoneIterator().get(), &got));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], entries[1]);  // sorted by start
  EXPECT_EQ(got[1], entries[0]);
  ASSERT_OK(ScanAll(reader_->NewIterator(TableReadOptions()).get(), &got));
  EXPECT_TRUE(got.empty());
}

// A comparator with the bytewise order under another name.
class RenamedComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return a.compare(b); }
  const char* Name() const override { return "test.Renamed"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

TEST_F(TableReaderTest, ComparatorMismatchIsInvalidArgument) {
  Build(TableOptions(), EvenKeys(10));
  RenamedComparator renamed;
  InternalKeyComparator other(&renamed);
  Status s = OpenTable(fs_.get(), "/t.sst", &other, &reader_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("leveldb.BytewiseComparator"), std::string::npos);
}

TEST_F(TableReaderTest, NotATable) {
  ASSERT_OK(WriteStringToFile(fs_.get(), "short", "/x.sst", false));
  Status s = OpenTable(fs_.get(), "/x.sst", &cmp_, &reader_);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("/x.sst"), std::string::npos);
  ASSERT_OK(WriteStringToFile(fs_.get(), std::string(1000, 'x'), "/x.sst", false));
  s = OpenTable(fs_.get(), "/x.sst", &cmp_, &reader_);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("/x.sst: footer at offset 952: bad magic"), std::string::npos)
      << s.ToString();
}

TEST_F(TableReaderTest, UnsupportedCompressionFailsTheBuilder) {
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWritableFile("/t.sst", &file));
  TableBuilder builder(TableOptions(), kXpressCompression, 0, &cmp_, file.get(), "/t.sst");
  EXPECT_TRUE(builder.status().IsInvalidArgument());
  builder.Add(MakeInternalKey("a", 1, kTypeValue), "v");
  EXPECT_TRUE(builder.Finish().IsInvalidArgument());
  EXPECT_EQ(file->GetFileSize(), 0u);
}

// A file whose appends fail from the Nth on.
class FailingFile final : public WritableFile {
 public:
  explicit FailingFile(int ok_appends) : ok_appends_(ok_appends) {}
  Status Append(std::string_view data) override {
    if (appends_++ >= ok_appends_) return Status::NoSpace("/t.sst", "disk full");
    size_ += data.size();
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return size_; }
  int appends() const { return appends_; }

 private:
  const int ok_appends_;
  int appends_ = 0;
  uint64_t size_ = 0;
};

TEST_F(TableReaderTest, WriteErrorsAreSticky) {
  for (int ok_appends : {0, 3, 50}) {
    FailingFile file(ok_appends);
    TableOptions options;
    options.block_size = 256;
    TableBuilder builder(options, kNoCompression, 0, &cmp_, &file, "/t.sst");
    for (const Entry& e : EvenKeys(100)) builder.Add(e.first, e.second);
    const int appends = file.appends();
    Status s = builder.Finish();
    EXPECT_TRUE(s.IsNoSpace()) << ok_appends << " " << s.ToString();
    if (ok_appends < 50) {
      EXPECT_TRUE(builder.status().IsNoSpace());
      EXPECT_EQ(file.appends(), appends);  // nothing attempted after the failure
    }
  }
}

#ifdef SHALE_EXPENSIVE_CHECKS
TEST_F(TableReaderTest, KeysOutOfOrderAreCorruptionWithExpensiveChecks) {
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs_->NewWritableFile("/t.sst", &file));
  TableBuilder builder(TableOptions(), kNoCompression, 0, &cmp_, file.get(), "/t.sst");
  builder.Add(MakeInternalKey("b", 1, kTypeValue), "v");
  builder.Add(MakeInternalKey("a", 1, kTypeValue), "v");
  Status s = builder.Finish();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("out of order"), std::string::npos) << s.ToString();
}
#endif

TEST_F(TableReaderTest, ConcurrentGets) {
  Build(PartitionedOptions(), EvenKeys(20000), kZSTD);
  MapBlockSource source;
  Open(&source);
  std::atomic<int> wrong{0};
  auto worker = [&](int seed) {
    Random rnd(seed);
    std::vector<Entry> got;
    for (int i = 0; i < 3000; i++) {
      int k = static_cast<int>(rnd.Uniform(40000));
      if (!GetAll(*reader_, Key(k), kMaxSequenceNumber, &got).ok() ||
          got.size() != (k % 2 == 0 ? 1u : 0u)) {
        wrong++;
      }
    }
  };
  std::thread a(worker, 1), b(worker, 2);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace shale
