// Model-based randomized test of column families (issue 23): four families (the default one,
// and three others, some with a merge operator), each checked against its own std::map model.
// Random single writes and batches spanning families (puts, deletes, range deletes, merges
// where the family has an operator), flushes of one family or of several, CompactRange of one
// family, drops and re-creations of a family (at once, or at the next Open through
// create_missing_column_families), snapshots checked across every family, NewIterators, MultiGet
// across families, and reopens. Every family's full contents and point reads are checked after
// each phase of steps, and the reads in between are checked as they are made.
//
// What it guards against: any leak of one family's writes, deletions or tables into another;
// a family's state lost or resurrected by a flush, a compaction, a drop of another family, a
// re-creation under the same name, or a reopen (WAL replay with per-family log numbers);
// snapshots that do not hold across families.
//
// Deterministic seeds; SHALE_STRESS=1 runs more seeds and longer; SHALE_CF_MODEL_SEED=n runs
// seed n alone.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "db/column_family_test_util.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"
#include "util/random.h"

namespace shale {
namespace {

using test::FamilyDB;
using test::ReadFamily;
using Model = std::map<std::string, std::string>;

constexpr char kDBName[] = "/cfmodel";

// How often the rarer operations ran, over every seed: the test checks at the end that each
// ran at all, so that a change of the step mix cannot quietly make it vacuous.
struct Coverage {
  int drops = 0;
  int recreated_now = 0;
  int recreated_at_open = 0;
  int dropped_handle_reads = 0;
  int reopens = 0;
  int snapshot_reads = 0;
  int compactions = 0;
  int multi_family_batches = 0;
};

// A snapshot and the model of every family when it was taken.
struct HeldSnapshot {
  const Snapshot* snapshot;
  std::map<std::string, Model> state;  // by family name (families live at the time)
};

class ColumnFamilyModelTest {
 public:
  ColumnFamilyModelTest(uint32_t seed, Coverage* coverage)
      : rnd_(seed), seed_(seed), coverage_(coverage) {
    db_options_.file_system = NewMemFileSystem();
    db_options_.create_if_missing = true;
    db_options_.create_missing_column_families = true;
    const std::vector<std::string> names = {kDefaultColumnFamilyName, "one", "two", "three"};
    for (size_t i = 0; i < names.size(); i++) {
      // The default family never merges; "one" always does; the others at random.
      options_[names[i]] = RandomFamilyOptions(i == 0 ? 0 : i == 1 ? 1 : 2);
      models_[names[i]];
      live_.push_back(names[i]);
    }
  }

  void Run(int phases, int steps_per_phase) {
    ASSERT_NO_FATAL_FAILURE(Open());
    for (int p = 0; p < phases && !::testing::Test::HasFatalFailure(); p++) {
      for (int i = 0; i < steps_per_phase && !::testing::Test::HasFatalFailure(); i++) {
        SCOPED_TRACE("seed " + std::to_string(seed_) + " phase " + std::to_string(p) + " step " +
                     std::to_string(i));
        ASSERT_NO_FATAL_FAILURE(Step());
      }
      SCOPED_TRACE("seed " + std::to_string(seed_) + " end of phase " + std::to_string(p));
      ASSERT_NO_FATAL_FAILURE(VerifyAll());
    }
    ReleaseSnapshots();
    EXPECT_OK(db_.Close());
  }

 private:
  // merge: 0 no operator, 1 an operator, 2 either.
  ColumnFamilyOptions RandomFamilyOptions(int merge) {
    ColumnFamilyOptions o;
    o.write_buffer_size = 64 << 10;
    o.max_write_buffer_number = 2 + static_cast<int>(rnd_.Uniform(3));
    o.level0_file_num_compaction_trigger = 2 + static_cast<int>(rnd_.Uniform(3));
    if (rnd_.OneIn(2)) o.table_options.block_size = 256;
    if (rnd_.OneIn(3)) o.table_options.filter_policy = NewBloomFilterPolicy(10);
    if (rnd_.OneIn(4)) o.compaction_style = kCompactionStyleUniversal;
    if (merge == 1 || (merge == 2 && rnd_.OneIn(2))) {
      o.merge_operator = std::make_shared<test::JoinOperator>(/*partial=*/rnd_.OneIn(2));
    }
    return o;
  }

