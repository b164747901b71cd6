// tools/shale_stress with column families (issue 23, keyspace.h): the verifier's rule that a
// batch across families is all or nothing, values read from the wrong family, the expected
// state's family count, a WAL kept for an unflushed family while the others flush, and the
// workload end to end with three families (clean close, power loss, a torn batch made behind
// the expected state's back).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "durability.h"
#include "expected_state.h"
#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "key_state.h"
#include "keyspace.h"
#include "shale/db.h"
#include "stress_config.h"
#include "stress_db.h"
#include "stress_options.h"
#include "testutil/status_matchers.h"
#include "value_codec.h"
#include "verifier.h"
#include "workload.h"

namespace shale::stress {
namespace {

constexpr WriteKind kPut = WriteKind::kPut;
constexpr WriteKind kMerge = WriteKind::kMerge;
constexpr WriteKind kDel = WriteKind::kDelete;

std::string TempPath(const std::string& name) {
  return testing::TempDir() + "/stress_families_" + std::to_string(getpid()) + "_" + name;
}

KeyState StateOf(GenWord w) { return Apply(KeyState(), w); }

Found Present(const KeyState& s, std::vector<Member> members = {}) {
  Found f;
  f.present = true;
  f.word = s.word;
  f.hash = s.hash;
  f.members = std::move(members);
  return f;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(KeyspaceTest, SlotsAndNames) {
  const Keyspace one{100, 1};
  EXPECT_EQ(one.slots(), 100u);
  EXPECT_EQ(one.Name(42), "0000000042");
  const Keyspace ks{100, 3};
  EXPECT_EQ(ks.slots(), 300u);
  EXPECT_EQ(ks.Slot(2, 42), 242u);
  EXPECT_EQ(ks.Family(242), 2u);
  EXPECT_EQ(ks.Key(242), 42u);
  EXPECT_EQ(ks.FamilyBegin(242), 200u);
  EXPECT_EQ(ks.FamilyEnd(242), 300u);
  EXPECT_EQ(ks.Name(42), "default/0000000042");
  EXPECT_EQ(ks.Name(142), "cf1/0000000042");
}

// A batch put key 5 into the default family and cf2 (slots 5 and 37 of 3 x 16), and merged
// into key 9 of cf1 (slot 25). Each may hold its old state or the batch's write.
class TornCrossFamilyBatchTest : public testing::Test {
 protected:
  const Keyspace ks_{16, 3};
  const uint32_t a_ = ks_.Slot(0, 5), b_ = ks_.Slot(2, 5), c_ = ks_.Slot(1, 9);
  const std::vector<Member> batch_ = {
      {a_, MakeWord(2, kPut)}, {c_, MakeWord(2, kMerge)}, {b_, MakeWord(2, kPut)}};
  const KeyState old_ = StateOf(MakeWord(1, kPut));
  const KeyState merged_ = Apply(old_, MakeWord(2, kMerge));

  std::vector<KeyState> Allowed(uint32_t slot) const {
    for (const Member& m : batch_) {
      if (m.key == slot) return {old_, Apply(old_, m.word)};
    }
    return {KeyState()};
  }
  // Every slot absent except a, b and c, which hold what is given.
  VerifyResult Check(const Found& a, const Found& b, const Found& c) const {
    std::vector<Found> found(ks_.slots());
    found[a_] = a;
    found[b_] = b;
    found[c_] = c;
    return CheckState(found, [this](uint32_t k) { return Allowed(k); }, ks_);
  }
};

TEST_F(TornCrossFamilyBatchTest, AllOrNothingPasses) {
  const Found put = Present(StateOf(MakeWord(2, kPut)), batch_);
  VerifyResult all = Check(put, put, Present(merged_, batch_));
  EXPECT_TRUE(all.failures.empty()) << all.failures.front();
  VerifyResult none = Check(Present(old_), Present(old_), Present(old_));
  EXPECT_TRUE(none.failures.empty()) << none.failures.front();
}

TEST_F(TornCrossFamilyBatchTest, OneFamilyWithoutTheBatchIsReported) {
  // The default family and cf1 show the batch, cf2 still holds the old value.
  const Found put = Present(StateOf(MakeWord(2, kPut)), batch_);
  VerifyResult r = Check(put, Present(old_), Present(merged_, batch_));
  ASSERT_EQ(r.failures.size(), 2u);
  for (const std::string& f : r.failures) {
    EXPECT_TRUE(Contains(f, "across families")) << f;
    EXPECT_TRUE(Contains(f, "member cf2/0000000005")) << f;
    EXPECT_TRUE(Contains(f, "family cf2 does not")) << f;
  }
  EXPECT_TRUE(Contains(r.failures[0], "key default/0000000005 shows g2:put")) << r.failures[0];
  EXPECT_TRUE(Contains(r.failures[0], "family default has it")) << r.failures[0];
}

TEST_F(TornCrossFamilyBatchTest, AMergedValueShowsTheBatchTheOthersLack) {
  // Only cf1's merge landed; the puts in the default family and cf2 are missing.
  VerifyResult r = Check(Present(old_), Present(old_), Present(merged_, batch_));
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_TRUE(Contains(r.failures[0], "key cf1/0000000009 shows g2:merge")) << r.failures[0];
  EXPECT_TRUE(Contains(r.failures[0], "member default/0000000005")) << r.failures[0];
  EXPECT_TRUE(Contains(r.failures[1], "member cf2/0000000005")) << r.failures[1];
}

TEST_F(TornCrossFamilyBatchTest, AFamilyLosingTheBatchByAbsenceIsReported) {
  // cf2's put of the batch is gone and the key absent (its old state was a put, so absent is
  // no allowed state either: two failures, one of each rule).
  const Found put = Present(StateOf(MakeWord(2, kPut)), batch_);
  VerifyResult r = Check(put, Found(), Present(merged_, batch_));
  ASSERT_EQ(r.failures.size(), 3u);
  EXPECT_TRUE(Contains(r.failures[0], "key cf2/0000000005: found absent")) << r.failures[0];
  EXPECT_TRUE(Contains(r.failures[1], "torn")) << r.failures[1];
}

TEST(ExpectedStateFamiliesTest, FamiliesAreFixedToTheFile) {
  const std::string path = TempPath("families");
  std::remove(path.c_str());
  {
    std::unique_ptr<ExpectedState> s;
    ASSERT_OK(ExpectedState::Open(path, 20, 3, &s));
    EXPECT_EQ(s->slots(), 60u);
    s->MarkPending(59, MakeWord(1, kPut));
    s->Commit(59);
  }
  std::unique_ptr<ExpectedState> s;
  ASSERT_OK(ExpectedState::Open(path, 20, 3, &s));
  EXPECT_EQ(s->Acked(59), StateOf(MakeWord(1, kPut)));
  s.reset();
  Status st = ExpectedState::Open(path, 20, 2, &s);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_TRUE(Contains(st.ToString(), "--column_families=3, not 2")) << st.ToString();
  st = ExpectedState::Open(path, 20, &s);  // one family
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  std::remove(path.c_str());
  // A file from before families (the field is 0) is one family.
  ASSERT_OK(ExpectedState::Open(path, 20, &s));
  s.reset();
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    const char zero[4] = {0, 0, 0, 0};
    ASSERT_EQ(std::fseek(f, 16, SEEK_SET), 0);
    ASSERT_EQ(std::fwrite(zero, 1, 4, f), 4u);
    std::fclose(f);
  }
  ASSERT_OK(ExpectedState::Open(path, 20, &s));
  EXPECT_EQ(s->slots(), 20u);
  std::remove(path.c_str());
}

// Options of a small DB on the in-memory file system.
Options MemOptions(uint64_t seed) {
  Options options = MakeStressOptions(seed, seed != 0);
  options.file_system = NewMemFileSystem();
  return options;
}

TEST(StressDBTest, AValueInTheWrongFamilyIsCaught) {
  const Keyspace ks{32, 3};
  const Options options = MemOptions(0);
  std::unique_ptr<StressDB> sdb;
  ASSERT_OK(StressDB::Open(options, "/wrongfamily", ks, &sdb));
  ASSERT_EQ(sdb->handles().size(), 3u);
  DB* db = sdb->db();
  // Key 7 of cf1 holds its own put; key 7 of cf2 holds the value of the default family's key 7.
  ASSERT_OK(db->Put(WriteOptions(), sdb->handles()[1], KeyString(7),
                    EncodeValue(ks.Slot(1, 7), MakeWord(1, kPut), {}, 5)));
  ASSERT_OK(db->Put(WriteOptions(), sdb->handles()[2], KeyString(7),
                    EncodeValue(ks.Slot(0, 7), MakeWord(1, kPut), {}, 5)));
  // A merge in cf1 over its own value works; an operand of another family's slot fails.
  ASSERT_OK(db->Merge(WriteOptions(), sdb->handles()[1], KeyString(7),
                      EncodeOperand(ks.Slot(1, 7), MakeWord(2, kMerge), {}, 3)));
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), sdb->handles()[1], KeyString(7), &value));
  ASSERT_OK(db->Merge(WriteOptions(), sdb->handles()[1], KeyString(8),
                      EncodeOperand(ks.Slot(0, 8), MakeWord(1, kMerge), {}, 3)));
  EXPECT_FALSE(db->Get(ReadOptions(), sdb->handles()[1], KeyString(8), &value).ok());
  ASSERT_OK(db->Delete(WriteOptions(), sdb->handles()[1], KeyString(8)));

  std::vector<Found> found;
  std::vector<std::string> failures;
  ASSERT_OK(ReadState(db, sdb->handles(), ks, &found, &failures));
  ASSERT_EQ(found.size(), 96u);
  EXPECT_TRUE(found[ks.Slot(1, 7)].present);
  EXPECT_EQ(found[ks.Slot(1, 7)].merges, 1u);
  EXPECT_FALSE(found[ks.Slot(0, 7)].present);
  // The iterator, Get and MultiGet each report cf2's key 7.
  ASSERT_EQ(failures.size(), 3u);
  for (const std::string& f : failures) {
    EXPECT_TRUE(Contains(f, "cf2/0000000007 holds the value of key default/0000000007")) << f;
  }
  ASSERT_OK(sdb->Close());
}

