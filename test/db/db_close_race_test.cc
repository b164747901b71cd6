// Close racing every kind of call (issue 19, finding 9): writers (with and without the WAL),
// Flush, CompactRange, Get, MultiGet and iterators, IngestExternalFile, checkpoints,
// SetOptions, properties and Resume run in threads while Close runs. Each call completes or
// fails cleanly with ShutdownInProgress; Close returns OK; nothing crashes (the test is meant
// for ASan and TSan too: it is in tools/dev.sh's TSAN_TESTS); and after a reopen every
// acknowledged write is there. Iterators made before Close stay usable until destroyed (the
// DB object outlives them here).
//
// Rounds: 25 by default, SHALE_STRESS=1 runs 300.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

constexpr char kDBName[] = "/closedb";

// Collects outcomes that are neither OK nor ShutdownInProgress.
// Thread-safety: thread-safe.
class Failures {
 public:
  void Check(const char* what, const Status& s) {
    std::lock_guard<std::mutex> l(mu_);
    if (s.ok()) {
      ok_[what]++;
    } else if (s.IsShutdownInProgress()) {
      refused_[what]++;
    } else {
      list_.push_back(std::string(what) + ": " + s.ToString());
    }
  }
  // "call ok/refused ..." over all rounds so far.
  std::string Summary() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string out;
    for (const auto& [what, n] : ok_) {
      auto it = refused_.find(what);
      out += what + " " + std::to_string(n) + "/" +
             std::to_string(it == refused_.end() ? 0 : it->second) + "  ";
    }
    return out;
  }
  std::vector<std::string> list() const {
    std::lock_guard<std::mutex> l(mu_);
    return list_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> list_;  // guarded by mu_
  std::map<std::string, uint64_t> ok_, refused_;  // guarded by mu_: outcomes per call
};

