// FaultInjectionFileSystem over the in-memory and the POSIX file systems: the power-loss model
// against a reference model, injected failures on exactly the chosen call, the inactive mode,
// and the open-file and call counters.
#include "fs/fault_injection_file_system.h"

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "fs/fs_test_util.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using OpKind = FaultInjectionFileSystem::OpKind;

// The parameter: true to wrap the POSIX file system (in a temporary directory), false for mem.
class FaultInjectionTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      temp_dir_ = std::make_unique<ScopedTempDir>();
      root_ = temp_dir_->path();
      base_ = FileSystem::Default();
    } else {
      root_ = "/db";
      base_ = NewMemFileSystem();
      ASSERT_OK(base_->CreateDir(root_));
    }
    fs_ = std::make_shared<FaultInjectionFileSystem>(base_);
  }

  std::string P(const std::string& name) const { return root_ + "/" + name; }
  bool Exists(const std::string& path) { return base_->FileExists(path).ok(); }
  // What the wrapped file system holds (not through the fault layer).
  std::string BaseContents(const std::string& path) { return Contents(base_.get(), path); }
  void Write(const std::string& path, const std::string& data, bool sync) {
    std::unique_ptr<WritableFile> w;
    ASSERT_OK(fs_->NewWritableFile(path, &w));
    ASSERT_OK(w->Append(data));
    if (sync) ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }

  std::unique_ptr<ScopedTempDir> temp_dir_;
  std::string root_;
  std::shared_ptr<FileSystem> base_;
  std::shared_ptr<FaultInjectionFileSystem> fs_;
};

TEST_P(FaultInjectionTest, NamesTheWrappedFileSystem) {
  EXPECT_EQ(std::string(fs_->Name()),
            std::string("fault_injection(") + base_->Name() + ")");
}

// ---- Power loss ----

TEST_P(FaultInjectionTest, DropUnsyncedDataKeepsExactlyTheSyncedPrefix) {
  struct ModelFile {
    std::string path;
    std::string data;   // everything appended
    size_t synced = 0;  // the prefix a Sync made durable
    std::unique_ptr<WritableFile> w;
  };
  const int rounds = GetParam() ? 3 : 20;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    std::mt19937_64 rng(round);
    std::vector<ModelFile> files(4);
    for (size_t i = 0; i < files.size(); ++i) {
      files[i].path = P(absl::StrCat("f", i));
      ASSERT_OK(fs_->NewWritableFile(files[i].path, &files[i].w));
    }
    ASSERT_OK(fs_->SyncDir(root_));  // the entries are durable; only contents are at stake
    for (int step = 0; step < 200; ++step) {
      ModelFile& m = files[rng() % files.size()];
      int op = static_cast<int>(rng() % 20);
      if (op < 12) {
        size_t n = rng() % 50 == 0 ? 70000 : rng() % 2000;
        std::string piece = RandomBytes(&rng, n);
        ASSERT_OK(m.w->Append(piece));
        m.data += piece;
      } else if (op < 14) {
        ASSERT_OK(m.w->Flush());
      } else if (op < 17) {
        ASSERT_OK(m.w->Sync());
        m.synced = m.data.size();
      } else if (op < 19) {
        ASSERT_OK(m.w->Close());  // closing makes nothing durable
        ASSERT_OK(fs_->NewAppendableFile(m.path, &m.w));
      } else {
        ASSERT_OK(m.w->Close());
        ASSERT_OK(fs_->NewWritableFile(m.path, &m.w));  // truncates: nothing durable left
        m.data.clear();
        m.synced = 0;
      }
    }
    for (ModelFile& m : files) ASSERT_OK(m.w->Close());
    ASSERT_OK(fs_->DropUnsyncedData());
    for (ModelFile& m : files) {
      std::string expected = m.data.substr(0, m.synced);
      std::string got = BaseContents(m.path);
      EXPECT_EQ(got.size(), expected.size()) << m.path;
      EXPECT_TRUE(got == expected) << m.path;
      ASSERT_OK(fs_->DeleteFile(m.path));
    }
  }
}

TEST_P(FaultInjectionTest, UnsyncedNewFilesVanish) {
  Write(P("data_synced"), "abc", /*sync=*/true);  // contents durable, directory entry not
  Write(P("nothing_synced"), "xyz", /*sync=*/false);
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_FALSE(Exists(P("data_synced")));
  EXPECT_FALSE(Exists(P("nothing_synced")));

  Write(P("durable"), "abc", true);
  Write(P("entry_only"), "xyz", false);
  ASSERT_OK(fs_->SyncDir(root_));
  Write(P("late"), "late", true);
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("durable")), "abc");
  EXPECT_TRUE(Exists(P("entry_only")));
  EXPECT_EQ(BaseContents(P("entry_only")), "");  // its data was never synced
  EXPECT_FALSE(Exists(P("late")));
}

