// libFuzzer entry point: the input bytes are opened as a table file (through the in-memory file
// system) and read every way a reader can: forward and backward scans, seeks, point lookups of
// the keys seen, offsets, range deletions, checksum verification. Reads run with and without
// checksum verification, so that damaged data blocks reach the block parser. Any crash, hang
// or sanitizer report is a bug; errors are fine.
//
// Random bytes rarely get past the footer's checksum, so seed the corpus with real tables (for
// example files written by SstFileWriter or table_test) and let the fuzzer mutate them: the
// data blocks are not verified at Open, so mutations there reach the reads.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "table/table_reader.h"

namespace {

using shale::InternalIterator;
using shale::Status;

// Caps the work one input can cause (a damaged block can hold many tiny entries).
constexpr size_t kMaxSteps = 20000;

void Exercise(const shale::TableReader& reader, bool verify) {
  shale::TableReadOptions options;
  options.verify_checksums = verify;
  options.fill_cache = false;
  std::unique_ptr<InternalIterator> it = reader.NewIterator(options);
  std::vector<std::string> keys;
  size_t steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < kMaxSteps; it->Next(), steps++) {
    if (keys.size() < 64) keys.emplace_back(it->key());
  }
  it->status().PermitUncheckedError();
  for (it->SeekToLast(); it->Valid() && steps < 2 * kMaxSteps; it->Prev(), steps++) {
  }
  it->status().PermitUncheckedError();
  for (const std::string& k : keys) {
    it->Seek(k);
    it->SeekForPrev(k);
    reader.ApproximateOffsetOf(k);
    if (k.size() < shale::kInternalKeyTrailerSize) continue;
    shale::LookupKey lookup(shale::ExtractUserKey(k), shale::kMaxSequenceNumber);
    size_t found = 0;
    reader
        .Get(options, lookup.internal_key(),
             [&](std::string_view, std::string_view) { return ++found < 100; })
        .PermitUncheckedError();
  }
  std::unique_ptr<InternalIterator> tombstones = reader.NewRangeTombstoneIterator();
  for (tombstones->SeekToFirst(); tombstones->Valid(); tombstones->Next()) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const shale::InternalKeyComparator* const kComparator =
      new shale::InternalKeyComparator(shale::BytewiseComparator());
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  const std::string path = "/fuzz.sst";
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!shale::WriteStringToFile(fs.get(), bytes, path, false).ok()) return 0;
  std::unique_ptr<shale::RandomAccessFile> file;
  if (!fs->NewRandomAccessFile(path, &file).ok()) return 0;
  std::unique_ptr<shale::TableReader> reader;
  Status s = shale::TableReader::Open(shale::TableReaderOptions(), std::move(file), size, path,
                                      /*cache_id=*/1, kComparator, nullptr, &reader);
  if (!s.ok()) return 0;
  reader->ApproximateMemoryUsage();
  Exercise(*reader, /*verify=*/true);
  Exercise(*reader, /*verify=*/false);
  reader->VerifyChecksums().PermitUncheckedError();
  return 0;
}
