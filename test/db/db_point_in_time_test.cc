// Points in time stay points in time (issue 19): a snapshot read twice gives the same answer,
// an iterator sees one state of the DB, and a checkpoint opens to a state the DB had -- while
// ingestions, writes, merges, flushes, compactions and SetOptions go on.
//
// Deterministic tests stop the engine at the exact point of each bug found (with
// GatedFileSystem):
//  - finding 13: an ingestion published its sequence number before its MANIFEST write, so a
//    snapshot taken during the write read the old value, then the ingested one; and a
//    snapshot taken then saw a sequence-0 file appear that snapshot_consistency should hide;
//  - finding 14: a checkpoint that copies WALs fixed its table set first and copied the WALs
//    to wherever they ended later, so an ingestion in between was lost while later writes
//    were kept.
// Then ConcurrentPointsInTime runs everything at once against an invariant that any state of
// the DB satisfies and that names the state (see State below). It runs ~8 s; SHALE_STRESS=1
// runs it for 60 s.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gated_file_system.h"
#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/merge_operator.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using namespace std::chrono_literals;
using State = std::map<std::string, std::string>;

// Writes a table of `entries` at `path` (synced, as SstFileWriter does).
void WriteExternalFile(FileSystem* fs, std::shared_ptr<FileSystem> holder,
                       const std::string& path, const State& entries) {
  SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), std::move(holder));
  ASSERT_OK(writer.Open(path));
  for (const auto& [k, v] : entries) ASSERT_OK(writer.Put(k, v));
  ASSERT_OK(writer.Finish());
  (void)fs;
}

// Every key/value an iterator (at `snapshot`, or the current state) sees.
Status ReadAll(DB* db, const Snapshot* snapshot, State* out) {
  out->clear();
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    (*out)[std::string(it->key())] = std::string(it->value());
  }
  return it->status();
}

// ---- Finding 13 ----

class DBPointInTimeTest : public ::testing::Test {
 protected:
  DBPointInTimeTest() : fs_(std::make_shared<GatedFileSystem>(NewMemFileSystem())) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;  // no background MANIFEST writes to meet a gate
    EXPECT_OK(fs_->CreateDirIfMissing("/ext"));
  }
  ~DBPointInTimeTest() override {
    fs_->Release();
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  std::shared_ptr<GatedFileSystem> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// An ingestion over an existing key (a global sequence number): a snapshot taken while the
// ingestion writes its MANIFEST record reads the same value before and after it lands.
TEST_F(DBPointInTimeTest, SnapshotTakenDuringIngestionManifestWriteIsStable) {
  ASSERT_OK(DB::Open(options_, "/db", &db_));
  ASSERT_OK(db_->Put(WriteOptions(), "k", "old"));
  ASSERT_OK(db_->Flush(FlushOptions()));  // in L0, the memtable empty: no flush to ingest
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(fs_.get(), fs_, "/ext/new.sst", {{"k", "new"}}));

  fs_->Arm(GatedFileSystem::Op::kSync, "MANIFEST");
  auto ingest = std::async(std::launch::async, [&] {
    return db_->IngestExternalFile({"/ext/new.sst"}, IngestExternalFileOptions());
  });
  ASSERT_TRUE(fs_->WaitUntilHeld(10s));
  const Snapshot* snapshot = db_->GetSnapshot();
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string first, second, latest;
  ASSERT_OK(db_->Get(at_snapshot, "k", &first));
  ASSERT_OK(db_->Get(ReadOptions(), "k", &latest));
  EXPECT_EQ(latest, "old");  // the ingestion has not landed
  fs_->Release();
  ASSERT_OK(ingest.get());
  ASSERT_OK(db_->Get(at_snapshot, "k", &second));
  EXPECT_EQ(first, second) << "one snapshot, two values";
  EXPECT_EQ(first, "old");
  ASSERT_OK(db_->Get(ReadOptions(), "k", &latest));
  EXPECT_EQ(latest, "new");
  db_->ReleaseSnapshot(snapshot);
}

