// libFuzzer entry point for IngestExternalFile with hostile files: the input is a table file
// (seeded with SstFileWriter output, so that mutations reach past the footer), ingested into a
// small DB on the in-memory file system that already holds a table and a memtable of
// overlapping keys. Ingestion may refuse the file with any error, but must never crash; when it
// accepts it the DB must stay usable: reads (scans both ways, point lookups of every key seen)
// end without crashing and with either OK or a Corruption/NotSupported status (a mutated data
// block with a valid checksum is found only when read), and the DB must reopen.
//
// The ingestion options come from the input's size (bits 0-3): verify checksums before ingest,
// write the global sequence number into the file, ingest behind, move (link) the file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/iterator.h"
#include "shale/options.h"
#include "shale/status.h"

namespace {

using shale::Status;

constexpr const char* kDbName = "/db";
constexpr const char* kFilePath = "/ingest.sst";
// Caps the work of one input's scans.
constexpr size_t kMaxSteps = 20000;

void Check(bool ok, const char* what, const Status& s = Status::OK()) {
  if (!ok) {
    std::fprintf(stderr, "ingest_fuzzer: check failed: %s (%s)\n", what, s.ToString().c_str());
    std::abort();
  }
}

// A read may meet damage the ingestion did not look for; anything else is a bug.
void CheckReadStatus(const Status& s, const char* what) {
  Check(s.ok() || s.IsCorruption() || s.IsNotSupported(), what, s);
}

shale::Options DbOptions(std::shared_ptr<shale::FileSystem> fs) {
  shale::Options options;
  options.file_system = std::move(fs);
  options.create_if_missing = true;
  options.allow_ingest_behind = true;
  options.write_buffer_size = 64 << 10;
  return options;
}

// Keys of the seed tables' shape ("key%06d", multiples of 3), some in a table, some in the
// memtable, so that ingestion meets overlaps at both.
void Prefill(shale::DB* db) {
  shale::WriteOptions w;
  for (int i = 0; i < 20; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%06d", i * 9);
    Check(db->Put(w, key, "db-value").ok(), "prefill put");
    if (i == 9) Check(db->Flush(shale::FlushOptions()).ok(), "prefill flush");
  }
}

// Scans the DB both ways and looks up the keys seen; checks only that the reads end well.
void ReadAll(shale::DB* db) {
  shale::ReadOptions r;
  r.verify_checksums = true;
  std::unique_ptr<shale::Iterator> it = db->NewIterator(r);
  std::vector<std::string> keys;
  size_t steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < kMaxSteps; it->Next(), steps++) {
    if (keys.size() < 64) keys.emplace_back(it->key());
  }
  CheckReadStatus(it->status(), "forward scan");
  for (it->SeekToLast(); it->Valid() && steps < 2 * kMaxSteps; it->Prev(), steps++) {
  }
  CheckReadStatus(it->status(), "backward scan");
  for (const std::string& k : keys) {
    std::string value;
    Status s = db->Get(r, k, &value);
    Check(s.ok() || s.IsNotFound() || s.IsCorruption() || s.IsNotSupported(), "get", s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  const shale::Options options = DbOptions(fs);
  std::unique_ptr<shale::DB> db;
  Check(shale::DB::Open(options, kDbName, &db).ok(), "open");
  Prefill(db.get());

  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Check(shale::WriteStringToFile(fs.get(), bytes, kFilePath, false).ok(), "write the file");
  shale::IngestExternalFileOptions ingest;
  ingest.verify_checksums_before_ingest = (size & 1) != 0;
  ingest.write_global_seqno = (size & 2) != 0;
  ingest.ingest_behind = (size & 4) != 0;
  ingest.move_files = (size & 8) != 0;
  Status s = db->IngestExternalFile({kFilePath}, ingest);
  if (s.ok()) {
    ReadAll(db.get());
    s = db->Close();
    CheckReadStatus(s, "close after ingestion");  // a compaction may have met the damage
    db.reset();
    s = shale::DB::Open(options, kDbName, &db);
    Check(s.ok(), "reopen after ingestion", s);
    ReadAll(db.get());
  } else {
    // A refused file leaves the DB as it was.
    std::string value;
    Check(db->Get(shale::ReadOptions(), "key000009", &value).ok() && value == "db-value",
          "the DB is intact after a refused ingestion");
  }
  db->Close().PermitUncheckedError();
  return 0;
}
