// RocksDB's spellings that ShaleDB reads (issue 19, "RocksDB's option strings load";
// doc/options.md): compression_opts and bottommost_compression_opts in both their nested and
// colon forms, and bloom filter bits per key outside [1, 100].
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shale/file_system.h"
#include "shale/options.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

Status ParseInto(const std::string& text, Options* out) {
  return GetOptionsFromString(Options(), text, out);
}

TEST(OptionsRocksDbSpellingTest, CompressionOptsLevelIsTheCompressionLevel) {
  Options o;
  ASSERT_OK(ParseInto("compression_opts={level=7}", &o));
  EXPECT_EQ(o.compression_level, 7);
  // RocksDB's OPTIONS-file form, with every field it writes.
  ASSERT_OK(ParseInto(
      "compression_opts={checksum=false;max_dict_buffer_bytes=0;enabled=false;max_dict_bytes=0;"
      "max_compressed_bytes_per_kb=896;parallel_threads=1;zstd_max_train_bytes=0;level=5;"
      "strategy=0;window_bits=-14;use_zstd_dict_trainer=true;}",
      &o));
  EXPECT_EQ(o.compression_level, 5);
  // kDefaultCompressionLevel (32767): zstd's default, 0 here.
  ASSERT_OK(ParseInto("compression_opts={level=32767}", &o));
  EXPECT_EQ(o.compression_level, 0);
  // The colon form: window_bits:level:strategy:max_dict_bytes[:...].
  ASSERT_OK(ParseInto("compression_opts=-14:9:0:0", &o));
  EXPECT_EQ(o.compression_level, 9);
  ASSERT_OK(ParseInto("compression_opts=-14:-3:0:0:0:1:false:0:true", &o));
  EXPECT_EQ(o.compression_level, -3);
  // No level given: the level stays.
  Options base;
  base.compression_level = 4;
  ASSERT_OK(GetOptionsFromString(base, "compression_opts={window_bits=-14}", &o));
  EXPECT_EQ(o.compression_level, 4);
  // A level beyond zstd's is clamped at Open, as zstd does under RocksDB.
  ASSERT_OK(ParseInto("compression_opts={level=40}", &o));
  EXPECT_OK(o.Validate());
}

TEST(OptionsRocksDbSpellingTest, CompressionOptsIsNotPrinted) {
  Options o;
  ASSERT_OK(ParseInto("compression_opts={level=7}", &o));
  const std::string text = GetStringFromOptions(o);
  EXPECT_EQ(text.find("compression_opts"), std::string::npos) << text;
  EXPECT_NE(text.find("compression_level=7"), std::string::npos) << text;
  Options back;
  ASSERT_OK(ParseInto(text, &back));
  EXPECT_EQ(back.compression_level, 7);
}

TEST(OptionsRocksDbSpellingTest, WhatCannotBeHonouredIsRefused) {
  struct Case {
    std::string text;
    std::string names;  // the start of the message
  };
  const std::vector<Case> cases = {
      {"compression_opts={max_dict_bytes=16384}", "compression_opts.max_dict_bytes: "},
      {"compression_opts={zstd_max_train_bytes=1}", "compression_opts.zstd_max_train_bytes: "},
      {"compression_opts=-14:3:0:16384", "compression_opts.max_dict_bytes: "},
      {"compression_opts={no_such_field=1}", "compression_opts.no_such_field"},
      {"compression_opts={level=x}", "compression_opts.level"},
      {"compression_opts={level=99999999999}", "compression_opts.level"},
      {"compression_opts=-14:3", "compression_opts"},
      {"compression_opts=1:2:3:0:0:1:false:0:true:9", "compression_opts"},
      {"bottommost_compression_opts={enabled=true;level=9}",
       "bottommost_compression_opts.enabled: "},
      {"bottommost_compression_opts={max_dict_bytes=1}",
       "bottommost_compression_opts.max_dict_bytes: "},
  };
  for (const Case& c : cases) {
    Options o;
    Status s = ParseInto(c.text, &o);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.text << ": " << s.ToString();
    EXPECT_NE(s.message().find(c.names), std::string::npos) << s.ToString();
  }
}

TEST(OptionsRocksDbSpellingTest, BottommostCompressionOptsDisabledIsAccepted) {
  Options o;
  ASSERT_OK(ParseInto(
      "compression_opts={level=6};bottommost_compression_opts={checksum=false;"
      "max_dict_buffer_bytes=0;enabled=false;max_dict_bytes=0;parallel_threads=1;"
      "zstd_max_train_bytes=0;level=32767;strategy=0;window_bits=-14;"
      "use_zstd_dict_trainer=true;}",
      &o));
  EXPECT_EQ(o.compression_level, 6);  // a disabled bottommost level changes nothing
  ASSERT_OK(ParseInto("bottommost_compression_opts=-14:32767:0:0:0:1:false", &o));
}

// In an OPTIONS file an unknown sub-field is skipped with a note, like any unknown option.
TEST(OptionsRocksDbSpellingTest, OptionsFileReadsCompressionOpts) {
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  const std::string file =
      "[Version]\n  rocksdb_version=8.1.1\n  options_file_version=1.1\n"
      "[DBOptions]\n  create_if_missing=true\n"
      "[CFOptions \"default\"]\n"
      "  compression=kZSTD\n"
      "  bottommost_compression_opts={enabled=false;level=32767;future_field=1;}\n"
      "  compression_opts={level=4;window_bits=-14;future_field=2;}\n"
      "[TableOptions/BlockBasedTable \"default\"]\n  block_size=4096\n";
  ASSERT_OK(WriteStringToFile(fs.get(), file, "/OPTIONS-000005", false));
  Options loaded;
  std::vector<std::string> warnings;
  ASSERT_OK(LoadOptionsFromFile(fs.get(), "/OPTIONS-000005", &loaded, &warnings));
  EXPECT_EQ(loaded.compression, kZSTD);
  EXPECT_EQ(loaded.compression_level, 4);
  ASSERT_EQ(warnings.size(), 2u) << testing::PrintToString(warnings);
  EXPECT_NE(warnings[0].find("bottommost_compression_opts.future_field"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find("compression_opts.future_field"), std::string::npos)
      << warnings[1];
  EXPECT_OK(loaded.Validate());
}

TEST(OptionsRocksDbSpellingTest, BloomBitsPerKeyAsRocksDB) {
  Options o;
  for (const char* none : {"0", "0.4", "-3"}) {
    ASSERT_OK(ParseInto(std::string("block_based_table_factory={filter_policy=bloomfilter:") +
                            none + ":false}",
                        &o));
    EXPECT_EQ(o.table_options.filter_policy, nullptr) << none;  // no filter, as RocksDB
  }
  ASSERT_OK(ParseInto("block_based_table_factory={filter_policy=bloomfilter:0.5:false}", &o));
  ASSERT_NE(o.table_options.filter_policy, nullptr);
  EXPECT_EQ(o.table_options.filter_policy->bits_per_key(), 1);
  ASSERT_OK(ParseInto("block_based_table_factory={filter_policy=bloomfilter:1000}", &o));
  ASSERT_NE(o.table_options.filter_policy, nullptr);
  EXPECT_EQ(o.table_options.filter_policy->bits_per_key(), 100);
}

}  // namespace
}  // namespace shale
