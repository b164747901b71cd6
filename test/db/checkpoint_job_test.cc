// CheckpointJob on its own, with a fake DB behind its context: the order of flushes and plan
// captures that log_size_for_flush asks for, that every captured plan is released (on success
// and on every failure), that a WAL is copied only up to the length recorded in the plan (a
// write appended after the capture is not in the checkpoint), and that a refused or failed
// checkpoint leaves neither the directory nor its ".tmp".
#include "db/checkpoint_job.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/filename.h"
#include "shale/comparator.h"
#include "testutil/status_matchers.h"
#include "version/version_builder.h"
#include "version/version_edit.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale {
namespace {

constexpr int kLevels = 3;
constexpr uint64_t kWal = 5;

class CountingReporter final : public log::Reader::Reporter {
 public:
  void Corruption(size_t, const Status&) override { corruptions++; }
  int corruptions = 0;
};

class CheckpointJobTest : public testing::Test {
 protected:
  CheckpointJobTest() : fs_(NewMemFileSystem()), icmp_(BytewiseComparator()) {
    EXPECT_OK(fs_->CreateDirIfMissing("/db"));
    version_ = new Version(&icmp_, kLevels);
    version_->Ref();
    // The WAL being written: "one" was written before the capture, "two" after it.
    std::unique_ptr<WritableFile> file;
    EXPECT_OK(fs_->NewWritableFile(WalFileName("/db", kWal), &file));
    log::Writer writer(std::move(file));
    EXPECT_OK(writer.AddRecord("one"));
    captured_length_ = writer.length();
    EXPECT_OK(writer.AddRecord("two"));
    EXPECT_OK(writer.Close());
  }
  ~CheckpointJobTest() override {
    EXPECT_EQ(live_plans_, 0);
    version_->Unref();
  }

  // A context over a fake DB that records what the job asked of it.
  CheckpointJobContext Context() {
    CheckpointJobContext ctx;
    ctx.dbname = "/db";
    ctx.fs = fs_.get();
    ctx.flush = [this] {
      events_.push_back("flush");
      return Status::OK();
    };
    ctx.capture_plan = [this](CheckpointPlan* plan) {
      events_.push_back("capture");
      if (!capture_status_.ok()) return capture_status_;
      version_->Ref();
      live_plans_++;
      plan->versions = {version_};
      plan->families = {ColumnFamilyDescriptor()};
      plan->log_number = kWal;
      plan->manifest_number = 10;
      plan->options_number = 11;
      VersionEdit snapshot;
      snapshot.SetComparatorName(BytewiseComparator()->Name());
      snapshot.SetLogNumber(kWal);
      snapshot.SetNextFile(12);
      snapshot.SetLastSequence(1);
      snapshot.EncodeTo(&plan->manifest_records.emplace_back());
      plan->current_wal = kWal;
      plan->current_wal_length = captured_length_;
      return Status::OK();
    };
    ctx.release_plan = [this](CheckpointPlan* plan) {
      events_.push_back("release");
      if (!plan->versions.empty()) {
        for (Version* v : plan->versions) v->Unref();
        live_plans_--;
      }
      *plan = CheckpointPlan();
    };
    return ctx;
  }

  Status Run(const std::string& dir, uint64_t log_size_for_flush, bool* planned = nullptr) {
    CheckpointJob job(Context(), dir, log_size_for_flush);
    Status s = job.Run();
    if (planned != nullptr) *planned = job.planned();
    return s;
  }

  bool Exists(const std::string& path) { return fs_->FileExists(path).ok(); }

  // The records of WAL `path`.
  std::vector<std::string> Records(const std::string& path) {
    std::unique_ptr<SequentialFile> file;
    EXPECT_OK(fs_->NewSequentialFile(path, &file));
    CountingReporter reporter;
    log::Reader reader(file.get(), &reporter, true, 0, log::WalRecoveryMode::kAbsoluteConsistency);
    std::vector<std::string> records;
    std::string_view record;
    std::string scratch;
    while (reader.ReadRecord(&record, &scratch)) records.emplace_back(record);
    EXPECT_OK(reader.status());
    EXPECT_EQ(reporter.corruptions, 0);
    return records;
  }

