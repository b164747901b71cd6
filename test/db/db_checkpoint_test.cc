// Checkpoints (shale/checkpoint.h): a checkpoint opens as a DB holding exactly the state when it
// was made (against a std::map model), with the memtables flushed or the WALs copied; it is
// made of hard links (copies when linking fails) that survive the source's deletion; it is
// independent of the source; concurrent writes, flushes and compactions do not disturb it; and
// a failure at any file-system operation leaves nothing behind.
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;
using OpKind = FaultInjectionFileSystem::OpKind;
namespace stdfs = std::filesystem;

constexpr uint64_t kCopyWals = uint64_t{1} << 30;  // log_size_for_flush: WALs are copied

std::string Key(uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%06llu", static_cast<unsigned long long>(i));
  return buf;
}

// Every key and value of `db`.
Model ReadAll(DB* db) {
  Model m;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) m[std::string(it->key())] = it->value();
  EXPECT_OK(it->status());
  return m;
}

// The names in `dir` ending with `suffix`.
std::vector<std::string> FilesEndingWith(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(suffix)) names.push_back(name);
  }
  return names;
}

class DBCheckpointTest : public ::testing::Test {
 protected:
  DBCheckpointTest() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    root_ = ::testing::TempDir() + "shale_checkpoint_" + std::to_string(getpid()) + "_" + name;
    stdfs::remove_all(root_);
    stdfs::create_directories(root_);
    dbname_ = root_ + "/db";
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.target_file_size_base = 64 << 10;
    options_.max_bytes_for_level_base = 256 << 10;
  }
  ~DBCheckpointTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
    db_.reset();
    stdfs::remove_all(root_);
  }

  void Open() {
    ASSERT_OK(DB::Open(options_, dbname_, &db_));
    ASSERT_OK(Checkpoint::Create(db_.get(), &checkpoint_));
  }
  std::string Path(const std::string& name) const { return root_ + "/" + name; }

  // n random puts and deletes over 600 keys, applied to the model too; flushes now and then.
  void RandomWrites(Random* rnd, int n, Model* model) {
    for (int i = 0; i < n; i++) {
      const std::string key = Key(rnd->Uniform(600));
      if (rnd->OneIn(5)) {
        ASSERT_OK(db_->Delete(WriteOptions(), key));
        model->erase(key);
      } else {
        const std::string value(10 + rnd->Uniform(100), static_cast<char>('a' + rnd->Uniform(26)));
        ASSERT_OK(db_->Put(WriteOptions(), key, value));
        (*model)[key] = value;
      }
      if (rnd->OneIn(400)) ASSERT_OK(db_->Flush(FlushOptions()));
    }
  }

  // Opens the DB in `dir` with the test's options and returns its contents.
  Model ReadCheckpoint(const std::string& dir) {
    std::unique_ptr<DB> db;
    Status s = DB::Open(options_, dir, &db);
    EXPECT_OK(s);
    if (!s.ok()) return {};
    Model m = ReadAll(db.get());
    EXPECT_OK(db->Close());
    return m;
  }

  std::string root_;
  std::string dbname_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<Checkpoint> checkpoint_;
};

// ---- Model-based, for both ways of reaching unflushed writes.

class DBCheckpointModelTest : public DBCheckpointTest,
                              public ::testing::WithParamInterface<uint64_t> {};

TEST_P(DBCheckpointModelTest, HoldsTheStateAtTheCall) {
  Open();
  Random rnd(301 + GetParam());
  Model model;
  std::vector<Model> expected;
  for (int round = 0; round < 3; round++) {
    RandomWrites(&rnd, 1500, &model);
    ASSERT_OK(db_->Put(WriteOptions(), "unflushed", std::to_string(round)));  // in a memtable
    model["unflushed"] = std::to_string(round);
    ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp" + std::to_string(round)), GetParam()));
    expected.push_back(model);
  }
  RandomWrites(&rnd, 1000, &model);  // the checkpoints do not see these
  EXPECT_EQ(ReadAll(db_.get()), model);
  for (size_t i = 0; i < expected.size(); i++) {
    const std::string dir = Path("cp" + std::to_string(i));
    EXPECT_FALSE(stdfs::exists(dir + ".tmp"));
    EXPECT_EQ(FilesEndingWith(dir, ".log").empty(), GetParam() == 0) << dir;
    EXPECT_EQ(ReadCheckpoint(dir), expected[i]) << dir;
  }
}

INSTANTIATE_TEST_SUITE_P(FlushOrCopyWals, DBCheckpointModelTest,
                         ::testing::Values(uint64_t{0}, kCopyWals));