TEST_P(FaultInjectionTest, OnlyTheFilesOwnDirectorySyncMakesItsEntryDurable) {
  ASSERT_OK(fs_->CreateDir(P("sub")));
  Write(P("sub/f"), "data", true);
  ASSERT_OK(fs_->SyncDir(root_));  // the wrong directory
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_FALSE(Exists(P("sub/f")));

  Write(P("sub/f"), "data", true);
  ASSERT_OK(fs_->SyncDir(P("sub/")));  // spelled differently, same directory
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("sub/f")), "data");
}

TEST_P(FaultInjectionTest, RenameIsUndoneUntilItsDirectoryIsSynced) {
  // The CURRENT protocol: write a temporary file, sync it, rename it over CURRENT, sync the dir.
  Write(P("CURRENT"), "MANIFEST-1", true);
  ASSERT_OK(fs_->SyncDir(root_));

  Write(P("CURRENT.tmp"), "MANIFEST-2", true);
  ASSERT_OK(fs_->RenameFile(P("CURRENT.tmp"), P("CURRENT")));
  EXPECT_EQ(BaseContents(P("CURRENT")), "MANIFEST-2");
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("CURRENT")), "MANIFEST-1");  // the old one is back
  EXPECT_FALSE(Exists(P("CURRENT.tmp")));               // its creation was never durable

  Write(P("CURRENT.tmp"), "MANIFEST-2", true);
  ASSERT_OK(fs_->RenameFile(P("CURRENT.tmp"), P("CURRENT")));
  ASSERT_OK(fs_->SyncDir(root_));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("CURRENT")), "MANIFEST-2");
  EXPECT_FALSE(Exists(P("CURRENT.tmp")));

  Write(P("CURRENT.tmp"), "MANIFEST-3", true);
  ASSERT_OK(fs_->SyncDir(root_));  // the temporary file is durable, the rename is not
  ASSERT_OK(fs_->RenameFile(P("CURRENT.tmp"), P("CURRENT")));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("CURRENT")), "MANIFEST-2");
  EXPECT_EQ(BaseContents(P("CURRENT.tmp")), "MANIFEST-3");
}

TEST_P(FaultInjectionTest, RenameAcrossDirectoriesIsDurableWithTheTargetDirectory) {
  ASSERT_OK(fs_->CreateDir(P("x")));
  ASSERT_OK(fs_->CreateDir(P("y")));
  Write(P("x/f"), "data", true);
  ASSERT_OK(fs_->SyncDir(P("x")));

  ASSERT_OK(fs_->RenameFile(P("x/f"), P("y/g")));
  ASSERT_OK(fs_->SyncDir(P("x")));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("x/f")), "data");
  EXPECT_FALSE(Exists(P("y/g")));

  ASSERT_OK(fs_->RenameFile(P("x/f"), P("y/g")));
  ASSERT_OK(fs_->SyncDir(P("y")));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("y/g")), "data");
  EXPECT_FALSE(Exists(P("x/f")));
}

TEST_P(FaultInjectionTest, RenamedFileKeepsItsSyncedPrefix) {
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("a"), &w));
  ASSERT_OK(w->Append("synced"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(fs_->SyncDir(root_));
  ASSERT_OK(fs_->RenameFile(P("a"), P("b")));
  ASSERT_OK(fs_->SyncDir(root_));
  ASSERT_OK(w->Append("+lost"));  // the open file follows its renamed entry
  ASSERT_OK(w->Close());
  EXPECT_EQ(BaseContents(P("b")), "synced+lost");
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("b")), "synced");
}

TEST_P(FaultInjectionTest, LinksAreUndoneUntilSyncedAndShareTheSyncedPrefix) {
  Write(P("a"), "A", true);
  ASSERT_OK(fs_->SyncDir(root_));
  ASSERT_OK(fs_->LinkFile(P("a"), P("b")));
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_FALSE(Exists(P("b")));
  EXPECT_EQ(BaseContents(P("a")), "A");

  ASSERT_OK(fs_->LinkFile(P("a"), P("b")));
  ASSERT_OK(fs_->SyncDir(root_));
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewAppendableFile(P("a"), &w));
  ASSERT_OK(w->Append("+unsynced"));
  ASSERT_OK(w->Close());
  EXPECT_EQ(BaseContents(P("b")), "A+unsynced");
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("a")), "A");
  EXPECT_EQ(BaseContents(P("b")), "A");
}

