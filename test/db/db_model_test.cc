// Model-based randomized test: random batches of puts, deletes, single deletes and range
// deletes (and, in the merge variant, merges through a JoinOperator the model mirrors, with
// manual compactions and random max_successive_merges), with snapshots, iterators (both
// directions, random bounds), flushes and reopens; every read is checked against a std::map
// model of what the DB must hold.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

struct HeldSnapshot {
  const Snapshot* snapshot;
  Model state;  // the model when the snapshot was taken
};

class ModelTest {
 public:
  explicit ModelTest(uint32_t seed, bool merges = false)
      : rnd_(seed), seed_(seed), merges_(merges) {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_write_buffer_number = 2 + static_cast<int>(rnd_.Uniform(3));
    if (rnd_.OneIn(2)) options_.table_options.block_size = 256;
    if (rnd_.OneIn(3)) options_.table_options.filter_policy = NewBloomFilterPolicy(10);
    if (merges_) {
      options_.merge_operator = std::make_shared<test::JoinOperator>(/*partial=*/rnd_.OneIn(2));
      options_.max_successive_merges = rnd_.OneIn(2) ? 0 : 1 + rnd_.Uniform(4);
    }
  }

  void Run(int ops) {
    Open();
    for (int i = 0; i < ops && !::testing::Test::HasFatalFailure(); i++) Step(i);
    for (HeldSnapshot& h : snapshots_) db_->ReleaseSnapshot(h.snapshot);
    snapshots_.clear();
    ASSERT_OK(db_->Close());
  }

 private:
  std::string RandomKey() {
    char buf[16];
    snprintf(buf, sizeof(buf), "k%04u", static_cast<unsigned>(rnd_.Uniform(kKeySpace)));
    return buf;
  }
  std::string RandomValue() {
    // Mostly short values; some long ones fill the memtable and force switches.
    const size_t len = rnd_.OneIn(10) ? 1000 + rnd_.Uniform(3000) : rnd_.Uniform(40);
    std::string v = "v" + std::to_string(rnd_.Next32()) + ":";
    v.resize(len + v.size(), static_cast<char>('a' + rnd_.Uniform(26)));
    return v;
  }

  void Open() { ASSERT_OK(DB::Open(options_, "/model", &db_)); }

  void Step(int i) {
    SCOPED_TRACE("seed " + std::to_string(seed_) + " step " + std::to_string(i));
    const uint32_t r = rnd_.Uniform(100);
    if (r < 45) {
      WriteRandomBatch();
    } else if (r < 60) {
      CheckGets();
    } else if (r < 70) {
      CheckIterator(std::nullopt);
    } else if (r < 75) {
      TakeOrReleaseSnapshot();
    } else if (r < 82 && !snapshots_.empty()) {
      const HeldSnapshot& h = snapshots_[rnd_.Uniform(snapshots_.size())];
      CheckIterator(h);
    } else if (r < 88) {
      FlushOptions fo;
      fo.wait = rnd_.OneIn(2);
      ASSERT_OK(db_->Flush(fo));
    } else if (r < 91) {
      Reopen();
    } else if (merges_ && r >= 97) {
      CompactRangeOptions co;
      ASSERT_OK(db_->CompactRange(co, nullptr, nullptr));
    } else {
      CheckMultiGet();
    }
  }