// An ingestion that overlaps nothing keeps sequence 0 when no snapshot exists as it is
// placed; snapshot_consistency still means a snapshot taken before the files land must not see
// them appear. GetSnapshot called during the MANIFEST write returns a snapshot that reads the
// same thing before and after the ingestion completes.
TEST_F(DBPointInTimeTest, SnapshotDuringSequenceZeroIngestionIsStable) {
  ASSERT_OK(DB::Open(options_, "/db", &db_));
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_NO_FATAL_FAILURE(WriteExternalFile(fs_.get(), fs_, "/ext/z.sst", {{"z", "ingested"}}));

  fs_->Arm(GatedFileSystem::Op::kSync, "MANIFEST");
  auto ingest = std::async(std::launch::async, [&] {
    return db_->IngestExternalFile({"/ext/z.sst"}, IngestExternalFileOptions());
  });
  ASSERT_TRUE(fs_->WaitUntilHeld(10s));
  struct Read {
    const Snapshot* snapshot;
    Status status;
    std::string value;
  };
  auto reader = std::async(std::launch::async, [&] {
    Read r;
    r.snapshot = db_->GetSnapshot();
    ReadOptions ro;
    ro.snapshot = r.snapshot;
    r.status = db_->Get(ro, "z", &r.value);
    return r;
  });
  // Either the snapshot is taken (and read) during the write, or it waits for the ingestion.
  reader.wait_for(300ms);
  fs_->Release();
  ASSERT_OK(ingest.get());
  Read first = reader.get();
  ReadOptions ro;
  ro.snapshot = first.snapshot;
  std::string value;
  Status again = db_->Get(ro, "z", &value);
  EXPECT_EQ(first.status.ToString(), again.ToString()) << "one snapshot, two answers";
  if (first.status.ok() && again.ok()) {
    EXPECT_EQ(first.value, value);
  }
  db_->ReleaseSnapshot(first.snapshot);
}

// ---- Finding 14 ----

// A checkpoint that copies WALs (log_size_for_flush > 0), with an ingestion and then a write
// landing between the moment it fixes its table set and the moment it copies the WALs: it must
// open to a state the DB had (with the write, the ingested key must be there too).
TEST_F(DBPointInTimeTest, CheckpointCopyingWalsHoldsAStateTheDBHad) {
  ASSERT_OK(DB::Open(options_, "/db", &db_));
  ASSERT_OK(db_->Put(WriteOptions(), "a", "before"));
  ASSERT_NO_FATAL_FAILURE(
      WriteExternalFile(fs_.get(), fs_, "/ext/b.sst", {{"b", "ingested"}}));
  std::unique_ptr<Checkpoint> checkpoint;
  ASSERT_OK(Checkpoint::Create(db_.get(), &checkpoint));

  // The checkpoint stops as it creates its first file (the copy of a WAL).
  fs_->Arm(GatedFileSystem::Op::kCreate, "/ckpt.tmp/");
  auto create = std::async(std::launch::async,
                           [&] { return checkpoint->CreateCheckpoint("/ckpt", 1ull << 30); });
  ASSERT_TRUE(fs_->WaitUntilHeld(10s));
  ASSERT_OK(db_->IngestExternalFile({"/ext/b.sst"}, IngestExternalFileOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "c", "after"));
  fs_->Release();
  ASSERT_OK(create.get());

  std::unique_ptr<DB> copy;
  Options copy_options = options_;
  copy_options.create_if_missing = false;
  ASSERT_OK(DB::Open(copy_options, "/ckpt", &copy));
  State state;
  ASSERT_OK(ReadAll(copy.get(), nullptr, &state));
  // The states the DB had: {a}, {a, b}, {a, b, c}.
  ASSERT_EQ(state.count("a"), 1u);
  if (state.count("c") != 0) {
    EXPECT_EQ(state.count("b"), 1u) << "the checkpoint kept a later write but lost the ingestion";
  }
  ASSERT_OK(copy->Close());
}

// ---- The class: everything at once ----

