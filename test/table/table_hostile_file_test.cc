// Hostile table files: an SST handed to IngestExternalFile or `shale dump-sst` may have been
// made to hurt. Unlike table_corruption_test (random damage, caught by checksums), these files
// carry valid checksums around lies: huge sizes and offsets in the footer, the meta-index, the
// index and the properties; compressed blocks whose frame header claims far more bytes than it
// holds; blocks whose restart arrays and entries overrun; truncated files and files shorter
// than the size the caller claims. Each must give a Corruption (from Open or from the read that
// meets it) - never a crash, and never an allocation driven by the lying length.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compression/codec.h"
#include "shale/comparator.h"
#include "shale/filter_policy.h"
#include "table/block_builder.h"
#include "table/format.h"
#include "table/meta_blocks.h"
#include "table/table_properties.h"
#include "table/table_test_util.h"
#include "util/checksum.h"
#include "util/coding.h"

namespace shale {
namespace {

constexpr uint64_t kHuge = uint64_t{1} << 62;
constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

// Peak resident memory of the process, in bytes.
uint64_t PeakRss() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

// A zstd frame whose header claims `claimed` content bytes but holds one raw block of `body`:
// a decompressed length that lies.
std::string LyingZstdFrame(uint64_t claimed, std::string_view body) {
  std::string f;
  PutFixed32(&f, 0xFD2FB528);            // magic
  f.push_back(static_cast<char>(0xE0));  // 8-byte content size, single segment
  PutFixed64(&f, claimed);
  const uint32_t header = 1 | (static_cast<uint32_t>(body.size()) << 3);  // last, raw
  f.push_back(static_cast<char>(header & 0xff));
  f.push_back(static_cast<char>((header >> 8) & 0xff));
  f.push_back(static_cast<char>((header >> 16) & 0xff));
  f.append(body);
  return f;
}

// Builds table files block by block, each block with a valid trailer, so that the lies inside
// pass every checksum.
class TableForge {
 public:
  TableForge() : icmp_(BytewiseComparator()) {}

  const InternalKeyComparator* icmp() const { return &icmp_; }

  // Appends stored bytes with a trailer of `type` and a valid checksum.
  BlockHandle AddBlock(std::string_view stored, CompressionType type = kNoCompression) {
    BlockHandle h(file_.size(), stored.size());
    file_.append(stored);
    const char t = static_cast<char>(type);
    file_.push_back(t);
    PutFixed32(&file_, ChecksumWithLastByte(stored.data(), stored.size(), t));
    return h;
  }

  std::string Finish(const BlockHandle& metaindex, const BlockHandle& index) {
    Footer footer;
    footer.metaindex_handle = metaindex;
    footer.index_handle = index;
    footer.format_version = kLatestFormatVersion;
    std::string out = file_;
    footer.EncodeTo(&out);
    return out;
  }

  std::string size_so_far() const { return file_; }

