// Options at their extremes (issue 19, "close the classes"): every numeric option of Options,
// TableOptions and the compaction-style options at 0, 1, -1 (where the type has it), its
// documented minimum and maximum and the type's maximum, plus the pairs that interact (L0
// triggers, level sizes, memtable counts and budgets). Each case must either be refused at
// Open with InvalidArgument naming one of its options, or work: a mixed write load finishes,
// Flush and a full CompactRange finish, every key reads back, and a reopen with the same
// options succeeds and reads every key again. A hang, a crash, a Corruption or a failed reopen
// fails the case. The dynamic options go through SetOptions (SetDBOptions for the DB's) the
// same way.
//
// Each case runs in a forked child with a deadline (the watchdog), so a hang or a crash is
// reported as a failure naming the case instead of hanging or killing the suite. The parent
// forks before it starts any DB, so the child inherits a single-threaded process.
//
// CI runs a deterministic sample of the matrix (plus the cases of the findings) to
// stay within ~20 s; SHALE_STRESS=1 runs every case.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cfloat>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/write_batch.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr const char* kDbName = "/extremes";

bool StressMode() {
  const char* v = std::getenv("SHALE_STRESS");
  return v != nullptr && std::string_view(v) == "1";
}

// What a case ended with.
struct Outcome {
  enum Kind { kWorked, kRefused, kFailed } kind = kFailed;
  std::string detail;
};

// Runs `body` in a forked child with a deadline. The child reports through a pipe: "W" (worked),
// "R<message>" (refused as allowed) or "F<message>" (failed). A child that is still running at
// the deadline is killed and reported as a hang; one that dies without a report as a crash.
// Thread-safety: call from one thread, with no other threads running in the process.
Outcome RunWithWatchdog(const std::function<Outcome()>& body, std::chrono::seconds deadline) {
  int fds[2];
  if (pipe(fds) != 0) return {Outcome::kFailed, "pipe() failed"};
  const pid_t pid = fork();
  if (pid < 0) return {Outcome::kFailed, "fork() failed"};
  if (pid == 0) {
    close(fds[0]);
    Outcome o;
    try {
      o = body();
    } catch (const std::exception& e) {
      o = {Outcome::kFailed, std::string("exception: ") + e.what()};
    } catch (...) {
      o = {Outcome::kFailed, "exception"};
    }
    std::string msg(1, o.kind == Outcome::kWorked ? 'W' : o.kind == Outcome::kRefused ? 'R' : 'F');
    msg += o.detail;
    size_t off = 0;
    while (off < msg.size()) {
      ssize_t n = write(fds[1], msg.data() + off, msg.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);  // skip destructors and atexit handlers of the copied parent state
  }
  close(fds[1]);
  std::string report;
  const auto end = std::chrono::steady_clock::now() + deadline;
  bool eof = false;
  while (!eof) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    char buf[4096];
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      report.append(buf, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  if (!eof) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return {Outcome::kFailed, "hang: no result within " + std::to_string(deadline.count()) + " s"};
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (report.empty()) {
    return {Outcome::kFailed,
            WIFSIGNALED(status) ? "crash: signal " + std::to_string(WTERMSIG(status))
                                : "crash: no report"};
  }
  Outcome o;
  o.kind = report[0] == 'W' ? Outcome::kWorked
           : report[0] == 'R' ? Outcome::kRefused
                              : Outcome::kFailed;
  o.detail = report.substr(1);
  return o;
}

// ---- The load a case must survive, and its model.

using Model = std::map<std::string, std::string>;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%06d", i);
  return buf;
}

// Puts (small, medium and a few 8 KiB values), overwrites, deletes, merges and batches: about
// `approx_bytes` of user data, enough to fill many 64 KiB memtables.
// Without `merges` the merges are puts (FIFO drops old tables by design, and with them the
// older operands of a key: the merged value is then partial, which the model cannot follow).
Status WriteLoad(DB* db, Model* model, size_t approx_bytes, int seed, bool merges) {
  WriteOptions wo;
  size_t written = 0;
  uint32_t x = static_cast<uint32_t>(seed) * 2654435761u + 1;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  };
  for (int i = 0; written < approx_bytes; i++) {
    const uint32_t r = next();
    const std::string key = Key(static_cast<int>(r % 4000));
    Status s;
    if (r % 10 == 0) {
      s = db->Delete(wo, key);
      if (s.ok()) model->erase(key);
      written += key.size();
    } else if (r % 10 == 2 && merges) {
      // BaseOptions' operator is stringappend with ",".
      const std::string op = "m" + std::to_string(i);
      s = db->Merge(wo, key, op);
      if (s.ok()) {
        auto it = model->find(key);
        if (it == model->end()) {
          (*model)[key] = op;
        } else {
          it->second += "," + op;
        }
      }
      written += key.size() + op.size();
    } else if (r % 10 == 1) {
      WriteBatch batch;
      for (int j = 0; j < 8; j++) {
        const std::string k = Key(static_cast<int>((r + j * 7919) % 4000));
        const std::string v = "b" + std::to_string(i) + "." + std::to_string(j);
        Status put = batch.Put(k, v);
        if (!put.ok()) return put;
        written += k.size() + v.size();
      }
      s = db->Write(wo, &batch);
      if (s.ok()) {
        for (int j = 0; j < 8; j++) {
          (*model)[Key(static_cast<int>((r + j * 7919) % 4000))] =
              "b" + std::to_string(i) + "." + std::to_string(j);
        }
      }
    } else {
      const size_t len = r % 97 == 0 ? 8192 : 10 + (r >> 8) % 300;
      std::string value(len, static_cast<char>('a' + r % 26));
      value += std::to_string(i);
      s = db->Put(wo, key, value);
      if (s.ok()) (*model)[key] = value;
      written += key.size() + value.size();
    }
    if (!s.ok()) return Status::Corruption("write " + std::to_string(i), s.ToString());
  }
  return Status::OK();
}

