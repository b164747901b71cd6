// IngestExternalFile and power loss: an ingestion that returned OK survives a power cut,
// whether the file was copied or hard-linked (move_files) into the DB. The external file is
// written the way cp, rsync or a batch job write one -- without fsync -- and the
// fault-injecting file system then drops every byte that was never synced (issue 19,
// finding 3: the linked file's data was never synced, so it vanished with the power).
#include <memory>
#include <string>

#include "fs/fault_injection_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using FI = FaultInjectionFileSystem;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Value(int i) { return "value-" + std::to_string(i) + std::string(100, 'v'); }

class DBIngestDurabilityTest : public ::testing::TestWithParam<bool> {
 protected:
  DBIngestDurabilityTest() : fs_(std::make_shared<FI>(NewMemFileSystem())) {
    options_.file_system = fs_;
    options_.create_if_missing = true;
    EXPECT_OK(fs_->CreateDirIfMissing("/ext"));
  }

  // Writes a table of keys [0, n) to `path` as a copy tool would: the bytes reach the file
  // system, but nobody syncs them.
  void WriteUnsyncedExternalFile(const std::string& path, int n) {
    const std::string staging = "/ext/staging.sst";
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
    ASSERT_OK(writer.Open(staging));
    for (int i = 0; i < n; i++) ASSERT_OK(writer.Put(Key(i), Value(i)));
    ASSERT_OK(writer.Finish());
    std::string contents;
    ASSERT_OK(ReadFileToString(fs_.get(), staging, &contents));
    ASSERT_OK(fs_->DeleteFile(staging));
    std::unique_ptr<WritableFile> out;
    ASSERT_OK(fs_->NewWritableFile(path, &out));
    ASSERT_OK(out->Append(contents));
    ASSERT_OK(out->Close());  // no Sync
    ASSERT_OK(fs_->SyncDir("/ext"));  // the name is durable; the data is not
  }

  std::shared_ptr<FI> fs_;
  Options options_;
};

// GetParam(): move_files (hard link) or not (copy).
TEST_P(DBIngestDurabilityTest, IngestedDataSurvivesPowerLoss) {
  const bool move_files = GetParam();
  constexpr int kKeys = 500;
  WriteUnsyncedExternalFile("/ext/data.sst", kKeys);
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options_, "/db", &db));
  IngestExternalFileOptions ingest;
  ingest.move_files = move_files;
  fs_->ResetOpCounts();
  ASSERT_OK(db->IngestExternalFile({"/ext/data.sst"}, ingest));
  EXPECT_EQ(fs_->OpCount(FI::OpKind::kLink), move_files ? 1u : 0u);
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), Key(7), &value));
  ASSERT_EQ(value, Value(7));

  // Power loss right after the call returned: the DB process dies, unsynced data is gone.
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(fs_->DropUnsyncedData());

  ASSERT_OK(DB::Open(options_, "/db", &db));
  for (int i = 0; i < kKeys; i++) {
    SCOPED_TRACE(Key(i));
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &value));
    ASSERT_EQ(value, Value(i));
  }
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  int count = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) count++;
  ASSERT_OK(it->status());
  EXPECT_EQ(count, kKeys);
  it.reset();
  ASSERT_OK(db->Close());
}

INSTANTIATE_TEST_SUITE_P(MoveFiles, DBIngestDurabilityTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Link") : std::string("Copy");
                         });

}  // namespace
}  // namespace shale
