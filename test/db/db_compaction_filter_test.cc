// Compaction filters through the DB (shale/compaction_filter.h): removing and changing values,
// checked against a std::map model after CompactRange, after automatic compactions and after a
// reopen; a removal is a deletion marker that keeps older versions in lower levels hidden;
// flushes never call the filter; a snapshot does not stop it; a factory is called per
// compaction with the right context; compaction_filter wins over the factory; CompactRange's
// kIfHaveCompactionFilter compacts the bottommost level when a filter is set.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compaction/db_shape_util.h"
#include "gtest/gtest.h"
#include "shale/compaction_filter.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// Removes keys starting with "del_" and values equal to "remove-me"; appends "+f" to the
// value of keys starting with "chg_" (once: a value already ending in "+f" is kept).
// Counts its calls. Thread-safe (atomics only).
class PrefixFilter final : public CompactionFilter {
 public:
  bool Filter(int /*level*/, std::string_view key, std::string_view value, std::string* new_value,
              bool* value_changed) const override {
    calls.fetch_add(1);
    if (key.starts_with("del_") || value == "remove-me") return true;
    if (key.starts_with("chg_") && !value.ends_with("+f")) {
      *new_value = std::string(value) + "+f";
      *value_changed = true;
    }
    return false;
  }
  const char* Name() const override { return "PrefixFilter"; }
  mutable std::atomic<int> calls{0};
};

// The model's view of what the filter does to a key's value (nullopt: removed).
std::optional<std::string> Filtered(const std::string& key, const std::string& value) {
  if (key.starts_with("del_") || value == "remove-me") return std::nullopt;
  if (key.starts_with("chg_") && !value.ends_with("+f")) return value + "+f";
  return value;
}

// Records the context of every filter it makes. Thread-safe (mu guards contexts).
class RecordingFactory final : public CompactionFilterFactory {
 public:
  std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context& context) override {
    std::lock_guard<std::mutex> lock(mu);
    contexts.push_back(context);
    return std::make_unique<PrefixFilter>();
  }
  const char* Name() const override { return "RecordingFactory"; }
  std::vector<CompactionFilter::Context> Contexts() {
    std::lock_guard<std::mutex> lock(mu);
    return contexts;
  }
  std::mutex mu;
  std::vector<CompactionFilter::Context> contexts;  // guarded by mu
};

class DBCompactionFilterTest : public ::testing::Test {
 protected:
  DBCompactionFilterTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.compaction_filter = &filter_;
  }
  ~DBCompactionFilterTest() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }
  void Open() { ASSERT_OK(DB::Open(options_, kDb, &db_)); }
  void Reopen() {
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }
  std::string Get(const std::string& key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    Status s = db_->Get(ro, key, &v);
    if (s.IsNotFound()) return "NOT_FOUND";
    EXPECT_OK(s);
    return v;
  }
  std::map<std::string, std::string> Contents() {
    std::map<std::string, std::string> r;
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      r[std::string(it->key())] = std::string(it->value());
    }
    EXPECT_OK(it->status());
    return r;
  }
  int FilesAt(int level) {
    return static_cast<int>(test::IntProperty(
        db_.get(), std::string(DB::Properties::kNumFilesAtLevelPrefix) + std::to_string(level)));
  }

  static constexpr const char* kDb = "/cfilter";
  PrefixFilter filter_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// Writes keys of the three kinds over several flushes; the model applies the filter.
void WriteMixed(DB* db, int rounds, std::map<std::string, std::string>* written) {
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 200; i++) {
      const char* prefix = i % 3 == 0 ? "del_" : i % 3 == 1 ? "chg_" : "keep_";
      std::string key(prefix);
      key += std::to_string(i * 7 % 1000 + r % 2);
      std::string value("v");
      value += std::to_string(r);
      value += '_';
      value += std::to_string(i);
      ASSERT_TRUE(db->Put(WriteOptions(), key, value).ok());
      (*written)[key] = value;
    }
    ASSERT_TRUE(db->Flush(FlushOptions()).ok());
  }
}

std::map<std::string, std::string> ApplyFilter(const std::map<std::string, std::string>& in) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : in) {
    if (auto f = Filtered(k, v)) out[k] = *f;
  }
  return out;
}