  bool Merges(const std::string& f) { return options_[f].merge_operator != nullptr; }
  const std::string& RandomFamily() { return live_[rnd_.Uniform(live_.size())]; }
  std::string RandomKey() {
    char buf[16];
    snprintf(buf, sizeof(buf), "k%04u", static_cast<unsigned>(rnd_.Uniform(kKeySpace)));
    return buf;
  }
  std::string RandomValue() {
    const size_t len = rnd_.OneIn(10) ? 1000 + rnd_.Uniform(3000) : rnd_.Uniform(40);
    std::string v = "v" + std::to_string(rnd_.Next32()) + ":";
    v.resize(len + v.size(), static_cast<char>('a' + rnd_.Uniform(26)));
    return v;
  }

  void Open() {
    std::vector<ColumnFamilyDescriptor> descriptors;
    // In a random order: the handles must follow the descriptors whatever it is.
    std::vector<std::string> names = live_;
    for (size_t i = names.size(); i > 1; i--) std::swap(names[i - 1], names[rnd_.Uniform(i)]);
    for (const std::string& f : names) descriptors.emplace_back(f, options_[f]);
    ASSERT_OK(db_.Open(db_options_, kDBName, descriptors));
    for (const std::string& f : live_) ids_[f] = db_.cf(f)->GetID();
  }

  void Step() {
    const uint32_t r = rnd_.Uniform(100);
    if (r < 38) {
      ASSERT_NO_FATAL_FAILURE(WriteRandomBatch());
    } else if (r < 46) {
      ASSERT_NO_FATAL_FAILURE(WriteOne());
    } else if (r < 56) {
      ASSERT_NO_FATAL_FAILURE(CheckGets());
    } else if (r < 62) {
      ASSERT_NO_FATAL_FAILURE(CheckMultiGet());
    } else if (r < 68) {
      ASSERT_NO_FATAL_FAILURE(CheckIterator(RandomFamily()));
    } else if (r < 72) {
      ASSERT_NO_FATAL_FAILURE(CheckAllIterators(nullptr));
    } else if (r < 76) {
      ASSERT_NO_FATAL_FAILURE(TakeOrReleaseSnapshot());
    } else if (r < 80) {
      if (!snapshots_.empty()) {
        coverage_->snapshot_reads++;
        ASSERT_NO_FATAL_FAILURE(CheckAllIterators(&snapshots_[rnd_.Uniform(snapshots_.size())]));
      }
    } else if (r < 86) {
      FlushOptions fo;
      fo.wait = rnd_.OneIn(2);
      ASSERT_OK(db_->Flush(fo, db_.cf(RandomFamily())));
    } else if (r < 88) {
      std::vector<ColumnFamilyHandle*> some;
      for (const std::string& f : live_) {
        if (rnd_.OneIn(2)) some.push_back(db_.cf(f));
      }
      ASSERT_OK(db_->Flush(FlushOptions(), some));
    } else if (r < 91) {
      ASSERT_NO_FATAL_FAILURE(CompactRange());
    } else if (r < 94) {
      ASSERT_NO_FATAL_FAILURE(DropAndRecreate());
    } else if (r < 96) {
      ASSERT_NO_FATAL_FAILURE(Reopen());
    } else {
      ASSERT_NO_FATAL_FAILURE(VerifyFamily(RandomFamily()));
    }
  }

  // Adds one random update of family f to `batch` (or writes it directly when batch is null)
  // and applies it to f's model.
  void RandomUpdate(const std::string& f, WriteBatch* batch, const WriteOptions& wo) {
    ColumnFamilyHandle* h = db_.cf(f);
    Model& m = models_[f];
    const std::string key = RandomKey();
    const uint32_t kind = rnd_.Uniform(Merges(f) ? 26 : 20);
    if (kind >= 20) {
      const std::string operand = "m" + std::to_string(rnd_.Uniform(1000));
      ASSERT_OK(batch ? batch->Merge(h, key, operand) : db_->Merge(wo, h, key, operand));
      auto it = m.find(key);
      m[key] = test::JoinOperator::Apply(it == m.end() ? nullptr : &it->second, operand);
    } else if (kind < 12) {
      const std::string value = RandomValue();
      ASSERT_OK(batch ? batch->Put(h, key, value) : db_->Put(wo, h, key, value));
      m[key] = value;
    } else if (kind < 16) {
      ASSERT_OK(batch ? batch->Delete(h, key) : db_->Delete(wo, h, key));
      m.erase(key);
    } else {
      std::string begin = key;
      std::string end = RandomKey();
      if (end < begin) std::swap(begin, end);
      ASSERT_OK(batch ? batch->DeleteRange(h, begin, end) : db_->DeleteRange(wo, h, begin, end));
      for (auto it = m.lower_bound(begin); it != m.end() && it->first < end;) it = m.erase(it);
    }
  }

