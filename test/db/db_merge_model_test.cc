// The engine side of merge operators (doc/merge.md): reads, iterators, flush, compaction and
// write-time merges against a std::map model under table layouts, compaction styles and
// subcompactions the main suite does not run (MergeModelTest; SHALE_MERGE_MODEL_SEED picks another
// history), plus targeted scenarios (MergeScenarioTest, MergeIngestScenarioTest).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/filter_policy.h"
#include "shale/sst_file_writer.h"
#include "shale/write_batch.h"
#include "db/iterator_walk.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using test::JoinOperator;
using Model = std::map<std::string, std::string>;

class MergeScenarioTest : public testing::Test {
 protected:
  MergeScenarioTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.disable_auto_compactions = true;
    options_.merge_operator = op_;
  }
  ~MergeScenarioTest() override { Close(); }

  void Open() { ASSERT_OK(DB::Open(options_, dbname_, &db_)); }
  void Close() {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
    db_.reset();
  }
  void Reopen() {
    Close();
    Open();
  }
  void Put(std::string_view k, std::string_view v) { ASSERT_OK(db_->Put(WriteOptions(), k, v)); }
  void Merge(std::string_view k, std::string_view v) {
    ASSERT_OK(db_->Merge(WriteOptions(), k, v));
  }
  void Delete(std::string_view k) { ASSERT_OK(db_->Delete(WriteOptions(), k)); }
  void DeleteRange(std::string_view b, std::string_view e) {
    ASSERT_OK(db_->DeleteRange(WriteOptions(), b, e));
  }
  void Flush() { ASSERT_OK(db_->Flush(FlushOptions())); }
  void CompactAll() {
    CompactRangeOptions co;
    co.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db_->CompactRange(co, nullptr, nullptr));
  }
  std::string Get(std::string_view key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }
  std::string Scan(const Snapshot* snap = nullptr, bool reverse = false) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    std::string out;
    if (reverse) {
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        out += std::string(it->key()) + "=" + std::string(it->value()) + " ";
      }
    } else {
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        out += std::string(it->key()) + "=" + std::string(it->value()) + " ";
      }
    }
    if (!it->status().ok()) out += "ERROR " + it->status().ToString();
    return out;
  }
  static std::string Render(const Model& m, bool reverse = false) {
    std::string out;
    if (reverse) {
      for (auto it = m.rbegin(); it != m.rend(); ++it) out += it->first + "=" + it->second + " ";
    } else {
      for (const auto& [k, v] : m) out += k + "=" + v + " ";
    }
    return out;
  }
  // Get, MultiGet and both scans agree with `m` at `snap`.
  void ExpectState(const Model& m, const std::vector<std::string>& keys,
                   const Snapshot* snap = nullptr, const std::string& where = "") {
    SCOPED_TRACE(where);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    ReadOptions ro;
    ro.snapshot = snap;
    std::vector<std::string> values;
    std::vector<Status> st = db_->MultiGet(ro, views, &values);
    for (size_t i = 0; i < keys.size(); i++) {
      auto it = m.find(keys[i]);
      const std::string want = it == m.end() ? "NOT_FOUND" : it->second;
      EXPECT_EQ(Get(keys[i], snap), want) << "key " << keys[i];
      const std::string multi =
          st[i].IsNotFound() ? "NOT_FOUND" : st[i].ok() ? values[i] : st[i].ToString();
      EXPECT_EQ(multi, want) << "MultiGet key " << keys[i];
    }
    EXPECT_EQ(Scan(snap), Render(m));
    EXPECT_EQ(Scan(snap, /*reverse=*/true), Render(m, /*reverse=*/true));
  }

  std::shared_ptr<JoinOperator> op_ = std::make_shared<JoinOperator>();
  Options options_;
  std::string dbname_ = "/db";
  std::unique_ptr<DB> db_;
};



// ---------------------------------------------------------------- Operators with options

