// Model-based test under compaction: random batches (puts, deletes, single deletes, range
// deletes), snapshots held and released, iterators, flushes, manual compactions and reopens,
// checked against a std::map model, under every compaction style with tiny buffers and
// targets so that compactions run all the time. A reader thread reads and iterates at a
// published snapshot (and at the latest sequence) while compactions rewrite the files under it.
// Every held snapshot's whole view is compared with the copy of the model taken when it was
// made. The merge variant adds merges (JoinOperator, mirrored by the model), so operands are
// flushed, partially merged and fully merged by compactions racing the reader.
//
// Seeds are fixed. SHALE_COMPACTION_MODEL_SEEDS (seeds per style, default 2) and
// SHALE_COMPACTION_MODEL_OPS (operations per seed, default 2500) make longer soak runs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "compaction/db_shape_util.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::max(1, std::atoi(v));
}

std::string KeyOf(uint32_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%04u", i);
  return buf;
}

// The model restricted to [lower, upper) (empty strings: unbounded).
std::vector<std::pair<std::string, std::string>> View(const Model& m, const std::string& lower,
                                                      const std::string& upper) {
  std::vector<std::pair<std::string, std::string>> r;
  for (auto it = lower.empty() ? m.begin() : m.lower_bound(lower); it != m.end(); ++it) {
    if (!upper.empty() && it->first >= upper) break;
    r.emplace_back(it->first, it->second);
  }
  return r;
}

// Scans `db` with `ro` in one direction and compares with `want` (in key order). Returns an
// empty string on success, else what differed. Safe from any thread (no gtest assertion).
std::string CheckScan(DB* db, const ReadOptions& ro, bool reverse,
                      std::vector<std::pair<std::string, std::string>> want) {
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  std::vector<std::pair<std::string, std::string>> got;
  if (reverse) {
    for (it->SeekToLast(); it->Valid(); it->Prev()) got.emplace_back(it->key(), it->value());
    std::reverse(got.begin(), got.end());
  } else {
    for (it->SeekToFirst(); it->Valid(); it->Next()) got.emplace_back(it->key(), it->value());
  }
  if (!it->status().ok()) return "iterator error: " + it->status().ToString();
  if (got == want) return "";
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) i++;
  std::string msg = std::string(reverse ? "reverse" : "forward") + " scan differs at position " +
                    std::to_string(i) + ": got ";
  msg += i < got.size() ? got[i].first + "=" + got[i].second.substr(0, 20) : "<end>";
  msg += ", want ";
  msg += i < want.size() ? want[i].first + "=" + want[i].second.substr(0, 20) : "<end>";
  return msg + " (" + std::to_string(got.size()) + " vs " + std::to_string(want.size()) +
         " entries)";
}

// A snapshot shared with the reader thread, with the model as of it. The last holder releases
// the snapshot.
struct Published {
  Published(DB* d, Model m) : db(d), snapshot(d->GetSnapshot()), state(std::move(m)) {}
  ~Published() { db->ReleaseSnapshot(snapshot); }
  Published(const Published&) = delete;
  Published& operator=(const Published&) = delete;
  DB* const db;
  const Snapshot* const snapshot;
  const Model state;
};

struct Style {
  const char* name;
  std::function<void(Options*)> apply;
};

class CompactionModelTest {
 public:
  CompactionModelTest(const Style& style, uint32_t seed, bool merges = false)
      : rnd_(seed), seed_(seed), merges_(merges) {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_write_buffer_number = 2 + static_cast<int>(rnd_.Uniform(2));
    // A few hundred KB of live data spread over four or five levels of small files.
    options_.target_file_size_base = 8 << 10;
    options_.max_bytes_for_level_base = 16 << 10;
    options_.max_bytes_for_level_multiplier = 3;
    options_.level0_file_num_compaction_trigger = 2;
    options_.max_background_jobs = 3;  // two compaction threads: compactions run side by side
    options_.max_subcompactions = 1 + static_cast<uint32_t>(rnd_.Uniform(3));
    options_.table_options.block_size = rnd_.OneIn(2) ? 512 : 4096;
    if (rnd_.OneIn(3)) options_.table_options.filter_policy = NewBloomFilterPolicy(10);
    style.apply(&options_);
    if (merges_) {
      options_.merge_operator = std::make_shared<test::JoinOperator>(/*partial=*/rnd_.OneIn(2));
      options_.max_successive_merges = rnd_.OneIn(2) ? 0 : 1 + rnd_.Uniform(4);
    }
  }