// Every key of the model reads back (Get and a full scan). With `may_drop` (FIFO, which deletes
// old tables by design) a key may be missing, but a key that is there has its latest value.
Status CheckModel(DB* db, const Model& model, bool may_drop) {
  for (const auto& [key, value] : model) {
    std::string got;
    Status s = db->Get(ReadOptions(), key, &got);
    if (s.IsNotFound() && may_drop) continue;
    if (!s.ok()) return Status::Corruption("Get " + key, s.ToString());
    if (got != value) return Status::Corruption("Get " + key, "wrong value");
  }
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  size_t seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    auto m = model.find(std::string(it->key()));
    if (m == model.end()) return Status::Corruption("scan: unexpected key", it->key());
    if (m->second != it->value()) return Status::Corruption("scan: wrong value", it->key());
    seen++;
  }
  if (!it->status().ok()) return Status::Corruption("scan", it->status().ToString());
  if (!may_drop && seen != model.size()) return Status::Corruption("scan: keys missing");
  return Status::OK();
}

Options BaseOptions() {
  Options o;
  o.create_if_missing = true;
  o.file_system = NewMemFileSystem();
  o.write_buffer_size = 64 << 10;
  o.merge_operator = NewStringAppendOperator(",");
  return o;
}

bool NamesOneOf(const Status& s, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (s.message().substr(0, n.size() + 1) == n + ":") return true;
  }
  return false;
}