  std::shared_ptr<FileSystem> fs_;
  InternalKeyComparator icmp_;
  Version* version_;
  uint64_t captured_length_ = 0;
  Status capture_status_;
  int live_plans_ = 0;
  std::vector<std::string> events_;
};

using Events = std::vector<std::string>;

TEST_F(CheckpointJobTest, FlushesFirstWhenLogSizeForFlushIsZero) {
  ASSERT_OK(Run("/cp", 0));
  EXPECT_EQ(events_, (Events{"flush", "capture", "release"}));
  EXPECT_TRUE(Exists("/cp/CURRENT"));
  EXPECT_TRUE(Exists(DescriptorFileName("/cp", 10)));
  EXPECT_TRUE(Exists(OptionsFileName("/cp", 11)));
  EXPECT_FALSE(Exists("/cp.tmp"));
  // Only what the WAL held at the capture.
  EXPECT_EQ(Records(WalFileName("/cp", kWal)), (Events{"one"}));
}

TEST_F(CheckpointJobTest, WalsBelowLogSizeForFlushAreCopiedWithoutAFlush) {
  ASSERT_OK(Run("/cp", 1 << 20));
  EXPECT_EQ(events_, (Events{"capture", "release"}));
  EXPECT_EQ(Records(WalFileName("/cp", kWal)), (Events{"one"}));
}

TEST_F(CheckpointJobTest, WalsAboveLogSizeForFlushAreFlushedAndThePlanTakenAgain) {
  ASSERT_OK(Run("/cp", 1));
  EXPECT_EQ(events_, (Events{"capture", "release", "flush", "capture", "release"}));
}

TEST_F(CheckpointJobTest, AnExistingDirectoryIsRefusedBeforeAnyPlan) {
  ASSERT_OK(fs_->CreateDir("/cp"));
  bool planned = true;
  Status s = Run("/cp", 0, &planned);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_FALSE(planned);
  EXPECT_TRUE(events_.empty());
  EXPECT_TRUE(Run("", 0).IsInvalidArgument());
}

TEST_F(CheckpointJobTest, ACrashedAttemptsTmpDirectoryIsReplaced) {
  ASSERT_OK(fs_->CreateDir("/cp.tmp"));
  ASSERT_OK(WriteStringToFile(fs_.get(), "x", "/cp.tmp/leftover", false));
  ASSERT_OK(Run("/cp", 0));
  EXPECT_FALSE(Exists("/cp.tmp"));
  EXPECT_FALSE(Exists("/cp/leftover"));
  EXPECT_TRUE(Exists("/cp/CURRENT"));
}

TEST_F(CheckpointJobTest, AFailedCaptureIsReturned) {
  capture_status_ = Status::IOError("capture failed");
  bool planned = true;
  Status s = Run("/cp", 1 << 20, &planned);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(planned);
  EXPECT_EQ(events_, (Events{"capture", "release"}));
}

// A table of the plan's Version that cannot be read fails the copy: the plan is released and
// nothing is left behind.
TEST_F(CheckpointJobTest, AFailedCopyReleasesThePlanAndLeavesNoDirectory) {
  FileMetaData f;
  f.number = 7;  // no such file in /db
  f.file_size = 100;
  f.smallest = MakeInternalKey("a", 1, kTypeValue);
  f.largest = MakeInternalKey("b", 1, kTypeValue);
  VersionEdit edit;
  edit.AddFile(1, f);
  auto* v = new Version(&icmp_, kLevels);
  v->Ref();
  {
    VersionBuilder builder(&icmp_, version_);
    ASSERT_OK(builder.Apply(edit));
    ASSERT_OK(builder.SaveTo(v));
  }
  version_->Unref();
  version_ = v;

  bool planned = false;
  Status s = Run("/cp", 1 << 20, &planned);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(planned);
  EXPECT_EQ(events_, (Events{"capture", "release"}));
  EXPECT_FALSE(Exists("/cp"));
  EXPECT_FALSE(Exists("/cp.tmp"));
}

}  // namespace
}  // namespace shale