  void Run(int ops) {
    Open();
    for (int i = 0; i < ops && !::testing::Test::HasFatalFailure(); i++) Step(i);
    StopReader();
    if (::testing::Test::HasFatalFailure()) return;
    // Let the background work finish, then check everything once more, also after a reopen.
    const test::SettleResult r = test::WaitForCompactions(db_.get());
    EXPECT_TRUE(r.stable) << "compactions never settled";
    CheckAllSnapshots();
    EXPECT_EQ(CheckScan(db_.get(), ReadOptions(), false, View(model_, "", "")), "");
    test::ExpectLevelsSortedAndDisjoint(test::ListFiles(db_.get()));
    Reopen();
    EXPECT_EQ(CheckScan(db_.get(), ReadOptions(), true, View(model_, "", "")), "");
    StopReader();
    ReleaseSnapshots();
    ASSERT_OK(db_->Close());
  }

 private:
  std::string RandomKey() { return KeyOf(static_cast<uint32_t>(rnd_.Uniform(kKeySpace))); }
  std::string RandomValue() {
    // A quarter of the values are long: they fill the memtables and keep flushes coming.
    const size_t len = rnd_.OneIn(4) ? 500 + rnd_.Uniform(2500) : rnd_.Uniform(40);
    std::string v = "v" + std::to_string(rnd_.Next32()) + ":";
    v.resize(v.size() + len, static_cast<char>('a' + rnd_.Uniform(26)));
    return v;
  }

