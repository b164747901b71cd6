// shale_demo: the README's "main job" until the DB and shale_bench land. Exercises the layers
// that exist on a default workload in a directory: writes N sorted entries (16-byte keys,
// 100-byte values, like db_bench's defaults) into an SST with SstFileWriter, opens it with the
// table reader (partitioned index and filters), scans it, looks up random present and absent
// keys, verifies every checksum, and prints what it did with rates.
// usage: shale_demo DIR [NUM_ENTRIES]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/internal_key.h"
#include "shale/file_system.h"
#include "shale/filter_policy.h"
#include "shale/sst_file_writer.h"
#include "shale/table_options.h"
#include "table/table_reader.h"
#include "util/random.h"

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Key(uint64_t i) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llu", static_cast<unsigned long long>(i));
  return buf;
}

bool Check(const shale::Status& s, const char* what) {
  if (s.ok()) return true;
  std::fprintf(stderr, "shale_demo: %s failed: %s\n", what, s.ToString().c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [NUM_ENTRIES]\n", argv[0]);
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/demo.sst";
  const uint64_t num = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;

  shale::TableOptions topts;
  topts.filter_policy = shale::NewBloomFilterPolicy(10);
  topts.index_type = shale::TableOptions::kTwoLevelIndexSearch;
  topts.partition_filters = true;

  // 1. Write.
  shale::Random rnd(301);
  std::string value = shale::CompressibleString(&rnd, 0.5, 100);
  auto start = Clock::now();
  shale::SstFileWriter writer(topts, shale::kNoCompression);
  if (!Check(writer.Open(path), "open for writing")) return 1;
  for (uint64_t i = 0; i < num; i++) {
    if (!Check(writer.Put(Key(i * 2), value), "put")) return 1;
  }
  shale::ExternalSstFileInfo info;
  if (!Check(writer.Finish(&info), "finish")) return 1;
  double secs = SecondsSince(start);
  std::printf("write : %llu entries, %.1f MB file, %.2f s, %.0f entries/s, %.1f MB/s of user data\n",
              static_cast<unsigned long long>(num), info.file_size / 1048576.0, secs, num / secs,
              num * 116.0 / 1048576.0 / secs);

  // 2. Open.
  auto fs = shale::FileSystem::Default();
  std::unique_ptr<shale::RandomAccessFile> file;
  uint64_t size = 0;
  if (!Check(fs->GetFileSize(path, &size), "stat")) return 1;
  if (!Check(fs->NewRandomAccessFile(path, &file), "open for reading")) return 1;
  shale::InternalKeyComparator icmp(shale::BytewiseComparator());
  std::unique_ptr<shale::TableReader> reader;
  start = Clock::now();
  if (!Check(shale::TableReader::Open({}, std::move(file), size, path, 1, &icmp, nullptr, &reader),
             "table open")) {
    return 1;
  }
  std::printf("open  : %.3f ms, reader keeps %zu bytes in memory (partitioned index and filter)\n",
              SecondsSince(start) * 1e3, reader->ApproximateMemoryUsage());

  // 3. Scan.
  start = Clock::now();
  uint64_t seen = 0;
  auto it = reader->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
  if (!Check(it->status(), "scan")) return 1;
  secs = SecondsSince(start);
  std::printf("scan  : %llu entries in %.2f s, %.0f entries/s\n",
              static_cast<unsigned long long>(seen), secs, seen / secs);
  if (seen != num) {
    std::fprintf(stderr, "shale_demo: scan saw %llu entries, wrote %llu\n",
                 static_cast<unsigned long long>(seen), static_cast<unsigned long long>(num));
    return 1;
  }

  // 4. Point lookups: even keys are present, odd keys absent.
  const uint64_t lookups = num < 200000 ? num : 200000;
  uint64_t found = 0;
  for (int present = 1; present >= 0; present--) {
    start = Clock::now();
    uint64_t hits = 0;
    for (uint64_t i = 0; i < lookups; i++) {
      uint64_t k = rnd.Uniform(num) * 2 + (present ? 0 : 1);
      shale::LookupKey lk(Key(k), shale::kMaxSequenceNumber);
      if (!Check(reader->Get({}, lk.internal_key(),
                             [&](std::string_view ikey, std::string_view) {
                               if (shale::ExtractUserKey(ikey) == lk.user_key()) hits++;
                               return false;
                             }),
                 "get")) {
        return 1;
      }
    }
    secs = SecondsSince(start);
    std::printf("get   : %llu %s keys, %llu found, %.2f us/lookup\n",
                static_cast<unsigned long long>(lookups), present ? "present" : "absent",
                static_cast<unsigned long long>(hits), secs * 1e6 / lookups);
    if (present) found = hits;
    if (!present && hits != 0) return 1;
  }
  if (found != lookups) return 1;

  // 5. Verify.
  start = Clock::now();
  if (!Check(reader->VerifyChecksums(), "verify")) return 1;
  std::printf("verify: every block checksum OK in %.2f s\n", SecondsSince(start));
  return 0;
}
