// Damaged tables: bytes flipped in every region of a file (data blocks, index partitions and
// index, filter partitions and filter, range deletions, properties, meta-index, footer). With
// checksum verification on (the default) every damage is reported as a Corruption naming the
// file and the block's offset, by Open or by the reads that touch the block, and nothing wrong
// is ever returned. With it off, nothing crashes.
//
// Filters and verify_checksums=false: the tail (full filter or top-level filter index) is always
// verified at Open, but a filter partition read without verification may be damaged silently.
// A flip that sets a bit in its lines only adds false positives (lookups still find every key;
// FilterBitSetOnlyAddsFalsePositives shows it); a flip that clears a bit can hide keys of that
// partition; a flip in its 6-byte trailer (line count, probe count, format) is a Corruption.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shale/filter_policy.h"
#include "table/meta_blocks.h"
#include "table/table_test_util.h"
#include "util/random.h"

namespace shale {
namespace {

// One region of a table file: a block with its trailer, or the footer.
struct Region {
  std::string name;
  uint64_t offset;
  uint64_t size;
  bool footer = false;
};

class TableMapper {
 public:
  TableMapper(const std::string& file, const InternalKeyComparator* cmp)
      : file_(file), cmp_(cmp) {}

  // Every block of the file, found by walking footer -> meta-index -> indexes and filters.
  std::vector<Region> Map() {
    const uint64_t footer_offset = file_.size() - Footer::kEncodedLength;
    Footer footer;
    EXPECT_OK(footer.DecodeFrom(std::string_view(file_).substr(footer_offset), "f",
                                footer_offset));
    regions_.push_back({"footer", footer_offset, Footer::kEncodedLength, true});
    Add("meta-index", footer.metaindex_handle);
    MetaIndex meta;
    EXPECT_OK(ParseMetaIndexBlock(*Parse(footer.metaindex_handle), &meta));
    TableProperties props;
    EXPECT_OK(ParsePropertiesBlock(*Parse(meta.at(kPropertiesBlockName)), &props));
    for (const auto& [name, h] : meta) Add(name, h);
    Add("index", footer.index_handle);
    if (props.index_type == TableOptions::kTwoLevelIndexSearch) {
      for (const BlockHandle& p : Children(footer.index_handle)) {
        Add("index partition", p);
        for (const BlockHandle& d : Children(p)) Add("data block", d);
      }
    } else {
      for (const BlockHandle& d : Children(footer.index_handle)) Add("data block", d);
    }
    if (auto it = meta.find(kPartitionedFilterBlockName); it != meta.end()) {
      for (const BlockHandle& p : Children(it->second)) Add("filter partition", p);
    }
    return regions_;
  }

 private:
  void Add(std::string name, const BlockHandle& h) {
    regions_.push_back({std::move(name), h.offset(), h.size() + kBlockTrailerSize});
  }
  std::unique_ptr<Block> Parse(const BlockHandle& h) {
    std::string contents;
    EXPECT_OK(DecodeRawBlock(std::string_view(file_).substr(h.offset(), h.size() + 5), "f", h,
                             kMaxBlockSize, true, &decompressor_, &contents));
    std::unique_ptr<Block> block;
    EXPECT_OK(Block::Create(std::move(contents), &block));
    return block;
  }
  // The handles an index-like block points to.
  std::vector<BlockHandle> Children(const BlockHandle& h) {
    std::unique_ptr<Block> block = Parse(h);
    std::vector<BlockHandle> out;
    std::unique_ptr<BlockIter> it = block->NewIterator(cmp_);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view v = it->value();
      BlockHandle child;
      EXPECT_TRUE(child.DecodeFrom(&v));
      out.push_back(child);
    }
    return out;
  }

  const std::string& file_;
  const InternalKeyComparator* cmp_;
  Decompressor decompressor_;
  std::vector<Region> regions_;
  std::vector<Region> sample_;
};

std::string Key(int i) { return absl::StrFormat("k%06d", i); }

class TableCorruptionTest : public ::testing::TestWithParam<int> {
 protected:
  TableCorruptionTest() : cmp_(BytewiseComparator()), fs_(NewMemFileSystem()) {}