// Operands are "+N" (add N) or "=N" (set to N); values are decimal numbers. ShouldMerge stops a
// lookup at a "=" operand (older history cannot matter). Partial merges: "+a","+b" -> "+(a+b)";
// anything after "=N" -> "=(N+...)". With `single`, a lone operand is re-encoded ("+007" ->
// "+7"). With `multi_only`, only PartialMergeMulti is overridden (PartialMerge keeps its
// default, false), as RocksDB operators often do. Counts the calls.
class CounterOperator : public MergeOperator {
 public:
  CounterOperator(bool single, bool multi_only) : single_(single), multi_only_(multi_only) {}

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    long long acc = in.existing_value != nullptr ? std::stoll(std::string(*in.existing_value)) : 0;
    for (std::string_view op : in.operand_list) {
      const long long n = std::stoll(std::string(op.substr(1)));
      acc = op[0] == '=' ? n : acc + n;
    }
    out->new_value = std::to_string(acc);
    return true;
  }
  bool PartialMerge(std::string_view key, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    if (multi_only_) return MergeOperator::PartialMerge(key, left, right, new_value);
    return Combine(std::deque<std::string_view>{left, right}, new_value);
  }
  bool PartialMergeMulti(std::string_view, const std::deque<std::string_view>& operands,
                         std::string* new_value) const override {
    multi_calls.fetch_add(1);
    if (operands.size() == 1) single_calls.fetch_add(1);
    return Combine(operands, new_value);
  }
  bool AllowSingleOperand() const override { return single_; }
  bool ShouldMerge(const std::vector<std::string_view>& operands) const override {
    return !operands.empty() && operands.back()[0] == '=';  // the oldest collected sets
  }
  const char* Name() const override { return "model.counter"; }

  mutable std::atomic<int> multi_calls{0};
  mutable std::atomic<int> single_calls{0};

 private:
  static bool Combine(const std::deque<std::string_view>& operands, std::string* new_value) {
    char kind = '+';
    long long acc = 0;
    for (std::string_view op : operands) {
      const long long n = std::stoll(std::string(op.substr(1)));
      if (op[0] == '=') {
        kind = '=';
        acc = n;
      } else {
        acc += n;
      }
    }
    *new_value = std::string(1, kind) + std::to_string(acc);
    return true;
  }
  const bool single_;
  const bool multi_only_;
};

TEST_F(MergeScenarioTest, ShouldMergeStopsLookupsWithTheSameResultAsAFullRead) {
  auto op = std::make_shared<CounterOperator>(false, false);
  options_.merge_operator = op;
  Open();
  Put("k", "100");
  Merge("k", "+1");
  Flush();
  CompactAll();
  Merge("k", "=10");
  Flush();
  Merge("k", "+5");
  const Model m{{"k", "15"}};
  ExpectState(m, {"k"}, nullptr, "before compaction");
  CompactAll();
  ExpectState(m, {"k"}, nullptr, "after compaction");
}

TEST_F(MergeScenarioTest, AllowSingleOperandReencodesALoneOperand) {
  auto op = std::make_shared<CounterOperator>(true, false);
  options_.merge_operator = op;
  options_.num_levels = 3;
  options_.allow_ingest_behind = true;  // nothing is bottommost: operands stay operands
  Open();
  Merge("k", "+007");
  Flush();
  EXPECT_GE(op->single_calls.load(), 1) << "flush never offered the lone operand";
  ExpectState({{"k", "7"}}, {"k"});
  CompactAll();
  ExpectState({{"k", "7"}}, {"k"});
}

// The header promises PartialMergeMulti combines "two or more" operands, and RocksDB always
// calls it (its default folds PartialMerge). An operator overriding only PartialMergeMulti
// should see two operands combined at flush.
TEST_F(MergeScenarioTest, PartialMergeMultiIsOfferedTwoOperands) {
  auto op = std::make_shared<CounterOperator>(false, /*multi_only=*/true);
  options_.merge_operator = op;
  Open();
  Merge("k", "+1");
  Merge("k", "+2");
  Flush();
  EXPECT_EQ(op->multi_calls.load(), 1);
  ExpectState({{"k", "3"}}, {"k"});
}