  void WriteRandomBatch() {
    WriteBatch batch;
    // The write cannot fail, so the model is updated as the batch is built.
    Model& next = model_;
    const int n = 1 + static_cast<int>(rnd_.Uniform(rnd_.OneIn(10) ? 50 : 5));
    for (int j = 0; j < n; j++) {
      const std::string key = RandomKey();
      const uint32_t kind = rnd_.Uniform(merges_ ? 26 : 20);
      if (kind >= 20) {
        // Short operands: hot keys collect long lists.
        const std::string operand = "m" + std::to_string(rnd_.Uniform(1000));
        ASSERT_OK(batch.Merge(key, operand));
        auto it = next.find(key);
        next[key] = test::JoinOperator::Apply(it == next.end() ? nullptr : &it->second, operand);
        put_count_[key] = 2;  // SingleDelete is undefined after a merge: use Delete
      } else if (kind < 12) {
        const std::string value = RandomValue();
        ASSERT_OK(batch.Put(key, value));
        next[key] = value;
        put_count_[key]++;
      } else if (kind < 16) {
        ASSERT_OK(batch.Delete(key));
        next.erase(key);
        put_count_[key] = 0;
      } else if (kind < 18) {
        // SingleDelete is defined only for keys put at most once since their last deletion
        // (and never overwritten in between); use Delete otherwise.
        if (put_count_[key] <= 1 && !written_once_unsafe_.count(key)) {
          ASSERT_OK(batch.SingleDelete(key));
        } else {
          ASSERT_OK(batch.Delete(key));
        }
        next.erase(key);
        put_count_[key] = 0;
      } else {
        std::string end = RandomKey();
        std::string begin = key;
        if (end < begin) std::swap(begin, end);
        ASSERT_OK(batch.DeleteRange(begin, end));
        for (auto it = next.lower_bound(begin); it != next.end() && it->first < end;) {
          it = next.erase(it);
        }
        // Keys the range deleted may still have older versions below: a later SingleDelete
        // would be undefined, so treat them as multiply written.
        for (auto& [k, count] : put_count_) {
          if (k >= begin && k < end && count > 0) written_once_unsafe_.insert(k);
        }
      }
    }
    WriteOptions wo;
    wo.sync = rnd_.OneIn(20);
    wo.disableWAL = !wo.sync && rnd_.OneIn(20);
    ASSERT_OK(db_->Write(wo, &batch));
  }

  void CheckGets() {
    for (int j = 0; j < 10; j++) {
      const std::string key = RandomKey();
      std::string value;
      Status s = db_->Get(ReadOptions(), key, &value);
      auto it = model_.find(key);
      if (it == model_.end()) {
        ASSERT_TRUE(s.IsNotFound()) << key << ": " << s.ToString() << " value " << value;
      } else {
        ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
        ASSERT_EQ(value, it->second) << key;
      }
    }
    for (const HeldSnapshot& h : snapshots_) {
      const std::string key = RandomKey();
      ReadOptions ro;
      ro.snapshot = h.snapshot;
      std::string value;
      Status s = db_->Get(ro, key, &value);
      auto it = h.state.find(key);
      if (it == h.state.end()) {
        ASSERT_TRUE(s.IsNotFound()) << "snapshot read of " << key << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
        ASSERT_EQ(value, it->second) << "snapshot read of " << key;
      }
    }
  }

  void CheckMultiGet() {
    std::vector<std::string> keys;
    for (int j = 0; j < 8; j++) keys.push_back(RandomKey());
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> st = db_->MultiGet(ReadOptions(), views, &values);
    ASSERT_EQ(st.size(), keys.size());
    for (size_t j = 0; j < keys.size(); j++) {
      auto it = model_.find(keys[j]);
      if (it == model_.end()) {
        ASSERT_TRUE(st[j].IsNotFound()) << keys[j];
      } else {
        ASSERT_OK(st[j]);
        ASSERT_EQ(values[j], it->second);
      }
    }
  }

