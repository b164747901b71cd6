// Concurrency: writer threads (puts, deletes, range deletes and batches, some synced) and reader
// threads (Get, MultiGet, iterators in both directions, snapshots) run at once over a small
// write buffer, so memtable switches and flushes happen under them. Meant for TSan as well.
//
// Each writer owns the keys under its prefix "w<i>/", so the final state is the union of the
// writers' models. What readers check while the writers run:
//  - pairs: "w<i>/p<n>/a" and "w<i>/p<n>/b" are only ever written together in one batch (same
//    value) or deleted together; any read at one snapshot sees both with equal values, or
//    neither;
//  - counters: "w<i>/counter" is written before the readers start, never deleted, and rises
//    with every batch of writer i; a reader never sees it missing, nor going back in time;
//  - iterators yield strictly ordered unique keys in both directions;
//  - a snapshot reads the same data however long it is held and however many flushes happen
//    meanwhile, through Get, MultiGet and iterators alike.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shale/db.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale {
namespace {

using Model = std::map<std::string, std::string>;

constexpr int kWriters = 4;
constexpr int kReaders = 4;
constexpr int kPairsPerWriter = 64;
constexpr int kSinglesPerWriter = 64;
// Each writer stops after this long or this many writes, whichever comes first (no compaction
// yet: tables pile up and make scans slower and slower).
constexpr auto kWriteDuration = std::chrono::milliseconds(1200);
constexpr int kMaxWritesPerWriter = 8000;

std::string WriterPrefix(int w) {
  char buf[16];
  snprintf(buf, sizeof(buf), "w%d/", w);
  return buf;
}
std::string PairKey(int w, int p, char which) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d/p%03d/%c", w, p, which);
  return buf;
}
std::string CounterKey(int w) { return WriterPrefix(w) + "counter"; }
std::string SingleKey(int w, int s) {
  char buf[32];
  snprintf(buf, sizeof(buf), "w%d/s%03d", w, s);
  return buf;
}
std::string CounterValue(uint64_t n) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%012llu", static_cast<unsigned long long>(n));
  return buf;
}

// Whether `key` is a pair key, and if so its partner.
bool PairPartner(std::string_view key, std::string* partner) {
  // "w<d>/p<ddd>/<a|b>"
  if (key.size() != 9 || key[0] != 'w' || key[2] != '/' || key[3] != 'p' || key[7] != '/') {
    return false;
  }
  if (key[8] != 'a' && key[8] != 'b') return false;
  *partner = std::string(key.substr(0, 8)) + (key[8] == 'a' ? 'b' : 'a');
  return true;
}

class DBConcurrencyTest : public ::testing::Test {
 protected:
  DBConcurrencyTest() {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.max_write_buffer_number = 3;
    options_.max_open_files = 20;  // a small table cache: tables are closed and reopened
  }

  // Records a failure from any thread (gtest's EXPECT is thread-safe), at most a few.
  void Fail(const std::string& what) {
    if (failures_.fetch_add(1) < 10) ADD_FAILURE() << what;
  }
  bool Failing() const { return failures_.load() > 0; }