TEST_F(DBCompactionFilterTest, CompactRangeAppliesFilterToEveryKey) {
  Open();
  std::map<std::string, std::string> written;
  WriteMixed(db_.get(), 4, &written);
  EXPECT_EQ(Contents(), written);  // flushes do not filter
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const auto model = ApplyFilter(written);
  EXPECT_EQ(Contents(), model);
  EXPECT_GT(filter_.calls.load(), 0);
  Reopen();
  EXPECT_EQ(Contents(), model);
}

TEST_F(DBCompactionFilterTest, AutomaticCompactionsApplyFilter) {
  options_.write_buffer_size = 64 << 10;
  options_.target_file_size_base = 64 << 10;
  options_.max_bytes_for_level_base = 256 << 10;
  options_.level0_file_num_compaction_trigger = 2;
  Open();
  std::map<std::string, std::string> written;
  WriteMixed(db_.get(), 8, &written);
  test::WaitForCompactions(db_.get());
  EXPECT_GT(filter_.calls.load(), 0);
  // Each key reads either as written (not compacted yet) or as the filter left it.
  const auto now = Contents();
  for (const auto& [k, v] : written) {
    auto it = now.find(k);
    auto f = Filtered(k, v);
    if (it == now.end()) {
      EXPECT_FALSE(f.has_value()) << k;
    } else {
      EXPECT_TRUE(it->second == v || (f && it->second == *f)) << k << " = " << it->second;
    }
  }
  for (const auto& [k, v] : now) EXPECT_TRUE(written.count(k)) << k;
  // Keys removed by automatic compactions stay removed after a reopen.
  Reopen();
  const auto reopened = Contents();
  for (const auto& [k, v] : written) {
    if (!now.count(k)) {
      EXPECT_FALSE(reopened.count(k)) << k;
    }
  }
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Contents(), ApplyFilter(written));
}

// The table files of `level`, by number.
std::vector<uint64_t> FileNumbersAt(DB* db, int level) {
  std::vector<uint64_t> r;
  for (const test::SstInfo& f : test::ListFiles(db)) {
    if (f.level == level) r.push_back(f.number);
  }
  return r;
}

// v1 at the bottom, v2 above; the filter removes v2 in a compaction that does not reach the
// bottom: the removal is a deletion marker, so v1 does not come back.
TEST_F(DBCompactionFilterTest, RemovalHidesOlderVersionsBelow) {
  options_.num_levels = 3;
  options_.level_compaction_dynamic_level_bytes = false;
  options_.level0_file_num_compaction_trigger = 1;
  options_.disable_auto_compactions = true;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v1"));
  ASSERT_OK(db_->Put(WriteOptions(), "other", "o1"));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const std::vector<uint64_t> bottom = FileNumbersAt(db_.get(), 2);
  ASSERT_EQ(bottom.size(), 1u);
  // A file above the bottom over the whole range, then v2 above it (in L0).
  ASSERT_OK(db_->Put(WriteOptions(), "a", "x"));
  ASSERT_OK(db_->Put(WriteOptions(), "z", "zz"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "k", "remove-me"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Get("k"), "remove-me");
  ASSERT_EQ(FilesAt(0), 1) << test::IntProperty(db_.get(), "shale.num-files-at-level1");
  ASSERT_OK(db_->SetOptions({{"disable_auto_compactions", "false"}}));
  test::WaitForCompactions(db_.get());
  ASSERT_EQ(FilesAt(0), 0);
  ASSERT_EQ(FileNumbersAt(db_.get(), 2), bottom);  // the compaction did not reach v1
  EXPECT_GT(filter_.calls.load(), 0);
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Get("z"), "zz");
  Reopen();
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  // The bottommost compaction then drops the marker and v1 with it.
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Get("other"), "o1");
}

TEST_F(DBCompactionFilterTest, FlushDoesNotCallFilter) {
  Open();
  for (int i = 0; i < 100; i++) ASSERT_OK(db_->Put(WriteOptions(), "del_" + std::to_string(i), "x"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(filter_.calls.load(), 0);
  EXPECT_EQ(Get("del_5"), "x");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(filter_.calls.load(), 100);
  EXPECT_EQ(Get("del_5"), "NOT_FOUND");
}

// As RocksDB since 6.0: a snapshot does not stop the filter; versions older than the
// snapshot's stripe stay readable at that snapshot.
TEST_F(DBCompactionFilterTest, SnapshotDoesNotStopFilter) {
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "old"));
  const Snapshot* old_snap = db_->GetSnapshot();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "remove-me"));
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Get("k"), "NOT_FOUND");
  EXPECT_EQ(Get("k", snap), "NOT_FOUND");
  EXPECT_EQ(Get("k", old_snap), "old");
  db_->ReleaseSnapshot(snap);
  db_->ReleaseSnapshot(old_snap);
}