TEST_F(MergeScenarioTest, PartialMergeMultiOnlyOperatorStillReadsRight) {
  auto op = std::make_shared<CounterOperator>(false, /*multi_only=*/true);
  options_.merge_operator = op;
  Open();
  for (int i = 1; i <= 3; i++) Merge("k", "+" + std::to_string(i));
  Flush();
  EXPECT_GE(op->multi_calls.load(), 1);
  ExpectState({{"k", "6"}}, {"k"});
}

// PartialMerge refuses some pairs: the default PartialMergeMulti fold fails as a whole and
// every operand is kept, in order.
class PickyJoinOperator : public JoinOperator {
 public:
  bool PartialMerge(std::string_view key, std::string_view left, std::string_view right,
                    std::string* new_value) const override {
    if (right.find('!') != std::string_view::npos) return false;
    return JoinOperator::PartialMerge(key, left, right, new_value);
  }
};

TEST_F(MergeScenarioTest, PartialMergeRefusingSomePairsKeepsEveryOperand) {
  options_.merge_operator = std::make_shared<PickyJoinOperator>();
  options_.num_levels = 3;
  options_.allow_ingest_behind = true;
  Open();
  Merge("k", "a");
  Merge("k", "b");
  Merge("k", "c!");
  Merge("k", "d");
  Merge("j", "x");
  Merge("j", "y");
  Flush();
  const Model m{{"j", "x,y"}, {"k", "a,b,c!,d"}};
  ExpectState(m, {"j", "k"}, nullptr, "flushed");
  CompactAll();
  ExpectState(m, {"j", "k"}, nullptr, "compacted");
  Merge("k", "e");
  Flush();
  CompactAll();
  ExpectState({{"j", "x,y"}, {"k", "a,b,c!,d,e"}}, {"j", "k"}, nullptr, "compacted again");
}


// ---------------------------------------------------------------- Ingestion

class MergeIngestScenarioTest : public MergeScenarioTest {
 protected:
  // Writes an external file; `build` adds its entries.
  std::string WriteFile(const std::string& name,
                        const std::function<void(SstFileWriter*)>& build) {
    EXPECT_OK(options_.file_system->CreateDirIfMissing("/ext"));
    const std::string path = "/ext/" + name;
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(),
                         options_.file_system);
    EXPECT_OK(writer.Open(path));
    build(&writer);
    EXPECT_OK(writer.Finish());
    return path;
  }
};

TEST_F(MergeIngestScenarioTest, IngestedOperandAppliesOnTheBaseBelow) {
  Open();
  Put("k", "base");
  Put("a", "A");
  Flush();
  CompactAll();
  const std::string f = WriteFile("op.sst", [](SstFileWriter* w) {
    ASSERT_OK(w->Merge("k", "x"));
  });
  ASSERT_OK(db_->IngestExternalFile({f}, IngestExternalFileOptions()));
  ExpectState({{"a", "A"}, {"k", "base,x"}}, {"a", "k"}, nullptr, "ingested");
  Merge("k", "y");
  Flush();
  ExpectState({{"a", "A"}, {"k", "base,x,y"}}, {"a", "k"}, nullptr, "merged on top");
  CompactAll();
  ExpectState({{"a", "A"}, {"k", "base,x,y"}}, {"a", "k"}, nullptr, "compacted");
}

// One file holding a range deletion and an operand of a key it covers: both read at the file's
// global sequence number, so the deletion hides the older base but not the operand (RocksDB's
// rule: a range deletion covers entries with smaller sequence numbers). Every read path and
// the compaction must agree.
TEST_F(MergeIngestScenarioTest, RangeDeletionAndOperandInOneIngestedFile) {
  Open();
  Put("k", "base");
  Put("l", "L");
  Flush();
  CompactAll();
  const std::string f = WriteFile("mixed.sst", [](SstFileWriter* w) {
    ASSERT_OK(w->Merge("k", "x"));
    ASSERT_OK(w->DeleteRange("a", "z"));
  });
  ASSERT_OK(db_->IngestExternalFile({f}, IngestExternalFileOptions()));
  ExpectState({{"k", "x"}}, {"k", "l"}, nullptr, "ingested");
  CompactAll();
  ExpectState({{"k", "x"}}, {"k", "l"}, nullptr, "compacted");
}