  // Walks an iterator with random moves, comparing each position with the model.
  void CheckIterator(const std::optional<HeldSnapshot>& snap) {
    const Model& model = snap ? snap->state : model_;
    ReadOptions ro;
    if (snap) ro.snapshot = snap->snapshot;
    std::string lower_s, upper_s;
    std::string_view lower, upper;
    if (rnd_.OneIn(3)) {
      lower_s = RandomKey();
      lower = lower_s;
      ro.iterate_lower_bound = &lower;
    }
    if (rnd_.OneIn(3)) {
      upper_s = RandomKey();
      upper = upper_s;
      ro.iterate_upper_bound = &upper;
    }
    // The model restricted to the bounds.
    Model view;
    for (const auto& [k, v] : model) {
      if (ro.iterate_lower_bound && k < lower_s) continue;
      if (ro.iterate_upper_bound && k >= upper_s) continue;
      view.emplace(k, v);
    }
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    if (rnd_.OneIn(3)) {
      // A full scan in one direction.
      const bool forward = rnd_.OneIn(2);
      std::vector<std::pair<std::string, std::string>> got;
      if (forward) {
        for (it->SeekToFirst(); it->Valid(); it->Next()) got.emplace_back(it->key(), it->value());
      } else {
        for (it->SeekToLast(); it->Valid(); it->Prev()) got.emplace_back(it->key(), it->value());
      }
      ASSERT_OK(it->status());
      std::vector<std::pair<std::string, std::string>> want(view.begin(), view.end());
      if (!forward) std::reverse(want.begin(), want.end());
      ASSERT_EQ(got, want) << (forward ? "forward" : "reverse") << " scan";
      return;
    }
    // Random moves.
    Model::const_iterator pos = view.end();
    for (int step = 0; step < 30; step++) {
      const uint32_t move = rnd_.Uniform(6);
      std::string target = RandomKey();
      const bool valid_before = it->Valid();
      if (move == 0) {
        it->SeekToFirst();
        pos = view.begin();
      } else if (move == 1) {
        it->SeekToLast();
        pos = view.empty() ? view.end() : std::prev(view.end());
      } else if (move == 2) {
        it->Seek(target);
        pos = view.lower_bound(target);
      } else if (move == 3) {
        it->SeekForPrev(target);
        pos = view.upper_bound(target);
        pos = pos == view.begin() ? view.end() : std::prev(pos);
      } else if (move == 4 && valid_before) {
        it->Next();
        ++pos;
      } else if (move == 5 && valid_before) {
        it->Prev();
        pos = pos == view.begin() ? view.end() : std::prev(pos);
      } else {
        continue;
      }
      ASSERT_OK(it->status());
      ASSERT_EQ(it->Valid(), pos != view.end()) << "move " << move << " target " << target;
      if (pos != view.end()) {
        ASSERT_EQ(it->key(), pos->first) << "move " << move << " target " << target;
        ASSERT_EQ(it->value(), pos->second) << "move " << move;
      }
    }
  }

  void TakeOrReleaseSnapshot() {
    if (!snapshots_.empty() && (snapshots_.size() >= 4 || rnd_.OneIn(2))) {
      const size_t i = rnd_.Uniform(snapshots_.size());
      db_->ReleaseSnapshot(snapshots_[i].snapshot);
      snapshots_.erase(snapshots_.begin() + i);
      return;
    }
    snapshots_.push_back(HeldSnapshot{db_->GetSnapshot(), model_});
  }

  void Reopen() {
    // Snapshots do not survive a reopen.
    for (HeldSnapshot& h : snapshots_) db_->ReleaseSnapshot(h.snapshot);
    snapshots_.clear();
    ASSERT_OK(db_->Close());
    db_.reset();
    Open();
  }

  static constexpr uint32_t kKeySpace = 300;
  Random rnd_;
  const uint32_t seed_;
  const bool merges_;
  Options options_;
  std::unique_ptr<DB> db_;
  Model model_;
  std::map<std::string, int> put_count_;  // puts since the key's last deletion
  std::set<std::string> written_once_unsafe_;
  std::vector<HeldSnapshot> snapshots_;
};

TEST(DBModelTest, RandomOperationsMatchTheModel) {
  for (uint32_t seed = 1; seed <= 25; seed++) {
    ModelTest t(seed);
    t.Run(1000);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(DBModelTest, RandomOperationsWithMergesMatchTheModel) {
  for (uint32_t seed = 1; seed <= 25; seed++) {
    ModelTest t(seed, /*merges=*/true);
    t.Run(1000);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace shale
