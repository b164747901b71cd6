// rocksdb_ingest_bench: RocksDB's side of issue 9's bulk-load benchmark, through its public API
// only. bench/CMakeLists.txt builds it against the benchmark opponent, the Release RocksDB
// 11.8.1 of bench/rocksdb/build.sh (SHALE_ROCKSDB_DIR), or else the system's librocksdb
// (Debian's 7.8.3); the banner on stderr names the version it was compiled against.
//
// What shale_bench's bulkload_sorted / bulkload_external do with ShaleDB, done RocksDB's way --
// RocksDB has no bulk loader, so the program sorts in memory itself:
//   1. prepare: --num pairs in random order (uniform key numbers in [0, num) as db_bench's
//      fillrandom draws them, duplicates included; keys and values formatted as shale_bench's
//      generators do) stored in one buffer in memory, then an index of them (each entry: the
//      first 8 key bytes and the pair's number) sorted by key with std::sort (--threads chunks
//      sorted in parallel, then merged); of equal keys the last one generated wins.
//   2. write: the distinct pairs split into --threads contiguous key ranges, each written by its
//      own thread with rocksdb::SstFileWriter into files cut at --target_file_size_base.
//   3. ingest: DB::IngestExternalFile(move_files=true) into an empty DB at --db.
// bulkload_runs does the same load at a scale where the pairs do not fit in memory (bench/compare's
// scale suite), the way a RocksDB user must, as RocksDB 11.8.1 ships no external sort: the
// pairs are generated in runs of as many as --bulkload_memory_budget holds (records and index
// entries, key_size + value_size + 16 bytes a pair), each run sorted and deduplicated as above,
// written with SstFileWriter on --threads threads into files cut at --target_file_size_base
// and ingested (move_files; each run overlaps the ones before, so RocksDB places it above them,
// down to L0); auto compactions run meanwhile unless --disable_auto_compactions=1; at the end
// CompactRange over the whole key space merges the runs into one sorted level. Of equal keys
// the last generated wins (a later run is ingested later, with a newer sequence number).
// Report lines, in db_bench's format (bench/compare reads them):
//   bulkload_external.prepare   num pairs over prepare (generate + sort + dedup)
//   bulkload_external.write     distinct pairs over write; MB/s of their user bytes
//   bulkload_external.ingest    files over ingest
//   bulkload_external           distinct pairs over write + ingest (shale_bench's definition:
//                               the pairs are given sorted, so prepare is not part of it)
//   bulkload_sorted             num pairs over prepare + write + ingest: the whole load from
//                               random-order input, what ShaleDB's bulk loader does
// and for bulkload_runs (times summed over the runs):
//   bulkload_runs.prepare       num pairs over generate + sort + dedup
//   bulkload_runs.write         pairs written over write; MB/s of their user bytes
//   bulkload_runs.ingest        files over ingest
//   bulkload_runs.compact       one operation: the final CompactRange
//   bulkload_runs               num pairs over the whole load (prepare + write + ingest +
//                               compact); MB/s of num x (key_size + value_size)
// Exit status: 0 on success, 1 when RocksDB fails, 2 on a usage error.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// ------------------------------------------------------------------------------------ Flags

struct Flags {
  int64_t num = 1000000;
  int key_size = 16;
  int value_size = 100;
  double compression_ratio = 0.5;
  uint64_t seed = 0;  // 0: from the clock, printed
  int threads = 2;
  uint64_t target_file_size_base = 64ull << 20;
  int bloom_bits = -1;  // < 0: no filter (db_bench's default)
  uint64_t block_size = 4096;
  std::string compression_type = "snappy";
  std::string db = "/tmp/rocksdb_ingest_bench";
  std::string benchmarks = "bulkload_external";
  uint64_t bulkload_memory_budget = 512ull << 20;  // bulkload_runs: bytes a run may hold
  bool disable_auto_compactions = false;           // bulkload_runs: until the final CompactRange
  int stats_dump_period_sec = 600;                 // Options::stats_dump_period_sec (the LOG)
};

