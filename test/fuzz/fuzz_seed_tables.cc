// Writes a few small tables with different layouts (full and partitioned filters, binary and
// two-level indexes, hash index) and codecs (none, zstd, Snappy, zlib, LZ4, LZ4HC) into a
// directory, as the seed corpus of the table reader fuzzer: random bytes rarely pass the footer
// checksum, mutations of real tables reach deep (into each codec's decoder).
// usage: fuzz_seed_tables DIR
#include <cstdio>
#include <string>

#include "shale/filter_policy.h"
#include "shale/sst_file_writer.h"
#include "shale/table_options.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const shale::CompressionType kCodecs[] = {shale::kNoCompression,     shale::kZSTD,
                                            shale::kSnappyCompression, shale::kZlibCompression,
                                            shale::kLZ4Compression,    shale::kLZ4HCCompression};
  for (int layout = 0; layout < 6; layout++) {
    shale::TableOptions t;
    t.block_size = 256;
    t.filter_policy = shale::NewBloomFilterPolicy(10);
    if (layout >= 2) {
      t.index_type = shale::TableOptions::kTwoLevelIndexSearch;
      t.metadata_block_size = 128;
      t.partition_filters = layout >= 3;
    }
    if (layout == 4) t.data_block_index_type = shale::TableOptions::kDataBlockBinaryAndHash;
    const shale::CompressionType c = kCodecs[layout];
    shale::SstFileWriter writer(t, c, shale::BytewiseComparator());
    std::string path = dir + "/seed" + std::to_string(layout) + ".sst";
    shale::Status s = writer.Open(path);
    for (int i = 0; s.ok() && i < 200; i++) {
      char key[16];
      std::snprintf(key, sizeof(key), "key%06d", i * 3);
      if (i % 17 == 5) {
        s = writer.Delete(key);
      } else {
        s = writer.Put(key, std::string(i % 40, static_cast<char>('a' + i % 26)));
      }
    }
    if (s.ok() && layout == 5) s = writer.DeleteRange("key900000", "key999999");
    if (s.ok()) s = writer.Finish();
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
      return 1;
    }
  }
  return 0;
}