TEST_P(FaultInjectionTest, FilesWrittenBeforeTheLayerCountAsDurable) {
  ASSERT_OK(WriteStringToFile(base_.get(), "old", P("f"), true));
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewAppendableFile(P("f"), &w));
  ASSERT_OK(w->Append("+new"));
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_EQ(BaseContents(P("f")), "old");
}

// ---- Injected failures ----

TEST_P(FaultInjectionTest, NthCallOfAKindFailsOnceWithTheGivenError) {
  Write(P("r"), "readable", true);
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs_->NewRandomAccessFile(P("r"), &r));
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("w"), &w));
  for (int i = 0; i < 5; ++i) {
    Write(P(absl::StrCat("ren", i)), "x", false);
    Write(P(absl::StrCat("del", i)), "x", false);
  }
  auto name = [](const char* prefix, int i) { return absl::StrCat(prefix, i); };
  struct Case {
    OpKind kind;
    std::function<Status(int)> op;
    std::function<bool(int)> applied;  // did call i change anything? (null: not checked)
  };
  char scratch[16];
  std::vector<Case> cases = {
      {OpKind::kRead,
       [&](int) {
         std::string_view got;
         return r->Read(0, 8, &got, scratch);
       },
       nullptr},
      {OpKind::kWrite, [&](int) { return w->Append("x"); }, nullptr},
      {OpKind::kSync, [&](int) { return w->Sync(); }, nullptr},
      {OpKind::kCreate,
       [&](int i) {
         std::unique_ptr<WritableFile> f;
         return fs_->NewWritableFile(P(name("new", i)), &f);
       },
       [&](int i) { return Exists(P(name("new", i))); }},
      {OpKind::kRename,
       [&](int i) { return fs_->RenameFile(P(name("ren", i)), P(name("renamed", i))); },
       [&](int i) { return Exists(P(name("renamed", i))); }},
      {OpKind::kLink, [&](int i) { return fs_->LinkFile(P("r"), P(name("link", i))); },
       [&](int i) { return Exists(P(name("link", i))); }},
      {OpKind::kDelete, [&](int i) { return fs_->DeleteFile(P(name("del", i))); },
       [&](int i) { return !Exists(P(name("del", i))); }},
      {OpKind::kSyncDir, [&](int) { return fs_->SyncDir(root_); }, nullptr},
      {OpKind::kLock,
       [&](int i) {
         std::unique_ptr<FileLock> lock;
         Status s = fs_->LockFile(P(name("LOCK", i)), &lock);
         if (s.ok()) s = fs_->UnlockFile(std::move(lock));
         return s;
       },
       nullptr},
  };
  for (const Case& c : cases) {
    const char* kind_name = FaultInjectionFileSystem::OpKindName(c.kind);
    SCOPED_TRACE(kind_name);
    fs_->InjectError(c.kind, 3, FaultNoSpaceError("disk full"));
    for (int i = 0; i < 5; ++i) {
      Status s = c.op(i);
      if (i == 2) {
        EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
        EXPECT_NE(s.ToString().find(kind_name), std::string::npos) << s.ToString();
        EXPECT_NE(s.ToString().find("disk full"), std::string::npos) << s.ToString();
        EXPECT_NE(s.ToString().find(root_), std::string::npos) << s.ToString();
      } else {
        EXPECT_OK(s);
      }
      if (c.applied) {
        EXPECT_EQ(c.applied(i), i != 2) << "call " << i;
      }
    }
  }
  EXPECT_EQ(w->GetFileSize(), 4u);  // the failed append wrote nothing
  ASSERT_OK(w->Close());
  EXPECT_EQ(BaseContents(P("w")), "xxxx");
}

TEST_P(FaultInjectionTest, RandomErrorsAreReproducibleFromTheSeed) {
  auto pattern = [&](uint32_t one_in, uint64_t seed) {
    fs_->SetRandomErrors(OpKind::kWrite, one_in, seed, FaultIOError());
    std::unique_ptr<WritableFile> w;
    EXPECT_OK(fs_->NewWritableFile(P("f"), &w));
    std::string failures;
    for (int i = 0; i < 300; ++i) {
      Status s = w->Append("x");
      EXPECT_TRUE(s.ok() || s.IsIOError()) << s.ToString();
      failures.push_back(s.ok() ? '.' : 'F');
    }
    EXPECT_OK(w->Close());
    fs_->SetRandomErrors(OpKind::kWrite, 0, 0, Status::OK());
    return failures;
  };
  std::string first = pattern(3, 42);
  size_t failed = std::count(first.begin(), first.end(), 'F');
  EXPECT_GT(failed, 50u);
  EXPECT_LT(failed, 150u);
  EXPECT_EQ(pattern(3, 42), first);
  EXPECT_NE(pattern(3, 43), first);
  EXPECT_EQ(pattern(1, 7), std::string(300, 'F'));
  EXPECT_EQ(pattern(0, 7), std::string(300, '.'));
}

