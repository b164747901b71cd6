// LogAndApply under failures and crashes: the Nth create, write, sync, rename or directory sync
// of a LogAndApply fails, then the process dies (its files are closed) with or without a power
// loss (FaultInjectionFileSystem::DropUnsyncedData). Recover must then give the old or the new
// state (the new one if LogAndApply reported success), and the DB must go on working.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <utility>

#include "base/filename.h"
#include "fs/fault_injection_file_system.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "util/random.h"
#include "version/version_set.h"
#include "version/version_test_util.h"

namespace shale::test {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;

constexpr int kLevels = 5;
const char* const kDb = "/db";

// How the LogAndApply under test reaches the MANIFEST.
enum class Path {
  kAppend,           // appends to the live MANIFEST
  kNewAfterRecover,  // the first LogAndApply after Recover writes a new MANIFEST
  kSwitchBySize,     // the live MANIFEST is over max_manifest_file_size
};

class VersionSetFaultTest : public testing::Test {
 protected:
  void NewDb(Path path) {
    fs_ = std::make_unique<FaultInjectionFileSystem>(NewMemFileSystem());
    ASSERT_OK(fs_->CreateDir(kDb));
    max_manifest_ = path == Path::kSwitchBySize ? 1 : uint64_t{1} << 30;
    model_ = Model(kLevels);
    vs_ = NewVersionSet();
    VersionEdit first;
    ASSERT_OK(LogAndApply(&first));
    Random rnd(17);
    SequenceNumber seq = 1;
    for (int i = 0; i < 8; ++i) {
      VersionEdit e = RandomEdit(&rnd, vs_.get(), &model_, &seq);
      ASSERT_OK(LogAndApply(&e));
    }
    if (path == Path::kNewAfterRecover) ASSERT_OK(Reopen());
  }

  std::unique_ptr<VersionSet> NewVersionSet() {
    VersionSetOptions options;
    options.max_manifest_file_size = max_manifest_;
    return std::make_unique<VersionSet>(kDb, fs_.get(), InternalKeyComparator(BytewiseComparator()),
                                        kLevels, options);
  }

  Status LogAndApply(VersionEdit* edit) {
    MutexLock lock(&mu_);
    return vs_->LogAndApply(edit, &mu_);
  }

  Status Reopen() {
    vs_.reset();
    vs_ = NewVersionSet();
    bool save_manifest = false;
    return vs_->Recover(&save_manifest);
  }

  // An edit that deletes a file, moves none, adds two and sets the log number.
  VersionEdit TargetEdit() {
    VersionEdit e;
    const auto all = model_.AllFiles();
    if (!all.empty()) e.DeleteFile(all[0].first, all[0].second);
    const uint64_t a = vs_->NewFileNumber();
    const uint64_t b = vs_->NewFileNumber();
    e.AddFile(0, MakeFile(a, "a", "zz", 5000, 5001));
    e.AddFile(0, MakeFile(b, "b", "c", 5002, 5003));
    e.SetLogNumber(vs_->NewFileNumber());
    return e;
  }

  // After a crash (and a power loss if `power_loss`), the DB must recover one of the two states,
  // and accept and keep a new edit.
  void CrashAndCheck(bool power_loss, const std::string& old_state, const std::string& new_state,
                     bool must_be_new) {
    vs_.reset();  // the process dies: its files are closed
    if (power_loss) ASSERT_OK(fs_->DropUnsyncedData());
    ASSERT_OK(Reopen());
    const std::string got = DescribeVersionSet(*vs_);
    if (must_be_new) {
      ASSERT_EQ(got, new_state);
    } else {
      ASSERT_TRUE(got == old_state || got == new_state) << got;
    }
    ASSERT_OK(vs_->current()->CheckConsistency());
    VersionEdit next;
    ASSERT_OK(LogAndApply(&next));
    vs_.reset();
    ASSERT_OK(fs_->DropUnsyncedData());
    ASSERT_OK(Reopen());
    ASSERT_EQ(DescribeVersionSet(*vs_), got);
  }