// The body of a case (runs in the child): open with `options` (refusal allowed if it names one
// of `names`), load, flush, compact, check, reopen, check. With `set_options`, open with the
// base options and apply the change through SetOptions instead.
Outcome RunCase(const Options& options, const std::vector<std::string>& names,
                const std::unordered_map<std::string, std::string>* set_options,
                size_t load_bytes) {
  std::unique_ptr<DB> db;
  Status s = DB::Open(options, kDbName, &db);
  if (!s.ok()) {
    if (s.IsInvalidArgument() && NamesOneOf(s, names)) return {Outcome::kRefused, s.ToString()};
    return {Outcome::kFailed, "Open: " + s.ToString()};
  }
  if (set_options != nullptr) {
    // The DB's options go through SetDBOptions, a column family's through SetOptions (as
    // RocksDB: each refuses the other's names).
    std::unordered_map<std::string, std::string> db_changes, cf_changes;
    for (const auto& [name, value] : *set_options) {
      DBOptions probe;
      const bool db_scope = GetDBOptionsFromString(DBOptions(), name + "=" + value, &probe).ok();
      (db_scope ? db_changes : cf_changes)[name] = value;
    }
    s = Status::OK();
    if (!db_changes.empty()) s = db->SetDBOptions(db_changes);
    if (s.ok() && !cf_changes.empty()) s = db->SetOptions(cf_changes);
    if (!s.ok()) {
      if (s.IsInvalidArgument() && NamesOneOf(s, names)) {
        return {Outcome::kRefused, s.ToString()};
      }
      return {Outcome::kFailed, "SetOptions: " + s.ToString()};
    }
  }
  const Options live = db->GetOptions();
  const bool may_drop = live.compaction_style == kCompactionStyleFIFO;
  Model model;
  s = WriteLoad(db.get(), &model, load_bytes, 1, !may_drop);
  if (!s.ok()) return {Outcome::kFailed, "load: " + s.ToString()};
  s = db->Flush(FlushOptions());
  if (!s.ok()) return {Outcome::kFailed, "Flush: " + s.ToString()};
  s = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  if (!s.ok()) return {Outcome::kFailed, "CompactRange: " + s.ToString()};
  s = CheckModel(db.get(), model, may_drop);
  if (!s.ok()) return {Outcome::kFailed, "check: " + s.ToString()};
  // A second load after the compaction, left partly in the memtable for the reopen.
  s = WriteLoad(db.get(), &model, load_bytes / 4, 2, !may_drop);
  if (!s.ok()) return {Outcome::kFailed, "load 2: " + s.ToString()};
  s = db->Close();
  if (!s.ok()) return {Outcome::kFailed, "Close: " + s.ToString()};
  db.reset();
  Options reopen = live;
  reopen.create_if_missing = false;
  s = DB::Open(reopen, kDbName, &db);
  if (!s.ok()) return {Outcome::kFailed, "reopen: " + s.ToString()};
  s = CheckModel(db.get(), model, may_drop);
  if (!s.ok()) return {Outcome::kFailed, "check after reopen: " + s.ToString()};
  s = db->Close();
  if (!s.ok()) return {Outcome::kFailed, "Close after reopen: " + s.ToString()};
  return {Outcome::kWorked, ""};
}

// One case of the matrix: an options string applied to BaseOptions().
struct Case {
  std::string text;                // "name=value;..." (GetOptionsFromString syntax)
  std::vector<std::string> names;  // options a refusal may name
  bool dynamic = false;            // also run through SetOptions
  bool always = false;             // part of the CI sample whatever the sampling
};

std::string Num(long double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17Lg", v);
  return buf;
}

// The values a numeric option is tried at.
enum class Kind { kInt, kUnsigned32, kSize, kDouble };

std::vector<std::string> ExtremeValues(Kind kind, std::vector<std::string> documented) {
  std::vector<std::string> v = {"0", "1"};
  switch (kind) {
    case Kind::kInt:
      v.push_back("-1");
      v.push_back(std::to_string(INT_MAX));
      v.push_back(std::to_string(INT_MIN));
      break;
    case Kind::kUnsigned32:
      v.push_back(std::to_string(UINT32_MAX));
      break;
    case Kind::kSize:
      v.push_back(std::to_string(UINT64_MAX));
      break;
    case Kind::kDouble:
      v.push_back("-1");
      v.push_back("0.5");
      v.push_back(Num(DBL_MAX));
      break;
  }
  for (std::string& d : documented) v.push_back(std::move(d));
  return v;
}

struct NumericOption {
  std::string name;  // as in option strings; nested ones as "outer.inner"
  Kind kind;
  std::vector<std::string> documented;  // documented bounds and notable values
  bool dynamic;
};

// "outer.inner=value" -> "outer={inner=value}".
std::string Assign(const std::string& name, const std::string& value) {
  size_t dot = name.find('.');
  if (dot == std::string::npos) return name + "=" + value;
  return name.substr(0, dot) + "={" + name.substr(dot + 1) + "=" + value + "}";
}