// Family cf2 takes a synced write and is never flushed while the default family and cf1 are
// flushed again and again (each flush switches the WAL): cf2's write lives only in the first
// WAL, which must survive the others' flushes and a power loss.
TEST(StressDBTest, AWalNeededByAnUnflushedFamilySurvivesTheOthersFlushes) {
  const Keyspace ks{64, 3};
  Options options = MemOptions(0);
  auto fs = std::make_shared<FaultInjectionFileSystem>(options.file_system);
  Options fault_options = options;
  fault_options.file_system = fs;
  {
    std::unique_ptr<StressDB> sdb;
    ASSERT_OK(StressDB::Open(fault_options, "/walpin", ks, &sdb));
    DB* db = sdb->db();
    const auto& cf = sdb->handles();
    WriteOptions sync;
    sync.sync = true;
    ASSERT_OK(db->Put(sync, cf[2], KeyString(3),
                      EncodeValue(ks.Slot(2, 3), MakeWord(1, kPut), {}, 10)));
    for (uint32_t round = 0; round < 6; ++round) {
      for (uint32_t f = 0; f < 2; ++f) {
        for (uint32_t k = 0; k < ks.max_key; ++k) {
          ASSERT_OK(db->Put(WriteOptions(), cf[f], KeyString(k),
                            EncodeValue(ks.Slot(f, k), MakeWord(round + 1, kPut), {}, 50)));
        }
        ASSERT_OK(db->Flush(FlushOptions(), cf[f]));
      }
    }
    fs->SetFilesystemActive(false);
  }  // the DB dies without a clean close
  ASSERT_OK(fs->DropUnsyncedData());
  std::unique_ptr<StressDB> sdb;
  ASSERT_OK(StressDB::Open(options, "/walpin", ks, &sdb));
  std::vector<Found> found;
  std::vector<std::string> failures;
  ASSERT_OK(ReadState(sdb->db(), sdb->handles(), ks, &found, &failures));
  EXPECT_TRUE(failures.empty()) << failures.front();
  EXPECT_TRUE(found[ks.Slot(2, 3)].present) << "cf2's write was lost with its WAL";
  EXPECT_EQ(found[ks.Slot(2, 3)].word, MakeWord(1, kPut));
  EXPECT_EQ(found[ks.Slot(0, 5)].word, MakeWord(6, kPut));
  ASSERT_OK(sdb->Close());
}

