// A DB with each built codec (issue 24: Snappy, zlib, LZ4, LZ4HC beside zstd), through the public
// API on the in-memory file system:
// - random puts and deletes, flushed, compacted and reopened, read back (Get and a full scan)
//   against a std::map model; every table names the codec in its properties and the tables
//   are smaller than the data;
// - bottommost_compression gives the bottom level its own codec;
// - SetOptions switches the codec of later tables, and refuses bzip2 naming the supported ones;
// - Open refuses bzip2 and xpress with InvalidArgument naming the type.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/internal_key.h"
#include "compression/codec.h"
#include "shale/db.h"
#include "table/table_reader.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

constexpr char kDb[] = "/db";

std::string Key(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}

Options SmallOptions(CompressionType compression, CompressionType bottommost) {
  Options o;
  o.create_if_missing = true;
  o.file_system = NewMemFileSystem();
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 128 << 10;
  o.max_bytes_for_level_base = 512 << 10;
  o.compression = compression;
  o.bottommost_compression = bottommost;
  o.compression_level = 0;  // each codec's default level
  return o;
}

// Every key of the DB (Get of each model key and of absent neighbours, then a full scan) is
// what the model says.
void ExpectMatches(DB* db, const Model& model) {
  std::string value;
  for (const auto& [key, want] : model) {
    SCOPED_TRACE(key);
    ASSERT_OK(db->Get(ReadOptions(), key, &value));
    ASSERT_EQ(value, want) << key;
    ASSERT_TRUE(db->Get(ReadOptions(), key + "-", &value).IsNotFound()) << key;
  }
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end()) << it->key();
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second);
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(m, model.end());
}

// The compression named in the properties of each live table file, and their total size.
struct TableCodecs {
  std::map<std::string, int> files_by_codec;
  uint64_t bytes = 0;
};

TableCodecs ReadTableCodecs(FileSystem* fs) {
  TableCodecs result;
  std::vector<std::string> names;
  EXPECT_OK(fs->GetChildren(kDb, &names));
  InternalKeyComparator icmp(BytewiseComparator());
  for (const std::string& name : names) {
    if (name.size() < 4 || name.substr(name.size() - 4) != ".sst") continue;
    const std::string path = std::string(kDb) + "/" + name;
    uint64_t size = 0;
    std::unique_ptr<RandomAccessFile> file;
    EXPECT_OK(fs->GetFileSize(path, &size));
    EXPECT_OK(fs->NewRandomAccessFile(path, &file));
    std::unique_ptr<TableReader> reader;
    EXPECT_OK(TableReader::Open(TableReaderOptions(), std::move(file), size, path, 1, &icmp,
                                nullptr, &reader));
    if (reader == nullptr) continue;
    result.files_by_codec[reader->properties().compression_name]++;
    result.bytes += size;
  }
  return result;
}

class DBCompressionTest : public ::testing::TestWithParam<CompressionType> {
 protected:
  CompressionType codec() const { return GetParam(); }
};

TEST_P(DBCompressionTest, WrittenFlushedCompactedAndReopenedMatchesTheModel) {
  Options options = SmallOptions(codec(), kDisableCompressionOption);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDb, &db));
  Model model;
  Random rnd(static_cast<uint64_t>(codec()) + 100);
  uint64_t raw_bytes = 0;
  for (int i = 0; i < 20000; i++) {
    const std::string key = Key(rnd.Uniform(8000));
    if (rnd.OneIn(8)) {
      ASSERT_OK(db->Delete(WriteOptions(), key));
      model.erase(key);
    } else {
      std::string value = CompressibleString(&rnd, 0.4, 60 + rnd.Uniform(200));
      raw_bytes += key.size() + value.size();
      ASSERT_OK(db->Put(WriteOptions(), key, value));
      model[key] = std::move(value);
    }
    if (i % 5000 == 4999) ASSERT_OK(db->Flush(FlushOptions()));
  }
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));
  ASSERT_OK(db->Close());
  db.reset();

  ASSERT_OK(DB::Open(options, kDb, &db));
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));
  const TableCodecs tables = ReadTableCodecs(options.file_system.get());
  ASSERT_EQ(tables.files_by_codec.size(), 1u);
  EXPECT_EQ(tables.files_by_codec.begin()->first, CompressionTypeName(codec()));
  // Values compress to ~40%: the live tables (keys, values, index, filter) stay well under the
  // live data; without compression they hold more than it.
  uint64_t live_bytes = 0;
  for (const auto& [k, v] : model) live_bytes += k.size() + v.size();
  if (codec() == kNoCompression) {
    EXPECT_GT(tables.bytes, live_bytes);
  } else {
    EXPECT_LT(tables.bytes, live_bytes * 3 / 4) << "written: " << raw_bytes;
  }
  ASSERT_OK(db->Close());
}

