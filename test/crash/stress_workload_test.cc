// tools/shale_stress's workload end to end, in process: every operation of the mix runs
// against a DB on the in-memory file system while the expected state records the writes; the
// DB must then verify against it, after a clean close and after a simulated power loss. And the
// stress merge operator inside a real DB: merged values name exactly the operands the model
// (key_state.h) expects through flushes, compactions, snapshots and write-time merges.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "durability.h"
#include "expected_state.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "key_state.h"
#include "shale/db.h"
#include "stress_config.h"
#include "stress_merge_operator.h"
#include "stress_options.h"
#include "testutil/status_matchers.h"
#include "util/random.h"
#include "value_codec.h"
#include "verifier.h"
#include "workload.h"

namespace shale::stress {
namespace {

class StressWorkloadTest : public testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    state_path_ = testing::TempDir() + "/stress_workload_" + std::to_string(getpid());
    std::remove(state_path_.c_str());
    ASSERT_OK(ExpectedState::Open(state_path_, 400, &state_));
    config_.db = "/stressdb";
    config_.expected_dir = "/expected";
    config_.threads = 3;
    config_.max_key = 400;
    config_.ops_per_thread = 600;
    config_.sync_one_in = 8;
    config_.seed = GetParam();
    // Every operation, maintenance ones often enough to happen in a short run.
    ASSERT_OK(ParseOpMix("put=40,delete=8,merge=12,delete_range=4,batch=12,ingest=2,get=20,"
                         "snapshot=6,iterate=6,flush=2,compact_range=1",
                         &config_.weights));
    options_ = MakeStressOptions(GetParam(), true);
    options_.file_system = NewMemFileSystem();
    ASSERT_OK(options_.file_system->CreateDirIfMissing(config_.expected_dir));
  }
  void TearDown() override { std::remove(state_path_.c_str()); }

  // Reopens the DB (on `fs`) and checks it against `allowed`.
  VerifyResult Verify(const AllowedFn& allowed) {
    std::unique_ptr<DB> db;
    Status s = DB::Open(options_, config_.db, &db);
    EXPECT_OK(s);
    if (!s.ok()) return {};
    std::vector<Found> found;
    std::vector<std::string> failures;
    EXPECT_OK(ReadState(db.get(), config_.max_key, &found, &failures));
    EXPECT_TRUE(failures.empty()) << failures.front();
    EXPECT_OK(db->Close());
    return CheckState(found, allowed);
  }

  std::string state_path_;
  std::unique_ptr<ExpectedState> state_;
  StressConfig config_;
  Options options_;
};

TEST_P(StressWorkloadTest, VerifiesAfterCleanClose) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, config_.db, &db));
    Workload w(config_, db.get(), state_.get(), nullptr);
    w.Start();
    w.Join();
    const std::vector<std::string> failures = w.failures();
    ASSERT_TRUE(failures.empty()) << failures.front();
    const auto counts = w.op_counts();
    for (int i = 0; i < kNumOpTypes; ++i) {
      EXPECT_GT(counts[i], 0u) << OpName(static_cast<OpType>(i)) << " never ran";
    }
    EXPECT_GT(w.merges_done(), counts[static_cast<int>(OpType::kMerge)]);  // batches merge too
    ASSERT_OK(db->Close());
  }
  const VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_GT(r.keys_present, 0u);
  EXPECT_GT(r.keys_merged, 0u);
  EXPECT_EQ(state_->CountPending(), 0u);
}

TEST_P(StressWorkloadTest, VerifiesAfterPowerLoss) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(options_.file_system);
  Options fault_options = options_;
  fault_options.file_system = fs;
  DurabilityTracker tracker(std::vector<KeyState>(config_.max_key));
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(fault_options, config_.db, &db));
    Workload w(config_, db.get(), state_.get(), &tracker);
    w.Start();
    w.Join();
    const std::vector<std::string> failures = w.failures();
    ASSERT_TRUE(failures.empty()) << failures.front();
    w.PowerCut();
    fs->SetFilesystemActive(false);
  }  // the DB dies without a clean close
  ASSERT_OK(fs->DropUnsyncedData());
  const VerifyResult r = Verify([&](uint32_t k) { return tracker.AllowedAfterPowerLoss(k); });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
}

// A verification must catch a DB that lost an acknowledged write.
TEST_P(StressWorkloadTest, CatchesALostWrite) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, config_.db, &db));
    Workload w(config_, db.get(), state_.get(), nullptr);
    w.Start();
    w.Join();
    ASSERT_TRUE(w.failures().empty());
    // Behind the expected state's back: delete a key that holds a value.
    uint32_t victim = 0;
    while (victim < config_.max_key && !IsPresent(state_->Acked(victim))) ++victim;
    ASSERT_LT(victim, config_.max_key);
    ASSERT_OK(db->Delete(WriteOptions(), KeyString(victim)));
    ASSERT_OK(db->Close());
  }
  const VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); });
  EXPECT_FALSE(r.failures.empty());
}

// And one whose newest operand is right but which holds an operand twice.
TEST_P(StressWorkloadTest, CatchesAnOperandAppliedTwice) {
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options_, config_.db, &db));
    Workload w(config_, db.get(), state_.get(), nullptr);
    w.Start();
    w.Join();
    ASSERT_TRUE(w.failures().empty());
    uint32_t victim = 0;
    while (victim < config_.max_key && Kind(state_->Acked(victim).word) != WriteKind::kMerge) {
      ++victim;
    }
    ASSERT_LT(victim, config_.max_key);
    const KeyState acked = state_->Acked(victim);
    DecodedValue doubled;
    doubled.key = victim;
    doubled.word = acked.word;
    doubled.hash = ChainExtend(acked.hash, MixWord(acked.word), 1);
    doubled.merges = 2;
    ASSERT_OK(db->Put(WriteOptions(), KeyString(victim), EncodeMergedValue(doubled)));
    ASSERT_OK(db->Close());
  }
  const VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); });
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("merge#"), std::string::npos) << r.failures[0];
}