TEST(DBCloseRaceTest, CloseRacesEveryCall) {
  const bool stress = std::getenv("SHALE_STRESS") != nullptr;
  const int rounds = stress ? 300 : 25;
  std::shared_ptr<FileSystem> fs = NewMemFileSystem();
  ASSERT_OK(fs->CreateDirIfMissing("/ext"));
  ASSERT_OK(fs->CreateDirIfMissing("/ckpt"));
  // Files to ingest (copied, so each can be ingested many times).
  std::vector<std::string> ext_files;
  for (int f = 0; f < 4; f++) {
    SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs);
    const std::string path = "/ext/f" + std::to_string(f) + ".sst";
    ASSERT_OK(writer.Open(path));
    for (int i = 0; i < 50; i++) {
      char key[32];
      snprintf(key, sizeof(key), "ing%d-%04d", f, i);
      ASSERT_OK(writer.Put(key, "ingested"));
    }
    ASSERT_OK(writer.Finish(nullptr));
    ext_files.push_back(path);
  }

  Options options;
  options.file_system = fs;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;
  options.level0_file_num_compaction_trigger = 2;
  std::mt19937 rng(1234);
  std::atomic<int> checkpoint_number{0};
  // Acknowledged writes of all rounds: key -> value (each key is written once).
  std::map<std::string, std::string> acked;
  std::mutex acked_mu;
  Failures failures;  // over all rounds

  for (int round = 0; round < rounds; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, kDBName, &db));
    std::vector<std::thread> threads;
    // Each loop runs until its call fails (refused once Close began), or a bound is reached.
    auto until_closed = [&](auto body) {
      return [&, body] {
        for (int i = 0; i < 100000; i++) {
          if (!body(i)) break;
        }
      };
    };
    for (int w = 0; w < 2; w++) {
      threads.emplace_back(until_closed([&, w](int i) {
        WriteOptions wo;
        wo.disableWAL = (i % 5 == 4);
        wo.sync = !wo.disableWAL && (i % 7 == 0);
        const std::string key = "r" + std::to_string(round) + "w" + std::to_string(w) + "-" +
                                std::to_string(i);
        const std::string value = "v" + key + std::string(i % 50, 'x');
        Status s = db->Put(wo, key, value);
        failures.Check("Put", s);
        if (s.ok()) {
          std::lock_guard<std::mutex> l(acked_mu);
          acked[key] = value;
        }
        return s.ok();
      }));
    }
    threads.emplace_back(until_closed([&](int i) {
      FlushOptions fo;
      fo.wait = i % 2 == 0;
      fo.allow_write_stall = i % 3 == 0;
      Status s = db->Flush(fo);
      failures.Check("Flush", s);
      return s.ok();
    }));
    threads.emplace_back(until_closed([&](int) {
      Status s = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
      failures.Check("CompactRange", s);
      return s.ok();
    }));
    threads.emplace_back(until_closed([&](int i) {
      std::string value;
      Status s = db->Get(ReadOptions(), "r0w0-" + std::to_string(i % 100), &value);
      if (s.IsNotFound()) s = Status::OK();
      failures.Check("Get", s);
      std::vector<std::string> values;
      for (const Status& m : db->MultiGet(ReadOptions(), {"r0w0-1", "r0w1-2"}, &values)) {
        failures.Check("MultiGet", m.IsNotFound() ? Status::OK() : m);
      }
      std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
      int n = 0;
      for (it->SeekToFirst(); it->Valid() && n < 200; it->Next()) n++;
      failures.Check("Iterator", it->status());
      return s.ok() && it->status().ok();
    }));
    threads.emplace_back(until_closed([&](int i) {
      IngestExternalFileOptions io;
      Status s = db->IngestExternalFile({ext_files[i % ext_files.size()]}, io);
      failures.Check("IngestExternalFile", s);
      return s.ok();
    }));
    threads.emplace_back(until_closed([&](int i) {
      std::unique_ptr<Checkpoint> checkpoint;
      Status s = Checkpoint::Create(db.get(), &checkpoint);
      if (s.ok()) {
        const std::string dir = "/ckpt/c" + std::to_string(checkpoint_number++);
        s = checkpoint->CreateCheckpoint(dir, i % 2 == 0 ? 0 : (1 << 30));
      }
      failures.Check("CreateCheckpoint", s);
      return s.ok();
    }));
    threads.emplace_back(until_closed([&](int i) {
      Status s = db->SetOptions({{"write_buffer_size", i % 2 == 0 ? "65536" : "131072"}});
      failures.Check("SetOptions", s);
      std::string value;
      db->GetProperty("shale.stats", &value);
      uint64_t n;
      db->GetIntProperty("shale.cur-size-all-mem-tables", &n);
      Status r = db->Resume();
      failures.Check("Resume", r);
      return s.ok() && r.ok();
    }));

    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
    Status close_status = db->Close();
    for (std::thread& t : threads) t.join();
    ASSERT_OK(close_status);
    // After Close every call is refused cleanly.
    EXPECT_TRUE(db->Put(WriteOptions(), "late", "x").IsShutdownInProgress());
    EXPECT_TRUE(db->Flush(FlushOptions()).IsShutdownInProgress());
    std::string value;
    EXPECT_TRUE(db->Get(ReadOptions(), "late", &value).IsShutdownInProgress());
    EXPECT_TRUE(db->NewIterator(ReadOptions())->status().IsShutdownInProgress());
    EXPECT_OK(db->Close());
    for (const std::string& f : failures.list()) ADD_FAILURE() << f;
    db.reset();
    if (HasFailure()) break;
  }
  // How many calls completed / were refused, per kind (both should be common).
  std::printf("calls ok/refused: %s\n", failures.Summary().c_str());

  // Every acknowledged write survived the Closes.
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));
  size_t missing = 0;
  for (const auto& [key, value] : acked) {
    std::string got;
    Status s = db->Get(ReadOptions(), key, &got);
    if (!s.ok() || got != value) {
      if (missing++ < 5) ADD_FAILURE() << key << ": " << s.ToString();
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << acked.size() << " acknowledged writes";
}

// Two Close calls at once: both return OK once the DB is closed.
TEST(DBCloseRaceTest, ConcurrentCloses) {
  Options options;
  options.file_system = NewMemFileSystem();
  options.create_if_missing = true;
  for (int round = 0; round < 20; round++) {
    std::unique_ptr<DB> db;
    ASSERT_OK(DB::Open(options, kDBName, &db));
    WriteOptions no_wal;
    no_wal.disableWAL = true;
    ASSERT_OK(db->Put(no_wal, "k" + std::to_string(round), "v"));
    Status a, b;
    std::thread t1([&] { a = db->Close(); });
    std::thread t2([&] { b = db->Close(); });
    t1.join();
    t2.join();
    EXPECT_OK(a);
    EXPECT_OK(b);
  }
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(options, kDBName, &db));
  for (int round = 0; round < 20; round++) {
    std::string value;
    EXPECT_OK(db->Get(ReadOptions(), "k" + std::to_string(round), &value));
  }
}

}  // namespace
}  // namespace shale