TEST_F(MergeIngestScenarioTest, BaseIngestedBehindOperandsUnderUniversal) {
  options_.compaction_style = kCompactionStyleUniversal;
  options_.allow_ingest_behind = true;
  options_.num_levels = 4;
  Open();
  Merge("k", "a");
  Flush();
  Merge("k", "b");
  Flush();
  CompactAll();  // at the bottom of the writable levels: must stay operands
  Merge("k", "c");
  const std::string f = WriteFile("behind.sst", [](SstFileWriter* w) {
    ASSERT_OK(w->Put("k", "base"));
  });
  IngestExternalFileOptions io;
  io.ingest_behind = true;
  ASSERT_OK(db_->IngestExternalFile({f}, io));
  ExpectState({{"k", "base,a,b,c"}}, {"k"}, nullptr, "ingested behind");
  Flush();
  CompactAll();
  ExpectState({{"k", "base,a,b,c"}}, {"k"}, nullptr, "compacted");
}

// ---------------------------------------------------------------- Flush, snapshots, writes

// The flush drops what the memtable's range deletion hides only where every snapshot that
// sees the entry also sees the deletion.
TEST_F(MergeScenarioTest, FlushKeepsWhatASnapshotSeesUnderARangeDeletion) {
  Open();
  Put("k", "v1");
  Merge("k", "m1");
  const Snapshot* s1 = db_->GetSnapshot();
  DeleteRange("a", "z");
  Merge("k", "m2");
  const Snapshot* s2 = db_->GetSnapshot();
  Merge("k", "m3");
  Put("j", "J");
  DeleteRange("j", "k");
  Flush();
  ExpectState({{"k", "v1,m1"}}, {"j", "k"}, s1, "s1 flushed");
  ExpectState({{"k", "m2"}}, {"j", "k"}, s2, "s2 flushed");
  ExpectState({{"k", "m2,m3"}}, {"j", "k"}, nullptr, "latest flushed");
  CompactAll();
  ExpectState({{"k", "v1,m1"}}, {"j", "k"}, s1, "s1 compacted");
  ExpectState({{"k", "m2"}}, {"j", "k"}, s2, "s2 compacted");
  ExpectState({{"k", "m2,m3"}}, {"j", "k"}, nullptr, "latest compacted");
  db_->ReleaseSnapshot(s1);
  db_->ReleaseSnapshot(s2);
  CompactAll();
  ExpectState({{"k", "m2,m3"}}, {"j", "k"}, nullptr, "released, compacted");
}

TEST_F(MergeScenarioTest, WriteTimeMergeInABatchAfterARangeDeletionWithoutWal) {
  options_.max_successive_merges = 2;
  Open();
  Put("k", "old");
  Merge("k", "a");
  Merge("k", "b");
  const Snapshot* snap = db_->GetSnapshot();
  WriteBatch batch;
  ASSERT_OK(batch.Merge("k", "c"));  // a third operand on top: merged at write time
  ASSERT_OK(batch.DeleteRange("k", "l"));
  ASSERT_OK(batch.Merge("k", "d"));
  ASSERT_OK(batch.Merge("k", "e"));
  ASSERT_OK(batch.Merge("k", "f"));
  WriteOptions wo;
  wo.disableWAL = true;
  ASSERT_OK(db_->Write(wo, &batch));
  ExpectState({{"k", "old,a,b"}}, {"k"}, snap, "snapshot");
  ExpectState({{"k", "d,e,f"}}, {"k"}, nullptr, "latest");
  Flush();
  CompactAll();
  ExpectState({{"k", "old,a,b"}}, {"k"}, snap, "snapshot compacted");
  ExpectState({{"k", "d,e,f"}}, {"k"}, nullptr, "latest compacted");
  db_->ReleaseSnapshot(snap);
}

