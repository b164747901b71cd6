// A load's cleanup of leftovers (fs/bulk_temp_dir.h) never deletes a live loader's files when
// one directory is named in two ways (review of issue 19, finding 17): the registry of live
// loaders is keyed by the directory's spelling, and a live loader whose temp_dir spelled the
// DB's default directory differently lost its run files to the next load's cleanup.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/db.h"
#include "testutil/scoped_dir_removal.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

TEST(BulkLiveLoaderTest, AnotherSpellingOfTheDefaultDirKeepsALiveLoadsFiles) {
  const std::string dir = testing::TempDir() + "/bulk_live_loader_" + std::to_string(::getpid());
  const test::ScopedDirRemoval remove_dir(dir);
  Options options;
  options.create_if_missing = true;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, dir, &db));

  // The first load names <db>/bulkload.tmp as "<db>/./bulkload.tmp" and spills runs there.
  BulkLoaderOptions first_options;
  first_options.memory_budget = 64 << 10;
  first_options.temp_dir = dir + "/./bulkload.tmp";
  std::unique_ptr<BulkLoader> first;
  ASSERT_OK(BulkLoader::Open(db.get(), first_options, &first));
  std::map<std::string, std::string> model;
  Random rnd(19);
  for (int i = 0; i < 5000; i++) {
    const std::string key = absl::StrCat("key", rnd.Uniform(100000));
    const std::string value = absl::StrCat(i, std::string(rnd.Uniform(40), 'v'));
    ASSERT_OK(first->Add(key, value));
    model[key] = value;
  }

  // A second load in the default directory cleans it of leftovers: the first load's files are
  // not leftovers.
  BulkLoaderOptions second_options;
  second_options.memory_budget = 64 << 10;
  std::unique_ptr<BulkLoader> second;
  ASSERT_OK(BulkLoader::Open(db.get(), second_options, &second));
  ASSERT_OK(second->Add("zzz", "second"));
  ASSERT_OK(second->Finish());
  model["zzz"] = "second";

  // Before the fix: "IO error: No such file or directory: <db>/./bulkload.tmp/<pid>-1-run-000001.tmp".
  ASSERT_OK(first->Finish());
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(m, model.end());
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second);
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(m, model.end());
  it.reset();
  ASSERT_OK(db->Close());
}

}  // namespace
}  // namespace shale
