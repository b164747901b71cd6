// Fault injection: EIO- and ENOSPC-like errors at random reads, writes, syncs, renames and
// creates (FaultInjectionFileSystem::SetRandomErrors) and at chosen points of the engine (a
// table append or sync during a flush, a compaction's output, the MANIFEST's append, sync and
// CURRENT rename, the WAL's append and sync, a memtable switch's new WAL and old WAL sync).
//
// The promise checked each time (shale/db.h, "Errors"): the DB enters a read-only error state
// whose cause shale.background-error reports (and shale.background-errors counts); reads keep
// working and see every acknowledged write; writes fail with the cause; DB::Resume() succeeds
// once the fault is gone; nothing acknowledged is lost, across Resume and a reopen. The reference
// is a model of the acknowledged writes; a failed write may or may not have been applied.
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/filename.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/forwarding_file_system.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;
using Value = std::optional<std::string>;  // nullopt: the key is absent

constexpr char kDBName[] = "/faultdb";

std::string Key(uint64_t i) {
  char key[16];
  snprintf(key, sizeof(key), "k%04d", static_cast<int>(i));
  return key;
}

// ---------------------------------------------------------------- the model

// The values each key may hold: the last acknowledged one, plus those of writes to it that
// failed since (a failed write's record may have reached the WAL, and may come back at a
// reopen). Keys never written are absent.
class Model {
 public:
  // A batch's final value per key (later updates in a batch hide earlier ones).
  using Batch = std::map<std::string, Value>;

  void Acknowledged(const Batch& batch) {
    for (const auto& [key, value] : batch) allowed_[key] = {value};
  }
  void Failed(const Batch& batch) {
    for (const auto& [key, value] : batch) {
      auto [it, inserted] = allowed_.try_emplace(key, std::vector<Value>{std::nullopt});
      it->second.push_back(value);
    }
  }
  bool Allows(const std::string& key, const Value& value) const {
    auto it = allowed_.find(key);
    if (it == allowed_.end()) return !value.has_value();
    for (const Value& v : it->second) {
      if (v == value) return true;
    }
    return false;
  }
  std::string Describe(const std::string& key) const {
    std::string out = key + " may hold:";
    auto it = allowed_.find(key);
    if (it == allowed_.end()) return out + " nothing";
    for (const Value& v : it->second) {
      out += ' ';
      out += v ? v->substr(0, 20) : std::string("<absent>");
    }
    return out;
  }
  const std::map<std::string, std::vector<Value>>& keys() const { return allowed_; }

 private:
  std::map<std::string, std::vector<Value>> allowed_;
};

// Reads everything with forward and backward iterators and point lookups; every read must
// succeed and agree with the model. REQUIRES: no read faults armed.
void Verify(DB* db, const Model& model, const std::string& where) {
  std::map<std::string, std::string> seen;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    seen.emplace(std::string(it->key()), std::string(it->value()));
  }
  ASSERT_OK(it->status());
  auto expected = seen.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++expected) {
    ASSERT_NE(expected, seen.rend()) << where << "backward scan longer than forward scan";
    ASSERT_EQ(it->key(), expected->first) << where;
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(expected, seen.rend()) << where << "backward scan shorter than forward scan";
  it.reset();
  for (const auto& [key, value] : seen) {
    ASSERT_TRUE(model.Allows(key, value)) << where << "found " << value.substr(0, 20) << "; "
                                          << model.Describe(key);
  }
  for (const auto& [key, allowed] : model.keys()) {
    std::string value;
    Status s = db->Get(ReadOptions(), key, &value);
    ASSERT_TRUE(s.ok() || s.IsNotFound()) << where << key << ": " << s.ToString();
    const Value got = s.ok() ? Value(value) : std::nullopt;
    auto in_scan = seen.find(key);
    ASSERT_EQ(got, in_scan == seen.end() ? std::nullopt : Value(in_scan->second))
        << where << key << ": Get and the iterator disagree";
    ASSERT_TRUE(model.Allows(key, got)) << where << "lost or wrong: " << model.Describe(key);
  }
}