// Findings owned by other engineers: these values are left out of the matrix until their fixes
// land (each names its finding).
bool ExcludedByOtherFinding(const std::string& name, const std::string& value) {
  // Finding 10: tiny db_write_buffer_size values hang the first writes.
  if (name == "db_write_buffer_size" && value != "0" && value != std::to_string(UINT64_MAX)) {
    return true;
  }
  // Finding 4: block_size is uncapped; a huge block cannot be read back.
  if (name == "block_based_table_factory.block_size" && value == std::to_string(UINT64_MAX)) {
    return true;
  }
  // Finding 17: max_subcompactions starts one thread per split point, unbounded.
  if (name == "max_subcompactions" && value == std::to_string(UINT32_MAX)) return true;
  return false;
}

std::vector<NumericOption> NumericOptions() {
  const std::string k64k = std::to_string(64 << 10);
  return {
      // Options: memtables.
      {"write_buffer_size", Kind::kSize, {k64k, std::to_string((64 << 10) - 1), "68719476736"}, true},
      {"max_write_buffer_number", Kind::kInt, {"2", "64"}, true},
      {"min_write_buffer_number_to_merge", Kind::kInt, {"2"}, false},
      {"db_write_buffer_size", Kind::kSize, {}, false},
      {"max_successive_merges", Kind::kSize, {"2"}, true},
      // Compression.
      {"compression_level", Kind::kInt, {"22", "23", "-131072", "-131073", "32767"}, true},
      // LSM shape.
      {"num_levels", Kind::kInt, {"2", "3", "64", "65", "100"}, false},
      {"level0_file_num_compaction_trigger", Kind::kInt, {"2"}, true},
      {"level0_slowdown_writes_trigger", Kind::kInt, {"2"}, true},
      {"level0_stop_writes_trigger", Kind::kInt, {"2"}, true},
      {"target_file_size_base", Kind::kSize, {"4096"}, true},
      {"target_file_size_multiplier", Kind::kInt, {"10"}, true},
      {"max_bytes_for_level_base", Kind::kSize, {"4096"}, true},
      {"max_bytes_for_level_multiplier", Kind::kDouble, {"1.5", "1000"}, true},
      // Compaction.
      {"ttl", Kind::kSize, {}, true},
      {"max_background_jobs", Kind::kInt, {"16"}, true},
      {"max_subcompactions", Kind::kUnsigned32, {"4", "64"}, true},
      {"soft_pending_compaction_bytes_limit", Kind::kSize, {"4096"}, true},
      {"hard_pending_compaction_bytes_limit", Kind::kSize, {"4096"}, true},
      {"delayed_write_rate", Kind::kSize, {"16384"}, true},
      {"compaction_options_universal.size_ratio", Kind::kUnsigned32, {"100"}, true},
      {"compaction_options_universal.min_merge_width", Kind::kUnsigned32, {"2"}, true},
      {"compaction_options_universal.max_merge_width", Kind::kUnsigned32, {"2"}, true},
      {"compaction_options_universal.max_size_amplification_percent", Kind::kUnsigned32, {},
       true},
      {"compaction_options_fifo.max_table_files_size", Kind::kSize, {"65536"}, true},
      // Files and recovery.
      {"max_open_files", Kind::kInt, {"19", "20"}, false},
      {"max_manifest_file_size", Kind::kSize, {"4096"}, false},
      // Tables.
      {"block_based_table_factory.block_size", Kind::kSize, {"256", "65536"}, false},
      {"block_based_table_factory.block_restart_interval", Kind::kInt, {"1000"}, false},
      {"block_based_table_factory.index_block_restart_interval", Kind::kInt, {"16"}, false},
      {"block_based_table_factory.metadata_block_size", Kind::kSize, {"256"}, false},
      {"block_based_table_factory.data_block_hash_table_util_ratio", Kind::kDouble, {"0.75"},
       false},
      {"block_based_table_factory.format_version", Kind::kUnsigned32, {"5"}, false},
  };
}