TEST_P(FaultInjectionTest, ClearInjectedErrorsCancelsThemAll) {
  fs_->InjectError(OpKind::kCreate, 1, FaultIOError());
  fs_->SetRandomErrors(OpKind::kWrite, 1, 1, FaultIOError());
  fs_->ClearInjectedErrors();
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("f"), &w));
  ASSERT_OK(w->Append("x"));
  ASSERT_OK(w->Close());
}

TEST_P(FaultInjectionTest, InactiveFileSystemFailsWritesButNotReads) {
  Write(P("r"), "readable", true);
  Write(P("victim"), "v", true);
  ASSERT_OK(fs_->SyncDir(root_));
  ASSERT_OK(fs_->CreateDir(P("dir")));
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("w"), &w));
  ASSERT_OK(w->Append("before"));
  ASSERT_OK(w->Sync());

  fs_->SetFilesystemActive(false, FaultNoSpaceError("disk full"));
  EXPECT_FALSE(fs_->IsFilesystemActive());
  std::unique_ptr<WritableFile> other;
  std::unique_ptr<FileLock> lock;
  Status failing[] = {
      w->Append("after"),
      w->Flush(),
      w->Sync(),
      fs_->NewWritableFile(P("new"), &other),
      fs_->NewAppendableFile(P("new"), &other),
      fs_->CreateDir(P("newdir")),
      fs_->CreateDirIfMissing(P("newdir")),
      fs_->RenameFile(P("victim"), P("renamed")),
      fs_->LinkFile(P("victim"), P("linked")),
      fs_->DeleteFile(P("victim")),
      fs_->DeleteDir(P("dir")),
      fs_->SyncDir(root_),
      fs_->LockFile(P("LOCK"), &lock),
  };
  for (const Status& s : failing) EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_TRUE(w->Close().IsNoSpace());  // closes the file all the same
  EXPECT_EQ(fs_->OpenFiles(), 0u);
  EXPECT_FALSE(Exists(P("new")));
  EXPECT_FALSE(Exists(P("newdir")));
  EXPECT_FALSE(Exists(P("renamed")));
  EXPECT_FALSE(Exists(P("linked")));
  EXPECT_TRUE(Exists(P("victim")));
  EXPECT_TRUE(Exists(P("dir")));
  EXPECT_EQ(BaseContents(P("w")), "before");

  // Reads go on.
  EXPECT_EQ(Contents(fs_.get(), P("r")), "readable");
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs_->NewRandomAccessFile(P("r"), &r));
  char scratch[8];
  std::string_view got;
  ASSERT_OK(r->Read(0, 4, &got, scratch));
  EXPECT_EQ(got, "read");
  std::vector<std::string> names;
  EXPECT_OK(fs_->GetChildren(root_, &names));
  EXPECT_OK(fs_->FileExists(P("r")));
  uint64_t size;
  EXPECT_OK(fs_->GetFileSize(P("r"), &size));

  // Power loss can be simulated while inactive.
  ASSERT_OK(fs_->DropUnsyncedData());
  EXPECT_FALSE(Exists(P("w")));  // created after the last SyncDir

  fs_->SetFilesystemActive(true);
  Write(P("new"), "ok", false);
  EXPECT_EQ(BaseContents(P("new")), "ok");

  fs_->SetFilesystemActive(false);  // the default error
  Status s = fs_->DeleteFile(P("new"));
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(s.IsNoSpace());
  EXPECT_NE(s.ToString().find("filesystem inactive"), std::string::npos) << s.ToString();
  fs_->SetFilesystemActive(true);
}

// ---- Counting ----

