// Writes the seed corpus of one fuzz target into a directory: real encodings made by the
// engine's own writers (BlockBuilder, log::Writer, VersionEdit::EncodeTo, WriteBatch,
// GetStringFromOptions, WriteOptionsFile), each prefixed with the mode byte its fuzzer expects,
// so that mutations start from valid inputs and reach deep into the decoders.
// usage: fuzz_seeds block|wal|version_edit|write_batch|options|capi DIR
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/write_batch.h"
#include "table/block_builder.h"
#include "version/version_edit.h"
#include "wal/log_writer.h"

namespace {

using Seeds = std::vector<std::string>;

std::string Key(int i) {
  char key[16];
  std::snprintf(key, sizeof(key), "key%06d", i);
  return key;
}

// Raw blocks (mode 0: bytewise keys; mode 1: internal keys, with and without a hash index),
// and inputs of the built mode (random bytes after mode bytes 2, 3 and 7).
Seeds BlockSeeds() {
  Seeds seeds;
  for (int layout = 0; layout < 4; layout++) {
    const bool internal = layout >= 1;
    shale::BlockBuilder builder(layout == 3 ? 1 : 4, /*use_hash_index=*/layout == 2);
    for (int i = 0; i < 40; i++) {
      std::string key = Key(i * 7);
      if (internal) key = shale::MakeInternalKey(key, 100 - i, shale::kTypeValue);
      builder.Add(key, std::string(i % 9, 'v'));
    }
    seeds.push_back(std::string(1, internal ? 1 : 0) + std::string(builder.Finish()));
  }
  std::mt19937 rng(7);
  for (char mode : {2, 3, 7}) {
    std::string s(1, mode);
    for (int i = 0; i < 400; i++) s.push_back(static_cast<char>(rng()));
    seeds.push_back(s);
  }
  return seeds;
}

// Mode 0: a log with small records, an empty one and one that spans two blocks. Mode 1:
// record-making bytes for the written mode.
Seeds WalSeeds() {
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  {
    std::unique_ptr<shale::WritableFile> file;
    if (!fs->NewWritableFile("/log", &file).ok()) return {};
    shale::log::Writer writer(std::move(file));
    for (int i = 0; i < 20; i++) writer.AddRecord(Key(i) + std::string(i * 10, 'r')).ok();
    writer.AddRecord("").ok();
    writer.AddRecord(std::string(40000, 'x')).ok();
    writer.AddRecord("tail").ok();
    writer.Close().ok();
  }
  std::string log;
  if (!shale::ReadFileToString(fs.get(), "/log", &log).ok()) return {};
  std::mt19937 rng(11);
  std::string written(1, 1);
  for (int i = 0; i < 300; i++) written.push_back(static_cast<char>(rng()));
  return {std::string(1, 0) + log, written};
}

// An edit with every field set, and the first record of a new MANIFEST.
Seeds VersionEditSeeds() {
  shale::VersionEdit full;
  full.SetComparatorName("leveldb.BytewiseComparator");
  full.SetLogNumber(12);
  full.SetPrevLogNumber(0);
  full.SetNextFile(40);
  full.SetLastSequence(123456);
  full.SetCompactPointer(1, shale::MakeInternalKey("m", 7, shale::kTypeValue));
  full.DeleteFile(0, 9);
  full.DeleteFile(2, 11);
  for (int i = 0; i < 3; i++) {
    shale::FileMetaData f;
    f.number = 20 + i;
    f.file_size = 4096 * (i + 1);
    f.smallest = shale::MakeInternalKey(Key(i * 100), 50, shale::kTypeValue);
    f.largest = shale::MakeInternalKey(Key(i * 100 + 99), 60, shale::kTypeDeletion);
    f.smallest_seqno = 50;
    f.largest_seqno = 60;
    f.num_entries = 100;
    f.num_deletions = 3;
    f.num_range_deletions = i;
    f.raw_key_size = 1700;
    f.raw_value_size = 9000;
    f.creation_time = 1700000000;
    f.global_seqno = i == 2 ? 77 : 0;
    full.AddFile(i, f);
  }
  shale::VersionEdit first;
  first.SetComparatorName("leveldb.BytewiseComparator");
  first.SetLogNumber(1);
  first.SetNextFile(2);
  first.SetLastSequence(0);
  Seeds seeds(2);
  full.EncodeTo(&seeds[0]);
  first.EncodeTo(&seeds[1]);
  return seeds;
}

Seeds WriteBatchSeeds() {
  shale::WriteBatch batch;
  for (int i = 0; i < 10; i++) batch.Put(Key(i), std::string(i, 'v')).ok();
  batch.Delete(Key(3)).ok();
  batch.SingleDelete(Key(4)).ok();
  batch.DeleteRange(Key(5), Key(8)).ok();
  batch.Merge(Key(9), "+1").ok();
  shale::WriteBatch one;
  one.Put("k", "v").ok();
  return {batch.Data(), one.Data(), shale::WriteBatch().Data()};
}

// Mode 0: option strings (every option as printed, and hand-written nested ones). Mode 1:
// OPTIONS files.
Seeds OptionsSeeds() {
  shale::Options tuned;
  tuned.PrepareForBulkLoad();
  tuned.OptimizeForPointLookup(8);
  Seeds seeds = {
      std::string(1, 0) + shale::GetStringFromOptions(shale::Options()),
      std::string(1, 0) + shale::GetStringFromOptions(tuned),
      std::string(1, 0) +
          "write_buffer_size=4M;compaction_style=kCompactionStyleUniversal;"
          "compaction_options_universal={size_ratio=2;min_merge_width=3};"
          "block_based_table_factory={block_size=8K;filter_policy=bloomfilter:10:false;"
          "index_type=kTwoLevelIndexSearch;partition_filters=true};compression=kZSTD",
      std::string(1, 0) + "compaction_style=kCompactionStyleFIFO;"
                          "compaction_options_fifo={max_table_files_size=1G};"
                          "wal_recovery_mode=kPointInTimeRecovery",
  };
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  std::string file;
  if (shale::WriteOptionsFile(fs.get(), "/OPTIONS", tuned).ok() &&
      shale::ReadFileToString(fs.get(), "/OPTIONS", &file).ok()) {
    seeds.push_back(std::string(1, 1) + file);
  }
  return seeds;
}

// Random call sequences, long enough for a few dozen calls each.
Seeds CapiSeeds() {
  Seeds seeds;
  std::mt19937 rng(13);
  for (int s = 0; s < 8; s++) {
    std::string bytes;
    for (int i = 0; i < 200 + 100 * s; i++) bytes.push_back(static_cast<char>(rng()));
    seeds.push_back(bytes);
  }
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s block|wal|version_edit|write_batch|options|capi DIR\n",
                 argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  Seeds seeds;
  if (kind == "block") {
    seeds = BlockSeeds();
  } else if (kind == "wal") {
    seeds = WalSeeds();
  } else if (kind == "version_edit") {
    seeds = VersionEditSeeds();
  } else if (kind == "write_batch") {
    seeds = WriteBatchSeeds();
  } else if (kind == "options") {
    seeds = OptionsSeeds();
  } else if (kind == "capi") {
    seeds = CapiSeeds();
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "%s: no seeds for '%s'\n", argv[0], kind.c_str());
    return 1;
  }
  std::shared_ptr<shale::FileSystem> fs = shale::FileSystem::Default();
  for (size_t i = 0; i < seeds.size(); i++) {
    const std::string path = std::string(argv[2]) + "/" + kind + std::to_string(i);
    shale::Status s = shale::WriteStringToFile(fs.get(), seeds[i], path, false);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