INSTANTIATE_TEST_SUITE_P(Built, DBCompressionTest,
                         ::testing::Values(kNoCompression, kSnappyCompression, kZlibCompression,
                                           kLZ4Compression, kLZ4HCCompression, kZSTD),
                         [](const ::testing::TestParamInfo<CompressionType>& info) {
                           return std::string(CompressionTypeName(info.param));
                         });

// L0 tables use `compression`; what compaction writes to the bottom uses bottommost's codec.
TEST(DBCompressionBottommostTest, BottomLevelUsesItsOwnCodec) {
  const std::pair<CompressionType, CompressionType> pairs[] = {
      {kLZ4Compression, kSnappyCompression},
      {kSnappyCompression, kLZ4HCCompression},
      {kNoCompression, kLZ4Compression},
      {kLZ4HCCompression, kZSTD},
      {kLZ4Compression, kZlibCompression},
      {kZlibCompression, kSnappyCompression}};
  for (const auto& [upper, bottom] : pairs) {
    SCOPED_TRACE(std::string(CompressionTypeName(upper)) + " / " + CompressionTypeName(bottom));
    Options options = SmallOptions(upper, bottom);
    options.disable_auto_compactions = true;
    options.write_buffer_size = 4 << 20;  // only the explicit flushes make tables
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, kDb, &db));
    Model model;
    Random rnd(7);
    for (int i = 0; i < 4000; i++) {
      const std::string key = Key(rnd.Uniform(3000));
      model[key] = CompressibleString(&rnd, 0.5, 120);
      ASSERT_OK(db->Put(WriteOptions(), key, model[key]));
      if (i % 1000 == 999) ASSERT_OK(db->Flush(FlushOptions()));
    }
    TableCodecs tables = ReadTableCodecs(options.file_system.get());
    EXPECT_EQ(tables.files_by_codec, (std::map<std::string, int>{{CompressionTypeName(upper), 4}}));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    ASSERT_OK(db->Close());
    ASSERT_OK(DB::Open(options, kDb, &db));  // the reopen drops the compacted inputs
    tables = ReadTableCodecs(options.file_system.get());
    ASSERT_EQ(tables.files_by_codec.size(), 1u);
    EXPECT_EQ(tables.files_by_codec.begin()->first, CompressionTypeName(bottom));
    ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));
    ASSERT_OK(db->Close());
  }
}

TEST(DBCompressionSetOptionsTest, SwitchesTheCodecOfLaterTables) {
  Options options = SmallOptions(kNoCompression, kDisableCompressionOption);
  options.disable_auto_compactions = true;
  options.write_buffer_size = 4 << 20;  // only the explicit flushes make tables
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDb, &db));
  Model model;
  Random rnd(11);
  const char* const names[] = {"kSnappyCompression", "kLZ4Compression", "kLZ4HCCompression",
                               "kZlibCompression"};
  for (int round = 0; round < 4; round++) {
    ASSERT_OK(db->SetOptions({{"compression", names[round]}}));
    for (int i = 0; i < 500; i++) {
      const std::string key = Key(round * 1000 + i);
      model[key] = CompressibleString(&rnd, 0.5, 100);
      ASSERT_OK(db->Put(WriteOptions(), key, model[key]));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  const TableCodecs tables = ReadTableCodecs(options.file_system.get());
  EXPECT_EQ(tables.files_by_codec,
            (std::map<std::string, int>{{"Snappy", 1}, {"LZ4", 1}, {"LZ4HC", 1}, {"Zlib", 1}}));
  ASSERT_NO_FATAL_FAILURE(ExpectMatches(db.get(), model));

  Status s = db->SetOptions({{"compression", "kBZip2Compression"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("kBZip2Compression"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("kZlibCompression"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("kLZ4HCCompression"), std::string::npos) << s.ToString();
  ASSERT_OK(db->Close());
}

TEST(DBCompressionOpenTest, UnbuiltCodecsAreRefusedNamingTheType) {
  const std::pair<CompressionType, const char*> unbuilt[] = {
      {kBZip2Compression, "kBZip2Compression"},
      {kXpressCompression, "kXpressCompression"}};
  for (const auto& [type, name] : unbuilt) {
    for (bool bottom : {false, true}) {
      Options options =
          SmallOptions(bottom ? kLZ4Compression : type, bottom ? type : kDisableCompressionOption);
      std::unique_ptr<DB> db;
      Status s = DB::Open(options, kDb, &db);
      ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
      EXPECT_NE(s.ToString().find(bottom ? "bottommost_compression: " : "compression: "),
                std::string::npos)
          << s.ToString();
      EXPECT_NE(s.ToString().find(std::string("got ") + name), std::string::npos) << s.ToString();
      EXPECT_NE(s.ToString().find("supported: kNoCompression, kSnappyCompression, "
                                  "kZlibCompression, kLZ4Compression, kLZ4HCCompression, kZSTD"),
                std::string::npos)
          << s.ToString();
    }
  }
}

}  // namespace
}  // namespace shale