std::string BackgroundError(DB* db) {
  std::string value = "<unknown property>";
  EXPECT_TRUE(db->GetProperty(DB::Properties::kBackgroundError, &value));
  return value;
}

uint64_t BackgroundErrorCount(DB* db) {
  uint64_t n = 0;
  EXPECT_TRUE(db->GetIntProperty(DB::Properties::kBackgroundErrors, &n));
  return n;
}

// Checks the error state: the cause is reported, a write fails with it, reads see the model.
void CheckErrorState(DB* db, const Model& model, const std::string& where) {
  const std::string cause = BackgroundError(db);
  ASSERT_FALSE(cause.empty()) << where << "not in the error state";
  Status s = db->Put(WriteOptions(), "error-state-probe", "x");
  ASSERT_FALSE(s.ok()) << where << "a write succeeded in the error state";
  ASSERT_EQ(s.ToString(), cause) << where << "a write failed with another error";
  ASSERT_FALSE(db->Flush(FlushOptions()).ok()) << where;
  ASSERT_NO_FATAL_FAILURE(Verify(db, model, where + "in the error state: "));
}

// ---------------------------------------------------------------- chosen points

// A file system over another that fails chosen calls on one kind of DB file (tables, WALs,
// MANIFESTs, CURRENT) while armed: the chosen points of the targeted tests. The error names the
// path and the call and keeps the NoSpace subcode when asked for one.
// Thread-safety: thread-safe (one mutex guards the armed target).
class TargetedFaultFileSystem final : public test::ForwardingFileSystem {
 public:
  enum class Call { kAppend, kSync, kCreate, kRename };

  using ForwardingFileSystem::ForwardingFileSystem;

  void Arm(FileType type, Call call, bool no_space) {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
    type_ = type;
    call_ = call;
    no_space_ = no_space;
  }
  void Disarm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = false;
  }
  uint64_t failures() const {
    std::lock_guard<std::mutex> l(mu_);
    return failures_;
  }
  // The error for `call` on `path`, or OK when no fault is armed for it.
  Status MaybeFail(const std::string& path, Call call) {
    uint64_t number;
    FileType type;
    const std::string name = path.substr(path.rfind('/') + 1);
    if (!ParseFileName(name, &number, &type)) return Status::OK();
    std::lock_guard<std::mutex> l(mu_);
    if (!armed_ || type != type_ || call != call_) return Status::OK();
    failures_++;
    static const char* kCalls[] = {"append", "sync", "create", "rename"};
    const std::string what = path + ": injected " + kCalls[static_cast<int>(call)] + " fault";
    return no_space_ ? Status::NoSpace(what) : Status::IOError(what);
  }

  const char* Name() const override { return "targeted_fault"; }
  Status NewWritableFile(const std::string& p, std::unique_ptr<WritableFile>* r) override {
    return Wrap(p, base()->NewWritableFile(p, r), r);
  }
  Status NewAppendableFile(const std::string& p, std::unique_ptr<WritableFile>* r) override {
    return Wrap(p, base()->NewAppendableFile(p, r), r);
  }
  Status RenameFile(const std::string& src, const std::string& target) override {
    Status s = MaybeFail(target, Call::kRename);
    return s.ok() ? base()->RenameFile(src, target) : s;
  }

 private:
  class File final : public test::ForwardingWritableFile {
   public:
    File(TargetedFaultFileSystem* fs, std::string path, std::unique_ptr<WritableFile> base)
        : ForwardingWritableFile(std::move(base)), fs_(fs), path_(std::move(path)) {}
    Status Append(std::string_view data) override {
      Status s = fs_->MaybeFail(path_, Call::kAppend);
      return s.ok() ? base()->Append(data) : s;
    }
    Status Sync() override {
      Status s = fs_->MaybeFail(path_, Call::kSync);
      return s.ok() ? base()->Sync() : s;
    }

   private:
    TargetedFaultFileSystem* const fs_;
    const std::string path_;
  };

  Status Wrap(const std::string& path, Status opened, std::unique_ptr<WritableFile>* r) {
    if (!opened.ok()) return opened;
    Status s = MaybeFail(path, Call::kCreate);
    if (!s.ok()) {
      // As if the create had failed: nothing is left behind.
      (*r)->Close().PermitUncheckedError();
      r->reset();
      base()->DeleteFile(path).PermitUncheckedError();
      return s;
    }
    *r = std::make_unique<File>(this, path, std::move(*r));
    return Status::OK();
  }

  mutable std::mutex mu_;
  bool armed_ = false;  // guarded by mu_, as are the fields below
  FileType type_ = FileType::kTableFile;
  Call call_ = Call::kAppend;
  bool no_space_ = false;
  uint64_t failures_ = 0;
};