  void Open() {
    ASSERT_OK(DB::Open(options_, "/model", &db_));
    StartReader();
  }
  void Reopen() {
    StopReader();
    ReleaseSnapshots();  // snapshots do not survive a reopen
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  void Step(int i) {
    SCOPED_TRACE("seed " + std::to_string(seed_) + " step " + std::to_string(i));
    const uint32_t r = static_cast<uint32_t>(rnd_.Uniform(100));
    if (r < 50) {
      WriteRandomBatch();
    } else if (r < 60) {
      CheckGets();
    } else if (r < 68) {
      CheckIterator();
    } else if (r < 74) {
      TakeOrReleaseSnapshot();
    } else if (r < 77) {
      CheckAllSnapshots();
    } else if (r < 81) {
      Publish();
    } else if (r < 86) {
      FlushOptions fo;
      fo.wait = rnd_.OneIn(2);
      ASSERT_OK(db_->Flush(fo));
    } else if (r < 89) {
      CompactRandomRange();
    } else if (r < 90) {
      Reopen();
    } else if (r < 91) {
      ToggleAutoCompactions();
    } else {
      CheckReaderErrors();
    }
  }

  void WriteRandomBatch() {
    WriteBatch batch;
    const int n = 1 + static_cast<int>(rnd_.Uniform(rnd_.OneIn(10) ? 40 : 6));
    for (int j = 0; j < n; j++) {
      const std::string key = RandomKey();
      const uint32_t kind = static_cast<uint32_t>(rnd_.Uniform(merges_ ? 26 : 20));
      if (kind >= 20) {
        const std::string operand = "m" + std::to_string(rnd_.Uniform(1000));
        ASSERT_OK(batch.Merge(key, operand));
        auto it = model_.find(key);
        model_[key] =
            test::JoinOperator::Apply(it == model_.end() ? nullptr : &it->second, operand);
        puts_since_delete_[key] = 2;  // SingleDelete is undefined after a merge: use Delete
      } else if (kind < 12) {
        const std::string value = RandomValue();
        ASSERT_OK(batch.Put(key, value));
        model_[key] = value;
        puts_since_delete_[key]++;
      } else if (kind < 16) {
        ASSERT_OK(batch.Delete(key));
        model_.erase(key);
        puts_since_delete_[key] = 0;
        unsafe_for_single_delete_.erase(key);
      } else if (kind < 18) {
        // SingleDelete is defined only for a key put at most once since its last deletion.
        if (puts_since_delete_[key] <= 1 && unsafe_for_single_delete_.count(key) == 0) {
          ASSERT_OK(batch.SingleDelete(key));
        } else {
          ASSERT_OK(batch.Delete(key));
          unsafe_for_single_delete_.erase(key);
        }
        model_.erase(key);
        puts_since_delete_[key] = 0;
      } else {
        std::string begin = key, end = RandomKey();
        if (end < begin) std::swap(begin, end);
        ASSERT_OK(batch.DeleteRange(begin, end));
        model_.erase(model_.lower_bound(begin), model_.lower_bound(end));
        // Older versions may survive under the tombstone: a later SingleDelete of these keys
        // would be undefined, so they take Delete until a Delete covers them.
        for (auto& [k, count] : puts_since_delete_) {
          if (k >= begin && k < end && count > 0) unsafe_for_single_delete_.insert(k);
        }
      }
    }
    WriteOptions wo;
    wo.sync = rnd_.OneIn(30);
    wo.disableWAL = !wo.sync && rnd_.OneIn(20);
    ASSERT_OK(db_->Write(wo, &batch));
  }

  void ExpectGet(const ReadOptions& ro, const Model& model, const std::string& key) {
    std::string value;
    Status s = db_->Get(ro, key, &value);
    auto it = model.find(key);
    if (it == model.end()) {
      ASSERT_TRUE(s.IsNotFound()) << key << ": " << s.ToString() << " value "
                                  << value.substr(0, 30)
                                  << (ro.snapshot ? " (at a snapshot)" : "");
    } else {
      ASSERT_TRUE(s.ok()) << key << ": " << s.ToString() << (ro.snapshot ? " (at a snapshot)" : "");
      ASSERT_EQ(value, it->second) << key << (ro.snapshot ? " (at a snapshot)" : "");
    }
  }

  void CheckGets() {
    for (int j = 0; j < 10; j++) ExpectGet(ReadOptions(), model_, RandomKey());
    for (const HeldSnapshot& h : snapshots_) {
      ReadOptions ro;
      ro.snapshot = h.snapshot;
      for (int j = 0; j < 3; j++) ExpectGet(ro, h.state, RandomKey());
    }
  }

  // A scan with random bounds, at the latest state or at a held snapshot, plus random moves.
  void CheckIterator() {
    const HeldSnapshot* h = nullptr;
    if (!snapshots_.empty() && rnd_.OneIn(2)) h = &snapshots_[rnd_.Uniform(snapshots_.size())];
    const Model& model = h ? h->state : model_;
    ReadOptions ro;
    if (h) ro.snapshot = h->snapshot;
    std::string lower, upper;
    std::string_view lower_view, upper_view;
    if (rnd_.OneIn(3)) {
      lower = RandomKey();
      lower_view = lower;
      ro.iterate_lower_bound = &lower_view;
    }
    if (rnd_.OneIn(3)) {
      upper = RandomKey();
      upper_view = upper;
      ro.iterate_upper_bound = &upper_view;
    }
    if (!lower.empty() && !upper.empty() && upper < lower) std::swap(lower, upper);
    lower_view = lower;
    upper_view = upper;
    const auto view = View(model, lower, upper);
    ASSERT_EQ(CheckScan(db_.get(), ro, rnd_.OneIn(2), view), "");
    // Random seeks and steps.
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    size_t pos = view.size();  // index into view; view.size() means not valid
    auto lower_bound = [&](const std::string& t) {
      return static_cast<size_t>(
          std::lower_bound(view.begin(), view.end(), std::make_pair(t, std::string())) -
          view.begin());
    };
    for (int step = 0; step < 20; step++) {
      const uint32_t move = static_cast<uint32_t>(rnd_.Uniform(4));
      const std::string target = RandomKey();
      if (move == 0) {
        it->Seek(target);
        pos = lower_bound(target);
      } else if (move == 1) {
        it->SeekForPrev(target);
        size_t i = lower_bound(target);
        if (i < view.size() && view[i].first == target) {
          pos = i;
        } else {
          pos = i == 0 ? view.size() : i - 1;
        }
      } else if (move == 2 && it->Valid()) {
        it->Next();
        pos++;
      } else if (move == 3 && it->Valid()) {
        it->Prev();
        pos = pos == 0 ? view.size() : pos - 1;
      } else {
        continue;
      }
      ASSERT_OK(it->status());
      ASSERT_EQ(it->Valid(), pos < view.size()) << "move " << move << " target " << target;
      if (pos < view.size()) {
        ASSERT_EQ(it->key(), view[pos].first) << "move " << move << " target " << target;
        ASSERT_EQ(it->value(), view[pos].second);
      }
    }
  }

  void TakeOrReleaseSnapshot() {
    if (!snapshots_.empty() && (snapshots_.size() >= 5 || rnd_.OneIn(2))) {
      const size_t i = rnd_.Uniform(snapshots_.size());
      db_->ReleaseSnapshot(snapshots_[i].snapshot);
      snapshots_.erase(snapshots_.begin() + static_cast<long>(i));
      return;
    }
    snapshots_.push_back(HeldSnapshot{db_->GetSnapshot(), model_});
  }

  // Every held snapshot's whole view, in both directions.
  void CheckAllSnapshots() {
    for (const HeldSnapshot& h : snapshots_) {
      ReadOptions ro;
      ro.snapshot = h.snapshot;
      ASSERT_EQ(CheckScan(db_.get(), ro, rnd_.OneIn(2), View(h.state, "", "")), "")
          << "snapshot at " << h.snapshot->GetSequenceNumber();
    }
  }

  void ReleaseSnapshots() {
    for (HeldSnapshot& h : snapshots_) db_->ReleaseSnapshot(h.snapshot);
    snapshots_.clear();
  }

  void CompactRandomRange() {
    CompactRangeOptions cro;
    cro.exclusive_manual_compaction = rnd_.OneIn(2);
    if (rnd_.OneIn(4)) cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    if (rnd_.OneIn(4)) {
      ASSERT_OK(db_->CompactRange(cro, nullptr, nullptr));
      return;
    }
    std::string a = RandomKey(), b = RandomKey();
    if (b < a) std::swap(a, b);
    const std::string_view begin = a, end = b;
    ASSERT_OK(db_->CompactRange(cro, &begin, &end));
  }

  void ToggleAutoCompactions() {
    auto_compactions_off_ = !auto_compactions_off_;
    ASSERT_OK(db_->SetOptions(
        {{"disable_auto_compactions", auto_compactions_off_ ? "true" : "false"}}));
  }

  // ---- The reader thread.

  void Publish() {
    auto p = std::make_shared<const Published>(db_.get(), model_);
    std::lock_guard<std::mutex> lock(published_mu_);
    published_ = std::move(p);
  }

  void StartReader() {
    reader_stop_ = false;
    Publish();
    reader_ = std::thread([this, seed = rnd_.Next64()] { ReaderLoop(seed); });
  }
  void StopReader() {
    if (!reader_.joinable()) return;
    reader_stop_ = true;
    reader_.join();
    {
      std::lock_guard<std::mutex> lock(published_mu_);
      published_.reset();
    }
    CheckReaderErrors();
  }
  void CheckReaderErrors() {
    std::lock_guard<std::mutex> lock(published_mu_);
    for (const std::string& e : reader_errors_) ADD_FAILURE() << "reader thread: " << e;
    reader_errors_.clear();
  }
  void ReaderError(std::string e) {
    std::lock_guard<std::mutex> lock(published_mu_);
    if (reader_errors_.size() < 5) reader_errors_.push_back(std::move(e));
  }

  // Reads at the published snapshot (checked against its model) and at the latest state
  // (checked for order), until told to stop.
  void ReaderLoop(uint64_t seed) {
    Random rnd(seed);
    while (!reader_stop_) {
      std::shared_ptr<const Published> p;
      {
        std::lock_guard<std::mutex> lock(published_mu_);
        p = published_;
      }
      ReadOptions ro;
      ro.snapshot = p->snapshot;
      const uint32_t what = static_cast<uint32_t>(rnd.Uniform(4));
      if (what == 0) {
        std::string e = CheckScan(p->db, ro, rnd.OneIn(2), View(p->state, "", ""));
        if (!e.empty()) ReaderError("published snapshot: " + e);
      } else if (what == 1) {
        for (int j = 0; j < 20; j++) {
          const std::string key = KeyOf(static_cast<uint32_t>(rnd.Uniform(kKeySpace)));
          std::string value;
          Status s = p->db->Get(ro, key, &value);
          auto it = p->state.find(key);
          if (it == p->state.end() ? !s.IsNotFound() : (!s.ok() || value != it->second)) {
            ReaderError("Get(" + key + ") at the published snapshot: " + s.ToString());
          }
        }
      } else {
        // The latest state: unchecked values, but the keys must be strictly ordered.
        std::unique_ptr<Iterator> it = p->db->NewIterator(ReadOptions());
        std::string last;
        bool first = true;
        const bool reverse = what == 3;
        for (reverse ? it->SeekToLast() : it->SeekToFirst(); it->Valid();
             reverse ? it->Prev() : it->Next()) {
          const std::string key(it->key());
          if (!first && (reverse ? key >= last : key <= last)) {
            ReaderError("latest scan out of order: " + last + " then " + key);
            break;
          }
          first = false;
          last = key;
        }
        if (!it->status().ok()) ReaderError("latest scan: " + it->status().ToString());
      }
    }
  }

  struct HeldSnapshot {
    const Snapshot* snapshot;
    Model state;  // the model when the snapshot was taken
  };

  static constexpr uint32_t kKeySpace = 400;
  Random rnd_;
  const uint32_t seed_;
  const bool merges_;
  Options options_;
  std::unique_ptr<DB> db_;
  Model model_;
  std::map<std::string, int> puts_since_delete_;
  std::set<std::string> unsafe_for_single_delete_;
  std::vector<HeldSnapshot> snapshots_;
  bool auto_compactions_off_ = false;

  std::thread reader_;
  std::atomic<bool> reader_stop_{false};
  std::mutex published_mu_;
  std::shared_ptr<const Published> published_;  // guarded by published_mu_
  std::vector<std::string> reader_errors_;      // guarded by published_mu_
};

const Style kStyles[] = {
    {"LevelDynamic", [](Options*) {}},
    {"LevelStatic", [](Options* o) { o->level_compaction_dynamic_level_bytes = false; }},
    {"Universal",
     [](Options* o) {
       o->compaction_style = kCompactionStyleUniversal;
       o->level0_file_num_compaction_trigger = 3;
     }},
    // FIFO drops old data by design; with a large bound nothing is dropped and the model holds.
    {"Fifo", [](Options* o) { o->compaction_style = kCompactionStyleFIFO; }},
    {"None", [](Options* o) { o->compaction_style = kCompactionStyleNone; }},
};

class DBCompactionModelTest : public ::testing::TestWithParam<Style> {};

TEST_P(DBCompactionModelTest, RandomOperationsMatchTheModel) {
  const int seeds = EnvInt("SHALE_COMPACTION_MODEL_SEEDS", 2);
  const int ops = EnvInt("SHALE_COMPACTION_MODEL_OPS", 2500);
  for (int s = 1; s <= seeds; s++) {
    const uint32_t seed = static_cast<uint32_t>(s * 1009 + 7);
    CompactionModelTest t(GetParam(), seed);
    t.Run(ops);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "style " << GetParam().name << " seed " << seed << " failed";
      return;
    }
  }
}

TEST_P(DBCompactionModelTest, RandomOperationsWithMergesMatchTheModel) {
  const int seeds = EnvInt("SHALE_COMPACTION_MODEL_SEEDS", 2);
  const int ops = EnvInt("SHALE_COMPACTION_MODEL_OPS", 2500);
  for (int s = 1; s <= seeds; s++) {
    const uint32_t seed = static_cast<uint32_t>(s * 2003 + 11);
    CompactionModelTest t(GetParam(), seed, /*merges=*/true);
    t.Run(ops);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "style " << GetParam().name << " seed " << seed << " failed";
      return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Styles, DBCompactionModelTest, ::testing::ValuesIn(kStyles),
                         [](const ::testing::TestParamInfo<Style>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace shale