// The styles a compaction-style option is tried under.
std::string StyleFor(const std::string& name) {
  if (name.rfind("compaction_options_universal", 0) == 0) {
    return "compaction_style=kCompactionStyleUniversal;";
  }
  if (name.rfind("compaction_options_fifo", 0) == 0) return "compaction_style=kCompactionStyleFIFO;";
  return "";
}

std::vector<Case> Matrix() {
  std::vector<Case> cases;
  for (const NumericOption& opt : NumericOptions()) {
    for (const std::string& value : ExtremeValues(opt.kind, opt.documented)) {
      if (ExcludedByOtherFinding(opt.name, value)) continue;
      Case c;
      c.text = StyleFor(opt.name) + Assign(opt.name, value);
      c.names = {opt.name};
      // A nested option's refusal may name the struct (compaction_options_fifo: ...).
      if (opt.name.find('.') != std::string::npos) {
        c.names.push_back(opt.name.substr(0, opt.name.find('.')));
      }
      c.dynamic = opt.dynamic;
      cases.push_back(std::move(c));
    }
  }
  // The options under other compaction styles that react to the numeric ones.
  for (const char* style : {"kCompactionStyleUniversal", "kCompactionStyleFIFO",
                            "kCompactionStyleNone"}) {
    for (const char* extra :
         {"", "level0_file_num_compaction_trigger=1;level0_slowdown_writes_trigger=1;"
              "level0_stop_writes_trigger=1",
          "num_levels=1", "max_write_buffer_number=1"}) {
      Case c;
      c.text = std::string("compaction_style=") + style + ";" + extra;
      c.names = {"num_levels", "compaction_style", "level0_file_num_compaction_trigger",
                 "level0_slowdown_writes_trigger", "level0_stop_writes_trigger",
                 "max_write_buffer_number"};
      cases.push_back(std::move(c));
    }
  }
  // Options that matter only together with another: the compression level under zstd, the
  // hash index's utilization, filters and the partitioned index.
  for (const std::string& level : {std::string("0"), std::string("1"), std::string("-1"),
                                   std::string("22"), std::string("-131072"),
                                   std::to_string(INT_MAX), std::to_string(INT_MIN)}) {
    cases.push_back({"compression=kZSTD;compression_level=" + level, {"compression_level"}, true});
    cases.push_back({"compression=kNoCompression;bottommost_compression=kZSTD;"
                     "compression_opts={level=" + level + "}",
                     {"compression_level"}});
  }
  for (const char* ratio : {"0", "0.01", "0.5", "1", "1.5"}) {
    cases.push_back({std::string("block_based_table_factory={data_block_index_type="
                                 "kDataBlockBinaryAndHash;data_block_hash_table_util_ratio=") +
                         ratio + "}",
                     {"block_based_table_factory.data_block_hash_table_util_ratio"}});
  }
  for (const char* bits : {"0", "0.5", "1", "100", "1000"}) {
    for (const char* meta : {"1", "256", "18446744073709551615"}) {
      cases.push_back({std::string("block_based_table_factory={filter_policy=bloomfilter:") +
                           bits + ";index_type=kTwoLevelIndexSearch;partition_filters=true;"
                           "metadata_block_size=" + meta + "}",
                       {"block_based_table_factory.metadata_block_size"}});
    }
  }
  // Pairs that interact.
  const std::vector<std::string> l0 = {"level0_file_num_compaction_trigger",
                                       "level0_slowdown_writes_trigger",
                                       "level0_stop_writes_trigger"};
  const std::vector<std::string> l0_values = {"0", "1", "2", "4", "20", std::to_string(INT_MAX)};
  for (size_t a = 0; a < l0.size(); a++) {
    for (size_t b = a + 1; b < l0.size(); b++) {
      for (const std::string& va : l0_values) {
        for (const std::string& vb : l0_values) {
          cases.push_back({l0[a] + "=" + va + ";" + l0[b] + "=" + vb, {l0[a], l0[b]}, true});
        }
      }
    }
  }
  for (const char* base : {"1", "4096", "18446744073709551615"}) {
    for (const char* mult : {"0.5", "1", "1000", "1e300"}) {
      for (const char* dyn : {"true", "false"}) {
        cases.push_back({std::string("max_bytes_for_level_base=") + base +
                             ";max_bytes_for_level_multiplier=" + mult +
                             ";level_compaction_dynamic_level_bytes=" + dyn +
                             ";target_file_size_base=1;target_file_size_multiplier=1000",
                         {"max_bytes_for_level_base", "max_bytes_for_level_multiplier",
                          "target_file_size_base", "target_file_size_multiplier"}});
      }
    }
  }
  for (const char* n : {"1", "2", "3", "6"}) {
    for (const char* m : {"0", "1", "2", "5"}) {
      for (const char* wbs : {"1", "65536", "1048576"}) {
        cases.push_back({std::string("max_write_buffer_number=") + n +
                             ";min_write_buffer_number_to_merge=" + m +
                             ";write_buffer_size=" + wbs,
                         {"max_write_buffer_number", "min_write_buffer_number_to_merge",
                          "write_buffer_size"}});
      }
    }
  }
  for (const char* soft : {"0", "1", "4096", "18446744073709551615"}) {
    for (const char* hard : {"0", "1", "4096", "18446744073709551615"}) {
      cases.push_back({std::string("soft_pending_compaction_bytes_limit=") + soft +
                           ";hard_pending_compaction_bytes_limit=" + hard,
                       {"soft_pending_compaction_bytes_limit",
                        "hard_pending_compaction_bytes_limit"},
                       true});
    }
  }
  return cases;
}