constexpr char kUsage[] =
    "usage: rocksdb_ingest_bench [--flag=value ...]\n"
    "  --num=N                    pairs generated (default 1000000)\n"
    "  --key_size=N --value_size=N --compression_ratio=F   (16, 100, 0.5)\n"
    "  --seed=N                   key and value seed (0: from the clock)\n"
    "  --threads=N                sort and SstFileWriter threads (default 2)\n"
    "  --target_file_size_base=N  bytes at which a table file is cut (default 64 MiB)\n"
    "  --bloom_bits=N --block_size=N --compression_type=none|snappy|lz4|zstd|zlib\n"
    "  --db=DIR                   the DB, destroyed first (default /tmp/rocksdb_ingest_bench)\n"
    "  --benchmarks=bulkload_external|bulkload_sorted  (either runs the same load and prints\n"
    "                             every line; default bulkload_external)\n"
    "             |bulkload_runs  (the load in runs under a memory budget, then CompactRange)\n"
    "  --bulkload_memory_budget=N bulkload_runs: bytes of pairs and index a run holds (512 MiB)\n"
    "  --disable_auto_compactions=0|1  bulkload_runs: no auto compaction until the end (0)\n"
    "  --stats_dump_period_sec=N  seconds between the stats dumps to the DB's LOG (600)\n"
    "Accepted and ignored (bench/compare passes them to every tool): --write_buffer_size,\n"
    "--max_write_buffer_number, --cache_size, --histogram, --statistics,\n"
    "--report_interval_seconds, --report_file; --use_existing_db must be 0.\n";

constexpr std::string_view kIgnoredFlags[] = {
    "write_buffer_size", "max_write_buffer_number", "cache_size", "histogram", "statistics",
    "report_interval_seconds", "report_file"};

// Parses `text` as an integer in [lo, hi] into *out; false if it is not one.
template <typename T>
bool ParseInt(const std::string& text, long long lo, unsigned long long hi, T* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  if (text[0] == '-') {
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || v < lo) return false;
    *out = static_cast<T>(v);
    return true;
  }
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v > hi || (lo > 0 && v < static_cast<unsigned long long>(lo))) {
    return false;
  }
  *out = static_cast<T>(v);
  return true;
}

bool ParseDouble(const std::string& text, double lo, double hi, double* out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Sets one flag; false (and a message on stderr) if the name or value is bad.
bool SetFlag(const std::string& name, const std::string& value, Flags* f) {
  bool ok = true;
  if (name == "num") {
    ok = ParseInt(value, 1, UINT32_MAX, &f->num);
  } else if (name == "key_size") {
    ok = ParseInt(value, 8, 1 << 20, &f->key_size);
  } else if (name == "value_size") {
    ok = ParseInt(value, 0, 64 << 20, &f->value_size);
  } else if (name == "compression_ratio") {
    ok = ParseDouble(value, 0.0, 1.0, &f->compression_ratio);
  } else if (name == "seed") {
    ok = ParseInt(value, 0, UINT64_MAX, &f->seed);
  } else if (name == "threads") {
    ok = ParseInt(value, 1, 256, &f->threads);
  } else if (name == "target_file_size_base") {
    ok = ParseInt(value, 1, UINT64_MAX, &f->target_file_size_base);
  } else if (name == "bloom_bits") {
    ok = ParseInt(value, INT32_MIN, 64, &f->bloom_bits);
  } else if (name == "block_size") {
    ok = ParseInt(value, 1, UINT32_MAX, &f->block_size);
  } else if (name == "compression_type") {
    f->compression_type = value;
  } else if (name == "db") {
    f->db = value;
    ok = !value.empty();
  } else if (name == "benchmarks") {
    f->benchmarks = value;
    ok = value == "bulkload_external" || value == "bulkload_sorted" || value == "bulkload_runs";
  } else if (name == "bulkload_memory_budget") {
    ok = ParseInt(value, 65536, UINT64_MAX, &f->bulkload_memory_budget);
  } else if (name == "disable_auto_compactions") {
    ok = value == "0" || value == "1" || value == "false" || value == "true";
    f->disable_auto_compactions = value == "1" || value == "true";
  } else if (name == "stats_dump_period_sec") {
    ok = ParseInt(value, 0, INT32_MAX, &f->stats_dump_period_sec);
  } else if (name == "use_existing_db") {
    ok = value == "0" || value == "false";
  } else if (std::find(std::begin(kIgnoredFlags), std::end(kIgnoredFlags), name) ==
             std::end(kIgnoredFlags)) {
    std::fprintf(stderr, "rocksdb_ingest_bench: unknown flag --%s\n%s", name.c_str(), kUsage);
    return false;
  }
  if (!ok) {
    std::fprintf(stderr, "rocksdb_ingest_bench: bad value for --%s: '%s'\n%s", name.c_str(),
                 value.c_str(), kUsage);
  }
  return ok;
}

// Parses argv into *f; returns the exit status to stop with, or -1 to go on.
int ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      std::fprintf(stderr, "rocksdb_ingest_bench: expected --flag=value, got '%s'\n%s",
                   arg.c_str(), kUsage);
      return 2;
    }
    if (!SetFlag(arg.substr(2, eq - 2), arg.substr(eq + 1), f)) return 2;
  }
  if (f->seed == 0) f->seed = static_cast<uint64_t>(std::time(nullptr));
  return -1;
}