  // Runs the scenario with the nth call of `kind` failing. Returns whether the failure fired
  // (false once LogAndApply makes fewer than n such calls).
  bool RunOne(Path path, OpKind kind, uint64_t nth, bool power_loss) {
    NewDb(path);
    if (HasFatalFailure()) return false;
    const std::string old_state = DescribeModel(model_);
    VersionEdit edit = TargetEdit();
    Model after = model_;
    after.Apply(edit);
    const std::string new_state = DescribeModel(after);

    const uint64_t calls_before = fs_->OpCount(kind);
    fs_->InjectError(kind, nth, FaultIOError("injected"));
    Status s = LogAndApply(&edit);
    fs_->ClearInjectedErrors();
    const bool fired = fs_->OpCount(kind) - calls_before >= nth;
    SCOPED_TRACE(::testing::Message() << FaultInjectionFileSystem::OpKindName(kind) << " #" << nth
                                      << (power_loss ? " + power loss" : "") << ": "
                                      << s.ToString());
    EXPECT_EQ(s.ok(), !fired);
    if (s.ok()) {
      EXPECT_EQ(DescribeVersionSet(*vs_), new_state);
    } else {
      EXPECT_EQ(DescribeVersionSet(*vs_), old_state);  // nothing installed
      std::set<uint64_t> live;
      {
        MutexLock lock(&mu_);
        vs_->AddLiveFiles(&live);
      }
      for (const auto& [level, f] : edit.new_files()) EXPECT_EQ(live.count(f.number), 1u);
    }
    CrashAndCheck(power_loss, old_state, new_state, /*must_be_new=*/s.ok());
    return fired;
  }

  // Fails each call of each kind in turn. Appending to the MANIFEST makes writes and a sync;
  // a new MANIFEST adds two creates (MANIFEST, CURRENT's temp file), a second sync, a rename
  // and a directory sync.
  void RunAll(Path path) {
    const bool new_manifest = path != Path::kAppend;
    const std::pair<OpKind, uint64_t> kinds[] = {
        {OpKind::kCreate, new_manifest ? 2 : 0}, {OpKind::kWrite, 2},
        {OpKind::kSync, new_manifest ? 2 : 1},   {OpKind::kRename, new_manifest ? 1 : 0},
        {OpKind::kSyncDir, new_manifest ? 1 : 0}};
    for (const auto& [kind, min_calls] : kinds) {
      for (bool power_loss : {false, true}) {
        uint64_t nth = 1;
        while (nth < 100 && RunOne(path, kind, nth, power_loss) && !HasFatalFailure()) ++nth;
        ASSERT_FALSE(HasFatalFailure());
        EXPECT_GE(nth - 1, min_calls) << FaultInjectionFileSystem::OpKindName(kind);
      }
    }
  }

  std::unique_ptr<FaultInjectionFileSystem> fs_;
  uint64_t max_manifest_ = 0;
  Mutex mu_;
  std::unique_ptr<VersionSet> vs_;
  Model model_{kLevels};
};

TEST_F(VersionSetFaultTest, FailureWhileAppendingToTheManifest) { RunAll(Path::kAppend); }

TEST_F(VersionSetFaultTest, FailureWhileWritingTheFirstManifestAfterRecover) {
  RunAll(Path::kNewAfterRecover);
}

TEST_F(VersionSetFaultTest, FailureWhileSwitchingToANewManifest) { RunAll(Path::kSwitchBySize); }

TEST_F(VersionSetFaultTest, PowerLossAfterSuccessKeepsTheNewState) {
  for (Path path : {Path::kAppend, Path::kNewAfterRecover, Path::kSwitchBySize}) {
    NewDb(path);
    VersionEdit edit = TargetEdit();
    Model after = model_;
    after.Apply(edit);
    ASSERT_OK(LogAndApply(&edit));
    CrashAndCheck(/*power_loss=*/true, "", DescribeModel(after), /*must_be_new=*/true);
  }
}

// After a failed MANIFEST write the outcome on disk is unknown until a new MANIFEST settles it:
// the next LogAndApply writes one without the failed edit, and the failed edit's files stop
// being reported live.
TEST_F(VersionSetFaultTest, NextLogAndApplyAfterAFailureStartsANewManifest) {
  NewDb(Path::kAppend);
  const uint64_t manifest = vs_->ManifestFileNumber();
  VersionEdit failed = TargetEdit();
  fs_->InjectError(OpKind::kSync, 1, FaultIOError("injected"));
  ASSERT_FALSE(LogAndApply(&failed).ok());
  fs_->ClearInjectedErrors();
  const uint64_t uncertain = failed.new_files()[0].second.number;
  std::set<uint64_t> live;
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live.count(uncertain), 1u);

  VersionEdit next;
  next.AddFile(1, MakeFile(vs_->NewFileNumber(), "x", "y", 9000, 9001));
  model_.Apply(next);
  ASSERT_OK(LogAndApply(&next));
  EXPECT_GT(vs_->ManifestFileNumber(), manifest);
  live.clear();
  vs_->AddLiveFiles(&live);
  EXPECT_EQ(live.count(uncertain), 0u);
  // Without a power loss the old MANIFEST holds the failed edit in full, but CURRENT now names
  // the new one, so the failed edit is gone for good.
  CrashAndCheck(/*power_loss=*/false, "", DescribeModel(model_), /*must_be_new=*/true);
}

}  // namespace
}  // namespace shale::test