  WriteOptions RandomWriteOptions() {
    WriteOptions wo;
    wo.sync = rnd_.OneIn(20);
    wo.disableWAL = !wo.sync && rnd_.OneIn(20);
    return wo;
  }

  void WriteRandomBatch() {
    WriteBatch batch;
    const int n = 1 + static_cast<int>(rnd_.Uniform(rnd_.OneIn(10) ? 50 : 8));
    std::set<std::string> families;
    for (int j = 0; j < n; j++) {
      const std::string& f = RandomFamily();
      families.insert(f);
      ASSERT_NO_FATAL_FAILURE(RandomUpdate(f, &batch, WriteOptions()));
    }
    if (families.size() > 1) coverage_->multi_family_batches++;
    ASSERT_OK(db_->Write(RandomWriteOptions(), &batch));
  }

  void WriteOne() {
    ASSERT_NO_FATAL_FAILURE(RandomUpdate(RandomFamily(), nullptr, RandomWriteOptions()));
  }

  void CheckGets() {
    for (int j = 0; j < 10; j++) {
      const std::string& f = RandomFamily();
      const std::string key = RandomKey();
      const Model& m = models_[f];
      auto it = m.find(key);
      EXPECT_EQ(test::GetText(db_.db(), db_.cf(f), key), it == m.end() ? "NOT_FOUND" : it->second)
          << f << " " << key;
    }
    for (const HeldSnapshot& h : snapshots_) {
      for (const auto& [f, m] : h.state) {
        const std::string key = RandomKey();
        auto it = m.find(key);
        EXPECT_EQ(test::GetText(db_.db(), db_.cf(f), key, h.snapshot),
                  it == m.end() ? "NOT_FOUND" : it->second)
            << "snapshot read of " << f << " " << key;
      }
    }
    ASSERT_FALSE(::testing::Test::HasFailure());
  }