constexpr size_t kLoadBytes = 400 << 10;

// Options::Validate, Open and the load for one case; the failures of the whole matrix are
// reported together.
void RunMatrix(bool through_set_options) {
  std::vector<Case> cases = Matrix();
  const bool stress = StressMode();
  std::vector<std::string> failures;
  size_t run = 0, refused = 0;
  const auto deadline = std::chrono::seconds(stress ? 120 : 30);
  for (size_t i = 0; i < cases.size(); i++) {
    const Case& c = cases[i];
    if (through_set_options && !c.dynamic) continue;
    // CI: every 7th case (a different slice per mode), and the cases marked always.
    if (!stress && !c.always && (i + (through_set_options ? 3 : 0)) % 7 != 0) continue;
    Options options;
    std::unordered_map<std::string, std::string> changes;
    if (through_set_options) {
      options = BaseOptions();
      // "name=value;name={...}" -> SetOptions map (values keep their braces off).
      std::string_view text = c.text;
      while (!text.empty()) {
        size_t eq = text.find('=');
        std::string name(text.substr(0, eq));
        text.remove_prefix(eq + 1);
        size_t end = text.front() == '{' ? text.find('}') + 1 : text.find(';');
        std::string value(text.substr(0, end));
        if (value.front() == '{') value = value.substr(1, value.size() - 2);
        changes[name] = value;
        text.remove_prefix(end == std::string_view::npos ? text.size() : end);
        if (!text.empty() && text.front() == ';') text.remove_prefix(1);
      }
      // compaction_style is not dynamic: open with it.
      auto style = changes.find("compaction_style");
      if (style != changes.end()) {
        ASSERT_OK(GetOptionsFromString(options, "compaction_style=" + style->second, &options));
        changes.erase(style);
      }
    } else {
      Status s = GetOptionsFromString(BaseOptions(), c.text, &options);
      ASSERT_TRUE(s.ok()) << c.text << ": " << s.ToString();
    }
    run++;
    Outcome o = RunWithWatchdog(
        [&] {
          return RunCase(options, c.names, through_set_options ? &changes : nullptr, kLoadBytes);
        },
        deadline);
    if (o.kind == Outcome::kFailed) failures.push_back(c.text + " -> " + o.detail);
    if (o.kind == Outcome::kRefused) refused++;
  }
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << run << " cases failed:" << all;
  std::printf("%zu cases, %zu refused, %zu failed\n", run, refused, failures.size());
}

TEST(DBOptionsExtremesTest, OpenWithEachExtreme) { RunMatrix(/*through_set_options=*/false); }

TEST(DBOptionsExtremesTest, SetOptionsWithEachExtreme) { RunMatrix(/*through_set_options=*/true); }