TEST_P(FaultInjectionTest, CountsOpenFilesAndEnforcesTheLimit) {
  Write(P("r"), "x", false);
  std::unique_ptr<SequentialFile> seq;
  std::unique_ptr<RandomAccessFile> ra;
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewSequentialFile(P("r"), &seq));
  ASSERT_OK(fs_->NewRandomAccessFile(P("r"), &ra));
  ASSERT_OK(fs_->NewWritableFile(P("w"), &w));
  EXPECT_EQ(fs_->OpenFiles(), 3u);
  EXPECT_EQ(fs_->PeakOpenFiles(), 3u);
  ASSERT_OK(w->Close());
  EXPECT_EQ(fs_->OpenFiles(), 2u);  // closed, though the object lives on
  w.reset();
  EXPECT_EQ(fs_->OpenFiles(), 2u);  // not counted twice
  seq.reset();
  EXPECT_EQ(fs_->OpenFiles(), 1u);
  EXPECT_EQ(fs_->PeakOpenFiles(), 3u);

  // A failed open is not counted.
  Status s = fs_->NewSequentialFile(P("missing"), &seq);
  EXPECT_TRUE(s.IsPathNotFound());
  EXPECT_EQ(fs_->OpenFiles(), 1u);

  fs_->SetMaxOpenFiles(2);
  ASSERT_OK(fs_->NewSequentialFile(P("r"), &seq));
  EXPECT_EQ(fs_->OpenFiles(), 2u);
  std::unique_ptr<RandomAccessFile> ra2;
  Status refused[] = {
      fs_->NewSequentialFile(P("r"), &seq),
      fs_->NewRandomAccessFile(P("r"), &ra2),
      fs_->NewWritableFile(P("w2"), &w),
      fs_->NewAppendableFile(P("w2"), &w),
  };
  for (const Status& r : refused) {
    EXPECT_TRUE(r.IsIOError()) << r.ToString();
    EXPECT_NE(r.ToString().find("Too many open files"), std::string::npos) << r.ToString();
  }
  EXPECT_NE(seq, nullptr);  // the open one was left alone
  EXPECT_EQ(fs_->OpenFiles(), 2u);
  EXPECT_FALSE(Exists(P("w2")));

  ra.reset();
  ASSERT_OK(fs_->NewWritableFile(P("w2"), &w));
  EXPECT_EQ(fs_->OpenFiles(), 2u);
  fs_->SetMaxOpenFiles(FaultInjectionFileSystem::kNoLimit);
  ASSERT_OK(fs_->NewRandomAccessFile(P("r"), &ra));
  EXPECT_EQ(fs_->OpenFiles(), 3u);
  EXPECT_EQ(fs_->PeakOpenFiles(), 3u);
}

TEST_P(FaultInjectionTest, CountsCallsPerKind) {
  fs_->ResetOpCounts();
  std::unique_ptr<WritableFile> w;
  ASSERT_OK(fs_->NewWritableFile(P("a"), &w));  // create 1
  ASSERT_OK(w->Append("x"));                     // write 1
  ASSERT_OK(w->Append("y"));                     // write 2
  ASSERT_OK(w->Flush());                         // write 3
  ASSERT_OK(w->Sync());                          // sync 1
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->RenameFile(P("a"), P("b")));   // rename 1
  ASSERT_OK(fs_->LinkFile(P("b"), P("c")));     // link 1
  ASSERT_OK(fs_->DeleteFile(P("c")));           // delete 1
  ASSERT_OK(fs_->SyncDir(root_));               // sync_dir 1
  std::unique_ptr<RandomAccessFile> r;
  ASSERT_OK(fs_->NewRandomAccessFile(P("b"), &r));
  char scratch[4];
  std::string_view got;
  ASSERT_OK(r->Read(0, 2, &got, scratch));  // read 1
  EXPECT_FALSE(fs_->DeleteFile(P("missing")).ok());  // delete 2: failed calls count too
  std::unique_ptr<FileLock> lock;
  ASSERT_OK(fs_->LockFile(P("LOCK"), &lock));  // lock 1
  ASSERT_OK(fs_->UnlockFile(std::move(lock)));

  const std::pair<OpKind, uint64_t> expected[] = {
      {OpKind::kRead, 1},   {OpKind::kWrite, 3},  {OpKind::kSync, 1},
      {OpKind::kCreate, 1}, {OpKind::kRename, 1}, {OpKind::kLink, 1},
      {OpKind::kDelete, 2}, {OpKind::kSyncDir, 1}, {OpKind::kLock, 1},
  };
  for (const auto& [kind, count] : expected) {
    EXPECT_EQ(fs_->OpCount(kind), count) << FaultInjectionFileSystem::OpKindName(kind);
  }
  fs_->ResetOpCounts();
  for (const auto& [kind, count] : expected) EXPECT_EQ(fs_->OpCount(kind), 0u);
}

INSTANTIATE_TEST_SUITE_P(OverBothFileSystems, FaultInjectionTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "posix" : "mem");
                         });

}  // namespace
}  // namespace shale
