// Atomic groups and column-family records under failures and crashes: the Nth create, write,
// sync, rename or directory sync of a LogAndApply of an atomic group (or of a
// CreateColumnFamily / DropColumnFamily) fails, then the process dies (its files are closed)
// with or without a power loss (FaultInjectionFileSystem::DropUnsyncedData). Recover must then
// give the state before or after the call, for every family at once (never part of a group),
// the state after it if the call reported success, and the DB must go on working.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fs/fault_injection_file_system.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "version/version_set.h"
#include "version/version_test_util.h"

namespace shale::test {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;

constexpr int kLevels = 4;
const char* const kDb = "/db";

class ColumnFamilyFaultTest : public testing::Test {
 protected:
  // A DB with the families default, a (id 1) and b (id 2), each with files. `new_manifest`:
  // the call under test writes a new MANIFEST (the first call after Recover) instead of
  // appending to the live one.
  void NewDb(bool new_manifest) {
    vs_.reset();  // before the file system it writes to
    fs_ = std::make_unique<FaultInjectionFileSystem>(NewMemFileSystem());
    ASSERT_OK(fs_->CreateDir(kDb));
    vs_ = NewVersionSet();
    VersionEdit first;
    ASSERT_OK(LogAndApply(&first));
    for (const char* name : {"a", "b"}) {
      uint32_t id = 0;
      MutexLock lock(&mu_);
      ASSERT_OK(vs_->CreateColumnFamily({name, kLevels}, 0, &mu_, &id));
    }
    for (uint32_t cf : {0u, 1u, 2u}) {
      VersionEdit e;
      e.SetColumnFamily(cf);
      const uint64_t n = vs_->NewFileNumber();
      e.AddFile(1, MakeFile(n, "m", "n", n, n));
      ASSERT_OK(LogAndApply(&e));
    }
    if (new_manifest) ASSERT_OK(Reopen());
  }

  std::unique_ptr<VersionSet> NewVersionSet() {
    return std::make_unique<VersionSet>(kDb, fs_.get(), InternalKeyComparator(BytewiseComparator()),
                                        kLevels);
  }

  Status LogAndApply(VersionEdit* edit) {
    MutexLock lock(&mu_);
    return vs_->LogAndApply(edit, &mu_);
  }

  // Opens every family the MANIFEST lists.
  Status Reopen() {
    vs_.reset();
    std::vector<std::string> names;
    Status s = VersionSet::ListColumnFamilies(fs_.get(), kDb, &names);
    if (!s.ok()) return s;
    std::vector<ColumnFamilyConfig> families;
    for (const std::string& name : names) families.push_back({name, kLevels});
    vs_ = NewVersionSet();
    bool save_manifest = false;
    return vs_->Recover(families, &save_manifest);
  }

  // Every live family with its log number and files.
  std::string Describe() {
    MutexLock lock(&mu_);
    std::string r;
    for (uint32_t id : vs_->ColumnFamilyIds()) {
      absl::StrAppend(&r, "#", id, " ", vs_->ColumnFamilyName(id), " log=", vs_->LogNumber(id),
                      "\n");
      for (int level = 0; level < kLevels; ++level) {
        const auto& files = vs_->current(id)->files(level);
        r += DescribeFiles(level, std::vector<const FileMetaData*>(files.begin(), files.end()));
      }
    }
    return r;
  }

  // After a crash (and a power loss if `power_loss`), Recover must give one of the two states
  // (the new one if `must_be_new`) and the DB must accept and keep a new edit.
  void CrashAndCheck(bool power_loss, const std::string& old_state, const std::string& new_state,
                     bool must_be_new) {
    vs_.reset();  // the process dies: its files are closed
    if (power_loss) ASSERT_OK(fs_->DropUnsyncedData());
    ASSERT_OK(Reopen());
    const std::string got = Describe();
    if (must_be_new) {
      ASSERT_EQ(got, new_state);
    } else {
      ASSERT_TRUE(got == old_state || got == new_state) << got;
    }
    VersionEdit next;
    ASSERT_OK(LogAndApply(&next));
    vs_.reset();
    ASSERT_OK(fs_->DropUnsyncedData());
    ASSERT_OK(Reopen());
    ASSERT_EQ(Describe(), got);
  }