  void SetUp() override {
    TableOptions o;
    o.block_size = 1024;
    o.metadata_block_size = 256;
    o.filter_policy = NewBloomFilterPolicy(10);
    const bool partitioned = GetParam() == 1;
    if (partitioned) {
      o.index_type = TableOptions::kTwoLevelIndexSearch;
      o.partition_filters = true;
      o.data_block_index_type = TableOptions::kDataBlockBinaryAndHash;
    }
    Random rnd(GetParam());
    for (int i = 0; i < 1500; i++) {
      for (SequenceNumber s : {SequenceNumber{20}, SequenceNumber{10}}) {
        if (s == 10 && i % 3 != 0) continue;
        entries_.emplace_back(MakeInternalKey(Key(i), s, kTypeValue),
                              CompressibleString(&rnd, 0.4, rnd.Uniform(120)));
      }
    }
    std::vector<Entry> all = entries_;
    all.emplace_back(MakeInternalKey(Key(5), 30, kTypeRangeDeletion), Key(9));
    ASSERT_OK(BuildTable(fs_.get(), "/good.sst", o, partitioned ? kZSTD : kNoCompression, &cmp_,
                         all));
    ASSERT_OK(ReadFileToString(fs_.get(), "/good.sst", &good_));
    regions_ = TableMapper(good_, &cmp_).Map();
    // Damage every kind of region, but only a sample of the many data blocks and partitions
    // (the first, the last and some between), to keep the test fast.
    std::map<std::string, int> seen;
    std::map<std::string, int> total;
    for (const Region& r : regions_) total[r.name]++;
    for (const Region& r : regions_) {
      int n = seen[r.name]++;
      if (n == 0 || n == total[r.name] - 1 || n % 9 == 4) sample_.push_back(r);
    }
  }

  // Positions to damage in a region: first byte, middle, compression type, last checksum byte.
  static std::vector<uint64_t> Positions(const Region& r) {
    if (r.footer) return {r.offset, r.offset + 20, r.offset + 34, r.offset + 40, r.offset + 47};
    return {r.offset, r.offset + r.size / 2, r.offset + r.size - 5, r.offset + r.size - 1};
  }

  // Runs every kind of read against the damaged table at `path` and checks each error.
  void ExerciseDamaged(const std::string& path, const Region& r, uint64_t pos) {
    const std::string where =
        r.footer ? absl::StrCat(path, ": footer at offset ", r.offset)
                 : absl::StrCat(path, ": block at offset ", r.offset);
    auto check = [&](const Status& s, const char* op) {
      ASSERT_TRUE(s.IsCorruption()) << op << " " << r.name << " byte " << pos << ": "
                                    << s.ToString();
      ASSERT_NE(s.ToString().find(where), std::string::npos)
          << op << " " << r.name << " byte " << pos << ": " << s.ToString();
    };
    std::unique_ptr<TableReader> reader;
    Status s = OpenTable(fs_.get(), path, &cmp_, &reader);
    if (!s.ok()) {
      check(s, "Open");
      return;
    }
    int errors = 0;
    // Forward scan: what comes back before the error is right.
    std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
    size_t i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
      ASSERT_LT(i, entries_.size());
      ASSERT_EQ(it->key(), entries_[i].first);
      ASSERT_EQ(it->value(), entries_[i].second);
    }
    if (!it->status().ok()) {
      errors++;
      ASSERT_NO_FATAL_FAILURE(check(it->status(), "scan"));
    } else {
      ASSERT_EQ(i, entries_.size());
    }
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
    }
    if (!it->status().ok()) {
      ASSERT_NO_FATAL_FAILURE(check(it->status(), "reverse scan"));
    }
    // Every lookup either fails naming the block or is right.
    std::vector<Entry> got;
    for (int k = 0; k < 1500; k += 3) {
      s = GetAll(*reader, Key(k), kMaxSequenceNumber, &got);
      if (!s.ok()) {
        errors++;
        ASSERT_NO_FATAL_FAILURE(check(s, "Get"));
        continue;
      }
      ASSERT_EQ(got.size(), 2u) << Key(k);
    }
    s = reader->VerifyChecksums();
    ASSERT_FALSE(s.ok()) << r.name << " byte " << pos;
    ASSERT_NO_FATAL_FAILURE(check(s, "VerifyChecksums"));
  }

  InternalKeyComparator cmp_;
  std::shared_ptr<FileSystem> fs_;
  std::vector<Entry> entries_;
  std::string good_;
  std::vector<Region> regions_;
  std::vector<Region> sample_;
};