using Call = TargetedFaultFileSystem::Call;

// A chosen point: which calls on which files fail, and what operation meets the fault.
struct Point {
  const char* name;
  FileType type;
  Call call;
  enum class Trigger { kPut, kSyncPut, kFlush, kCompactRange } trigger;
  bool roll_manifest = false;  // a new MANIFEST (and a CURRENT rename) at every edit
};

const Point kPoints[] = {
    {"flush_table_append", FileType::kTableFile, Call::kAppend, Point::Trigger::kFlush},
    {"flush_table_sync", FileType::kTableFile, Call::kSync, Point::Trigger::kFlush},
    {"flush_table_create", FileType::kTableFile, Call::kCreate, Point::Trigger::kFlush},
    {"compaction_output_append", FileType::kTableFile, Call::kAppend,
     Point::Trigger::kCompactRange},
    {"compaction_output_sync", FileType::kTableFile, Call::kSync, Point::Trigger::kCompactRange},
    {"manifest_append", FileType::kDescriptorFile, Call::kAppend, Point::Trigger::kFlush},
    {"manifest_sync", FileType::kDescriptorFile, Call::kSync, Point::Trigger::kFlush},
    {"manifest_sync_compaction", FileType::kDescriptorFile, Call::kSync,
     Point::Trigger::kCompactRange},
    {"new_manifest_create", FileType::kDescriptorFile, Call::kCreate, Point::Trigger::kFlush,
     true},
    {"current_rename", FileType::kCurrentFile, Call::kRename, Point::Trigger::kFlush, true},
    {"wal_append", FileType::kWalFile, Call::kAppend, Point::Trigger::kPut},
    {"wal_sync", FileType::kWalFile, Call::kSync, Point::Trigger::kSyncPut},
    {"wal_switch_create", FileType::kWalFile, Call::kCreate, Point::Trigger::kFlush},
    {"wal_switch_old_wal_sync", FileType::kWalFile, Call::kSync, Point::Trigger::kFlush},
};

class DBChosenPointTest
    : public ::testing::TestWithParam<std::tuple<Point, bool /*no_space*/>> {};

std::string PointName(const ::testing::TestParamInfo<DBChosenPointTest::ParamType>& info) {
  return std::string(std::get<0>(info.param).name) +
         (std::get<1>(info.param) ? "_ENOSPC" : "_EIO");
}

// Puts `n` keys from `first`, acknowledged, into the DB and the model.
void Load(DB* db, Model* model, int first, int n, const std::string& tag) {
  for (int i = first; i < first + n; i++) {
    const std::string value = tag + ":" + std::to_string(i) + std::string(i % 7 * 10, 'v');
    ASSERT_OK(db->Put(WriteOptions(), Key(i), value));
    model->Acknowledged({{Key(i), value}});
  }
}