// Values are 10-digit step numbers (so the greatest is the lexicographically greatest), padded
// on the keys that are not merged.
std::string Num(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%010llu", static_cast<unsigned long long>(v));
  return buf;
}
constexpr int kSlots = 64;
const std::string kPad(100, 'x');
std::string SlotKey(int j) {
  char buf[16];
  snprintf(buf, sizeof(buf), "h%02d", j);
  return buf;
}

// A merge operator whose result is the greatest operand or value (all 10-digit numbers).
class MaxOperator final : public MergeOperator {
 public:
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    std::string_view best = in.existing_value != nullptr ? *in.existing_value : "";
    for (std::string_view op : in.operand_list) best = std::max(best, op);
    out->new_value.assign(best);
    return true;
  }
  bool PartialMerge(std::string_view, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    new_value->assign(std::max(left, right));
    return true;
  }
  const char* Name() const override { return "test.max"; }
};

// The DB's state after step v of the writer. Step v writes "c" = v, slot v % kSlots = v and
// merges v into "m" (or, when it ingests, puts v there): so every state names its step, and a
// state that mixes steps (a lost ingestion under later writes, a half-visible step) is found.
State StateAfter(uint64_t v) {
  State s;
  if (v == 0) return s;
  s["c"] = Num(v) + kPad;
  s["m"] = Num(v);
  for (int j = 0; j < kSlots; j++) {
    const uint64_t back = (v + kSlots - j) % kSlots;  // v - back is the last step on slot j
    if (back < v) s[SlotKey(j)] = Num(v - back) + kPad;
  }
  return s;
}

// The step `state` is the state after, or an explanation of why it is none.
bool StepOf(const State& state, uint64_t* step, std::string* why) {
  uint64_t v = 0;
  auto c = state.find("c");
  if (c != state.end()) v = std::strtoull(c->second.substr(0, 10).c_str(), nullptr, 10);
  *step = v;
  const State expected = StateAfter(v);
  if (state == expected) return true;
  *why = "a state the DB never had (c = " + std::to_string(v) + "):";
  for (const auto& [k, val] : expected) {
    auto it = state.find(k);
    if (it == state.end()) {
      *why += " missing " + k + "=" + val.substr(0, 10) + ";";
    } else if (it->second != val) {
      *why += " " + k + "=" + it->second.substr(0, 10) + " (want " + val.substr(0, 10) + ");";
    }
  }
  for (const auto& [k, val] : state) {
    if (expected.count(k) == 0) *why += " extra " + k + ";";
  }
  return false;
}