TEST_P(TableCorruptionTest, MapCoversTheWholeFile) {
  std::vector<Region> sorted = regions_;
  std::sort(sorted.begin(), sorted.end(),
            [](const Region& a, const Region& b) { return a.offset < b.offset; });
  uint64_t next = 0;
  for (const Region& r : sorted) {
    ASSERT_EQ(r.offset, next) << r.name;
    next = r.offset + r.size;
  }
  EXPECT_EQ(next, good_.size());
  std::set<std::string> names;
  for (const Region& r : regions_) names.insert(r.name);
  const std::set<std::string> expected =
      GetParam() == 1
          ? std::set<std::string>{"footer", "meta-index", "shale.properties", "shale.range_del",
                                  "shale.partitioned_filter", "index", "index partition",
                                  "data block", "filter partition"}
          : std::set<std::string>{"footer", "meta-index", "shale.properties", "shale.range_del",
                                  "shale.filter", "index", "data block"};
  EXPECT_EQ(names, expected);
}

TEST_P(TableCorruptionTest, EveryDamageIsReportedAsCorruptionNamingTheBlock) {
  int trials = 0;
  for (const Region& r : sample_) {
    for (uint64_t pos : Positions(r)) {
      std::string bad = good_;
      bad[pos] ^= 0x55;
      ASSERT_OK(WriteStringToFile(fs_.get(), bad, "/bad.sst", false));
      ASSERT_NO_FATAL_FAILURE(ExerciseDamaged("/bad.sst", r, pos));
      trials++;
    }
  }
  EXPECT_GT(trials, 40);
}

TEST_P(TableCorruptionTest, WithoutVerificationNothingCrashes) {
  Random rnd(99);
  TableReadOptions no_verify;
  no_verify.verify_checksums = false;
  for (const Region& r : sample_) {
    for (int n = 0; n < 4; n++) {
      std::string bad = good_;
      bad[r.offset + rnd.Uniform(r.size)] ^= static_cast<char>(1 + rnd.Uniform(255));
      ASSERT_OK(WriteStringToFile(fs_.get(), bad, "/bad.sst", false));
      std::unique_ptr<TableReader> reader;
      if (!OpenTable(fs_.get(), "/bad.sst", &cmp_, &reader).ok()) continue;
      std::unique_ptr<InternalIterator> it = reader->NewIterator(no_verify);
      size_t steps = 0;
      for (it->SeekToFirst(); it->Valid() && steps < 10 * entries_.size(); it->Next()) steps++;
      for (it->SeekToLast(); it->Valid() && steps < 20 * entries_.size(); it->Prev()) steps++;
      std::vector<Entry> got;
      for (int k = 0; k < 1500; k += 7) {
        GetAll(*reader, Key(k), kMaxSequenceNumber, &got, SIZE_MAX, no_verify)
            .PermitUncheckedError();
        it->Seek(MakeInternalKey(Key(k), 15, kValueTypeForSeek));
        it->SeekForPrev(MakeInternalKey(Key(k), 15, kValueTypeForSeek));
      }
      EXPECT_FALSE(reader->VerifyChecksums().ok());
    }
  }
}

TEST_P(TableCorruptionTest, FilterBitSetOnlyAddsFalsePositives) {
  if (GetParam() != 1) GTEST_SKIP() << "filter partitions only";
  TableReadOptions no_verify;
  no_verify.verify_checksums = false;
  for (const Region& r : regions_) {
    if (r.name != "filter partition") continue;
    // Set every bit of the partition's lines (the 6-byte filter trailer and the block trailer
    // stay): the partition now matches everything.
    std::string bad = good_;
    for (uint64_t p = r.offset; p < r.offset + r.size - kBlockTrailerSize - 6; p++) bad[p] = '\xff';
    ASSERT_OK(WriteStringToFile(fs_.get(), bad, "/bad.sst", false));
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(OpenTable(fs_.get(), "/bad.sst", &cmp_, &reader));
    std::vector<Entry> got;
    for (int k = 0; k < 1500; k++) {
      ASSERT_OK(GetAll(*reader, Key(k), kMaxSequenceNumber, &got, SIZE_MAX, no_verify));
      ASSERT_EQ(got.size(), k % 3 == 0 ? 2u : 1u);
      ASSERT_OK(GetAll(*reader, Key(k) + "x", kMaxSequenceNumber, &got, SIZE_MAX, no_verify));
      ASSERT_TRUE(got.empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, TableCorruptionTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == 1 ? std::string("TwoLevelPartitionedZstd")
                                                  : std::string("BinaryFullFilter");
                         });

}  // namespace
}  // namespace shale