TEST_P(DBChosenPointTest, ErrorStateThenResume) {
  const Point& point = std::get<0>(GetParam());
  const bool no_space = std::get<1>(GetParam());
  auto fs = std::make_shared<TargetedFaultFileSystem>(NewMemFileSystem());
  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;  // background work happens only when asked for
  options.write_buffer_size = 4 << 20;
  options.table_options.block_size = 256;
  if (point.roll_manifest) options.max_manifest_file_size = 1;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));

  // Two tables in L0 (compaction input), then acknowledged writes in the memtable.
  Model model;
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 0, 200, "a"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 100, 200, "b"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 250, 100, "c"));
  ASSERT_EQ(BackgroundErrorCount(db.get()), 0u);
  ASSERT_EQ(BackgroundError(db.get()), "");

  // The fault stays until disarmed, like a full or broken device.
  fs->Arm(point.type, point.call, no_space);
  Status s;
  switch (point.trigger) {
    case Point::Trigger::kPut:
    case Point::Trigger::kSyncPut: {
      WriteOptions wo;
      wo.sync = point.trigger == Point::Trigger::kSyncPut;
      s = db->Put(wo, "failed-key", "failed-value");
      Model::Batch failed = {{"failed-key", Value("failed-value")}};
      if (s.ok()) model.Acknowledged(failed); else model.Failed(failed);
      break;
    }
    case Point::Trigger::kFlush:
      s = db->Flush(FlushOptions());
      break;
    case Point::Trigger::kCompactRange:
      s = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
      break;
  }
  const std::string where = std::string(point.name) + ": ";
  ASSERT_FALSE(s.ok()) << where << "the fault was not met";
  ASSERT_GE(fs->failures(), 1u) << where;
  EXPECT_EQ(s.IsNoSpace(), no_space) << where << s.ToString();
  EXPECT_TRUE(s.IsIOError()) << where << s.ToString();
  EXPECT_NE(s.ToString().find("injected"), std::string::npos) << where << s.ToString();
  EXPECT_EQ(BackgroundError(db.get()), s.ToString()) << where;
  EXPECT_EQ(BackgroundErrorCount(db.get()), 1u) << where;
  ASSERT_NO_FATAL_FAILURE(CheckErrorState(db.get(), model, where));

  // Resume while the fault is still there either fails (the state stays) or needs no I/O the
  // fault touches; either way the property tells the truth.
  s = db->Resume();
  EXPECT_EQ(s.ok(), BackgroundError(db.get()).empty()) << where << s.ToString();
  if (!s.ok()) {
    ASSERT_NO_FATAL_FAILURE(CheckErrorState(db.get(), model, where + "after a failed Resume: "));
  }

  fs->Disarm();
  ASSERT_OK(db->Resume());
  EXPECT_EQ(BackgroundError(db.get()), "") << where;
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), model, where + "after Resume: "));
  // Writable again, and the background work that failed can be done.
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 300, 50, "d"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 0, 20, "e"));
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), model, where + "after Resume and compaction: "));
  ASSERT_OK(db->Close());
  db.reset();

  ASSERT_OK(DB::Open(options, kDBName, &db));
  ASSERT_EQ(BackgroundErrorCount(db.get()), 0u) << "the count starts again at each Open";
  ASSERT_NO_FATAL_FAILURE(Verify(db.get(), model, where + "after reopen: "));
  ASSERT_OK(db->Close());
}

INSTANTIATE_TEST_SUITE_P(Points, DBChosenPointTest,
                         ::testing::Combine(::testing::ValuesIn(kPoints), ::testing::Bool()),
                         PointName);

// The DB is closed while still in the error state (the fault never cleared before Close): the
// next Open recovers every acknowledged write from the WAL and the tables.
TEST(DBFaultInjectionTest, CloseInErrorStateThenReopen) {
  for (FileType type : {FileType::kTableFile, FileType::kWalFile, FileType::kDescriptorFile}) {
    auto fs = std::make_shared<TargetedFaultFileSystem>(NewMemFileSystem());
    Options options;
    options.file_system = fs;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, kDBName, &db));
    Model model;
    ASSERT_NO_FATAL_FAILURE(Load(db.get(), &model, 0, 300, "a"));
    fs->Arm(type, Call::kSync, /*no_space=*/true);
    Status s = db->Flush(FlushOptions());
    ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
    ASSERT_NO_FATAL_FAILURE(CheckErrorState(db.get(), model, "before close: "));
    EXPECT_FALSE(db->Close().ok()) << "Close reports the background error";
    db.reset();
    fs->Disarm();
    ASSERT_OK(DB::Open(options, kDBName, &db));
    ASSERT_NO_FATAL_FAILURE(Verify(db.get(), model, "after reopen: "));
    ASSERT_OK(db->Close());
  }
}