 private:
  InternalKeyComparator icmp_;
  std::string file_;
};

// The parts of a well-formed forged table; each test changes one.
struct Recipe {
  std::vector<Entry> entries;  // the data block's entries
  // The data block's stored bytes and type (by default: the entries, uncompressed).
  std::optional<std::pair<std::string, CompressionType>> data_block;
  // Replaces the index's handle for the data block.
  std::optional<BlockHandle> data_handle;
  TableProperties props;
  std::optional<std::pair<std::string, CompressionType>> props_block;
  std::optional<BlockHandle> props_handle;
  std::optional<BlockHandle> footer_metaindex;
  std::optional<BlockHandle> footer_index;
};

Recipe GoodRecipe() {
  Recipe r;
  for (char c = 'a'; c <= 'z'; c++) {
    r.entries.emplace_back(MakeInternalKey(std::string(1, c), 100, kTypeValue),
                           std::string(20, c));
  }
  r.props.comparator_name = BytewiseComparator()->Name();
  r.props.index_type = TableOptions::kBinarySearch;
  r.props.num_entries = r.entries.size();
  r.props.num_data_blocks = 1;
  return r;
}

std::string BlockOf(const std::vector<Entry>& entries, int restart_interval) {
  BlockBuilder b(restart_interval);
  for (const Entry& e : entries) b.Add(e.first, e.second);
  return std::string(b.Finish());
}

std::string Forge(const Recipe& r) {
  TableForge forge;
  BlockHandle data = r.data_block ? forge.AddBlock(r.data_block->first, r.data_block->second)
                                  : forge.AddBlock(BlockOf(r.entries, 4));
  if (r.data_handle) data = *r.data_handle;
  Recipe props = r;
  props.props.data_size = data.size();
  BlockBuilder index(1);
  index.Add(r.entries.back().first, data.Encode());
  const BlockHandle index_handle = forge.AddBlock(index.Finish());
  BlockHandle props_handle =
      r.props_block ? forge.AddBlock(r.props_block->first, r.props_block->second)
                    : forge.AddBlock(BuildPropertiesBlock(props.props));
  if (r.props_handle) props_handle = *r.props_handle;
  const BlockHandle metaindex = forge.AddBlock(BuildMetaIndexBlock({{kPropertiesBlockName,
                                                                     props_handle}}));
  return forge.Finish(r.footer_metaindex.value_or(metaindex),
                      r.footer_index.value_or(index_handle));
}

class TableHostileFileTest : public ::testing::Test {
 protected:
  // Opens `bytes` as a table, claiming `claimed_size` (default: its real size).
  Status Open(const std::string& bytes, std::unique_ptr<TableReader>* reader,
              uint64_t claimed_size = kMax64) {
    EXPECT_OK(WriteStringToFile(fs_.get(), bytes, "/t.sst", /*sync=*/false));
    std::unique_ptr<RandomAccessFile> file;
    EXPECT_OK(fs_->NewRandomAccessFile("/t.sst", &file));
    return TableReader::Open(TableReaderOptions(), std::move(file),
                             claimed_size == kMax64 ? bytes.size() : claimed_size, "/t.sst", 1,
                             forge_.icmp(), nullptr, reader);
  }

  // Opening must fail with a Corruption naming the file.
  void ExpectOpenCorruption(const std::string& bytes, const std::string& what) {
    std::unique_ptr<TableReader> reader;
    Status s = Open(bytes, &reader);
    EXPECT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("/t.sst"), std::string::npos) << what << ": " << s.ToString();
    EXPECT_EQ(reader, nullptr) << what;
  }