TEST_F(DBCompactionFilterTest, FactoryGetsContextPerCompaction) {
  auto factory = std::make_shared<RecordingFactory>();
  options_.compaction_filter = nullptr;
  options_.compaction_filter_factory = factory;
  options_.level0_file_num_compaction_trigger = 2;
  options_.max_subcompactions = 1;
  Open();
  // Three overlapping flushes: the first goes to the bottom, the next two to L0, which then
  // compacts with the bottom file: every file of the family, automatically.
  ASSERT_OK(db_->Put(WriteOptions(), "del_a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "del_z", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "del_b", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Put(WriteOptions(), "del_c", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  test::WaitForCompactions(db_.get());
  auto contexts = factory->Contexts();
  ASSERT_EQ(contexts.size(), 1u);  // flushes make no filter
  EXPECT_FALSE(contexts[0].is_manual_compaction);
  EXPECT_TRUE(contexts[0].is_full_compaction);
  EXPECT_EQ(contexts[0].column_family_id, 0u);
  EXPECT_EQ(Get("del_a"), "NOT_FOUND");
  EXPECT_EQ(Get("del_c"), "NOT_FOUND");

  // A manual compaction of part of a family is manual, not full; of all of it, full.
  ColumnFamilyOptions cf_options(options_);
  ColumnFamilyHandle* cf = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(cf_options, "other", &cf));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "b", "1"));
  ASSERT_OK(db_->Flush(FlushOptions(), cf));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "x", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), cf, "y", "1"));
  ASSERT_OK(db_->Flush(FlushOptions(), cf));
  const size_t before = factory->Contexts().size();
  std::string_view b = "a", e = "b";
  CompactRangeOptions one;  // one subcompaction: one filter (the factory makes one for each)
  one.max_subcompactions = 1;
  ASSERT_OK(db_->CompactRange(one, cf, &b, &e));
  contexts = factory->Contexts();
  ASSERT_EQ(contexts.size(), before + 1);
  EXPECT_TRUE(contexts.back().is_manual_compaction);
  EXPECT_FALSE(contexts.back().is_full_compaction);
  EXPECT_EQ(contexts.back().column_family_id, cf->GetID());
  ASSERT_OK(db_->CompactRange(one, cf, nullptr, nullptr));
  contexts = factory->Contexts();
  ASSERT_EQ(contexts.size(), before + 2);
  EXPECT_TRUE(contexts.back().is_manual_compaction);
  EXPECT_TRUE(contexts.back().is_full_compaction);
  ASSERT_OK(db_->DestroyColumnFamilyHandle(cf));
}

TEST_F(DBCompactionFilterTest, FilterWinsOverFactory) {
  auto factory = std::make_shared<RecordingFactory>();
  options_.compaction_filter_factory = factory;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "del_a", "1"));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_TRUE(factory->Contexts().empty());
  EXPECT_EQ(filter_.calls.load(), 1);
  EXPECT_EQ(Get("del_a"), "NOT_FOUND");
}

// Data already alone in the bottommost level: CompactRange's default (kIfHaveCompactionFilter)
// rewrites it when a filter is set; kSkip leaves it.
TEST_F(DBCompactionFilterTest, IfHaveCompactionFilterCompactsBottommost) {
  options_.compaction_filter = nullptr;
  Open();
  ASSERT_OK(db_->Put(WriteOptions(), "del_a", "1"));
  ASSERT_OK(db_->Put(WriteOptions(), "keep", "1"));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_EQ(FilesAt(0), 0);
  ASSERT_OK(db_->Close());
  db_.reset();
  options_.compaction_filter = &filter_;
  Open();
  CompactRangeOptions skip;
  skip.bottommost_level_compaction = BottommostLevelCompaction::kSkip;
  ASSERT_OK(db_->CompactRange(skip, nullptr, nullptr));
  EXPECT_EQ(filter_.calls.load(), 0);
  EXPECT_EQ(Get("del_a"), "1");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(filter_.calls.load(), 2);
  EXPECT_EQ(Get("del_a"), "NOT_FOUND");
  EXPECT_EQ(Get("keep"), "1");
}

}  // namespace
}  // namespace shale