// ---------------------------------------------------------------- random faults

// Many rounds of random writes, flushes and compactions while several kinds of call fail at
// random; each round ends when the DB enters the error state (or after a fixed number of
// operations). Then the faults are cleared, the error state checked, Resume called, and now and
// then the DB reopened.
class RandomFaultHarness {
 public:
  explicit RandomFaultHarness(uint64_t seed)
      : seed_(seed), rnd_(seed), fault_(std::make_shared<FaultInjectionFileSystem>(
                                     NewMemFileSystem())) {
    options_.file_system = fault_;
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_write_buffer_number = 3;
    options_.target_file_size_base = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
    options_.level0_file_num_compaction_trigger = 2;
    options_.table_options.block_size = 512;
    if (rnd_.OneIn(3)) options_.max_manifest_file_size = 1 + rnd_.Uniform(8192);
  }

  void Run(int rounds) {
    ASSERT_OK(DB::Open(options_, kDBName, &db_));
    for (round_ = 0; round_ < rounds; round_++) ASSERT_NO_FATAL_FAILURE(RunRound());
    fault_->ClearInjectedErrors();
    ASSERT_OK(db_->Close());
    EXPECT_GT(error_rounds_, rounds / 3) << "too few rounds met a fault to mean much";
  }

 private:
  std::string Where() const {
    return "seed " + std::to_string(seed_) + " round " + std::to_string(round_) + ": ";
  }

  // Random failures on several kinds at once, EIO or ENOSPC, some frequent, some rare.
  void ArmRandomFaults() {
    const OpKind kinds[] = {OpKind::kWrite, OpKind::kSync,    OpKind::kCreate,
                            OpKind::kRename, OpKind::kSyncDir, OpKind::kRead};
    for (OpKind kind : kinds) {
      if (!rnd_.OneIn(2)) continue;
      const uint32_t one_in = 20 + static_cast<uint32_t>(rnd_.Uniform(
                                       kind == OpKind::kRead || kind == OpKind::kWrite ? 400 : 60));
      const Status error = rnd_.OneIn(2) ? FaultNoSpaceError("random fault")
                                         : FaultIOError("random fault");
      fault_->SetRandomErrors(kind, one_in, rnd_.Next64(), error);
    }
  }

  // One random write (a batch of puts and deletes), into the model by its outcome.
  Status RandomWrite() {
    WriteBatch batch;
    Model::Batch final_values;
    const int n = 1 + static_cast<int>(rnd_.Uniform(4));
    for (int i = 0; i < n; i++) {
      const std::string key = Key(rnd_.Uniform(kKeySpace));
      if (rnd_.OneIn(5)) {
        EXPECT_OK(batch.Delete(key));
        final_values[key] = std::nullopt;
      } else {
        std::string value = absl::StrCat("s", seed_, "r", round_, "w", writes_++, ":");
        value.append(rnd_.Uniform(rnd_.OneIn(10) ? 3000 : 200), 'x');
        EXPECT_OK(batch.Put(key, value));
        final_values[key] = value;
      }
    }
    WriteOptions wo;
    wo.sync = rnd_.OneIn(8);
    Status s = db_->Write(wo, &batch);
    if (s.ok()) {
      model_.Acknowledged(final_values);
    } else {
      model_.Failed(final_values);
    }
    return s;
  }

  // A read while faults may be armed: it may fail with the injected IOError, but what it
  // returns must be allowed.
  void RandomRead() {
    const std::string key = Key(rnd_.Uniform(kKeySpace));
    std::string value;
    Status s = db_->Get(ReadOptions(), key, &value);
    ASSERT_TRUE(s.ok() || s.IsNotFound() || s.IsIOError()) << Where() << s.ToString();
    if (s.IsIOError()) return;
    const Value got = s.ok() ? Value(value) : std::nullopt;
    ASSERT_TRUE(model_.Allows(key, got)) << Where() << model_.Describe(key);
  }