INSTANTIATE_TEST_SUITE_P(Seeds, StressWorkloadTest, testing::Values(1, 2, 3, 7));

// The stress operator in a DB against the key-state model: random puts, deletes, range
// deletions and merges of a few keys, with flushes, compactions and snapshots between, under
// each compaction style and with or without max_successive_merges.
class StressMergeDbTest : public testing::TestWithParam<std::tuple<int, size_t>> {};

// Reads key k by Get, MultiGet and an iterator; all must show `want`.
void ExpectState(DB* db, const ReadOptions& ro, uint32_t k, const KeyState& want) {
  const std::string key = KeyString(k);
  std::string value;
  Status s = db->Get(ro, key, &value);
  std::vector<std::string> values;
  const std::vector<Status> multi = db->MultiGet(ro, {key}, &values);
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  it->Seek(key);
  const bool seen = it->Valid() && it->key() == key;
  ASSERT_OK(it->status());
  if (!IsPresent(want)) {
    EXPECT_TRUE(s.IsNotFound()) << key << " " << s.ToString() << " " << value;
    EXPECT_TRUE(multi[0].IsNotFound()) << key << " " << multi[0].ToString();
    EXPECT_FALSE(seen) << key;
    return;
  }
  ASSERT_OK(s);
  ASSERT_OK(multi[0]);
  ASSERT_TRUE(seen) << key;
  for (const std::string_view v : {std::string_view(value), std::string_view(values[0]),
                                   it->value()}) {
    DecodedValue d;
    std::string error;
    ASSERT_TRUE(DecodeValue(v, &d, &error)) << key << ": " << error;
    EXPECT_EQ(d.key, k);
    EXPECT_EQ(DescribeState({d.word, d.hash}), DescribeState(want)) << key;
  }
}

TEST_P(StressMergeDbTest, MergedValuesFollowTheModel) {
  const auto [style, successive] = GetParam();
  Options options = MakeStressOptions(0, false);
  options.file_system = NewMemFileSystem();
  options.compaction_style = static_cast<CompactionStyle>(style);
  options.max_successive_merges = successive;
  options.write_buffer_size = 64 << 10;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, "/mergedb", &db));
  constexpr uint32_t kKeys = 6;
  std::vector<KeyState> model(kKeys);
  std::vector<uint32_t> gens(kKeys, 0);
  std::vector<std::pair<const Snapshot*, std::vector<KeyState>>> snapshots;
  Random rnd(style * 31 + successive + 1);
  for (int step = 0; step < 1500; ++step) {
    const uint32_t k = static_cast<uint32_t>(rnd.Uniform(kKeys));
    const uint64_t r = rnd.Uniform(100);
    if (r < 55) {
      const GenWord w = MakeWord(++gens[k], WriteKind::kMerge);
      ASSERT_OK(db->Merge(WriteOptions(), KeyString(k), EncodeOperand(k, w, {}, rnd.Uniform(20))));
      model[k] = Apply(model[k], w);
    } else if (r < 75) {
      const GenWord w = MakeWord(++gens[k], WriteKind::kPut);
      ASSERT_OK(db->Put(WriteOptions(), KeyString(k), EncodeValue(k, w, {}, rnd.Uniform(20))));
      model[k] = Apply(model[k], w);
    } else if (r < 82) {
      const GenWord w = MakeWord(++gens[k], WriteKind::kDelete);
      ASSERT_OK(db->Delete(WriteOptions(), KeyString(k)));
      model[k] = Apply(model[k], w);
    } else if (r < 85) {
      const uint32_t end = std::min(kKeys, k + 2);
      ASSERT_OK(db->DeleteRange(WriteOptions(), KeyString(k), KeyString(end)));
      for (uint32_t j = k; j < end; ++j) {
        model[j] = Apply(model[j], MakeWord(++gens[j], WriteKind::kDelete));
      }
    } else if (r < 88) {
      ASSERT_OK(db->Flush(FlushOptions()));
    } else if (r < 90) {
      ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    } else if (r < 92 && snapshots.size() < 4) {
      snapshots.emplace_back(db->GetSnapshot(), model);
    } else if (r < 94 && !snapshots.empty()) {
      db->ReleaseSnapshot(snapshots.front().first);
      snapshots.erase(snapshots.begin());
    } else {
      ExpectState(db.get(), ReadOptions(), k, model[k]);
      for (const auto& [snapshot, then] : snapshots) {
        ReadOptions ro;
        ro.snapshot = snapshot;
        ExpectState(db.get(), ro, k, then[k]);
      }
    }
    if (HasFatalFailure() || HasFailure()) return;
  }
  for (const auto& snapshot : snapshots) db->ReleaseSnapshot(snapshot.first);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(DB::Open(options, "/mergedb", &db));  // reopen: WAL replay, tables
  for (uint32_t k = 0; k < kKeys; ++k) ExpectState(db.get(), ReadOptions(), k, model[k]);
}

INSTANTIATE_TEST_SUITE_P(
    StylesAndSuccessiveMerges, StressMergeDbTest,
    testing::Combine(testing::Values(static_cast<int>(kCompactionStyleLevel),
                                     static_cast<int>(kCompactionStyleUniversal),
                                     static_cast<int>(kCompactionStyleFIFO)),
                     testing::Values(size_t{0}, size_t{3})));

}  // namespace
}  // namespace shale::stress