// The workload end to end with three families; the parameter is the seed and atomic_flush.
class StressFamiliesWorkloadTest : public testing::TestWithParam<std::tuple<uint64_t, bool>> {
 protected:
  void SetUp() override {
    state_path_ = TempPath("workload");
    std::remove(state_path_.c_str());
    config_.db = "/stressdb";
    config_.expected_dir = "/expected";
    config_.threads = 3;
    config_.max_key = 200;
    config_.column_families = 3;
    config_.atomic_flush = std::get<1>(GetParam());
    config_.ops_per_thread = 600;
    config_.sync_one_in = 8;
    config_.seed = std::get<0>(GetParam());
    ASSERT_OK(ExpectedState::Open(state_path_, config_.max_key, config_.column_families,
                                  &state_));
    ASSERT_OK(ParseOpMix("put=40,delete=8,merge=12,delete_range=4,batch=14,ingest=2,get=20,"
                         "snapshot=6,iterate=6,flush=3,compact_range=1",
                         &config_.weights));
    options_ = MemOptions(config_.seed);
    options_.atomic_flush = config_.atomic_flush;
    ASSERT_OK(options_.file_system->CreateDirIfMissing(config_.expected_dir));
  }
  void TearDown() override { std::remove(state_path_.c_str()); }

  // Runs the whole workload on `options` and checks it ran every operation. Then closes the
  // DB, or with `power` (the file system of `options`) cuts the power before dropping it.
  void RunWorkload(const Options& options, DurabilityTracker* tracker,
                   FaultInjectionFileSystem* power) {
    std::unique_ptr<StressDB> sdb;
    ASSERT_OK(StressDB::Open(options, config_.db, config_.keyspace(), &sdb));
    Workload w(config_, sdb->db(), state_.get(), tracker, sdb->handles());
    w.Start();
    w.Join();
    const std::vector<std::string> failures = w.failures();
    ASSERT_TRUE(failures.empty()) << failures.front();
    const auto counts = w.op_counts();
    for (int i = 0; i < kNumOpTypes; ++i) {
      EXPECT_GT(counts[i], 0u) << OpName(static_cast<OpType>(i)) << " never ran";
    }
    if (power == nullptr) {
      ASSERT_OK(sdb->Close());
    } else {
      w.PowerCut();
      power->SetFilesystemActive(false);  // the DB dies without a clean close
    }
  }