// Writers and background flushes and compactions run during the checkpoints: each holds a
// prefix of the writes (batches are ordered), at least every write acknowledged before the
// call and none that started after it returned.
TEST_P(DBCheckpointModelTest, ConcurrentWritesFlushesAndCompactions) {
  options_.level0_file_num_compaction_trigger = 2;
  Open();
  constexpr uint64_t kWrites = 10000;
  std::atomic<uint64_t> acked{0};
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    for (uint64_t i = 0; i < kWrites; i++) {
      Status s = db_->Put(WriteOptions(), Key(i), std::string(40, 'v') + Key(i));
      EXPECT_OK(s);
      if (!s.ok()) break;
      acked.store(i + 1, std::memory_order_release);
    }
    writer_done.store(true);
  });
  struct Taken {
    uint64_t before, after;
  };
  std::vector<Taken> taken;
  for (int c = 0; c < 4; c++) {
    while (acked.load(std::memory_order_acquire) < (c + 1) * kWrites / 5 &&
           !writer_done.load()) {
      std::this_thread::yield();
    }
    Taken t;
    t.before = acked.load(std::memory_order_acquire);
    ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp" + std::to_string(c)), GetParam()));
    t.after = acked.load(std::memory_order_acquire) + 1;  // one write may be in flight
    taken.push_back(t);
  }
  writer.join();
  for (size_t c = 0; c < taken.size(); c++) {
    const Model m = ReadCheckpoint(Path("cp" + std::to_string(c)));
    ASSERT_GE(m.size(), taken[c].before) << c;
    ASSERT_LE(m.size(), taken[c].after) << c;
    uint64_t i = 0;
    for (const auto& [key, value] : m) {  // exactly keys 0 .. size-1, in order
      ASSERT_EQ(key, Key(i)) << c;
      ASSERT_EQ(value, std::string(40, 'v') + Key(i)) << c;
      i++;
    }
  }
}

// ---- Targeted.

TEST_F(DBCheckpointTest, CopiesWalsInsteadOfFlushingWhenTheyAreSmall) {
  options_.write_buffer_size = 4 << 20;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp"), kCopyWals));
  EXPECT_TRUE(FilesEndingWith(dbname_, ".sst").empty());  // the source was not flushed
  EXPECT_TRUE(FilesEndingWith(Path("cp"), ".sst").empty());
  EXPECT_EQ(FilesEndingWith(Path("cp"), ".log").size(), 1u);
  EXPECT_EQ(ReadCheckpoint(Path("cp")), (Model{{"a", "1"}, {"b", "2"}}));

  // WALs at least log_size_for_flush bytes long: flushed instead.
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp2"), 1));
  EXPECT_EQ(FilesEndingWith(dbname_, ".sst").size(), 1u);
  EXPECT_TRUE(FilesEndingWith(Path("cp2"), ".log").empty());
  EXPECT_EQ(ReadCheckpoint(Path("cp2")), (Model{{"a", "1"}, {"b", "2"}}));
}

TEST_F(DBCheckpointTest, WritesWithoutWalAreFlushedWhateverTheLogSize) {
  options_.write_buffer_size = 4 << 20;
  Open();
  WriteOptions no_wal;
  no_wal.disableWAL = true;
  ASSERT_OK(db_->Put(no_wal, "unlogged", "1"));
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp"), kCopyWals));
  EXPECT_EQ(FilesEndingWith(dbname_, ".sst").size(), 1u);
  EXPECT_EQ(ReadCheckpoint(Path("cp")), (Model{{"unlogged", "1"}}));
}

TEST_F(DBCheckpointTest, HardLinksSurviveDeletingTheSource) {
  options_.disable_auto_compactions = true;
  Open();
  Random rnd(7);
  Model model;
  RandomWrites(&rnd, 3000, &model);
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp")));
  const std::vector<std::string> tables = FilesEndingWith(Path("cp"), ".sst");
  ASSERT_FALSE(tables.empty());
  for (const std::string& t : tables) {
    EXPECT_EQ(stdfs::hard_link_count(Path("cp/" + t)), 2u) << t;  // shared with the source
  }
  checkpoint_.reset();
  ASSERT_OK(db_->Close());
  db_.reset();
  ASSERT_OK(DestroyDB(dbname_, options_));
  ASSERT_FALSE(stdfs::exists(dbname_));
  EXPECT_EQ(ReadCheckpoint(Path("cp")), model);
}

