// Column families (issue 23): a DropColumnFamily racing the install of a compaction of the same
// family. Its own program: the failure it guards against is a crash (the compaction thread
// reading the VersionSet's state of a family the drop has just removed), which would hide the
// results of every other test in the same binary.
//
// How the race is lined up: a GatedFileSystem holds the MANIFEST sync of the compaction's
// install (CompactRange of the family, run in a thread); the drop is started meanwhile and
// queues behind that MANIFEST write; then the sync is let go. The compaction's edit is written
// first, then the drop's, while the compaction thread goes on installing (its SuperVersion
// replacement releases the DB mutex). Found by db_column_family_model_test under
// SHALE_STRESS=1 (a SIGSEGV in VersionSet::LevelSummary and a std::bad_alloc from
// compaction_stats.resize(num_levels) in DBImpl::InstallCompactionLocked, both reading
// the dropped family's id in the VersionSet).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "db/column_family_test_util.h"
#include "gated_file_system.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

using test::FamilyDB;
using test::GetText;

TEST(DBColumnFamilyRaceTest, DropWhileACompactionOfTheFamilyInstalls) {
  auto gated = std::make_shared<GatedFileSystem>(NewMemFileSystem());
  DBOptions db_options;
  db_options.file_system = gated;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  ColumnFamilyOptions cf_options;
  cf_options.write_buffer_size = 64 << 10;
  cf_options.disable_auto_compactions = true;
  FamilyDB db;
  ASSERT_OK(db.Open(db_options, "/race", {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                                                                 cf_options)}));
  const int rounds = 200;
  for (int round = 0; round < rounds && !::testing::Test::HasFailure(); round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string name = "f" + std::to_string(round);
    ASSERT_OK(db.Create(cf_options, name));
    ColumnFamilyHandle* h = db.cf(name);
    // Two overlapping tables: CompactRange has a real compaction to install.
    for (int flush = 0; flush < 2; flush++) {
      for (int i = 0; i < 50; i++) {
        ASSERT_OK(db->Put(WriteOptions(), h, "k" + std::to_string(i), std::to_string(flush)));
      }
      ASSERT_OK(db->Flush(FlushOptions(), h));
    }
    gated->Arm(GatedFileSystem::Op::kSync, "MANIFEST");
    Status compact_status, drop_status;
    std::thread compactor(
        [&] { compact_status = db->CompactRange(CompactRangeOptions(), h, nullptr, nullptr); });
    const bool held = gated->WaitUntilHeld(std::chrono::seconds(10));
    EXPECT_TRUE(held) << "the compaction's MANIFEST write never came";
    std::thread dropper([&] { drop_status = db->DropColumnFamily(h); });
    // Lets the drop take the write queue and wait for the MANIFEST (it cannot be observed from
    // outside; a drop that has not queued yet only makes this round weaker, never wrong).
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    gated->Release();
    compactor.join();
    dropper.join();
    EXPECT_OK(drop_status);
    // The compaction either finished before the drop or found its family dropped; neither
    // may put the DB in the error state.
    EXPECT_TRUE(compact_status.ok() || compact_status.IsInvalidArgument())
        << compact_status.ToString();
    EXPECT_OK(db->Put(WriteOptions(), "after" + std::to_string(round), "ok"));
    db.Release(name);
  }
  ASSERT_OK(db.Close());
  ASSERT_OK(db.Open(db_options, "/race", {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                                                                 cf_options)}));
  EXPECT_EQ(GetText(db.db(), db->DefaultColumnFamily(), "after0"), "ok");
}

}  // namespace
}  // namespace shale