  // Open works but every read that meets the data block fails with a Corruption.
  void ExpectReadCorruption(const std::string& bytes, const std::string& what) {
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(Open(bytes, &reader));
    std::vector<Entry> got;
    std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
    Status s = ScanAll(it.get(), &got);
    EXPECT_TRUE(s.IsCorruption()) << what << ": scan: " << s.ToString();
    EXPECT_TRUE(got.empty()) << what;
    s = GetAll(*reader, "m", 1000, &got);
    EXPECT_TRUE(s.IsCorruption()) << what << ": get: " << s.ToString();
  }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  TableForge forge_;
};

TEST_F(TableHostileFileTest, ForgedTableIsReadable) {
  // The forge itself makes good tables: the lies below are the only thing wrong.
  for (bool zstd : {false, true}) {
    Recipe r = GoodRecipe();
    if (zstd) {
      Compressor c(kZSTD, 1);
      std::string compressed;
      ASSERT_TRUE(c.Compress(BlockOf(r.entries, 4), &compressed));
      r.data_block = {{compressed, kZSTD}};
    }
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(Open(Forge(r), &reader));
    std::vector<Entry> got;
    std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
    ASSERT_OK(ScanAll(it.get(), &got));
    EXPECT_EQ(got, r.entries);
  }
}

// The cap on what a compressed block may claim never refuses an honest block, however well it
// compresses (zstd's best case: one 4-byte RLE block per 128 KiB).
TEST_F(TableHostileFileTest, HighlyCompressibleBlocksStillRead) {
  for (size_t n : {size_t{1} << 17, size_t{4} << 20}) {
    Recipe r = GoodRecipe();
    r.entries = {{MakeInternalKey("big", 1, kTypeValue), std::string(n, '\0')}};
    Compressor c(kZSTD, 19);
    std::string compressed;
    ASSERT_TRUE(c.Compress(BlockOf(r.entries, 4), &compressed));
    r.data_block = {{compressed, kZSTD}};
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(Open(Forge(r), &reader));
    std::vector<Entry> got;
    std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
    ASSERT_OK(ScanAll(it.get(), &got));
    EXPECT_EQ(got, r.entries) << n << " bytes compressed to " << compressed.size();
  }
}

TEST_F(TableHostileFileTest, FooterHandlesOutsideTheFile) {
  const std::string good = Forge(GoodRecipe());
  const uint64_t size = good.size();
  const BlockHandle lies[] = {
      {0, kHuge},        {kHuge, 10},    {size, 0},        {size - 10, 100},
      {kMax64 - 3, 10},  {10, kMax64 - 5}, {kMax64, kMax64}, {size - 48, 1},
  };
  for (const BlockHandle& h : lies) {
    Recipe r = GoodRecipe();
    r.footer_metaindex = h;
    ExpectOpenCorruption(Forge(r), "meta-index handle " + h.Encode());
    r = GoodRecipe();
    r.footer_index = h;
    ExpectOpenCorruption(Forge(r), "index handle");
  }
  // The meta-index before the index (outside the table's tail).
  Recipe r = GoodRecipe();
  r.footer_metaindex = BlockHandle(0, 10);
  ExpectOpenCorruption(Forge(r), "meta-index before the tail");
}

TEST_F(TableHostileFileTest, MetaIndexHandlesOutsideTheFile) {
  for (const BlockHandle& h : {BlockHandle(0, kHuge), BlockHandle(kHuge, 1),
                               BlockHandle(kMax64 - 2, 8), BlockHandle(0, kMax64),
                               BlockHandle(1, 3)}) {
    Recipe r = GoodRecipe();
    r.props_handle = h;
    ExpectOpenCorruption(Forge(r), "properties handle");
  }
}

TEST_F(TableHostileFileTest, IndexHandlesOutsideTheFile) {
  for (const BlockHandle& h : {BlockHandle(0, kHuge), BlockHandle(kHuge, 100),
                               BlockHandle(kMax64 - 2, 8), BlockHandle(0, kMax64),
                               BlockHandle(0, uint64_t{1} << 30), BlockHandle(3, 100000)}) {
    Recipe r = GoodRecipe();
    r.data_handle = h;
    ASSERT_NO_FATAL_FAILURE(ExpectReadCorruption(Forge(r), "data handle " + h.Encode()));
  }
}

TEST_F(TableHostileFileTest, HugePropertiesAreHarmless) {
  Recipe r = GoodRecipe();
  r.props.max_block_size = kMax64;
  r.props.num_entries = kMax64;
  r.props.num_data_blocks = kHuge;
  r.props.index_partitions = kHuge;
  r.props.raw_key_size = kMax64;
  r.props.filter_size = kMax64;
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(Open(Forge(r), &reader));
  std::vector<Entry> got;
  std::unique_ptr<InternalIterator> it = reader->NewIterator(TableReadOptions());
  ASSERT_OK(ScanAll(it.get(), &got));
  EXPECT_EQ(got, r.entries);
  EXPECT_LE(reader->ApproximateOffsetOf(r.entries.back().first), reader->file_size());

  r = GoodRecipe();
  r.props.index_type = 99;
  ExpectOpenCorruption(Forge(r), "unknown index type");
}

TEST_F(TableHostileFileTest, DecompressedLengthLies) {
  const uint64_t rss_before = PeakRss();
  // Claims within the 1 GiB block limit (which a tiny block cannot honestly reach), and over it.
  for (uint64_t claimed : {uint64_t{900} << 20, uint64_t{1} << 29, uint64_t{1} << 40, kMax64 - 1,
                           uint64_t{5}}) {
    const std::string frame = LyingZstdFrame(claimed, BlockOf(GoodRecipe().entries, 4));
    Recipe r = GoodRecipe();
    r.data_block = {{frame, kZSTD}};
    ASSERT_NO_FATAL_FAILURE(ExpectReadCorruption(Forge(r), "data block"));
    r = GoodRecipe();
    r.props_block = {{LyingZstdFrame(claimed, BuildPropertiesBlock(r.props)), kZSTD}};
    ExpectOpenCorruption(Forge(r), "properties block");
  }
  // A frame that cannot be decoded at all, and an empty one.
  for (std::string junk : {std::string("\x28\xb5\x2f\xfd", 4), std::string(),
                           std::string(100, '\xff')}) {
    Recipe r = GoodRecipe();
    r.data_block = {{junk, kZSTD}};
    ASSERT_NO_FATAL_FAILURE(ExpectReadCorruption(Forge(r), "junk zstd data block"));
  }
  // An unknown compression type byte.
  Recipe r = GoodRecipe();
  r.data_block = {{BlockOf(r.entries, 4), static_cast<CompressionType>(0x7f)}};
  ASSERT_NO_FATAL_FAILURE(ExpectReadCorruption(Forge(r), "unknown compression type"));
  // Nothing above was allowed to allocate what the frames claimed.
  EXPECT_LT(PeakRss() - rss_before, uint64_t{64} << 20)
      << "a lying decompressed length drove a large allocation";
}

TEST_F(TableHostileFileTest, BlockInternalsOverrun) {
  const std::string good = BlockOf(GoodRecipe().entries, 4);
  auto with_footer = [&](uint32_t footer) {
    std::string b = good;
    EncodeFixed32(b.data() + b.size() - kBlockFooterSize, footer);
    return b;
  };
  std::vector<std::pair<std::string, std::string>> blocks = {
      {"restart count 2^31-1", with_footer(kBlockNumRestartsMask)},
      {"restart count 0", with_footer(0)},
      {"restart count past the block", with_footer(static_cast<uint32_t>(good.size()))},
      {"hash index flag with no index", with_footer(kBlockHashIndexFlag | 1)},
      {"three bytes", std::string("\x01\x02\x03", 3)},
      {"empty", std::string()},
  };
  // A restart point past the entries.
  std::string bad_restart = good;
  EncodeFixed32(bad_restart.data() + bad_restart.size() - kBlockFooterSize - 4, 0x7fffffff);
  blocks.emplace_back("restart offset past the entries", bad_restart);
  // An entry whose key length runs past the block: varint lengths of 2^32-1.
  std::string overrun;
  overrun.push_back(0);                       // shared
  PutVarint32(&overrun, 0xffffffffu);         // non_shared
  PutVarint32(&overrun, 0xffffffffu);         // value length
  overrun.append(16, 'x');
  PutFixed32(&overrun, 0);  // restart 0
  PutFixed32(&overrun, 1);  // one restart
  blocks.emplace_back("entry lengths past the block", overrun);
  for (const auto& [what, block] : blocks) {
    Recipe r = GoodRecipe();
    r.data_block = {{block, kNoCompression}};
    ASSERT_NO_FATAL_FAILURE(ExpectReadCorruption(Forge(r), what));
  }
}

// Every prefix of real tables (compressed, with filters, with a partitioned index) is refused
// with a Corruption; so is a file shorter than the size its caller claims.
TEST_F(TableHostileFileTest, TruncatedFiles) {
  std::vector<std::string> tables = {Forge(GoodRecipe())};
  for (bool partitioned : {false, true}) {
    TableOptions topts;
    topts.block_size = 256;
    topts.filter_policy = NewBloomFilterPolicy(10);
    if (partitioned) {
      topts.index_type = TableOptions::kTwoLevelIndexSearch;
      topts.partition_filters = true;
      topts.metadata_block_size = 128;
    }
    std::vector<Entry> entries;
    for (int i = 0; i < 300; i++) {
      entries.emplace_back(MakeInternalKey("key" + std::to_string(1000 + i), 5, kTypeValue),
                           std::string(i % 50, 'v'));
    }
    ASSERT_OK(BuildTable(fs_.get(), "/real.sst", topts, kZSTD, forge_.icmp(), entries));
    std::string bytes;
    ASSERT_OK(ReadFileToString(fs_.get(), "/real.sst", &bytes));
    tables.push_back(bytes);
  }
  for (const std::string& table : tables) {
    for (size_t n = 0; n < table.size(); n += (n < 64 || table.size() - n < 64) ? 1 : 7) {
      std::unique_ptr<TableReader> reader;
      Status s = Open(table.substr(0, n), &reader);
      ASSERT_TRUE(s.IsCorruption()) << "prefix of " << n << " bytes: " << s.ToString();
    }
    for (uint64_t extra : {uint64_t{1}, uint64_t{100}, kHuge}) {
      std::unique_ptr<TableReader> reader;
      Status s = Open(table, &reader, table.size() + extra);
      ASSERT_TRUE(s.IsCorruption()) << "claimed " << extra << " more bytes: " << s.ToString();
    }
  }
}

}  // namespace
}  // namespace shale