TEST_F(DBCheckpointTest, CopiesWhenLinkingFails) {
  auto fault = std::make_shared<FaultInjectionFileSystem>(FileSystem::Default());
  options_.file_system = fault;
  options_.disable_auto_compactions = true;
  Open();
  Random rnd(11);
  Model model;
  RandomWrites(&rnd, 1500, &model);
  ASSERT_OK(db_->Flush(FlushOptions()));
  fault->ResetOpCounts();
  fault->InjectError(OpKind::kLink, 1, FaultIOError("Invalid cross-device link"));
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp")));
  EXPECT_EQ(fault->OpCount(OpKind::kLink), 1u);  // after one failure, no more attempts
  const std::vector<std::string> tables = FilesEndingWith(Path("cp"), ".sst");
  ASSERT_GT(tables.size(), 1u);
  for (const std::string& t : tables) {
    EXPECT_EQ(stdfs::hard_link_count(Path("cp/" + t)), 1u) << t;  // a copy
    EXPECT_EQ(stdfs::file_size(Path("cp/" + t)), stdfs::file_size(dbname_ + "/" + t)) << t;
  }
  EXPECT_EQ(ReadCheckpoint(Path("cp")), model);
}

TEST_F(DBCheckpointTest, TargetMustNotExistAndItsParentMust) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  stdfs::create_directories(Path("exists"));
  Status s = checkpoint_->CreateCheckpoint(Path("exists"));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("exists"), std::string::npos) << s.ToString();
  EXPECT_TRUE(stdfs::is_empty(Path("exists")));

  s = checkpoint_->CreateCheckpoint(Path("no/such/parent"));
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(stdfs::exists(Path("no")));

  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp/")));  // a trailing '/' is the same dir
  EXPECT_FALSE(stdfs::exists(Path("cp.tmp")));
  EXPECT_FALSE(stdfs::exists(Path("cp/.tmp")));
  s = checkpoint_->CreateCheckpoint(Path("cp"));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();

  // A crashed attempt's staging directory is cleared.
  stdfs::create_directories(Path("cp2.tmp"));
  std::FILE* f = std::fopen(Path("cp2.tmp/000099.sst").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp2")));
  EXPECT_FALSE(stdfs::exists(Path("cp2.tmp")));
  EXPECT_FALSE(stdfs::exists(Path("cp2/000099.sst")));
  EXPECT_EQ(ReadCheckpoint(Path("cp2")), (Model{{"a", "1"}}));

  std::unique_ptr<Checkpoint> none;
  EXPECT_TRUE(Checkpoint::Create(nullptr, &none).IsInvalidArgument());
  ASSERT_OK(db_->Close());
  EXPECT_FALSE(checkpoint_->CreateCheckpoint(Path("cp3")).ok());
  EXPECT_FALSE(stdfs::exists(Path("cp3")));
}