  // Waits until background work that may have met a fault before the faults were cleared has
  // finished (and recorded its error): flushes and compactions count as running until their
  // result or error is recorded. (A Flush call would not do: in the error state it fails at
  // once, while a background flush may still be inside a MANIFEST sync that failed; its error
  // then landed after the Resume below had cleared the first one.)
  void WaitForFailuresInFlight() {
    for (int i = 0; i < 10000; i++) {
      uint64_t compactions = 1, flushes = 1;
      ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningCompactions, &compactions));
      ASSERT_TRUE(db_->GetIntProperty(DB::Properties::kNumRunningFlushes, &flushes));
      if (compactions == 0 && flushes == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << Where() << "flushes or compactions still running after 10 s";
  }

  void RunRound() {
    ArmRandomFaults();
    bool failed = false;
    for (int op = 0; op < 300 && !failed; op++) {
      const uint64_t r = rnd_.Uniform(100);
      Status s;
      if (r < 80) {
        s = RandomWrite();
      } else if (r < 95) {
        ASSERT_NO_FATAL_FAILURE(RandomRead());
      } else if (r < 98) {
        FlushOptions fo;
        fo.wait = rnd_.OneIn(2);
        s = db_->Flush(fo);
      } else {
        s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
      }
      // A failed write or background job always leaves the DB in the error state; a
      // background job may also fail on its own.
      if (!s.ok()) {
        ASSERT_FALSE(BackgroundError(db_.get()).empty())
            << Where() << "an operation failed (" << s.ToString() << ") outside the error state";
      }
      failed = !s.ok() || !BackgroundError(db_.get()).empty();
    }
    if (failed) error_rounds_++;
    // Resume while the faults are still armed: it may work or not (and background work may
    // fail again right after it worked), but a failed Resume leaves the error state.
    if (failed && rnd_.OneIn(3)) {
      Status s = db_->Resume();
      if (!s.ok()) {
        ASSERT_FALSE(BackgroundError(db_.get()).empty()) << Where() << s.ToString();
      }
    }
    fault_->ClearInjectedErrors();
    ASSERT_NO_FATAL_FAILURE(WaitForFailuresInFlight());
    if (!BackgroundError(db_.get()).empty()) {
      const uint64_t count = BackgroundErrorCount(db_.get());
      ASSERT_GE(count, 1u) << Where();
      ASSERT_NO_FATAL_FAILURE(CheckErrorState(db_.get(), model_, Where()));
      Status s = db_->Resume();
      ASSERT_TRUE(s.ok()) << Where() << "Resume with the faults gone: " << s.ToString();
      ASSERT_EQ(BackgroundError(db_.get()), "") << Where();
      ASSERT_EQ(BackgroundErrorCount(db_.get()), count) << Where();
    }
    ASSERT_NO_FATAL_FAILURE(Verify(db_.get(), model_, Where() + "after Resume: "));
    if (rnd_.OneIn(4)) {
      ASSERT_OK(db_->Close());
      db_.reset();
      ASSERT_OK(DB::Open(options_, kDBName, &db_));
      ASSERT_NO_FATAL_FAILURE(Verify(db_.get(), model_, Where() + "after reopen: "));
    }
  }

  static constexpr uint64_t kKeySpace = 400;
  const uint64_t seed_;
  Random rnd_;
  std::shared_ptr<FaultInjectionFileSystem> fault_;
  Options options_;
  std::unique_ptr<DB> db_;
  Model model_;
  int round_ = 0;
  int error_rounds_ = 0;
  uint64_t writes_ = 0;
};

TEST(DBFaultInjectionTest, RandomFaultsEnterErrorStateAndResume) {
  // SHALE_FAULT_SEEDS=n runs n seeds (a longer run); the default keeps the test fast.
  const char* env = std::getenv("SHALE_FAULT_SEEDS");
  const uint64_t seeds = env != nullptr ? std::strtoull(env, nullptr, 10) : 6;
  for (uint64_t seed = 1; seed <= seeds; seed++) {
    RandomFaultHarness harness(seed);
    ASSERT_NO_FATAL_FAILURE(harness.Run(50));
  }
}

}  // namespace
}  // namespace shale