bool ToCompression(const std::string& name, rocksdb::CompressionType* out) {
  static constexpr struct {
    std::string_view name;
    rocksdb::CompressionType type;
  } kTypes[] = {{"none", rocksdb::kNoCompression},
                {"snappy", rocksdb::kSnappyCompression},
                {"lz4", rocksdb::kLZ4Compression},
                {"zstd", rocksdb::kZSTD},
                {"zlib", rocksdb::kZlibCompression}};
  for (const auto& t : kTypes) {
    if (t.name == name) {
      *out = t.type;
      return true;
    }
  }
  return false;
}

// ------------------------------------------------------------------------ Keys and values

// Values as shale_bench (and db_bench) make them: successive value_size slices of a 1 MiB
// buffer of 100-byte printable pieces, each repeating a random prefix of ratio x 100 bytes (so
// it compresses to about that ratio); a slice that would cross the end restarts at 0.
// Immutable after construction: safe to share between threads.
class ValueSource {
 public:
  ValueSource(int value_size, double ratio, uint64_t seed) : size_(value_size) {
    constexpr size_t kBuffer = 1 << 20, kPiece = 100;
    const size_t want = std::max(kBuffer, size_);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> printable(' ', '~');
    const size_t distinct = std::max<size_t>(1, static_cast<size_t>(kPiece * ratio));
    std::string piece(kPiece, ' ');
    while (data_.size() < want) {
      for (size_t i = 0; i < kPiece; i++) {
        piece[i] = i < distinct ? static_cast<char>(printable(rng)) : piece[i % distinct];
      }
      data_ += piece;
    }
    per_buffer_ = size_ == 0 ? 1 : data_.size() / size_;
  }

  // The value of the i-th pair generated.
  const char* Value(uint64_t i) const { return data_.data() + (i % per_buffer_) * size_; }

 private:
  const size_t size_;
  size_t per_buffer_ = 1;
  std::string data_;
};

// The generated pairs held in memory as a loading program holds its input before sorting it:
// one buffer of key_size + value_size records in generation order (about num x 116 bytes). Keys: a key number as its
// 8 bytes big-endian (numeric order is key order), then '0' up to key_size -- shale_bench's
// KeyFormatter layout. Filled once by Generate(); then read-only, shared by the threads.
class PairArena {
 public:
  // Room for `capacity` records.
  PairArena(int key_size, int value_size, size_t capacity)
      : key_size_(static_cast<size_t>(key_size)),
        record_(static_cast<size_t>(key_size) + static_cast<size_t>(value_size)),
        capacity_(capacity) {}