TEST_F(DBCheckpointTest, CheckpointIsAnIndependentDB) {
  Open();
  Random rnd(5);
  Model model;
  RandomWrites(&rnd, 2000, &model);
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp")));
  const Model at_checkpoint = model;

  std::unique_ptr<DB> copy;
  ASSERT_OK(DB::Open(options_, Path("cp"), &copy));
  Model copy_model = at_checkpoint;
  for (int i = 0; i < 2000; i++) {  // both DBs change, differently
    const std::string key = Key(rnd.Uniform(600));
    ASSERT_OK(copy->Put(WriteOptions(), key, "copy"));
    copy_model[key] = "copy";
    ASSERT_OK(db_->Delete(WriteOptions(), key));
    model.erase(key);
  }
  ASSERT_OK(copy->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(ReadAll(copy.get()), copy_model);
  EXPECT_EQ(ReadAll(db_.get()), model);
  // A checkpoint of the checkpoint.
  std::unique_ptr<Checkpoint> cp_of_copy;
  ASSERT_OK(Checkpoint::Create(copy.get(), &cp_of_copy));
  ASSERT_OK(cp_of_copy->CreateCheckpoint(Path("cp_of_cp")));
  cp_of_copy.reset();
  ASSERT_OK(copy->Close());
  EXPECT_EQ(ReadCheckpoint(Path("cp")), copy_model);
  EXPECT_EQ(ReadCheckpoint(Path("cp_of_cp")), copy_model);
}

// A manual compaction rewrites every table while checkpoints are taken: each checkpoint still
// holds every key (its Version's tables are not deleted while they are linked).
TEST_F(DBCheckpointTest, DuringAManualCompaction) {
  options_.disable_auto_compactions = true;
  Open();
  Random rnd(3);
  Model model;
  for (int i = 0; i < 6; i++) {
    RandomWrites(&rnd, 400, &model);
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  std::atomic<bool> done{false};
  std::thread compactor([&] {
    EXPECT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    done.store(true);
  });
  int made = 0;
  do {
    ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp" + std::to_string(made))));
    made++;
  } while (!done.load() && made < 20);
  compactor.join();
  ASSERT_OK(checkpoint_->CreateCheckpoint(Path("cp" + std::to_string(made))));
  made++;
  for (int i = 0; i < made; i++) {
    EXPECT_EQ(ReadCheckpoint(Path("cp" + std::to_string(i))), model) << i;
  }
}

// On a file system that cannot rename directories, the files are moved one by one.
TEST_F(DBCheckpointTest, InMemoryFileSystem) {
  std::shared_ptr<FileSystem> mem = NewMemFileSystem();
  options_.file_system = mem;
  dbname_ = "/db";
  Open();
  Random rnd(13);
  Model model;
  RandomWrites(&rnd, 2000, &model);
  ASSERT_OK(checkpoint_->CreateCheckpoint("/cp"));
  EXPECT_FALSE(mem->FileExists("/cp.tmp").ok());
  EXPECT_EQ(ReadCheckpoint("/cp"), model);
  EXPECT_TRUE(checkpoint_->CreateCheckpoint("/cp").IsInvalidArgument());
}

// A failure at any file-system operation of the checkpoint: an error, and neither the target
// nor the staging directory exists; the DB carries on, and the next attempt works. Over the
// in-memory file system (which moves files one by one instead of renaming the directory) for
// every kind of operation, and over POSIX for the ones that publish the directory.
class DBCheckpointFailureTest : public DBCheckpointTest {
 protected:
  // Opens the DB over `fault`, with writes both in tables and in the memtable.
  void OpenOver(std::shared_ptr<FaultInjectionFileSystem> fault) {
    fault_ = fault;
    options_.file_system = fault;
    options_.disable_auto_compactions = true;
    options_.write_buffer_size = 4 << 20;
    Open();
    Random rnd(17);
    RandomWrites(&rnd, 1000, &model_);
    ASSERT_OK(db_->Flush(FlushOptions()));
    RandomWrites(&rnd, 20, &model_);  // in the memtable: copied from the WAL
  }

  // For each kind, fails its 1st, 2nd, ... operation until a checkpoint succeeds, in both
  // modes (WALs copied, then memtable flushed).
  void FailEachOperation(const std::string& prefix, const std::vector<OpKind>& kinds) {
    for (uint64_t log_size : {kCopyWals, uint64_t{0}}) {
      for (OpKind kind : kinds) {
        const std::string name = FaultInjectionFileSystem::OpKindName(kind);
        const std::string dir = prefix + name + "_" + std::to_string(log_size);
        Status s;
        for (uint64_t nth = 1; nth <= 60; nth++) {
          fault_->InjectError(kind, nth, FaultIOError("injected"));
          s = checkpoint_->CreateCheckpoint(dir, log_size);
          fault_->ClearInjectedErrors();
          if (s.ok()) break;
          failures_++;
          EXPECT_TRUE(fault_->FileExists(dir).IsNotFound() ||
                      fault_->FileExists(dir).IsPathNotFound()) << name << " " << nth;
          EXPECT_FALSE(fault_->FileExists(dir + ".tmp").ok()) << name << " " << nth;
        }
        ASSERT_OK(s);
        EXPECT_FALSE(fault_->FileExists(dir + ".tmp").ok()) << name;
        EXPECT_EQ(ReadCheckpoint(dir), model_) << name;
      }
      ASSERT_OK(db_->Flush(FlushOptions()));  // the flush mode then has no I/O of its own
    }
    EXPECT_EQ(ReadAll(db_.get()), model_);
  }

  std::shared_ptr<FaultInjectionFileSystem> fault_;
  Model model_;
  int failures_ = 0;
};

TEST_F(DBCheckpointFailureTest, InMemoryEveryOperation) {
  dbname_ = "/db";
  OpenOver(std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem()));
  FailEachOperation("/cp_", {OpKind::kCreate, OpKind::kWrite, OpKind::kSync, OpKind::kRead,
                             OpKind::kLink, OpKind::kRename, OpKind::kSyncDir});
  EXPECT_GT(failures_, 30);
}

TEST_F(DBCheckpointFailureTest, PosixPublishing) {
  OpenOver(std::make_shared<FaultInjectionFileSystem>(FileSystem::Default()));
  FailEachOperation(Path("cp_"), {OpKind::kRename, OpKind::kSyncDir});
  EXPECT_EQ(failures_, 2 * 3);  // the rename; SyncDir of the directory and of its parent
}

}  // namespace
}  // namespace shale
