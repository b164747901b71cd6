// tools/shale_stress's workload end to end, in process: every operation of the mix runs
// against a DB on the in-memory file system while the expected state records the writes; the
// DB must then verify against it, after a clean close and after a simulated power loss.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "durability.h"
#include "expected_state.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "stress_config.h"
#include "stress_options.h"
#include "testutil/status_matchers.h"
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
    ASSERT_OK(ParseOpMix("put=40,delete=8,delete_range=4,batch=12,ingest=2,get=20,snapshot=6,"
                         "iterate=6,flush=2,compact_range=1",
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
    ASSERT_OK(db->Close());
  }
  const VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); });
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_GT(r.keys_present, 0u);
  EXPECT_EQ(state_->CountPending(), 0u);
}

TEST_P(StressWorkloadTest, VerifiesAfterPowerLoss) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(options_.file_system);
  Options fault_options = options_;
  fault_options.file_system = fs;
  DurabilityTracker tracker(std::vector<GenWord>(config_.max_key, 0));
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
    while (victim < config_.max_key && IsAbsentWord(state_->Acked(victim))) ++victim;
    ASSERT_LT(victim, config_.max_key);
    ASSERT_OK(db->Delete(WriteOptions(), KeyString(victim)));
    ASSERT_OK(db->Close());
  }
  const VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); });
  EXPECT_FALSE(r.failures.empty());
}

INSTANTIATE_TEST_SUITE_P(Seeds, StressWorkloadTest, testing::Values(1, 2, 3, 7));

}  // namespace
}  // namespace shale::stress