// The per-key successive-merge counts are charged to the memtable's memory; a count that is
// erased (a Put/Delete of the key) or cleared (a range deletion) must stop being charged.
// Otherwise a key that alternates Merge and Put is charged ~50 bytes per Merge forever, and
// the memtable looks (and flushes as if) far larger than it is.
TEST_F(MergeScenarioTest, SuccessiveMergeTrackingIsNotChargedAfterTheCountsGo) {
  auto memtable_bytes = [this](size_t max_successive_merges) {
    options_.max_successive_merges = max_successive_merges;
    options_.write_buffer_size = 32 << 20;
    options_.file_system = NewMemFileSystem();
    Open();
    for (int i = 0; i < 20000; i++) {
      Merge("k", "x");
      Put("k", "v");
    }
    uint64_t bytes = 0;
    EXPECT_TRUE(db_->GetIntProperty(DB::Properties::kCurSizeAllMemTables, &bytes));
    Close();
    return bytes;
  };
  const uint64_t untracked = memtable_bytes(0);
  const uint64_t tracked = memtable_bytes(1000);
  // One live count at most: a few hundred bytes, not one entry per Merge ever made.
  EXPECT_LT(tracked, untracked + (64 << 10)) << "untracked " << untracked;
}


// ---------------------------------------------------------------- Iterators

// A merged key whose operands sit in the memtable, L0 and L1 over a base in L2 that a range
// deletion in L0 hides; a plain key after it at the end of the data; bounds and a snapshot.
TEST_F(MergeScenarioTest, IteratorLandsOnAMergedKeyFromEveryDirection) {
  options_.num_levels = 4;
  Open();
  Put("b", "B");
  Put("m", "base");
  Flush();
  CompactAll();  // L3
  Merge("m", "m1");
  Flush();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  DeleteRange("l", "n");  // hides m1 and the base
  Merge("m", "m2");
  Flush();  // L0
  const Snapshot* snap = db_->GetSnapshot();
  Merge("m", "m3");
  Merge("z", "z1");
  const Model latest{{"b", "B"}, {"m", "m2,m3"}, {"z", "z1"}};
  const Model at_snap{{"b", "B"}, {"m", "m2"}};
  ExpectState(latest, {"b", "m", "z"}, nullptr, "latest");
  ExpectState(at_snap, {"b", "m", "z"}, snap, "snapshot");

  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->SeekForPrev("m");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "m");
  EXPECT_EQ(it->value(), "m2,m3");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "z");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "m2,m3");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "m2,m3");
  EXPECT_OK(it->status());

  // The merged key is the last one below the upper bound: Prev after landing on it forward.
  std::string_view upper = "n";
  ReadOptions ro;
  ro.snapshot = snap;
  ro.iterate_upper_bound = &upper;
  it = db_->NewIterator(ro);
  it->Seek("c");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "m2");
  it->Next();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value(), "m2");
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "b");
  EXPECT_OK(it->status());
  it.reset();
  db_->ReleaseSnapshot(snap);
}

// doc/merge.md ("Hot keys") and Options::max_successive_merges: an operand that finds N
// operands on top of its key is merged at write time, so a read merges at most N memtable
// operands.
TEST_F(MergeScenarioTest, MaxSuccessiveMergesBoundMatchesTheDoc) {
  class CountingJoin : public JoinOperator {
   public:
    bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
      most = std::max(most.load(), static_cast<int>(in.operand_list.size()));
      return JoinOperator::FullMergeV2(in, out);
    }
    mutable std::atomic<int> most{0};
  };
  auto op = std::make_shared<CountingJoin>();
  options_.merge_operator = op;
  options_.max_successive_merges = 2;
  Open();
  for (int i = 0; i < 8; i++) Merge("k", std::string(1, 'o').append(std::to_string(i)));
  op->most = 0;
  EXPECT_EQ(Get("k"), "o0,o1,o2,o3,o4,o5,o6,o7");
  EXPECT_LE(op->most.load(), 2);
}