  // Reopens the DB and checks it against `allowed`; *found gets what it holds.
  VerifyResult Verify(const AllowedFn& allowed, std::vector<Found>* found) {
    std::unique_ptr<StressDB> sdb;
    Status s = StressDB::Open(options_, config_.db, config_.keyspace(), &sdb);
    EXPECT_OK(s);
    if (!s.ok()) return {};
    std::vector<std::string> failures;
    EXPECT_OK(ReadState(sdb->db(), sdb->handles(), config_.keyspace(), found, &failures));
    EXPECT_TRUE(failures.empty()) << failures.front();
    EXPECT_OK(sdb->Close());
    return CheckState(*found, allowed, config_.keyspace());
  }

  // A slot whose value comes from a batch across families, and a member of it in another
  // family that shows the batch too; false if there is none.
  bool FindCrossFamilyBatch(const std::vector<Found>& found, uint32_t* shown,
                            Member* other) const {
    const Keyspace ks = config_.keyspace();
    for (uint32_t k = 0; k < found.size(); ++k) {
      if (!found[k].present) continue;
      for (const Member& m : found[k].members) {
        if (ks.Family(m.key) != ks.Family(k) && found[m.key].present &&
            found[m.key].word == m.word) {
          *shown = k;
          *other = m;
          return true;
        }
      }
    }
    return false;
  }