  void Writer(int w) {
    Random rnd(1000 + w);
    Model& model = models_[w];
    uint64_t counter = 1;  // 0 was written before the threads started
    const auto deadline = std::chrono::steady_clock::now() + kWriteDuration;
    for (int i = 0; i < kMaxWritesPerWriter && std::chrono::steady_clock::now() < deadline &&
                    !Failing();
         i++) {
      WriteOptions wo;
      wo.sync = rnd.OneIn(30);
      const uint64_t r = rnd.Uniform(100);
      Status s;
      if (r < 70) {
        // A pair batch, which also raises the counter.
        const int p = static_cast<int>(rnd.Uniform(kPairsPerWriter));
        WriteBatch batch;
        const std::string a = PairKey(w, p, 'a'), b = PairKey(w, p, 'b');
        const uint64_t kind = rnd.Uniform(10);
        if (kind < 6) {
          std::string value = CounterValue(counter) + ":";
          value.append(rnd.Uniform(400), static_cast<char>('a' + rnd.Uniform(26)));
          EXPECT_OK(batch.Put(a, value));
          EXPECT_OK(batch.Put(b, value));
          model[a] = model[b] = value;
        } else if (kind < 9) {
          EXPECT_OK(batch.Delete(b));
          EXPECT_OK(batch.Delete(a));
          model.erase(a);
          model.erase(b);
        } else {
          // [".../p<n>/", ".../p<n>0") holds exactly the two keys of the pair.
          const std::string begin = a.substr(0, 8), end = a.substr(0, 7) + "0";
          EXPECT_OK(batch.DeleteRange(begin, end));
          model.erase(a);
          model.erase(b);
        }
        EXPECT_OK(batch.Put(CounterKey(w), CounterValue(counter)));
        model[CounterKey(w)] = CounterValue(counter);
        counter++;
        s = db_->Write(wo, &batch);
      } else {
        const std::string key = SingleKey(w, static_cast<int>(rnd.Uniform(kSinglesPerWriter)));
        if (rnd.OneIn(3)) {
          s = db_->Delete(wo, key);
          model.erase(key);
        } else {
          const std::string value(rnd.Uniform(200), static_cast<char>('A' + rnd.Uniform(26)));
          s = db_->Put(wo, key, value);
          model[key] = value;
        }
      }
      if (!s.ok()) Fail("writer " + std::to_string(w) + ": " + s.ToString());
      writes_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Checks the pairs among `state` (keys read at one snapshot).
  void CheckPairs(const Model& state, const std::string& where) {
    for (const auto& [key, value] : state) {
      std::string partner;
      if (!PairPartner(key, &partner)) continue;
      auto it = state.find(partner);
      if (it == state.end()) {
        Fail(where + ": " + key + " without " + partner);
      } else if (it->second != value) {
        Fail(where + ": " + key + " and " + partner + " differ");
      }
    }
  }

  // Scans [lower, upper) (empty: unbounded) forward or backward; checks the order and returns
  // what it saw.
  Model Scan(const Snapshot* snap, bool forward, const std::string& lower,
             const std::string& upper, const std::string& where) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string_view lo(lower), up(upper);
    if (!lower.empty()) ro.iterate_lower_bound = &lo;
    if (!upper.empty()) ro.iterate_upper_bound = &up;
    std::unique_ptr<Iterator> it = db_->NewIterator(ro);
    Model seen;
    std::string prev;
    bool first = true;
    for (forward ? it->SeekToFirst() : it->SeekToLast(); it->Valid();
         forward ? it->Next() : it->Prev()) {
      std::string key(it->key());
      if (!first && (forward ? !(prev < key) : !(key < prev))) {
        Fail(where + (forward ? ": forward" : ": backward") + " scan out of order: " + prev +
             " then " + key);
        break;
      }
      if ((!lower.empty() && key < lower) || (!upper.empty() && key >= upper)) {
        Fail(where + ": key " + key + " outside the bounds");
      }
      seen[key] = std::string(it->value());
      prev = std::move(key);
      first = false;
    }
    if (!it->status().ok()) Fail(where + ": iterator: " + it->status().ToString());
    return seen;
  }

  void Reader(int r) {
    Random rnd(2000 + r);
    std::vector<std::string> last_counter(kWriters, CounterValue(0));
    while (!writers_done_.load() && !Failing()) {
      const int w = static_cast<int>(rnd.Uniform(kWriters));
      const uint64_t op = rnd.Uniform(100);
      const std::string where = "reader " + std::to_string(r) + " op " + std::to_string(op);
      if (op < 40) {
        // The counter never vanishes and never goes back.
        std::string value;
        Status s = db_->Get(ReadOptions(), CounterKey(w), &value);
        if (!s.ok()) {
          Fail(where + ": Get " + CounterKey(w) + ": " + s.ToString());
        } else if (value < last_counter[w]) {
          Fail(where + ": " + CounterKey(w) + " went back from " + last_counter[w] + " to " +
               value);
        } else {
          last_counter[w] = value;
        }
        continue;
      }
      if (op < 60) {
        // A pair through Get and MultiGet at one snapshot, read twice around other work.
        const Snapshot* snap = db_->GetSnapshot();
        ReadOptions ro;
        ro.snapshot = snap;
        const int p = static_cast<int>(rnd.Uniform(kPairsPerWriter));
        const std::string a = PairKey(w, p, 'a'), b = PairKey(w, p, 'b');
        std::string va, vb;
        Status sa = db_->Get(ro, a, &va), sb = db_->Get(ro, b, &vb);
        auto describe = [](const Status& s, const std::string& v) {
          return s.ok() ? v.substr(0, 12) : s.ToString();
        };
        if (sa.ok() != sb.ok() || (sa.ok() && va != vb) || (!sa.ok() && !sa.IsNotFound()) ||
            (!sb.ok() && !sb.IsNotFound())) {
          Fail(where + ": pair " + a + " = " + describe(sa, va) + ", " + b + " = " +
               describe(sb, vb));
        }
        const Model before = Scan(snap, true, WriterPrefix(w), WriterPrefix(w) + "\xff", where);
        std::this_thread::yield();
        std::vector<std::string> values;
        std::vector<Status> st = db_->MultiGet(ro, {a, b, CounterKey(w)}, &values);
        if (st[0].ok() != sa.ok() || st[1].ok() != sb.ok() || (sa.ok() && values[0] != va) ||
            (sb.ok() && values[1] != vb)) {
          Fail(where + ": MultiGet at a snapshot disagrees with Get at the same snapshot");
        }
        const Model after = Scan(snap, false, WriterPrefix(w), WriterPrefix(w) + "\xff", where);
        if (before != after) Fail(where + ": a snapshot's scan changed while it was held");
        auto in_scan = before.find(a);
        if ((in_scan != before.end()) != sa.ok() || (sa.ok() && in_scan->second != va)) {
          Fail(where + ": scan and Get disagree on " + a + " at one snapshot");
        }
        if (!st[2].ok() || before.count(CounterKey(w)) == 0 ||
            before.at(CounterKey(w)) != values[2]) {
          Fail(where + ": counter at a snapshot: " + st[2].ToString());
        }
        CheckPairs(before, where);
        db_->ReleaseSnapshot(snap);
        continue;
      }
      if (op < 80) {
        // A whole scan at the iterator's own implicit snapshot.
        CheckPairs(Scan(nullptr, rnd.OneIn(2), "", "", where), where);
        continue;
      }
      // Seeks: SeekForPrev/Prev and Seek/Next around a random pair.
      std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
      const std::string target = PairKey(w, static_cast<int>(rnd.Uniform(kPairsPerWriter)), 'a');
      it->Seek(target);
      if (it->Valid() && it->key() < target) Fail(where + ": Seek landed before its target");
      std::string prev;
      for (int i = 0; i < 5 && it->Valid(); i++, it->Next()) {
        if (!prev.empty() && !(prev < it->key())) Fail(where + ": Next out of order");
        prev = std::string(it->key());
      }
      it->SeekForPrev(target);
      if (it->Valid() && it->key() > target) Fail(where + ": SeekForPrev landed after its target");
      prev.clear();
      for (int i = 0; i < 5 && it->Valid(); i++, it->Prev()) {
        if (!prev.empty() && !(it->key() < prev)) Fail(where + ": Prev out of order");
        prev = std::string(it->key());
      }
      if (!it->status().ok()) Fail(where + ": " + it->status().ToString());
    }
  }

  // The DB must hold exactly the union of the writers' models.
  void VerifyFinalState(const std::string& when) {
    Model expected;
    for (const Model& m : models_) expected.insert(m.begin(), m.end());
    const Model forward = Scan(nullptr, true, "", "", when);
    const Model backward = Scan(nullptr, false, "", "", when);
    EXPECT_EQ(forward.size(), expected.size()) << when;
    EXPECT_TRUE(forward == expected) << when << ": the forward scan differs from the model";
    EXPECT_TRUE(backward == expected) << when << ": the backward scan differs from the model";
    for (int w = 0; w < kWriters; w++) {
      for (int p = 0; p < kPairsPerWriter; p++) {
        for (const std::string& key : {PairKey(w, p, 'a'), PairKey(w, p, 'b')}) {
          std::string value;
          Status s = db_->Get(ReadOptions(), key, &value);
          auto it = expected.find(key);
          if (it == expected.end()) {
            EXPECT_TRUE(s.IsNotFound()) << when << ": " << key << ": " << s.ToString();
          } else {
            EXPECT_TRUE(s.ok() && value == it->second) << when << ": " << key << ": "
                                                        << s.ToString();
          }
        }
      }
    }
  }

  Options options_;
  std::unique_ptr<DB> db_;
  Model models_[kWriters];
  std::atomic<int> failures_{0};
  std::atomic<bool> writers_done_{false};
  std::atomic<uint64_t> writes_{0};
};

TEST_F(DBConcurrencyTest, WritersAndReadersAgreeWithTheModel) {
  ASSERT_OK(DB::Open(options_, "/concurrentdb", &db_));
  for (int w = 0; w < kWriters; w++) {
    ASSERT_OK(db_->Put(WriteOptions(), CounterKey(w), CounterValue(0)));
    models_[w][CounterKey(w)] = CounterValue(0);
  }
  std::vector<std::thread> writers, readers;
  for (int r = 0; r < kReaders; r++) readers.emplace_back([this, r] { Reader(r); });
  for (int w = 0; w < kWriters; w++) writers.emplace_back([this, w] { Writer(w); });
  // Meanwhile: explicit flushes, and properties read while everything changes.
  std::thread flusher([this] {
    Random rnd(3);
    while (!writers_done_.load() && !Failing()) {
      FlushOptions fo;
      fo.wait = rnd.OneIn(2);
      Status s = db_->Flush(fo);
      if (!s.ok()) Fail("Flush: " + s.ToString());
      std::string stats;
      if (!db_->GetProperty(DB::Properties::kStats, &stats)) Fail("no shale.stats");
      uint64_t n;
      if (!db_->GetIntProperty(DB::Properties::kCurSizeAllMemTables, &n)) Fail("no mem size");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (std::thread& t : writers) t.join();
  writers_done_ = true;
  for (std::thread& t : readers) t.join();
  flusher.join();
  EXPECT_GT(writes_.load(), 1000u) << "the writers hardly ran";
  // Compaction may merge the flushed files: count the flushes themselves.
  std::string stats;
  ASSERT_TRUE(db_->GetProperty(DB::Properties::kStats, &stats));
  const size_t at = stats.find("Flushes: ");
  ASSERT_NE(at, std::string::npos) << stats;
  EXPECT_GT(std::stoull(stats.substr(at + 9)), 1u) << "no flush happened under the readers";

  ASSERT_NO_FATAL_FAILURE(VerifyFinalState("after the threads"));
  ASSERT_OK(db_->Close());
  db_.reset();
  ASSERT_OK(DB::Open(options_, "/concurrentdb", &db_));
  ASSERT_NO_FATAL_FAILURE(VerifyFinalState("after a reopen"));
  ASSERT_OK(db_->Close());
}

// Many threads writing the same keys: the group commit applies the batches in some serial
// order, each atomically. Each thread writes batches that set all of kKeys keys to one value;
// at the end (and at every snapshot read meanwhile) all the keys hold the same value.
TEST_F(DBConcurrencyTest, ConcurrentBatchesOnTheSameKeysAreAtomic) {
  ASSERT_OK(DB::Open(options_, "/samekeys", &db_));
  constexpr int kKeys = 8;
  constexpr int kThreads = 6;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([this, t] {
      Random rnd(t);
      for (int i = 0; i < 600 && !Failing(); i++) {
        WriteBatch batch;
        std::string value = std::to_string(t) + "-" + std::to_string(i);
        value.append(rnd.Uniform(300), 'x');
        for (int k = 0; k < kKeys; k++) EXPECT_OK(batch.Put("key" + std::to_string(k), value));
        WriteOptions wo;
        wo.sync = rnd.OneIn(20);
        Status s = db_->Write(wo, &batch);
        if (!s.ok()) Fail("Write: " + s.ToString());
        if (i % 10 == 0) {
          // Every key at one snapshot holds the same batch's value.
          const Snapshot* snap = db_->GetSnapshot();
          ReadOptions ro;
          ro.snapshot = snap;
          std::string first, value_k;
          for (int k = 0; k < kKeys; k++) {
            s = db_->Get(ro, "key" + std::to_string(k), &value_k);
            if (!s.ok()) Fail("Get: " + s.ToString());
            if (k == 0) first = value_k;
            if (value_k != first) Fail("a batch was seen in part at a snapshot");
          }
          db_->ReleaseSnapshot(snap);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  std::string first;
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    if (n == 0) first = std::string(it->value());
    EXPECT_EQ(it->value(), first) << it->key();
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, kKeys);
  it.reset();
  ASSERT_OK(db_->Close());
}


// One key overwritten as fast as possible, with tiny memtables so that flushes run all the
// time, and many more readers than cores: a reader preempted in the middle of a Get must
// still see a value at least as new as the one it saw before (flushes drop the versions that
// no snapshot needs; a read must never depend on one of them).
TEST_F(DBConcurrencyTest, ReadsNeverGoBackInTime) {
  ASSERT_OK(DB::Open(options_, "/hotkey", &db_));
  ASSERT_OK(db_->Put(WriteOptions(), "hot", CounterValue(0)));
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 12; r++) {
    readers.emplace_back([this, r, &done] {
      std::string last = CounterValue(0);
      uint64_t n = 0;
      while (!done.load(std::memory_order_relaxed) && !Failing()) {
        std::string value;
        Status s;
        if (r % 3 == 2) {
          std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
          it->Seek("hot");
          if (!it->Valid() || it->key() != "hot") {
            Fail("iterator lost the hot key: " + it->status().ToString());
            continue;
          }
          value = std::string(it->value());
        } else {
          s = db_->Get(ReadOptions(), "hot", &value);
          if (!s.ok()) {
            Fail("Get hot: " + s.ToString());
            continue;
          }
        }
        value.resize(12);
        if (value < last) Fail("reader " + std::to_string(r) + " went back from " + last +
                               " to " + value + " after " + std::to_string(n) + " reads");
        last = value;
        n++;
      }
    });
  }
  std::string padding(3000, 'p');
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  for (uint64_t i = 1; std::chrono::steady_clock::now() < deadline && !Failing(); i++) {
    ASSERT_OK(db_->Put(WriteOptions(), "hot", CounterValue(i) + padding));
  }
  done = true;
  for (std::thread& t : readers) t.join();
  ASSERT_OK(db_->Close());
}

}  // namespace
}  // namespace shale