  // Allocates and fills the records: key numbers uniform in [0, count) (db_bench's fillrandom:
  // duplicates included), values from `values`.
  void Generate(uint64_t seed, const ValueSource& values) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<uint64_t> number(0, capacity_ - 1);
    GenerateRun(&rng, &number, values, 0, capacity_);
  }

  // Fills the first `count` (<= capacity) records with the next `count` pairs of the stream
  // `rng` and `number` draw key numbers from; `first` is the place of the first of them in the
  // whole stream (it picks the value). The buffer is allocated on the first call.
  void GenerateRun(std::mt19937_64* rng, std::uniform_int_distribution<uint64_t>* number,
                   const ValueSource& values, uint64_t first, size_t count) {
    if (data_ == nullptr) data_ = std::make_unique_for_overwrite<char[]>(record_ * capacity_);
    count_ = std::min(count, capacity_);
    for (size_t i = 0; i < count_; i++) {
      char* record = data_.get() + i * record_;
      const uint64_t v = (*number)(*rng);
      for (size_t b = 0; b < 8; b++) record[b] = static_cast<char>((v >> ((7 - b) * 8)) & 0xff);
      std::memset(record + 8, '0', key_size_ - 8);
      std::memcpy(record + key_size_, values.Value(first + i), record_ - key_size_);
    }
  }

  size_t count() const { return count_; }
  size_t key_size() const { return key_size_; }
  const char* KeyData(uint32_t i) const { return data_.get() + i * record_; }
  rocksdb::Slice Key(uint32_t i) const { return rocksdb::Slice(KeyData(i), key_size_); }
  rocksdb::Slice Value(uint32_t i) const {
    return rocksdb::Slice(KeyData(i) + key_size_, record_ - key_size_);
  }

 private:
  const size_t key_size_;
  const size_t record_;
  const size_t capacity_;
  size_t count_ = 0;  // records filled by the last Generate / GenerateRun
  std::unique_ptr<char[]> data_;
};

// What gets sorted: the first 8 key bytes as a big-endian integer (integer order is byte order,
// so most comparisons never leave the index) and the pair's place in generation order (which
// picks the winner among equal keys: the last one).
struct IndexEntry {
  uint64_t prefix;
  uint32_t seq;
};

uint64_t BigEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Key order (prefix, then the rest of the key bytes), then generation order.
class IndexLess {
 public:
  explicit IndexLess(const PairArena* arena) : arena_(arena) {}

  bool operator()(const IndexEntry& a, const IndexEntry& b) const {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const int c = CompareTails(a, b);
    return c != 0 ? c < 0 : a.seq < b.seq;
  }
  bool SameKey(const IndexEntry& a, const IndexEntry& b) const {
    return a.prefix == b.prefix && CompareTails(a, b) == 0;
  }

 private:
  int CompareTails(const IndexEntry& a, const IndexEntry& b) const {
    const size_t tail = arena_->key_size() - 8;
    return tail == 0 ? 0 : std::memcmp(arena_->KeyData(a.seq) + 8, arena_->KeyData(b.seq) + 8,
                                       tail);
  }

  const PairArena* arena_;
};

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sorts `index` on `threads` threads: contiguous chunks sorted in parallel, then merged
// pairwise, round by round.
void ParallelSort(std::vector<IndexEntry>* index, const IndexLess& less, int threads) {
  const size_t n = index->size();
  const size_t parts = std::max<size_t>(1, std::min<size_t>(threads, n));
  std::vector<size_t> bounds;
  for (size_t i = 0; i <= parts; i++) bounds.push_back(n * i / parts);
  auto run = [](size_t count, auto&& job) {
    std::vector<std::thread> workers;
    for (size_t i = 0; i < count; i++) workers.emplace_back(job, i);
    for (std::thread& t : workers) t.join();
  };
  const auto base = index->begin();
  run(parts, [&](size_t i) { std::sort(base + bounds[i], base + bounds[i + 1], less); });
  while (bounds.size() > 2) {
    std::vector<size_t> next;
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) next.push_back(bounds[i]);
    next.push_back(n);
    run((bounds.size() - 1) / 2, [&](size_t m) {
      std::inplace_merge(base + bounds[2 * m], base + bounds[2 * m + 1], base + bounds[2 * m + 2],
                         less);
    });
    bounds = std::move(next);
  }
}