  std::string state_path_;
  std::unique_ptr<ExpectedState> state_;
  StressConfig config_;
  Options options_;
};

TEST_P(StressFamiliesWorkloadTest, VerifiesAfterCleanClose) {
  RunWorkload(options_, nullptr, nullptr);
  if (HasFatalFailure()) return;
  std::vector<Found> found;
  const VerifyResult r =
      Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); }, &found);
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  EXPECT_EQ(r.keys_checked, 600u);
  EXPECT_GT(r.keys_merged, 0u);
  EXPECT_EQ(state_->CountPending(), 0u);
  // Every family holds keys, and some batch across families is visible whole.
  for (uint32_t f = 0; f < 3; ++f) {
    uint32_t present = 0;
    for (uint32_t k = 0; k < config_.max_key; ++k) present += found[f * 200 + k].present;
    EXPECT_GT(present, 0u) << "family " << f;
  }
  uint32_t shown = 0;
  Member other;
  EXPECT_TRUE(FindCrossFamilyBatch(found, &shown, &other));
}

TEST_P(StressFamiliesWorkloadTest, VerifiesAfterPowerLoss) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(options_.file_system);
  Options fault_options = options_;
  fault_options.file_system = fs;
  DurabilityTracker tracker(std::vector<KeyState>(config_.keyspace().slots()));
  RunWorkload(fault_options, &tracker, fs.get());
  if (HasFatalFailure()) return;
  ASSERT_OK(fs->DropUnsyncedData());
  std::vector<Found> found;
  const VerifyResult r =
      Verify([&](uint32_t k) { return tracker.AllowedAfterPowerLoss(k); }, &found);
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
}

// A batch across families torn behind the expected state's back (one family's part deleted)
// must fail verification, naming the batch torn.
TEST_P(StressFamiliesWorkloadTest, CatchesATornCrossFamilyBatch) {
  RunWorkload(options_, nullptr, nullptr);
  if (HasFatalFailure()) return;
  std::vector<Found> found;
  VerifyResult r = Verify([&](uint32_t k) { return state_->AllowedAfterCrash(k); }, &found);
  ASSERT_TRUE(r.failures.empty()) << r.failures.front();
  uint32_t shown = 0;
  Member other;
  ASSERT_TRUE(FindCrossFamilyBatch(found, &shown, &other));
  const Keyspace ks = config_.keyspace();
  {
    // Remove the member from its family, and allow that key to be absent (as if a deletion
    // older than the batch were its state), so that only the batch rule can object.
    std::unique_ptr<StressDB> sdb;
    ASSERT_OK(StressDB::Open(options_, config_.db, ks, &sdb));
    ASSERT_OK(sdb->db()->Delete(WriteOptions(), sdb->handles()[ks.Family(other.key)],
                                KeyString(ks.Key(other.key))));
    ASSERT_OK(sdb->Close());
  }
  const GenWord old_delete = MakeWord(0, kDel);  // absent, but older than the batch
  r = Verify(
      [&](uint32_t k) {
        std::vector<KeyState> allowed = state_->AllowedAfterCrash(k);
        if (k == other.key) allowed.push_back({old_delete, 0});
        return allowed;
      },
      &found);
  ASSERT_FALSE(r.failures.empty());
  bool torn = false;
  for (const std::string& f : r.failures) torn = torn || Contains(f, "the batch is torn");
  EXPECT_TRUE(torn) << r.failures.front();
  EXPECT_TRUE(Contains(r.failures.front(), ks.Name(other.key))) << r.failures.front();
}

INSTANTIATE_TEST_SUITE_P(SeedsAndAtomicFlush, StressFamiliesWorkloadTest,
                         testing::Combine(testing::Values(1, 5), testing::Bool()));

}  // namespace
}  // namespace shale::stress