// ---------------------------------------------------------------- Randomized model


struct ModelConfig {
  std::string name;
  std::function<void(Options*)> configure;
  int steps = 1500;
  int keys = 12;
  bool ingest = false;  // also ingest external files (operands, values, deletions, ranges)
};

class MergeModelTest : public MergeScenarioTest,
                             public testing::WithParamInterface<ModelConfig> {};

TEST_P(MergeModelTest, RandomHistoriesMatchTheModel) {
  const ModelConfig& config = GetParam();
  config.configure(&options_);
  Open();
  // SHALE_MERGE_MODEL_SEED picks another history (to search more); the default is fixed.
  const char* env_seed = std::getenv("SHALE_MERGE_MODEL_SEED");
  const uint64_t seed = env_seed != nullptr ? std::strtoull(env_seed, nullptr, 10) : 301;
  SCOPED_TRACE("seed " + std::to_string(seed));
  Random rnd(static_cast<uint32_t>(seed));
  auto key = [](int i) {
    return std::string(i < 10 ? "k0" : "k") + std::to_string(i);
  };
  std::vector<std::string> keys;
  for (int i = 0; i < config.keys; i++) keys.push_back(key(i));
  std::vector<std::string> targets{"", "z"};
  for (const std::string& k : keys) {
    targets.push_back(k);
    targets.push_back(k + "x");
  }
  Model model;
  std::vector<std::pair<const Snapshot*, Model>> snaps;
  int token = 0;
  auto apply_merge = [](Model* m, const std::string& k, const std::string& v) {
    auto it = m->find(k);
    (*m)[k] = it == m->end() ? v : it->second + "," + v;
  };
  for (int step = 0; step < config.steps; step++) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int r = static_cast<int>(rnd.Uniform(100));
    const std::string k = key(static_cast<int>(rnd.Uniform(config.keys)));
    if (r < 40) {
      const std::string v = "m" + std::to_string(token++) +
                            (rnd.Uniform(15) == 0 ? std::string(300, '.') : std::string());
      Merge(k, v);
      apply_merge(&model, k, v);
    } else if (r < 50) {
      const std::string v = "p" + std::to_string(token++);
      Put(k, v);
      model[k] = v;
    } else if (r < 54) {
      Delete(k);
      model.erase(k);
    } else if (r < 57) {
      int a = static_cast<int>(rnd.Uniform(config.keys));
      int b = static_cast<int>(rnd.Uniform(config.keys + 1));
      if (a > b) std::swap(a, b);
      const std::string e = b == config.keys ? "z" : key(b);
      DeleteRange(key(a), e);
      for (auto it = model.lower_bound(key(a)); it != model.end() && it->first < e;) {
        it = model.erase(it);
      }
    } else if (r < 63) {
      WriteBatch batch;
      const int n = 1 + static_cast<int>(rnd.Uniform(6));
      for (int j = 0; j < n; j++) {
        const std::string bk = key(static_cast<int>(rnd.Uniform(config.keys)));
        const std::string v = "b" + std::to_string(token++);
        const int t = static_cast<int>(rnd.Uniform(20));
        if (t < 12) {
          ASSERT_OK(batch.Merge(bk, v));
          apply_merge(&model, bk, v);
        } else if (t < 16) {
          ASSERT_OK(batch.Put(bk, v));
          model[bk] = v;
        } else if (t < 18) {
          ASSERT_OK(batch.Delete(bk));
          model.erase(bk);
        } else {
          ASSERT_OK(batch.DeleteRange(bk, bk + "x"));
          model.erase(bk);
        }
      }
      WriteOptions wo;
      wo.disableWAL = rnd.Uniform(4) == 0;
      ASSERT_OK(db_->Write(wo, &batch));
    } else if (r < 68) {
      if (config.ingest && rnd.Uniform(2) == 0) {
        // A file of a few keys in order, maybe with a range deletion; it lands above
        // everything it overlaps, at one sequence number: its range deletion hides older
        // data only, its points apply in key order.
        ASSERT_OK(options_.file_system->CreateDirIfMissing("/ext"));
        const std::string path = "/ext/f" + std::to_string(token);
        SstFileWriter writer(options_.table_options, kNoCompression, BytewiseComparator(),
                             options_.file_system);
        ASSERT_OK(writer.Open(path));
        std::optional<std::pair<std::string, std::string>> range;
        if (rnd.Uniform(3) == 0) {
          int a = static_cast<int>(rnd.Uniform(config.keys));
          int b = static_cast<int>(rnd.Uniform(config.keys + 1));
          if (a > b) std::swap(a, b);
          if (a < b) {
            range.emplace(key(a), b == config.keys ? "z" : key(b));
            ASSERT_OK(writer.DeleteRange(range->first, range->second));
          }
        }
        std::vector<std::pair<std::string, int>> points;
        for (int i = 0; i < config.keys; i++) {
          if (rnd.Uniform(4) == 0) points.emplace_back(key(i), static_cast<int>(rnd.Uniform(4)));
        }
        if (points.empty() && !range) points.emplace_back(k, 0);
        std::vector<std::pair<std::string, std::string>> applied;
        for (const auto& [pk, kind] : points) {
          const std::string v = "i" + std::to_string(token++);
          if (kind <= 1) {
            ASSERT_OK(writer.Merge(pk, v));
          } else if (kind == 2) {
            ASSERT_OK(writer.Put(pk, v));
          } else {
            ASSERT_OK(writer.Delete(pk));
          }
          applied.emplace_back(pk, kind == 3 ? std::string() : v);
        }
        ASSERT_OK(writer.Finish());
        ASSERT_OK(db_->IngestExternalFile({path}, IngestExternalFileOptions()));
        if (range) {
          for (auto it = model.lower_bound(range->first);
               it != model.end() && it->first < range->second;) {
            it = model.erase(it);
          }
        }
        for (size_t i = 0; i < points.size(); i++) {
          const int kind = points[i].second;
          if (kind <= 1) {
            apply_merge(&model, applied[i].first, applied[i].second);
          } else if (kind == 2) {
            model[applied[i].first] = applied[i].second;
          } else {
            model.erase(applied[i].first);
          }
        }
      } else {
        Flush();
      }
    } else if (r < 70) {
      if (rnd.Uniform(2) == 0) {
        CompactAll();
      } else {
        std::string b = key(static_cast<int>(rnd.Uniform(config.keys)));
        std::string e = key(static_cast<int>(rnd.Uniform(config.keys)));
        if (b > e) std::swap(b, e);
        std::string_view bv(b), ev(e);
        ASSERT_OK(db_->CompactRange(CompactRangeOptions(), &bv, &ev));
      }
    } else if (r < 73) {
      if (snaps.size() < 4) snaps.emplace_back(db_->GetSnapshot(), model);
    } else if (r < 75) {
      if (!snaps.empty()) {
        const size_t i = rnd.Uniform(snaps.size());
        db_->ReleaseSnapshot(snaps[i].first);
        snaps.erase(snaps.begin() + static_cast<std::ptrdiff_t>(i));
      }
    } else if (r < 93) {
      const Snapshot* snap = nullptr;
      const Model* m = &model;
      if (!snaps.empty() && rnd.Uniform(3) == 0) {
        const size_t i = rnd.Uniform(snaps.size());
        snap = snaps[i].first;
        m = &snaps[i].second;
      }
      auto it = m->find(k);
      ASSERT_EQ(Get(k, snap), it == m->end() ? "NOT_FOUND" : it->second) << "key " << k;
    } else {
      ReadOptions ro;
      const Model* m = &model;
      if (!snaps.empty() && rnd.Uniform(2) == 0) {
        const size_t i = rnd.Uniform(snaps.size());
        ro.snapshot = snaps[i].first;
        m = &snaps[i].second;
      }
      std::string_view lo, hi;
      if (rnd.Uniform(3) == 0) {
        lo = targets[rnd.Uniform(targets.size())];
        ro.iterate_lower_bound = &lo;
      }
      if (rnd.Uniform(3) == 0) {
        hi = targets[rnd.Uniform(targets.size())];
        ro.iterate_upper_bound = &hi;
      }
      const std::string failure = test::RandomWalk(db_.get(), *m, ro, &rnd, 20, targets);
      ASSERT_EQ(failure, "");
    }
  }
  for (size_t i = 0; i < snaps.size(); i++) {
    ExpectState(snaps[i].second, keys, snaps[i].first, "final snapshot " + std::to_string(i));
  }
  ExpectState(model, keys, nullptr, "final");
  for (auto& s : snaps) db_->ReleaseSnapshot(s.first);
  CompactAll();
  ExpectState(model, keys, nullptr, "final compacted");
  Reopen();
  ExpectState(model, keys, nullptr, "final reopened");
}

