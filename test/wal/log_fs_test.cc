// The log over the real file systems: in memory, POSIX, and the fault-injecting wrapper (power
// loss drops the unsynced tail; injected write errors stick in the Writer).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fs/fault_injection_file_system.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "wal/log_test_util.h"

namespace shale::log::test {
namespace {

using Records = std::vector<std::string>;

Records SomeRecords(uint64_t seed) {
  return {NonZeroString(100, seed), "", NonZeroString(50000, seed + 1),
          NonZeroString(kMaxFragmentPayload, seed + 2), NonZeroString(7, seed + 3)};
}

void WriteRecords(FileSystem* fs, const std::string& path, const Records& records, bool append) {
  std::unique_ptr<WritableFile> file;
  uint64_t length = 0;
  if (append) {
    ASSERT_OK(fs->GetFileSize(path, &length));
    ASSERT_OK(fs->NewAppendableFile(path, &file));
  } else {
    ASSERT_OK(fs->NewWritableFile(path, &file));
  }
  Writer writer(std::move(file), length);
  for (const std::string& r : records) ASSERT_OK(writer.AddRecord(r));
  ASSERT_OK(writer.Sync());
  ASSERT_OK(writer.Close());
}

struct FileRead {
  Records records;
  Status status;
  bool torn_tail = false;
};
FileRead ReadRecords(FileSystem* fs, const std::string& path, WalRecoveryMode mode) {
  FileRead out;
  std::unique_ptr<SequentialFile> file;
  out.status = fs->NewSequentialFile(path, &file);
  if (!out.status.ok()) return out;
  Reader reader(file.get(), nullptr, true, 0, mode, path);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) out.records.emplace_back(record);
  out.status = reader.status();
  out.torn_tail = reader.torn_tail();
  return out;
}

void CheckWriteReopenRead(FileSystem* fs, const std::string& path) {
  const Records first = SomeRecords(1), second = SomeRecords(2);
  WriteRecords(fs, path, first, /*append=*/false);
  WriteRecords(fs, path, second, /*append=*/true);
  Records all = first;
  all.insert(all.end(), second.begin(), second.end());
  FileRead read = ReadRecords(fs, path, WalRecoveryMode::kAbsoluteConsistency);
  ASSERT_OK(read.status);
  EXPECT_EQ(read.records, all);
}

TEST(LogFileSystemTest, MemFileSystem) {
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  ASSERT_OK(fs->CreateDirIfMissing("/db"));
  CheckWriteReopenRead(fs.get(), "/db/000001.log");
}

TEST(LogFileSystemTest, PosixFileSystem) {
  std::string dir = testing::TempDir();
  if (dir.empty() || dir.back() != '/') dir.push_back('/');
  dir += "shale_wal_test_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  CheckWriteReopenRead(FileSystem::Default().get(), dir + "/000001.log");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST(LogFileSystemTest, PowerLossDropsTheUnsyncedTail) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  ASSERT_OK(fs->CreateDirIfMissing("/db"));
  const Records records = SomeRecords(3);
  {
    std::unique_ptr<WritableFile> file;
    ASSERT_OK(fs->NewWritableFile("/db/000002.log", &file));
    ASSERT_OK(fs->SyncDir("/db"));
    Writer writer(std::move(file));
    ASSERT_OK(writer.AddRecord(records[0]));
    ASSERT_OK(writer.AddRecord(records[1]));
    ASSERT_OK(writer.Sync());
    for (size_t i = 2; i < records.size(); ++i) ASSERT_OK(writer.AddRecord(records[i]));
    ASSERT_OK(writer.Close());
  }
  ASSERT_OK(fs->DropUnsyncedData());
  for (WalRecoveryMode mode : kAllModes) {
    FileRead read = ReadRecords(fs.get(), "/db/000002.log", mode);
    ASSERT_OK(read.status);
    EXPECT_EQ(read.records, Records(records.begin(), records.begin() + 2));
  }
}

TEST(LogFileSystemTest, InjectedWriteErrorIsSticky) {
  auto fs = std::make_shared<FaultInjectionFileSystem>(NewMemFileSystem());
  ASSERT_OK(fs->CreateDirIfMissing("/db"));
  std::unique_ptr<WritableFile> file;
  ASSERT_OK(fs->NewWritableFile("/db/MANIFEST-000001", &file));
  Writer writer(std::move(file));
  ASSERT_OK(writer.AddRecord("edit 1"));
  fs->InjectError(FaultInjectionFileSystem::OpKind::kWrite, 1, FaultNoSpaceError("full"));
  Status s = writer.AddRecord("edit 2");
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  const uint64_t writes = fs->OpCount(FaultInjectionFileSystem::OpKind::kWrite);
  EXPECT_TRUE(writer.AddRecord("edit 3").IsNoSpace());
  EXPECT_TRUE(writer.Sync().IsNoSpace());
  EXPECT_EQ(fs->OpCount(FaultInjectionFileSystem::OpKind::kWrite), writes);
  EXPECT_EQ(fs->OpCount(FaultInjectionFileSystem::OpKind::kSync), 0u);
  EXPECT_TRUE(writer.Close().IsNoSpace());
  FileRead read =
      ReadRecords(fs.get(), "/db/MANIFEST-000001", WalRecoveryMode::kAbsoluteConsistency);
  ASSERT_OK(read.status);
  EXPECT_EQ(read.records, Records{"edit 1"});
}

}  // namespace
}  // namespace shale::log::test