class PointsInTimeStress {
 public:
  PointsInTimeStress() : fs_(NewMemFileSystem()) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    options_.merge_operator = std::make_shared<MaxOperator>();
    options_.write_buffer_size = 256 << 10;
    options_.level0_file_num_compaction_trigger = 4;
    options_.max_bytes_for_level_base = 1 << 20;
    options_.target_file_size_base = 256 << 10;
    options_.max_background_jobs = 3;
    EXPECT_OK(fs_->CreateDirIfMissing("/ext"));
  }

  void Run(std::chrono::milliseconds duration) {
    ASSERT_OK(DB::Open(options_, "/db", &db_));
    std::vector<std::thread> threads;
    threads.emplace_back([&] { Writer(); });
    threads.emplace_back([&] { SnapshotReader(); });
    threads.emplace_back([&] { IteratorReader(); });
    threads.emplace_back([&] { Checkpointer(); });
    threads.emplace_back([&] { Background(); });
    const auto end = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < end && !failed_.load()) {
      std::this_thread::sleep_for(10ms);
    }
    stop_.store(true);
    for (std::thread& t : threads) t.join();
    std::printf("%llu steps, %llu snapshot reads, %llu checkpoints\n",
                static_cast<unsigned long long>(acked_.load()),
                static_cast<unsigned long long>(snapshot_reads_.load()),
                static_cast<unsigned long long>(checkpoints_.load()));
    EXPECT_GT(acked_.load(), 100u) << "the writer made little progress";
    EXPECT_GT(checkpoints_.load(), 2u);
    EXPECT_GT(snapshot_reads_.load(), 10u);
    // The final state is the last step's.
    State state;
    ASSERT_OK(ReadAll(db_.get(), nullptr, &state));
    EXPECT_EQ(state, StateAfter(acked_.load()));
    ASSERT_OK(db_->Close());
  }

 private:
  void Fail(const std::string& what) {
    if (!failed_.exchange(true)) ADD_FAILURE() << what;
  }
  bool Going() const { return !stop_.load() && !failed_.load(); }

  // Steps 1, 2, ...: a write batch, or (one in four) the ingestion of a file with the same
  // effect. One writer, so the steps are totally ordered; acked_ is the last one done, begun_
  // the last one started.
  void Writer() {
    Random rnd(301);
    for (uint64_t v = 1; Going(); v++) {
      begun_.store(v);
      const std::string slot = SlotKey(static_cast<int>(v % kSlots));
      Status s;
      if (rnd.OneIn(4)) {
        const std::string path = "/ext/step" + std::to_string(v) + ".sst";
        SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
        s = writer.Open(path);
        if (s.ok()) s = writer.Put("c", Num(v) + kPad);
        if (s.ok()) s = writer.Put(slot, Num(v) + kPad);
        if (s.ok()) s = writer.Put("m", Num(v));
        if (s.ok()) s = writer.Finish();
        IngestExternalFileOptions io;
        io.move_files = rnd.OneIn(2);
        if (s.ok()) s = db_->IngestExternalFile({path}, io);
        fs_->DeleteFile(path).PermitUncheckedError();
      } else {
        WriteBatch batch;
        s = batch.Put("c", Num(v) + kPad);
        if (s.ok()) s = batch.Put(slot, Num(v) + kPad);
        if (s.ok()) s = batch.Merge("m", Num(v));
        if (s.ok()) s = db_->Write(WriteOptions(), &batch);
      }
      if (!s.ok()) return Fail("step " + std::to_string(v) + ": " + s.ToString());
      acked_.store(v);
    }
  }

  // A snapshot read twice (iterator, then point reads, then the iterator again) gives the
  // same state, a state the DB had, no older than what was acknowledged before it was taken.
  void SnapshotReader() {
    while (Going()) {
      const uint64_t before = acked_.load();
      const Snapshot* snapshot = db_->GetSnapshot();
      State first, second;
      Status s = ReadAll(db_.get(), snapshot, &first);
      uint64_t step = 0;
      std::string why;
      if (s.ok() && !StepOf(first, &step, &why)) Fail("snapshot: " + why);
      if (s.ok() && step < before) Fail("snapshot older than an acknowledged step");
      ReadOptions ro;
      ro.snapshot = snapshot;
      std::vector<std::string> keys = {"c", "m"};
      for (int j = 0; j < kSlots; j++) keys.push_back(SlotKey(j));
      std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<std::string> values;
      for (int round = 0; round < 2 && s.ok() && Going(); round++) {
        std::this_thread::sleep_for(2ms);  // let writes, ingestions and flushes land
        std::vector<Status> got = db_->MultiGet(ro, views, &values);
        for (size_t i = 0; i < keys.size(); i++) {
          auto it = first.find(keys[i]);
          const bool expected = it != first.end();
          if (got[i].IsNotFound() && !expected) continue;
          if (!got[i].ok()) {
            if (!got[i].IsNotFound()) s = got[i];
            else Fail("snapshot: " + keys[i] + " vanished");
            break;
          }
          if (!expected || values[i] != it->second) {
            Fail("snapshot: " + keys[i] + " changed to " + values[i].substr(0, 10));
            break;
          }
        }
      }
      if (s.ok()) s = ReadAll(db_.get(), snapshot, &second);
      if (s.ok() && second != first) Fail("snapshot: the iterator saw another state");
      db_->ReleaseSnapshot(snapshot);
      if (!s.ok()) Fail("snapshot read: " + s.ToString());
      snapshot_reads_.fetch_add(1);
    }
  }

  // An iterator without a snapshot sees one state, a state the DB had.
  void IteratorReader() {
    while (Going()) {
      const uint64_t before = acked_.load();
      State state;
      Status s = ReadAll(db_.get(), nullptr, &state);
      if (!s.ok()) return Fail("iterator: " + s.ToString());
      uint64_t step = 0;
      std::string why;
      if (!StepOf(state, &step, &why)) return Fail("iterator: " + why);
      if (step < before) return Fail("iterator older than an acknowledged step");
      std::this_thread::sleep_for(1ms);
    }
  }

  // A checkpoint (by flush, or copying WALs) opens to a state the DB had, at least as new as
  // what was acknowledged before the call and no newer than the last step begun by its end.
  void Checkpointer() {
    std::unique_ptr<Checkpoint> checkpoint;
    Status s = Checkpoint::Create(db_.get(), &checkpoint);
    if (!s.ok()) return Fail(s.ToString());
    Random rnd(7);
    for (int i = 0; Going(); i++) {
      const std::string dir = "/ckpt" + std::to_string(i);
      const uint64_t before = acked_.load();
      s = checkpoint->CreateCheckpoint(dir, rnd.OneIn(3) ? 0 : (1ull << 30));
      const uint64_t after = begun_.load();
      if (!s.ok()) return Fail("checkpoint: " + s.ToString());
      Options copy_options = options_;
      copy_options.create_if_missing = false;
      std::unique_ptr<DB> copy;
      s = DB::Open(copy_options, dir, &copy);
      State state;
      if (s.ok()) s = ReadAll(copy.get(), nullptr, &state);
      if (copy != nullptr) {
        Status c = copy->Close();
        if (s.ok()) s = c;
      }
      copy.reset();
      if (!s.ok()) return Fail("opening checkpoint " + dir + ": " + s.ToString());
      uint64_t step = 0;
      std::string why;
      if (!StepOf(state, &step, &why)) return Fail("checkpoint " + dir + ": " + why);
      if (step < before || step > after) {
        return Fail("checkpoint " + dir + " at step " + std::to_string(step) + ", outside [" +
                    std::to_string(before) + ", " + std::to_string(after) + "]");
      }
      s = DestroyDB(dir, copy_options);
      if (!s.ok()) return Fail("DestroyDB " + dir + ": " + s.ToString());
      checkpoints_.fetch_add(1);
      std::this_thread::sleep_for(20ms);
    }
  }

  // Flushes, full compactions and SetOptions.
  void Background() {
    Random rnd(11);
    while (Going()) {
      Status s;
      switch (rnd.Uniform(4)) {
        case 0:
          s = db_->Flush(FlushOptions());
          break;
        case 1:
          s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr);
          break;
        case 2:
          s = db_->SetOptions(
              {{"write_buffer_size", std::to_string((64 << 10) << rnd.Uniform(4))},
               {"level0_file_num_compaction_trigger", std::to_string(2 + rnd.Uniform(4))}});
          break;
        default:
          s = db_->SetOptions(
              {{"disable_auto_compactions", rnd.OneIn(3) ? "true" : "false"},
               {"max_successive_merges", std::to_string(rnd.Uniform(3))}});
          break;
      }
      if (!s.ok()) return Fail("background: " + s.ToString());
      std::this_thread::sleep_for(5ms);
    }
  }

  std::shared_ptr<FileSystem> fs_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> acked_{0};
  std::atomic<uint64_t> begun_{0};
  std::atomic<uint64_t> checkpoints_{0};
  std::atomic<uint64_t> snapshot_reads_{0};
};

TEST(DBPointInTimeStressTest, ConcurrentPointsInTime) {
  const bool stress = std::getenv("SHALE_STRESS") != nullptr &&
                      std::string(std::getenv("SHALE_STRESS")) == "1";
  PointsInTimeStress test;
  test.Run(stress ? 60s : 8s);
}

}  // namespace
}  // namespace shale