  void CheckMultiGet() {
    std::vector<ColumnFamilyHandle*> handles;
    std::vector<std::string> families, keys;
    for (int j = 0; j < 10; j++) {
      families.push_back(RandomFamily());
      handles.push_back(db_.cf(families.back()));
      keys.push_back(RandomKey());
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    const HeldSnapshot* h =
        !snapshots_.empty() && rnd_.OneIn(2) ? &snapshots_[rnd_.Uniform(snapshots_.size())] : nullptr;
    ReadOptions ro;
    if (h != nullptr) ro.snapshot = h->snapshot;
    std::vector<std::string> values;
    std::vector<Status> st = db_->MultiGet(ro, handles, views, &values);
    ASSERT_EQ(st.size(), keys.size());
    for (size_t j = 0; j < keys.size(); j++) {
      const Model& m = h != nullptr ? h->state.at(families[j]) : models_[families[j]];
      auto it = m.find(keys[j]);
      if (it == m.end()) {
        ASSERT_TRUE(st[j].IsNotFound()) << families[j] << " " << keys[j] << ": "
                                        << st[j].ToString() << (h ? " (snapshot)" : "");
      } else {
        ASSERT_OK(st[j]);
        ASSERT_EQ(values[j], it->second) << families[j] << " " << keys[j];
      }
    }
  }

  // Random moves of an iterator over family f, with random bounds, against its model.
  void CheckIterator(const std::string& f) {
    const Model& model = models_[f];
    ReadOptions ro;
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
    Model view;
    for (const auto& [k, v] : model) {
      if (ro.iterate_lower_bound && k < lower_s) continue;
      if (ro.iterate_upper_bound && k >= upper_s) continue;
      view.emplace(k, v);
    }
    std::unique_ptr<Iterator> it = db_->NewIterator(ro, db_.cf(f));
    Model::const_iterator pos = view.end();
    for (int step = 0; step < 30; step++) {
      const uint32_t move = rnd_.Uniform(6);
      const std::string target = RandomKey();
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
      ASSERT_EQ(it->Valid(), pos != view.end()) << f << " move " << move << " target " << target;
      if (pos != view.end()) {
        ASSERT_EQ(it->key(), pos->first) << f << " move " << move << " target " << target;
        ASSERT_EQ(it->value(), pos->second) << f << " move " << move;
      }
    }
  }

  // NewIterators over every live family (at `h`'s snapshot, or now): full scans, each equal to
  // its family's model.
  void CheckAllIterators(const HeldSnapshot* h) {
    std::vector<std::string> families;
    std::vector<ColumnFamilyHandle*> handles;
    for (const std::string& f : live_) {
      if (h != nullptr && !h->state.count(f)) continue;
      families.push_back(f);
      handles.push_back(db_.cf(f));
    }
    ReadOptions ro;
    if (h != nullptr) ro.snapshot = h->snapshot;
    std::vector<std::unique_ptr<Iterator>> its;
    ASSERT_OK(db_->NewIterators(ro, handles, &its));
    ASSERT_EQ(its.size(), handles.size());
    for (size_t j = 0; j < its.size(); j++) {
      Model got;
      for (its[j]->SeekToFirst(); its[j]->Valid(); its[j]->Next()) {
        got.emplace(std::string(its[j]->key()), std::string(its[j]->value()));
      }
      ASSERT_OK(its[j]->status());
      const Model& want = h != nullptr ? h->state.at(families[j]) : models_[families[j]];
      ASSERT_EQ(got, want) << "family " << families[j] << (h ? " at a snapshot" : "");
    }
  }

  void TakeOrReleaseSnapshot() {
    if (!snapshots_.empty() && (snapshots_.size() >= 4 || rnd_.OneIn(2))) {
      const size_t i = rnd_.Uniform(snapshots_.size());
      db_->ReleaseSnapshot(snapshots_[i].snapshot);
      snapshots_.erase(snapshots_.begin() + i);
      return;
    }
    HeldSnapshot h{db_->GetSnapshot(), {}};
    for (const std::string& f : live_) h.state[f] = models_[f];
    snapshots_.push_back(std::move(h));
  }

  void ReleaseSnapshots() {
    for (HeldSnapshot& h : snapshots_) db_->ReleaseSnapshot(h.snapshot);
    snapshots_.clear();
  }

  void CompactRange() {
    const std::string& f = RandomFamily();
    CompactRangeOptions co;
    coverage_->compactions++;
    if (rnd_.OneIn(2)) {
      ASSERT_OK(db_->CompactRange(co, db_.cf(f), nullptr, nullptr));
      return;
    }
    std::string b = RandomKey(), e = RandomKey();
    if (e < b) std::swap(b, e);
    const std::string_view begin = b, end = e;
    ASSERT_OK(db_->CompactRange(co, db_.cf(f), &begin, &end));
  }

  // Drops a family other than the default: checks its handle still reads what it held, and
  // that writes to it fail; then re-creates it at once or at the next Open.
  void DropAndRecreate() {
    if (live_.size() < 2) return;
    const std::string f = live_[1 + rnd_.Uniform(live_.size() - 1)];
    ASSERT_OK(db_.Drop(f));
    coverage_->drops++;
    live_.erase(std::find(live_.begin(), live_.end(), f));
    const Model dropped = std::move(models_[f]);
    models_.erase(f);
    for (HeldSnapshot& h : snapshots_) h.state.erase(f);
    Status s = db_->Put(WriteOptions(), db_.cf(f), "k0000", "after-drop");
    ASSERT_TRUE(s.IsInvalidArgument()) << "a write to dropped " << f << ": " << s.ToString();
    if (rnd_.OneIn(2)) {
      // Writes to the other families and a flush meanwhile; the dropped handle still reads.
      ASSERT_NO_FATAL_FAILURE(WriteRandomBatch());
      ASSERT_OK(db_->Flush(FlushOptions(), db_.cf(RandomFamily())));
      ASSERT_EQ(ReadFamily(db_.db(), db_.cf(f)), dropped) << "dropped " << f
                                                          << " through its handle";
      coverage_->dropped_handle_reads++;
    }
    db_.Release(f);
    options_[f] = RandomFamilyOptions(2);
    if (rnd_.OneIn(2)) {
      coverage_->recreated_now++;
      ASSERT_NO_FATAL_FAILURE(Recreate(f));
    } else {
      pending_.push_back(f);  // created by the next Open (create_missing_column_families)
    }
  }

  // Creates f again (empty), now.
  void Recreate(const std::string& f) {
    ASSERT_OK(db_.Create(options_[f], f));
    EXPECT_NE(db_.cf(f)->GetID(), ids_[f]) << "a family id was reused for " << f;
    ids_[f] = db_.cf(f)->GetID();
    live_.push_back(f);
    models_[f];
    // A snapshot older than the new family sees it empty.
    for (HeldSnapshot& h : snapshots_) h.state[f];
    ASSERT_TRUE(ReadFamily(db_.db(), db_.cf(f)).empty()) << "re-created " << f << " is not empty";
  }

  void Reopen() {
    ReleaseSnapshots();
    ASSERT_OK(db_.Close());
    coverage_->reopens++;
    coverage_->recreated_at_open += static_cast<int>(pending_.size());
    std::map<std::string, uint32_t> old_ids = ids_;
    for (const std::string& f : pending_) {
      live_.push_back(f);
      models_[f];  // created empty by create_missing_column_families
    }
    ASSERT_NO_FATAL_FAILURE(Open());
    for (const std::string& f : pending_) {
      EXPECT_NE(ids_[f], old_ids[f]) << "a family id was reused for " << f;
    }
    pending_.clear();
    ASSERT_NO_FATAL_FAILURE(VerifyAll());
  }

  // Full scan (both directions) and point reads of every model key (and of absent keys) of f.
  void VerifyFamily(const std::string& f) {
    const Model& want = models_[f];
    ASSERT_EQ(ReadFamily(db_.db(), db_.cf(f)), want) << "family " << f;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), db_.cf(f));
    auto rit = want.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++rit) {
      ASSERT_NE(rit, want.rend()) << f << ": reverse scan too long";
      ASSERT_EQ(it->key(), rit->first) << f;
    }
    ASSERT_OK(it->status());
    ASSERT_EQ(rit, want.rend()) << f << ": reverse scan too short";
    for (uint32_t k = 0; k < kKeySpace; k++) {
      char buf[16];
      snprintf(buf, sizeof(buf), "k%04u", k);
      auto mit = want.find(buf);
      ASSERT_EQ(test::GetText(db_.db(), db_.cf(f), buf), mit == want.end() ? "NOT_FOUND" : mit->second)
          << "family " << f << " key " << buf;
    }
  }