// Leaves, of each run of equal keys in the sorted `index`, only the last generated.
void KeepLastOfEqualKeys(const IndexLess& less, std::vector<IndexEntry>* index) {
  size_t out = 0;
  for (size_t i = 0; i < index->size(); i++) {
    if (i + 1 < index->size() && less.SameKey((*index)[i + 1], (*index)[i])) continue;
    (*index)[out++] = (*index)[i];
  }
  index->resize(out);
}

// ------------------------------------------------------------------------------- Writing

// What one writer thread made.
struct WriterResult {
  rocksdb::Status status;
  std::vector<std::string> files;
  uint64_t user_bytes = 0;
  uint64_t file_bytes = 0;
};

// Writes the indexed pairs [begin, end) into files "<dir>/t<id>-<n>.sst" cut at
// target_file_size_base.
void WriteRange(const Flags& flags, const rocksdb::Options& options, const PairArena& arena,
                const std::vector<IndexEntry>& index, size_t begin, size_t end, int id,
                const std::string& dir, WriterResult* result) {
  std::unique_ptr<rocksdb::SstFileWriter> writer;
  rocksdb::ExternalSstFileInfo info;
  rocksdb::Status& s = result->status;
  for (size_t i = begin; s.ok() && i < end; i++) {
    if (writer == nullptr) {
      writer = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options);
      char name[64];
      std::snprintf(name, sizeof(name), "/t%d-%06zu.sst", id, result->files.size() + 1);
      result->files.push_back(dir + name);
      s = writer->Open(result->files.back());
      if (!s.ok()) break;
    }
    const rocksdb::Slice key = arena.Key(index[i].seq), value = arena.Value(index[i].seq);
    s = writer->Put(key, value);
    result->user_bytes += key.size() + value.size();
    if (s.ok() && (writer->FileSize() >= flags.target_file_size_base || i + 1 == end)) {
      s = writer->Finish(&info);
      result->file_bytes += info.file_size;
      writer.reset();
    }
  }
}

// ------------------------------------------------------------------------------ Reporting

// Prints one report line in db_bench's layout; MB/s only when bytes > 0.
void Report(const char* name, uint64_t ops, uint64_t bytes, double seconds,
            const std::string& message) {
  seconds = std::max(seconds, 1e-6);
  ops = std::max<uint64_t>(ops, 1);
  std::string extra;
  char buf[64];
  if (bytes > 0) {
    std::snprintf(buf, sizeof(buf), " %6.1f MB/s", static_cast<double>(bytes) / 1048576.0 / seconds);
    extra = buf;
  }
  if (!message.empty()) extra += " " + message;
  std::printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %" PRIu64 " operations;%s\n",
              name, seconds * 1e6 / static_cast<double>(ops),
              static_cast<long>(static_cast<double>(ops) / seconds), seconds, ops, extra.c_str());
}

std::string FilesPerLevel(rocksdb::DB* db) {
  std::string out;
  for (int level = 0; level < db->NumberLevels(); level++) {
    std::string n;
    const bool known = db->GetProperty("rocksdb.num-files-at-level" + std::to_string(level), &n);
    out += (level ? " L" : "L") + std::to_string(level) + ":";
    out += known ? n : std::string(1, '?');
  }
  return out;
}