void SmallTables(Options* o) {
  o->table_options.block_size = 64;
  o->table_options.block_restart_interval = 2;
  o->target_file_size_base = 1024;
  o->max_bytes_for_level_base = 4096;
  o->num_levels = 4;
}

INSTANTIATE_TEST_SUITE_P(
    Configs, MergeModelTest,
    testing::Values(
        ModelConfig{"HashIndexSmallBlocks",
                    [](Options* o) {
                      SmallTables(o);
                      o->table_options.data_block_index_type =
                          TableOptions::kDataBlockBinaryAndHash;
                    }},
        ModelConfig{"HashIndexNoPartialMerges",
                    [](Options* o) {
                      SmallTables(o);
                      o->merge_operator = std::make_shared<JoinOperator>(/*partial=*/false);
                      o->table_options.data_block_index_type =
                          TableOptions::kDataBlockBinaryAndHash;
                      o->table_options.filter_policy = NewBloomFilterPolicy(10);
                    },
                    1500, 4},
        ModelConfig{"PartitionedNoPartialMerges",
                    [](Options* o) {
                      SmallTables(o);
                      o->merge_operator = std::make_shared<JoinOperator>(/*partial=*/false);
                      o->table_options.index_type = TableOptions::kTwoLevelIndexSearch;
                      o->table_options.filter_policy = NewBloomFilterPolicy(10);
                      o->table_options.partition_filters = true;
                      o->table_options.metadata_block_size = 32;
                      o->max_subcompactions = 3;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 3;
                    },
                    1500, 4},
        ModelConfig{"PartitionedIndexAndFilters",
                    [](Options* o) {
                      SmallTables(o);
                      o->table_options.index_type = TableOptions::kTwoLevelIndexSearch;
                      o->table_options.filter_policy = NewBloomFilterPolicy(10);
                      o->table_options.partition_filters = true;
                      o->table_options.metadata_block_size = 64;
                    }},
        ModelConfig{"Subcompactions",
                    [](Options* o) {
                      SmallTables(o);
                      o->max_subcompactions = 4;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                    }},
        ModelConfig{"Universal",
                    [](Options* o) {
                      o->compaction_style = kCompactionStyleUniversal;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                      o->num_levels = 4;
                    }},
        ModelConfig{"MaxSuccessiveMerges",
                    [](Options* o) {
                      SmallTables(o);
                      o->max_successive_merges = 2;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                    }},
        ModelConfig{"IngestLevel",
                    [](Options* o) {
                      SmallTables(o);
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                    },
                    1500, 12, /*ingest=*/true},
        ModelConfig{"IngestUniversal",
                    [](Options* o) {
                      o->compaction_style = kCompactionStyleUniversal;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                      o->num_levels = 4;
                    },
                    1500, 12, /*ingest=*/true},
        ModelConfig{"IngestBehindReserved",
                    [](Options* o) {
                      SmallTables(o);
                      o->allow_ingest_behind = true;
                      o->disable_auto_compactions = false;
                      o->level0_file_num_compaction_trigger = 2;
                    }}),
    [](const testing::TestParamInfo<ModelConfig>& info) { return info.param.name; });

}  // namespace
}  // namespace shale