  void VerifyAll() {
    for (const std::string& f : live_) ASSERT_NO_FATAL_FAILURE(VerifyFamily(f));
    std::vector<std::string> listed;
    ASSERT_OK(DB::ListColumnFamilies(db_options_, kDBName, &listed));
    std::set<std::string> want(live_.begin(), live_.end());
    ASSERT_EQ(std::set<std::string>(listed.begin(), listed.end()), want);
    ASSERT_EQ(listed.front(), kDefaultColumnFamilyName);
  }

  static constexpr uint32_t kKeySpace = 200;
  Random rnd_;
  const uint32_t seed_;
  Coverage* const coverage_;
  DBOptions db_options_;
  std::map<std::string, ColumnFamilyOptions> options_;  // by family name
  std::map<std::string, Model> models_;                 // live families
  std::map<std::string, uint32_t> ids_;                 // the id each name last had
  std::vector<std::string> live_;                       // live_[0] is the default family
  std::vector<std::string> pending_;  // dropped, to be re-created by the next Open
  std::vector<HeldSnapshot> snapshots_;
  FamilyDB db_;
};

bool Stress() {
  const char* env = getenv("SHALE_STRESS");
  return env != nullptr && env[0] != '\0' && env[0] != '0';
}

TEST(DBColumnFamilyModelTest, RandomOperationsAcrossFamiliesMatchTheModels) {
  uint32_t first = 1;
  uint32_t seeds = Stress() ? 300 : 30;
  const int phases = Stress() ? 20 : 10;
  // SHALE_CF_MODEL_SEED=n runs seed n alone (to reproduce a failure; a crash does not print
  // the trace, so a stress run names each seed on stderr as it starts).
  if (const char* one = getenv("SHALE_CF_MODEL_SEED"); one != nullptr && atoi(one) > 0) {
    first = static_cast<uint32_t>(atoi(one));
    seeds = 1;
  }
  Coverage coverage;
  for (uint32_t seed = first; seed < first + seeds && !::testing::Test::HasFailure(); seed++) {
    if (Stress()) fprintf(stderr, "seed %u\n", seed);
    ColumnFamilyModelTest t(seed, &coverage);
    t.Run(phases, /*steps_per_phase=*/200);
  }
  if (::testing::Test::HasFailure() || seeds == 1) return;
  EXPECT_GT(coverage.drops, 0);
  EXPECT_GT(coverage.recreated_now, 0);
  EXPECT_GT(coverage.recreated_at_open, 0);
  EXPECT_GT(coverage.dropped_handle_reads, 0);
  EXPECT_GT(coverage.reopens, 0);
  EXPECT_GT(coverage.snapshot_reads, 0);
  EXPECT_GT(coverage.compactions, 0);
  EXPECT_GT(coverage.multi_family_batches, 0);
  printf("coverage over %u seeds: %d drops (%d re-created at once, %d at Open, %d dropped-handle "
         "reads), %d reopens, %d snapshot checks, %d compactions, %d multi-family batches\n",
         seeds, coverage.drops, coverage.recreated_now, coverage.recreated_at_open,
         coverage.dropped_handle_reads, coverage.reopens, coverage.snapshot_reads,
         coverage.compactions, coverage.multi_family_batches);
}

}  // namespace
}  // namespace shale