  // Runs `call` (on the DB NewDb makes) with the nth call of `kind` failing, then crashes and
  // checks. `expected_new_state` is what a successful call leaves. Returns whether the failure
  // fired (false once the call makes fewer than n such calls).
  bool RunOne(bool new_manifest, OpKind kind, uint64_t nth, bool power_loss,
              const std::function<Status()>& call, const std::string& expected_new_state) {
    NewDb(new_manifest);
    if (HasFatalFailure()) return false;
    const std::string old_state = Describe();
    const uint64_t calls_before = fs_->OpCount(kind);
    fs_->InjectError(kind, nth, FaultIOError("injected"));
    Status s = call();
    fs_->ClearInjectedErrors();
    const bool fired = fs_->OpCount(kind) - calls_before >= nth;
    SCOPED_TRACE(::testing::Message() << FaultInjectionFileSystem::OpKindName(kind) << " #" << nth
                                      << (power_loss ? " + power loss" : "") << ": "
                                      << s.ToString());
    EXPECT_EQ(s.ok(), !fired);
    if (s.ok()) {
      EXPECT_EQ(Describe(), expected_new_state);
    } else {
      EXPECT_EQ(Describe(), old_state);  // nothing installed
    }
    CrashAndCheck(power_loss, old_state, expected_new_state, /*must_be_new=*/s.ok());
    return fired;
  }

  // Fails each call of each kind in turn, for both MANIFEST paths. `make_call` builds the call
  // on the DB NewDb made (file numbers come from it, so it is built anew for every run); the
  // call writes `records` MANIFEST records.
  void RunAll(uint64_t records, const std::function<std::function<Status()>()>& make_call) {
    for (bool new_manifest : {false, true}) {
      // The state a successful call leaves.
      NewDb(new_manifest);
      ASSERT_FALSE(HasFatalFailure());
      ASSERT_OK(make_call()());
      const std::string new_state = Describe();
      for (OpKind kind : {OpKind::kCreate, OpKind::kWrite, OpKind::kSync, OpKind::kRename,
                          OpKind::kSyncDir}) {
        for (bool power_loss : {false, true}) {
          uint64_t nth = 1;
          while (nth < 100 &&
                 RunOne(new_manifest, kind, nth, power_loss, make_call(), new_state) &&
                 !HasFatalFailure()) {
            ++nth;
          }
          ASSERT_FALSE(HasFatalFailure());
          // Each path syncs at least once, and appending writes each record (a header and a
          // payload) with its own calls, so every record boundary was a point of failure.
          if (kind == OpKind::kSync) {
            EXPECT_GT(nth, 1u);
          }
          if (kind == OpKind::kWrite) {
            EXPECT_GE(nth - 1, 2 * records) << new_manifest;
          }
        }
      }
    }
  }

  std::unique_ptr<FaultInjectionFileSystem> fs_;
  Mutex mu_;
  std::unique_ptr<VersionSet> vs_;
};

// A group over the three families: each deletes its file and adds two, and sets a log number.
TEST_F(ColumnFamilyFaultTest, AtomicGroupIsFoundWholeOrNotAtAll) {
  RunAll(3, [this] {
    return [this]() -> Status {
      std::vector<VersionEdit> edits(3);
      MutexLock lock(&mu_);
      const uint64_t log = vs_->NewFileNumber();
      for (uint32_t cf = 0; cf < 3; ++cf) {
        VersionEdit& e = edits[cf];
        e.SetColumnFamily(cf);
        e.DeleteFile(1, vs_->current(cf)->files(1)[0]->number);
        for (int i = 0; i < 2; ++i) {
          const uint64_t n = vs_->NewFileNumber();
          e.AddFile(0, MakeFile(n, "a", "z", 100 + n, 100 + n));
        }
        e.SetLogNumber(log);
      }
      return vs_->LogAndApply({&edits[0], &edits[1], &edits[2]}, &mu_);
    };
  });
}

TEST_F(ColumnFamilyFaultTest, CreateColumnFamilyIsFoundWholeOrNotAtAll) {
  RunAll(1, [this] {
    return [this]() -> Status {
      MutexLock lock(&mu_);
      uint32_t id = 0;
      return vs_->CreateColumnFamily({"c", kLevels}, 0, &mu_, &id);
    };
  });
}

TEST_F(ColumnFamilyFaultTest, DropColumnFamilyIsFoundWholeOrNotAtAll) {
  RunAll(1, [this] {
    return [this]() -> Status {
      MutexLock lock(&mu_);
      return vs_->DropColumnFamily(1, &mu_);
    };
  });
}

}  // namespace
}  // namespace shale::test