// DB::Open into `db`. RocksDB 9.11 added the std::unique_ptr<DB>* form and later releases (the
// 11.8.1 opponent) removed the DB** one; Debian's 7.8.3, the fallback, has only DB**.
rocksdb::Status OpenDB(const rocksdb::Options& options, const std::string& path,
                       std::unique_ptr<rocksdb::DB>* db) {
#if ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 11)
  return rocksdb::DB::Open(options, path, db);
#else
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

int Fail(const char* what, const rocksdb::Status& s) {
  std::fprintf(stderr, "rocksdb_ingest_bench: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

void PrintHeader(const Flags& f) {
  std::fprintf(stderr, "RocksDB:    version %d.%d.%d\n", ROCKSDB_MAJOR, ROCKSDB_MINOR,
               ROCKSDB_PATCH);
  std::printf("Keys:       %d bytes each\nValues:     %d bytes each (compression ratio %.2f)\n"
              "Entries:    %" PRId64 "\nSeed:       %" PRIu64 "\nThreads:    %d (sort, write)\n"
              "Files cut:  at %" PRIu64 " bytes\nCompression: %s, bloom bits %d, block size %"
              PRIu64 "\nDB path: [%s]\n",
              f.key_size, f.value_size, f.compression_ratio, f.num, f.seed, f.threads,
              f.target_file_size_base, f.compression_type.c_str(), f.bloom_bits, f.block_size,
              f.db.c_str());
  std::fflush(stdout);
}

rocksdb::Options MakeOptions(const Flags& f, rocksdb::CompressionType compression) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.error_if_exists = true;
  o.compression = compression;
  o.target_file_size_base = f.target_file_size_base;
  o.stats_dump_period_sec = static_cast<unsigned int>(f.stats_dump_period_sec);
  rocksdb::BlockBasedTableOptions t;
  t.block_size = f.block_size;
  if (f.bloom_bits >= 0) t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(f.bloom_bits));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

// Sorts the index of the `arena`'s pairs and keeps the last of equal keys: the distinct pairs
// in key order.
std::vector<IndexEntry> SortedIndex(const Flags& f, const PairArena& arena) {
  std::vector<IndexEntry> index(arena.count());
  for (uint32_t i = 0; i < index.size(); i++) index[i] = {BigEndian64(arena.KeyData(i)), i};
  const IndexLess less(&arena);
  ParallelSort(&index, less, f.threads);
  KeepLastOfEqualKeys(less, &index);
  return index;
}

// Generation (into `arena`), sort and dedup: the index of the distinct pairs in key order.
std::vector<IndexEntry> Prepare(const Flags& f, PairArena* arena, double* generate_seconds,
                                double* sort_seconds) {
  Clock::time_point start = Clock::now();
  const ValueSource values(f.value_size, f.compression_ratio, f.seed + 1);
  arena->Generate(f.seed, values);
  *generate_seconds = Since(start);
  start = Clock::now();
  std::vector<IndexEntry> index = SortedIndex(f, *arena);
  *sort_seconds = Since(start);
  return index;
}

// What a load did and how long each phase took.
struct LoadResult {
  double generate_seconds = 0, sort_seconds = 0, write_seconds = 0, ingest_seconds = 0;
  size_t distinct = 0;
  std::vector<std::string> files;
  uint64_t user_bytes = 0, file_bytes = 0;
  std::string levels;  // files per level after the ingestion
};

// Writes the indexed pairs on --threads threads, each its own contiguous range of `index`;
// the files, in key order, go to result->files.
rocksdb::Status WriteFiles(const Flags& f, const rocksdb::Options& options,
                           const PairArena& arena, const std::vector<IndexEntry>& index,
                           const std::string& dir, LoadResult* result) {
  std::vector<WriterResult> parts(static_cast<size_t>(f.threads));
  std::vector<std::thread> writers;
  const size_t n = index.size(), threads = parts.size();
  for (size_t t = 0; t < threads; t++) {
    writers.emplace_back(WriteRange, std::cref(f), std::cref(options), std::cref(arena),
                         std::cref(index), n * t / threads, n * (t + 1) / threads,
                         static_cast<int>(t), std::cref(dir), &parts[t]);
  }
  for (std::thread& w : writers) w.join();
  for (const WriterResult& part : parts) {
    if (!part.status.ok()) return part.status;
    result->files.insert(result->files.end(), part.files.begin(), part.files.end());
    result->user_bytes += part.user_bytes;
    result->file_bytes += part.file_bytes;
  }
  return rocksdb::Status::OK();
}

void PrintReport(const Flags& f, const LoadResult& r) {
  const uint64_t num = static_cast<uint64_t>(f.num);
  const uint64_t entry_bytes = static_cast<uint64_t>(f.key_size) + f.value_size;
  const double prepare = r.generate_seconds + r.sort_seconds;
  char msg[256];
  std::snprintf(msg, sizeof(msg), "(generate %.3f s, sort %.3f s; %zu distinct keys)",
                r.generate_seconds, r.sort_seconds, r.distinct);
  Report("bulkload_external.prepare", num, 0, prepare, msg);
  std::snprintf(msg, sizeof(msg), "(%zu files, %.1f MiB, %d threads)", r.files.size(),
                static_cast<double>(r.file_bytes) / 1048576.0, f.threads);
  Report("bulkload_external.write", r.distinct, r.user_bytes, r.write_seconds, msg);
  Report("bulkload_external.ingest", r.files.size(), 0, r.ingest_seconds, "");
  std::snprintf(msg, sizeof(msg), "(%zu distinct keys of %" PRIu64 "; files per level %s)",
                r.distinct, num, r.levels.c_str());
  Report("bulkload_external", r.distinct, r.user_bytes, r.write_seconds + r.ingest_seconds, msg);
  std::snprintf(msg, sizeof(msg), "(prepare %.3f s, write %.3f s, ingest %.3f s)", prepare,
                r.write_seconds, r.ingest_seconds);
  Report("bulkload_sorted", num, num * entry_bytes,
         prepare + r.write_seconds + r.ingest_seconds, msg);
}

// Prepare, write and ingest into a fresh DB at --db (see the top of the file).
int Run(const Flags& f, const rocksdb::Options& options) {
  const std::string dir = f.db + "/external.tmp";
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // our own leftovers only
  rocksdb::Status s = rocksdb::DestroyDB(f.db, options);
  if (!s.ok()) return Fail("DestroyDB", s);

  LoadResult r;
  PairArena arena(f.key_size, f.value_size, static_cast<size_t>(f.num));
  const std::vector<IndexEntry> index =
      Prepare(f, &arena, &r.generate_seconds, &r.sort_seconds);
  r.distinct = index.size();

  std::unique_ptr<rocksdb::DB> db;
  s = OpenDB(options, f.db, &db);
  if (!s.ok()) return Fail("DB::Open", s);
  std::filesystem::create_directories(dir, ignored);

  Clock::time_point start = Clock::now();
  s = WriteFiles(f, options, arena, index, dir, &r);
  r.write_seconds = Since(start);
  if (!s.ok()) return Fail("SstFileWriter", s);
  start = Clock::now();
  rocksdb::IngestExternalFileOptions io;
  io.move_files = true;
  s = db->IngestExternalFile(r.files, io);
  r.ingest_seconds = Since(start);
  if (!s.ok()) return Fail("IngestExternalFile", s);
  std::filesystem::remove_all(dir, ignored);
  r.levels = FilesPerLevel(db.get());
  PrintReport(f, r);
  return 0;
}

// bulkload_runs (see the top of the file): the load in runs under --bulkload_memory_budget,
// each ingested as it is written, then one CompactRange.
int RunBudgeted(const Flags& f, rocksdb::Options options) {
  options.disable_auto_compactions = f.disable_auto_compactions;
  const std::string dir = f.db + "/external.tmp";
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);  // our own leftovers only
  rocksdb::Status s = rocksdb::DestroyDB(f.db, options);
  if (!s.ok()) return Fail("DestroyDB", s);
  const uint64_t num = static_cast<uint64_t>(f.num);
  const uint64_t entry_bytes = static_cast<uint64_t>(f.key_size) + f.value_size;
  const uint64_t run_pairs = std::clamp<uint64_t>(
      f.bulkload_memory_budget / (entry_bytes + sizeof(IndexEntry)), 1, num);

  const Clock::time_point load_start = Clock::now();
  std::unique_ptr<rocksdb::DB> db;
  s = OpenDB(options, f.db, &db);
  if (!s.ok()) return Fail("DB::Open", s);
  const ValueSource values(f.value_size, f.compression_ratio, f.seed + 1);
  std::mt19937_64 rng(f.seed);
  std::uniform_int_distribution<uint64_t> number(0, num - 1);  // fillrandom's key space
  PairArena arena(f.key_size, f.value_size, static_cast<size_t>(run_pairs));
  LoadResult r;
  size_t runs = 0, written = 0, files = 0;
  for (uint64_t first = 0; first < num; first += run_pairs, runs++) {
    Clock::time_point start = Clock::now();
    arena.GenerateRun(&rng, &number, values, first,
                      static_cast<size_t>(std::min(run_pairs, num - first)));
    r.generate_seconds += Since(start);
    start = Clock::now();
    const std::vector<IndexEntry> index = SortedIndex(f, arena);
    r.sort_seconds += Since(start);
    written += index.size();
    const std::string run_dir = dir + "/run" + std::to_string(runs);
    std::filesystem::create_directories(run_dir, ignored);
    LoadResult run;
    start = Clock::now();
    s = WriteFiles(f, options, arena, index, run_dir, &run);
    r.write_seconds += Since(start);
    if (!s.ok()) return Fail("SstFileWriter", s);
    r.user_bytes += run.user_bytes;
    r.file_bytes += run.file_bytes;
    files += run.files.size();
    start = Clock::now();
    rocksdb::IngestExternalFileOptions io;
    io.move_files = true;
    s = db->IngestExternalFile(run.files, io);
    r.ingest_seconds += Since(start);
    if (!s.ok()) return Fail("IngestExternalFile", s);
    std::fprintf(stderr, "bulkload_runs: run %zu: %zu pairs, %zu distinct, %zu files; %s\n",
                 runs + 1, arena.count(), index.size(), run.files.size(),
                 FilesPerLevel(db.get()).c_str());
  }
  std::filesystem::remove_all(dir, ignored);
  const std::string before = FilesPerLevel(db.get());
  Clock::time_point start = Clock::now();
  s = db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
  const double compact_seconds = Since(start);
  if (!s.ok()) return Fail("CompactRange", s);
  const double total = Since(load_start);
  r.levels = FilesPerLevel(db.get());

  const double prepare = r.generate_seconds + r.sort_seconds;
  char msg[512];
  std::snprintf(msg, sizeof(msg), "(generate %.3f s, sort %.3f s; %zu runs of up to %" PRIu64
                " pairs)", r.generate_seconds, r.sort_seconds, runs, run_pairs);
  Report("bulkload_runs.prepare", num, 0, prepare, msg);
  std::snprintf(msg, sizeof(msg), "(%zu files, %.1f MiB, %d threads)", files,
                static_cast<double>(r.file_bytes) / 1048576.0, f.threads);
  Report("bulkload_runs.write", written, r.user_bytes, r.write_seconds, msg);
  std::snprintf(msg, sizeof(msg), "(files per level after: %s)", before.c_str());
  Report("bulkload_runs.ingest", files, 0, r.ingest_seconds, msg);
  std::snprintf(msg, sizeof(msg), "(files per level after: %s)", r.levels.c_str());
  Report("bulkload_runs.compact", 1, 0, compact_seconds, msg);
  std::snprintf(msg, sizeof(msg), "(%zu runs under a %" PRIu64 "-byte budget; prepare %.3f s, "
                "write %.3f s, ingest %.3f s, compact %.3f s; auto compactions %s; files per "
                "level %s)", runs, f.bulkload_memory_budget, prepare, r.write_seconds,
                r.ingest_seconds, compact_seconds, f.disable_auto_compactions ? "off" : "on",
                r.levels.c_str());
  Report("bulkload_runs", num, num * entry_bytes, total, msg);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  const int stop = ParseFlags(argc, argv, &flags);
  if (stop >= 0) return stop;
  rocksdb::CompressionType compression;
  if (!ToCompression(flags.compression_type, &compression)) {
    std::fprintf(stderr, "rocksdb_ingest_bench: bad --compression_type '%s'\n%s",
                 flags.compression_type.c_str(), kUsage);
    return 2;
  }
  PrintHeader(flags);
  if (flags.benchmarks == "bulkload_runs") {
    return RunBudgeted(flags, MakeOptions(flags, compression));
  }
  return Run(flags, MakeOptions(flags, compression));
}
