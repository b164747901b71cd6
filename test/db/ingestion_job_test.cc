// IngestionJob on its own, without a DB: placement against a Version built by hand and against
// the pending outputs of flushes and compactions in flight (which a test through the DB cannot
// hold still), the flush decision, the edit's boundary keys, and the lifecycle of the files it
// brings into the DB directory (what a failure removes, what a maybe-logged edit keeps).
#include "db/ingestion_job.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/filename.h"
#include "shale/comparator.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"
#include "version/version_builder.h"

namespace shale {
namespace {

constexpr int kLevels = 7;

class IngestionJobTest : public testing::Test {
 protected:
  IngestionJobTest() : fs_(NewMemFileSystem()), icmp_(BytewiseComparator()) {
    EXPECT_OK(fs_->CreateDirIfMissing("/ext"));
    EXPECT_OK(fs_->CreateDirIfMissing("/db"));
    version_ = new Version(&icmp_, kLevels);
    version_->Ref();
  }
  ~IngestionJobTest() override { version_->Unref(); }

  // An external file with the keys [first, last] (single letters or words), values "v".
  std::string WriteFile(const std::string& name, const std::vector<std::string>& keys) {
    const std::string path = "/ext/" + name;
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
    EXPECT_OK(writer.Open(path));
    for (const std::string& k : keys) EXPECT_OK(writer.Put(k, "v"));
    EXPECT_OK(writer.Finish());
    return path;
  }

  // A job over `paths`, prepared (the files inspected).
  std::unique_ptr<IngestionJob> Prepared(const std::vector<std::string>& paths,
                                         const IngestExternalFileOptions& o = {},
                                         const Options& db_options = {}) {
    IngestionJobContext ctx;
    ctx.dbname = "/db";
    ctx.fs = fs_.get();
    ctx.icmp = &icmp_;
    auto job = std::make_unique<IngestionJob>(std::move(ctx), paths, o);
    EXPECT_OK(job->Prepare(db_options));
    return job;
  }

  // Adds a table with user keys [smallest, largest] to `level` of the Version.
  void AddTable(int level, uint64_t number, const std::string& smallest,
                const std::string& largest) {
    FileMetaData f;
    f.number = number;
    f.file_size = 100;
    f.smallest = MakeInternalKey(smallest, 10, kTypeValue);
    f.largest = MakeInternalKey(largest, 10, kTypeValue);
    f.smallest_seqno = f.largest_seqno = 10;
    VersionEdit edit;
    edit.AddFile(level, f);
    auto* v = new Version(&icmp_, kLevels);
    v->Ref();
    {
      VersionBuilder builder(&icmp_, version_);
      ASSERT_OK(builder.Apply(edit));
      ASSERT_OK(builder.SaveTo(v));
    }
    version_->Unref();
    version_ = v;
  }

  IngestionJob::DbView View() const {
    IngestionJob::DbView view;
    view.version = version_;
    view.last_sequence = 100;
    view.compaction_style = kCompactionStyleLevel;
    view.last_writable_level = kLevels - 1;
    return view;
  }

