// IngestExternalFileOptions::progress and CheckpointOptions::progress (shale/progress.h): the
// files brought in are counted, bytes and files, up to their totals, with one final report;
// copies count chunk by chunk, links file by file; a bad interval is refused before anything
// changes.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

class ProgressTest : public testing::Test {
 protected:
  void SetUp() override {
    fs_ = NewMemFileSystem();
    Options options;
    options.file_system = fs_;
    options.create_if_missing = true;
    ASSERT_OK(DB::Open(options, "/db", &db_));
  }
  void TearDown() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }

  // Writes `files` table files of 3000 keys each (disjoint ranges) outside the DB; their
  // total size goes to *bytes.
  std::vector<std::string> WriteFiles(int files, uint64_t* bytes) {
    std::vector<std::string> paths;
    *bytes = 0;
    for (int f = 0; f < files; f++) {
      SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
      const std::string path = absl::StrCat("/in", f, ".sst");
      EXPECT_OK(writer.Open(path));
      for (int i = 0; i < 3000; i++) {
        EXPECT_OK(writer.Put(absl::StrCat("k", f, "-", 100000 + i), std::string(100, 'v')));
      }
      ExternalSstFileInfo info;
      EXPECT_OK(writer.Finish(&info));
      *bytes += info.file_size;
      paths.push_back(path);
    }
    return paths;
  }

  static void ExpectWellFormed(const std::vector<Progress>& reports, const char* operation,
                               uint64_t bytes, uint64_t files) {
    ASSERT_GE(reports.size(), 2u);
    for (size_t i = 0; i < reports.size(); i++) {
      SCOPED_TRACE(i);
      EXPECT_STREQ(reports[i].operation, operation);
      EXPECT_EQ(reports[i].finished, i + 1 == reports.size());
      EXPECT_EQ(reports[i].bytes_total, bytes);
      EXPECT_EQ(reports[i].entries_total, files);
      if (i > 0) {
        EXPECT_GE(reports[i].bytes_done, reports[i - 1].bytes_done);
        EXPECT_GE(reports[i].entries_done, reports[i - 1].entries_done);
      }
    }
    EXPECT_EQ(reports.back().bytes_done, bytes);
    EXPECT_EQ(reports.back().entries_done, files);
  }

  std::shared_ptr<FileSystem> fs_;
  std::unique_ptr<DB> db_;
};

TEST_F(ProgressTest, IngestionByCopyCountsEveryChunkAndFile) {
  uint64_t bytes = 0;
  const std::vector<std::string> paths = WriteFiles(3, &bytes);
  std::vector<Progress> reports;
  IngestExternalFileOptions o;
  o.progress_interval_seconds = 0;
  o.progress = [&reports](const Progress& p) { reports.push_back(p); };
  ASSERT_OK(db_->IngestExternalFile(paths, o));
  ExpectWellFormed(reports, "ingest", bytes, 3);
  for (size_t i = 0; i + 1 < reports.size(); i++) EXPECT_STREQ(reports[i].stage, "copy");
  std::string value;
  ASSERT_OK(db_->Get(ReadOptions(), "k2-100007", &value));
}

TEST_F(ProgressTest, IngestionByLinkCountsFileByFile) {
  uint64_t bytes = 0;
  const std::vector<std::string> paths = WriteFiles(2, &bytes);
  std::vector<Progress> reports;
  IngestExternalFileOptions o;
  o.move_files = true;
  o.progress_interval_seconds = 0;
  o.progress = [&reports](const Progress& p) { reports.push_back(p); };
  ASSERT_OK(db_->IngestExternalFile(paths, o));
  ExpectWellFormed(reports, "ingest", bytes, 2);
  EXPECT_STREQ(reports.front().stage, "link");
  EXPECT_EQ(reports.front().entries_done, 1u);  // one report per linked file
}

TEST_F(ProgressTest, IngestionRefusesABadIntervalBeforeTouchingTheDb) {
  uint64_t bytes = 0;
  const std::vector<std::string> paths = WriteFiles(1, &bytes);
  for (const double bad : {-1.0, std::nan("")}) {
    IngestExternalFileOptions o;
    o.progress_interval_seconds = bad;
    o.progress = [](const Progress&) { ADD_FAILURE() << "a refused call sends no report"; };
    const Status s = db_->IngestExternalFile(paths, o);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find("progress_interval_seconds"), std::string::npos);
  }
  std::string value;
  EXPECT_TRUE(db_->Get(ReadOptions(), "k0-100000", &value).IsNotFound());
}

TEST_F(ProgressTest, CheckpointCountsItsTablesAndWals) {
  for (int i = 0; i < 5000; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), absl::StrCat("key", i), std::string(100, 'x')));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "in-the-wal", "v"));
  std::unique_ptr<Checkpoint> checkpoint;
  ASSERT_OK(Checkpoint::Create(db_.get(), &checkpoint));
  std::vector<Progress> reports;
  CheckpointOptions o;
  o.log_size_for_flush = 1 << 30;  // keep the WAL: it is copied too
  o.progress_interval_seconds = 0;
  o.progress = [&reports](const Progress& p) { reports.push_back(p); };
  ASSERT_OK(checkpoint->CreateCheckpoint("/cp", o));
  ASSERT_GE(reports.size(), 2u);
  const Progress& last = reports.back();
  EXPECT_TRUE(last.finished);
  EXPECT_STREQ(last.operation, "checkpoint");
  EXPECT_GE(last.entries_done, 2u);  // at least the table and the WAL
  EXPECT_EQ(last.entries_done, last.entries_total);
  EXPECT_EQ(last.bytes_done, last.bytes_total);
  EXPECT_GT(last.bytes_total, 5000u * 100u / 2);  // the table's bytes (compressed or not)
  // The copy opens and holds both the flushed and the WAL-only write.
  Options options;
  options.file_system = fs_;
  std::unique_ptr<DB> copy;
  ASSERT_OK(DB::Open(options, "/cp", &copy));
  std::string value;
  ASSERT_OK(copy->Get(ReadOptions(), "key4999", &value));
  ASSERT_OK(copy->Get(ReadOptions(), "in-the-wal", &value));
  ASSERT_OK(copy->Close());
}

TEST_F(ProgressTest, CheckpointRefusesABadIntervalAndMakesNothing) {
  std::unique_ptr<Checkpoint> checkpoint;
  ASSERT_OK(Checkpoint::Create(db_.get(), &checkpoint));
  CheckpointOptions o;
  o.progress_interval_seconds = -2;
  const Status s = checkpoint->CreateCheckpoint("/cp", o);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(fs_->FileExists("/cp").IsNotFound());
}

}  // namespace
}  // namespace shale