// ---- The findings of issue 19 that this matrix covers, as named tests.

Outcome RunOne(const std::string& text, const std::vector<std::string>& names, size_t bytes) {
  Options options;
  Status s = GetOptionsFromString(BaseOptions(), text, &options);
  if (!s.ok()) return {Outcome::kFailed, s.ToString()};
  return RunWithWatchdog([&] { return RunCase(options, names, nullptr, bytes); },
                         std::chrono::seconds(30));
}

// Finding 2: num_levels above what a VersionEdit can record (64) was accepted, and the DB could
// not be reopened ("VersionEdit: bad new-file record: bad level").
TEST(DBOptionsExtremesTest, NumLevelsAboveTheLimitIsRefused) {
  for (const char* n : {"65", "100", "2147483647"}) {
    Options options;
    ASSERT_OK(GetOptionsFromString(BaseOptions(), std::string("num_levels=") + n, &options));
    std::unique_ptr<DB> db;
    Status s = DB::Open(options, kDbName, &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << n << ": " << s.ToString();
    EXPECT_EQ(s.message().substr(0, 11), "num_levels:") << s.ToString();
  }
  Outcome o = RunOne("num_levels=64", {"num_levels"}, 200 << 10);
  EXPECT_EQ(o.kind, Outcome::kWorked) << o.detail;
}

// Found by the matrix: max_background_jobs=INT_MAX aborted Open (a thread per job; the
// process cannot start them). Refused above 1024; 1024 works.
TEST(DBOptionsExtremesTest, MaxBackgroundJobsIsBounded) {
  Outcome o = RunOne("max_background_jobs=2147483647", {"max_background_jobs"}, 100 << 10);
  EXPECT_EQ(o.kind, Outcome::kRefused) << o.detail;
  o = RunOne("max_background_jobs=1024", {}, 100 << 10);
  EXPECT_EQ(o.kind, Outcome::kWorked) << o.detail;
}

// Finding 7: max_write_buffer_number=1 stopped every write at the first memtable switch.
// Sanitized to 2, as RocksDB does.
TEST(DBOptionsExtremesTest, OneWriteBufferDoesNotHang) {
  Outcome o = RunOne("max_write_buffer_number=1", {}, 1 << 20);
  EXPECT_EQ(o.kind, Outcome::kWorked) << o.detail;
}

// The adjustment is reported in the info LOG, at Open and through SetOptions.
TEST(DBOptionsExtremesTest, AdjustmentsAreLogged) {
  Options options = BaseOptions();
  options.max_write_buffer_number = 1;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDbName, &db));
  EXPECT_EQ(db->GetOptions().max_write_buffer_number, 2);
  ASSERT_OK(db->SetOptions({{"level0_stop_writes_trigger", "3"}}));
  EXPECT_EQ(db->GetOptions().level0_stop_writes_trigger, 20);
  ASSERT_OK(db->Close());
  std::string log;
  ASSERT_OK(ReadFileToString(options.file_system.get(), std::string(kDbName) + "/LOG", &log));
  EXPECT_NE(log.find("option adjusted as RocksDB does: max_write_buffer_number: 1 -> 2"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("option adjusted as RocksDB does: level0_stop_writes_trigger: 3 -> 20"),
            std::string::npos)
      << log;
}

// Finding 8: FIFO never lowers the L0 file count, so the L0 stop trigger stopped writes for
// good once 36 tables were there.
TEST(DBOptionsExtremesTest, FifoWithManyTablesDoesNotStopWrites) {
  Outcome o = RunOne(
      "compaction_style=kCompactionStyleFIFO;level0_file_num_compaction_trigger=2;"
      "level0_slowdown_writes_trigger=4;level0_stop_writes_trigger=6",
      {}, 3 << 20);
  EXPECT_EQ(o.kind, Outcome::kWorked) << o.detail;
  // The defaults (stop at 36 tables) with 64 KiB memtables: ~60 tables.
  o = RunOne("compaction_style=kCompactionStyleFIFO", {}, 4 << 20);
  EXPECT_EQ(o.kind, Outcome::kWorked) << o.detail;
}

}  // namespace
}  // namespace shale