  std::shared_ptr<FileSystem> fs_;
  InternalKeyComparator icmp_;
  Version* version_;
};

TEST_F(IngestionJobTest, AFileOverlappingNothingGoesToTheBottomAtSequenceZero) {
  AddTable(1, 5, "a", "c");
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  ASSERT_OK(job->Place(View()));
  EXPECT_EQ(job->files()[0].level, kLevels - 1);
  EXPECT_EQ(job->files()[0].seqno, 0u);
  // Sequence 0 is visible to every snapshot: GetSnapshot must wait for the edit.
  EXPECT_TRUE(job->BlocksSnapshots());
}

TEST_F(IngestionJobTest, AFileGoesAboveTheFirstLevelItOverlaps) {
  AddTable(3, 5, "k", "p");
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  ASSERT_OK(job->Place(View()));
  EXPECT_EQ(job->files()[0].level, 2);
  EXPECT_EQ(job->files()[0].seqno, 101u);
  EXPECT_FALSE(job->BlocksSnapshots());
}

// A flush or compaction writing files into a level that its edit has not added yet: the file
// must not go into or below that level, and counts as overlapping the DB (it is older data).
TEST_F(IngestionJobTest, APendingOutputRangeCountsAsOverlap) {
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  IngestionJob::DbView view = View();
  view.pending_ranges.push_back({4, "a", "b"});  // elsewhere: ignored
  view.pending_ranges.push_back({4, "n", "z"});
  ASSERT_OK(job->Place(view));
  EXPECT_EQ(job->files()[0].level, 3);
  EXPECT_EQ(job->files()[0].seqno, 101u);

  IngestExternalFileOptions no_global;
  no_global.allow_global_seqno = false;
  auto refused = Prepared({WriteFile("g", {"m", "n"})}, no_global);
  Status s = refused->Place(view);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_global_seqno"), std::string::npos) << s.ToString();
}

TEST_F(IngestionJobTest, APendingOutputInTheLastLevelRefusesIngestBehind) {
  IngestExternalFileOptions behind;
  behind.ingest_behind = true;
  Options db_options;
  db_options.allow_ingest_behind = true;
  auto job = Prepared({WriteFile("f", {"m", "n"})}, behind, db_options);
  IngestionJob::DbView view = View();
  view.pending_ranges.push_back({kLevels - 1, "a", "m"});
  Status s = job->Place(view);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();

  view.pending_ranges.clear();
  ASSERT_OK(job->Place(view));
  EXPECT_EQ(job->files()[0].level, kLevels - 1);
  EXPECT_EQ(job->files()[0].seqno, 0u);
  EXPECT_FALSE(job->BlocksSnapshots());  // below everything: every snapshot may see it
}

TEST_F(IngestionJobTest, ASnapshotGetsTheFilesASequenceNumber) {
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  IngestionJob::DbView view = View();
  view.has_snapshots = true;
  ASSERT_OK(job->Place(view));
  EXPECT_EQ(job->files()[0].level, kLevels - 1);
  EXPECT_EQ(job->files()[0].seqno, 101u);
}

TEST_F(IngestionJobTest, FilesOverlappingEachOtherGoToL0InTheOrderGiven) {
  auto job = Prepared({WriteFile("f", {"a", "m"}), WriteFile("g", {"c", "d"})});
  ASSERT_OK(job->Place(View()));
  EXPECT_EQ(job->files()[0].level, 0);
  EXPECT_EQ(job->files()[1].level, 0);
  EXPECT_EQ(job->files()[0].seqno, 101u);
  EXPECT_EQ(job->files()[1].seqno, 102u);  // the later file's keys win

  VersionEdit edit;
  EXPECT_EQ(job->AddToEdit(&edit), 102u);
  ASSERT_EQ(edit.new_files().size(), 2u);
  const FileMetaData& second = edit.new_files()[1].second;
  EXPECT_EQ(second.global_seqno, 102u);
  EXPECT_EQ(ExtractSequence(second.smallest), 102u);
  EXPECT_EQ(ExtractSequence(second.largest), 102u);
}

// Under universal compaction a file entering L0 at a global sequence number needs every
// memtable flushed first, though none overlaps it; with allow_blocking_flush false the call
// fails instead.
TEST_F(IngestionJobTest, UniversalFlushesEveryMemTableBeforeAGlobalSequenceFileEntersL0) {
  AddTable(0, 5, "k", "p");
  IngestionJob::DbView view = View();
  view.compaction_style = kCompactionStyleUniversal;
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  bool flush = false;
  bool flush_all = false;
  ASSERT_OK(job->CheckFlush(/*memtables_overlap=*/false, view, &flush, &flush_all));
  EXPECT_TRUE(flush);
  EXPECT_TRUE(flush_all);

  // Level compaction: nothing to flush for when the memtables do not overlap.
  ASSERT_OK(job->CheckFlush(false, View(), &flush, &flush_all));
  EXPECT_FALSE(flush);
  EXPECT_FALSE(flush_all);
  ASSERT_OK(job->CheckFlush(true, View(), &flush, &flush_all));
  EXPECT_TRUE(flush);
  EXPECT_FALSE(flush_all);

  IngestExternalFileOptions no_flush;
  no_flush.allow_blocking_flush = false;
  auto refused = Prepared({WriteFile("g", {"m", "n"})}, no_flush);
  Status s = refused->CheckFlush(false, view, &flush, &flush_all);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_blocking_flush"), std::string::npos) << s.ToString();
}

TEST_F(IngestionJobTest, ARangeDeletionInTheMemTableOverlaps) {
  auto job = Prepared({WriteFile("f", {"m", "n"})});
  MemTable* mem = new MemTable(icmp_);
  mem->Ref();
  mem->Add(1, kTypeValue, "a", "v");
  mem->Add(2, kTypeValue, "z", "v");
  EXPECT_FALSE(job->OverlapsMemTable(*mem));
  mem->Add(3, kTypeRangeDeletion, "b", "m");  // [b, m): ends before the file's first key
  EXPECT_FALSE(job->OverlapsMemTable(*mem));
  mem->Add(4, kTypeRangeDeletion, "c", "m\x01");  // touches "m"
  EXPECT_TRUE(job->OverlapsMemTable(*mem));
  mem->Unref();
}

// What a failure removes from the DB directory, and what a maybe-logged edit keeps.
TEST_F(IngestionJobTest, AFailureRemovesOnlyFilesNoManifestMayName) {
  const std::string path = WriteFile("f", {"m", "n"});
  auto job = Prepared({path});
  ASSERT_OK(job->AddFilesToDir({12}));
  const std::string table = TableFileName("/db", 12);
  ASSERT_OK(fs_->FileExists(table));
  EXPECT_EQ(job->UnloggedNumbers(), std::vector<uint64_t>{12});
  job->RemoveFilesFromDir();
  EXPECT_TRUE(fs_->FileExists(table).IsNotFound());
  ASSERT_OK(fs_->FileExists(path));  // a copy: the original stays

  auto logged = Prepared({path});
  ASSERT_OK(logged->AddFilesToDir({13}));
  logged->MarkMaybeLogged();
  EXPECT_TRUE(logged->UnloggedNumbers().empty());
  logged->RemoveFilesFromDir();
  ASSERT_OK(fs_->FileExists(TableFileName("/db", 13)));
  logged->RemoveOriginals();  // not move_files: nothing to remove
  ASSERT_OK(fs_->FileExists(path));
}

TEST_F(IngestionJobTest, PrepareRefusesBadOptionsBeforeReadingAnyFile) {
  IngestionJobContext ctx;
  ctx.dbname = "/db";
  ctx.fs = fs_.get();
  ctx.icmp = &icmp_;
  IngestExternalFileOptions behind;
  behind.ingest_behind = true;
  IngestionJob job(ctx, {"/ext/missing"}, behind);
  Status s = job.Prepare(Options());  // no allow_ingest_behind
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("allow_ingest_behind"), std::string::npos) << s.ToString();

  IngestionJob missing(ctx, {"/ext/missing"}, IngestExternalFileOptions());
  EXPECT_FALSE(missing.Prepare(Options()).ok());
}

}  // namespace
}  // namespace shale
