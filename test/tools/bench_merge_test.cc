// shale_bench's merge benchmarks: the --merge_operator names (db_bench's and ShaleDB's), the
// put operator, mergerandom and readrandommergerandom on an in-memory DB (checked against the
// operands they generated), the Zipf generator and size buckets of the posting-list workload,
// and tiny postinglist / postinglist_rmw runs end to end (the lists they leave are checked id
// by id, and the two benchmarks must leave the same lists for the same --seed).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "benchmark.h"
#include "benchmark_list.h"
#include "flags.h"
#include "generators.h"
#include "gtest/gtest.h"
#include "merge_operator_flag.h"
#include "options_from_flags.h"
#include "posting_list.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/sorted_set64.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "workloads.h"

namespace shale::bench {
namespace {

// ------------------------------------------------------------------ --merge_operator

TEST(MergeOperatorFlagTest, DbBenchAndShaleDbNamesMapToOperators) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"uint64add", "uint64add"},   {"UInt64AddOperator", "uint64add"},
      {"max", "max"},               {"MaxOperator", "max"},
      {"stringappend", "stringappend"}, {"StringAppendOperator", "stringappend"},
      {"stringappend:|", "stringappend:|"}, {"put", "put"},
      {"put_v1", "put"},            {"PutOperator", "put"},
      {"sortedset64", "sortedset64"}, {"sortedset64:64", "sortedset64:64"}};
  for (const auto& [flag, id] : cases) {
    std::shared_ptr<MergeOperator> op;
    ASSERT_OK(MergeOperatorFromFlag(flag, &op));
    ASSERT_NE(op, nullptr) << flag;
    EXPECT_EQ(op->GetId(), id) << flag;
  }
  std::shared_ptr<MergeOperator> op = NewPutOperator();
  ASSERT_OK(MergeOperatorFromFlag("", &op));
  EXPECT_EQ(op, nullptr);
}

TEST(MergeOperatorFlagTest, UnknownAndRocksDbOnlyNamesAreRejectedByFlag) {
  std::shared_ptr<MergeOperator> op;
  Status s = MergeOperatorFromFlag("bytesxor", &op);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--merge_operator: not supported yet"), std::string::npos)
      << s.ToString();
  s = MergeOperatorFromFlag("nosuch", &op);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("--merge_operator"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("nosuch"), std::string::npos) << s.ToString();
  s = MergeOperatorFromFlag("sortedset64:3", &op);  // below the smallest index_interval
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

class MergeFlagsTest : public testing::Test {
 private:
  absl::FlagSaver saver_;
};

TEST_F(MergeFlagsTest, FlagsReachTheOptions) {
  absl::SetFlag(&FLAGS_merge_operator, "UInt64AddOperator");
  absl::SetFlag(&FLAGS_max_successive_merges, 40);
  ASSERT_OK(CheckFlags());
  Options o;
  ASSERT_OK(OptionsFromFlags(&o));
  ASSERT_NE(o.merge_operator, nullptr);
  EXPECT_EQ(o.merge_operator->GetId(), "uint64add");
  EXPECT_EQ(o.max_successive_merges, 40u);
  absl::SetFlag(&FLAGS_merge_operator, "nosuch");
  EXPECT_NE(CheckFlags().ToString().find("--merge_operator"), std::string::npos);
  absl::SetFlag(&FLAGS_merge_operator, "");
  for (int32_t bad : {-1, 101}) {
    absl::SetFlag(&FLAGS_mergereadpercent, bad);
    EXPECT_NE(CheckFlags().ToString().find("--mergereadpercent"), std::string::npos) << bad;
  }
  absl::SetFlag(&FLAGS_mergereadpercent, 70);
  absl::SetFlag(&FLAGS_posting_ids, "shuffled");
  EXPECT_NE(CheckFlags().ToString().find("--posting_ids"), std::string::npos);
  absl::SetFlag(&FLAGS_posting_ids, "random");
  absl::SetFlag(&FLAGS_posting_lists, 0);
  EXPECT_NE(CheckFlags().ToString().find("--posting_lists"), std::string::npos);
  absl::SetFlag(&FLAGS_posting_lists, 10);
  absl::SetFlag(&FLAGS_zipf_theta, -0.5);
  EXPECT_NE(CheckFlags().ToString().find("--zipf_theta"), std::string::npos);
  absl::SetFlag(&FLAGS_zipf_theta, 0.5);
  EXPECT_OK(CheckFlags());
}

TEST(BenchmarkListMergeTest, MergeBenchmarksExist) {
  for (const char* name :
       {"mergerandom", "readrandommergerandom", "postinglist", "postinglist_rmw"}) {
    const BenchmarkSpec* spec = FindBenchmark(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_NE(spec->workload, nullptr) << name;
  }
  std::vector<std::string> names;
  EXPECT_OK(ParseBenchmarkList("mergerandom,readrandommergerandom,postinglist", &names));
}

// ------------------------------------------------------------------ Workloads on a memory DB

class MergeWorkloadTest : public testing::Test {
 protected:
  void Open(std::shared_ptr<MergeOperator> op) {
    options_.file_system = NewMemFileSystem();
    options_.create_if_missing = true;
    options_.merge_operator = std::move(op);
    options_.write_buffer_size = 64 << 10;  // a few flushes: merges meet SST values too
    ASSERT_OK(DB::Open(options_, "/db", &db_));
  }
  void TearDown() override {
    if (db_ != nullptr) EXPECT_OK(db_->Close());
  }
  WorkloadEnv Env(int64_t ops, int64_t merge_keys, int value_size) {
    WorkloadEnv env;
    env.db = db_.get();
    env.num = 1 << 20;
    env.reads = ops;
    env.merge_keys = merge_keys;
    env.value_shape.fixed_size = value_size;
    return env;
  }
  // Runs `fn` on one thread; returns its stats' message.
  std::string RunOne(WorkloadFn fn, const WorkloadEnv& env, uint64_t* done) {
    SharedState shared(1);
    ThreadState thread(0, 42, StatsConfig{}, &shared);
    thread.stats.Start();
    fn(env, &thread);
    thread.stats.Stop();
    EXPECT_FALSE(shared.failed()) << shared.error().ToString();
    *done = thread.stats.done();
    return thread.stats.message();
  }
  // Every key and value of the DB.
  std::map<std::string, std::string> Contents() {
    std::map<std::string, std::string> out;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out[std::string(it->key())] = std::string(it->value());
    }
    EXPECT_OK(it->status());
    return out;
  }
  // The sum (mod 2^64) of the first `n` operands a ValueGenerator of 8-byte values makes: the
  // workloads' operands, whatever the seed (the seed only moves sizes, and these are fixed).
  static uint64_t OperandSum(uint64_t n) {
    ValueShape shape;
    shape.fixed_size = 8;
    ValueGenerator gen(shape, 1);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) sum += DecodeFixed64(gen.Next().data());
    return sum;
  }

  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(MergeWorkloadTest, MergeRandomAddsEveryOperandToKeysBelowMergeKeys) {
  Open(NewUInt64AddOperator());
  constexpr int64_t kOps = 20000;
  constexpr int64_t kKeys = 50;
  uint64_t done = 0;
  EXPECT_EQ(RunOne(MergeRandom, Env(kOps, kKeys, 8), &done), "( updates:20000)");
  EXPECT_EQ(done, static_cast<uint64_t>(kOps));
  const auto check = [&](const char* when) {
    uint64_t sum = 0;
    KeyFormatter keys(16);
    const std::map<std::string, std::string> contents = Contents();
    EXPECT_GT(contents.size(), static_cast<size_t>(kKeys / 2)) << when;
    for (const auto& [key, value] : contents) {
      EXPECT_LT(key, std::string(keys.Format(kKeys))) << when;
      ASSERT_EQ(value.size(), 8u) << when;
      sum += DecodeFixed64(value.data());
    }
    EXPECT_EQ(sum, OperandSum(kOps)) << when;
  };
  check("in memtables and tables");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  check("after a full compaction");
}

TEST_F(MergeWorkloadTest, ReadRandomMergeRandomCountsLikeDbBench) {
  Open(NewUInt64AddOperator());
  constexpr int64_t kOps = 4000;
  WorkloadEnv env = Env(kOps, 20, 8);
  env.mergereadpercent = 70;
  uint64_t done = 0;
  const std::string msg = RunOne(ReadRandomMergeRandom, env, &done);
  EXPECT_EQ(done, static_cast<uint64_t>(kOps));
  long long reads = -1, merges = -1, total = -1, hits = -1;
  size_t max_length = 0;
  ASSERT_EQ(std::sscanf(msg.c_str(), "(reads:%lld merges:%lld total:%lld hits:%lld maxlength:%zu)",
                        &reads, &merges, &total, &hits, &max_length),
            5)
      << msg;
  EXPECT_EQ(reads + merges, kOps);
  EXPECT_EQ(total, kOps);
  EXPECT_NEAR(static_cast<double>(merges) / kOps, 0.70, 0.05) << msg;
  EXPECT_LE(hits, reads);
  EXPECT_GT(hits, reads / 2) << msg;  // 20 keys, merged into from the start
  EXPECT_EQ(max_length, 8u);
  uint64_t sum = 0;
  for (const auto& [key, value] : Contents()) sum += DecodeFixed64(value.data());
  EXPECT_EQ(sum, OperandSum(static_cast<uint64_t>(merges)));
  // No merges at all: nothing is ever found.
  env.mergereadpercent = 0;
  env.merge_keys = 1 << 20;  // keys not merged into above (with overwhelming probability)
  EXPECT_NE(RunOne(ReadRandomMergeRandom, env, &done).find(" merges:0 "), std::string::npos);
}

TEST_F(MergeWorkloadTest, PutOperatorKeepsTheNewestOperand) {
  Open(NewPutOperator());
  ASSERT_OK(db_->Put(WriteOptions(), "k", "base"));
  ASSERT_OK(db_->Merge(WriteOptions(), "k", "one"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->Merge(WriteOptions(), "k", "two"));
  ASSERT_OK(db_->Merge(WriteOptions(), "k", "three"));
  ASSERT_OK(db_->Merge(WriteOptions(), "fresh", "only"));
  std::string v;
  ASSERT_OK(db_->Get(ReadOptions(), "k", &v));
  EXPECT_EQ(v, "three");
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(db_->Get(ReadOptions(), "k", &v));
  EXPECT_EQ(v, "three");
  ASSERT_OK(db_->Get(ReadOptions(), "fresh", &v));
  EXPECT_EQ(v, "only");
}

// ------------------------------------------------------------------ Zipf and size buckets

TEST(ZipfGeneratorTest, ProbabilitiesFollowThePowerLaw) {
  ZipfGenerator zipf(1000, 0.99);
  double total = 0;
  for (uint64_t k = 0; k < 1000; k++) total += zipf.Probability(k);
  EXPECT_NEAR(total, 1.0, 1e-9);
  EXPECT_NEAR(zipf.Probability(0) / zipf.Probability(1), std::pow(2.0, 0.99), 1e-9);
  EXPECT_NEAR(zipf.Probability(9) / zipf.Probability(99), std::pow(10.0, 0.99), 1e-6);
  Random rand(5);
  constexpr int kDraws = 200000;
  std::vector<int> seen(1000);
  for (int i = 0; i < kDraws; i++) {
    const uint64_t k = zipf.Next(&rand);
    ASSERT_LT(k, 1000u);
    seen[k]++;
  }
  for (uint64_t k : {0, 1, 10}) {
    const double expected = zipf.Probability(k) * kDraws;
    EXPECT_NEAR(seen[k], expected, 5 * std::sqrt(expected)) << k;
  }
  ZipfGenerator uniform(4, 0.0);
  for (uint64_t k = 0; k < 4; k++) EXPECT_NEAR(uniform.Probability(k), 0.25, 1e-12);
  ZipfGenerator one(1, 0.99);
  EXPECT_EQ(one.Next(&rand), 0u);
}

std::vector<std::string> Labels(uint64_t target) {
  std::vector<std::string> out;
  for (const SizeBucket& b : SizeBuckets(target)) out.push_back(b.label);
  return out;
}

TEST(SizeBucketsTest, DecadesUpToTheTarget) {
  EXPECT_EQ(Labels(1000000),
            (std::vector<std::string>{"<1k", "1k-10k", "10k-100k", "100k-1M", ">=1M"}));
  EXPECT_EQ(Labels(20000), (std::vector<std::string>{"<1k", "1k-10k", "10k-20k", ">=20k"}));
  EXPECT_EQ(Labels(1000), (std::vector<std::string>{"<1k", ">=1k"}));
  EXPECT_EQ(Labels(500), (std::vector<std::string>{"<500", ">=500"}));
  const std::vector<SizeBucket> b = SizeBuckets(20000);
  EXPECT_EQ(b[2].min_ids, 10000u);
  EXPECT_EQ(b[2].max_ids, 20000u);
  EXPECT_EQ(b[3].min_ids, 20000u);
}

TEST(PostingListRunTest, IdsAreDistinctAndSequentialOnesIncrease) {
  PostingListConfig c;
  c.writers = 3;
  PostingListRun seq(c);
  c.random_ids = true;
  PostingListRun random(c);
  std::set<uint64_t> seen_seq, seen_random;
  for (int w = 0; w < 3; w++) {
    for (uint64_t i = 0; i < 1000; i++) {
      EXPECT_TRUE(seen_seq.insert(seq.IdOf(w, i)).second);
      EXPECT_TRUE(seen_random.insert(random.IdOf(w, i)).second);
      if (i > 0) {
        EXPECT_GT(seq.IdOf(w, i), seq.IdOf(w, i - 1));
      }
    }
  }
  EXPECT_EQ(*seen_seq.rbegin(), 2999u);
  EXPECT_GT(*seen_random.rbegin(), uint64_t{1} << 60);  // spread over the 64-bit space
}

// ------------------------------------------------------------------ postinglist end to end

class PostingListBenchTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = "/tmp/shale_bench_merge_test_" + std::to_string(getpid());
    absl::SetFlag(&FLAGS_posting_lists, 40);
    absl::SetFlag(&FLAGS_posting_target_ids, 3000);
    absl::SetFlag(&FLAGS_seed, 11);
    absl::SetFlag(&FLAGS_merge_operator, "sortedset64:16");
    absl::SetFlag(&FLAGS_write_buffer_size, 256 << 10);  // flushes and compactions happen
  }
  void TearDown() override {
    for (const std::string& db : dbs_) EXPECT_OK(DestroyDB(db, Options()));
    std::remove((dir_ + ".json").c_str());
  }
  // Runs `name` into its own DB; returns that DB's path and the JSON report's text.
  std::string Run(const std::string& name, std::string* json) {
    const std::string db = dir_ + "_" + name;
    dbs_.push_back(db);
    absl::SetFlag(&FLAGS_db, db);
    absl::SetFlag(&FLAGS_json, dir_ + ".json");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int code = Benchmark().Run({name});
    const std::string out = testing::internal::GetCapturedStdout();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 0) << out << err;
    EXPECT_TRUE(std::regex_search(out, std::regex("\n" + name + " +: hottest list: key 0, ")))
        << out;
    EXPECT_NE(out.find("Get of the hottest list while the writers go on"), std::string::npos);
    std::ifstream f(dir_ + ".json");
    std::stringstream text;
    text << f.rdbuf();
    *json = text.str();
    return db;
  }
  // Every list of a DB (key -> ids), read with the sortedset64 operator.
  std::map<std::string, std::vector<uint64_t>> Lists(const std::string& path) {
    Options o;
    o.merge_operator = NewSortedSet64Operator(16);
    std::unique_ptr<DB> db;
    EXPECT_OK(DB::Open(o, path, &db));
    std::map<std::string, std::vector<uint64_t>> out;
    if (db == nullptr) return out;
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::vector<uint64_t> ids;
      EXPECT_OK(SortedSet64Decode(it->value(), &ids));
      out[std::string(it->key())] = std::move(ids);
    }
    EXPECT_OK(it->status());
    EXPECT_OK(db->Close());
    return out;
  }

  absl::FlagSaver saver_;
  std::string dir_;
  std::vector<std::string> dbs_;
};

// Without Gets to wait for, one writer stops exactly when the hottest list reaches its target:
// the merge and read-modify-write runs must leave the very same lists.
TEST_F(PostingListBenchTest, MergeAndReadModifyWriteLeaveTheSameLists) {
  absl::SetFlag(&FLAGS_posting_target_gets, 0);
  std::string json;
  const auto by_merge = Lists(Run("postinglist", &json));
  EXPECT_NE(json.find("\"hottest_ids\": 3000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bucket\": \">=3k\""), std::string::npos) << json;
  const auto by_rmw = Lists(Run("postinglist_rmw", &json));
  EXPECT_NE(json.find("\"name\": \"postinglist_rmw\""), std::string::npos) << json;
  EXPECT_EQ(by_merge, by_rmw);
  KeyFormatter keys(16);
  ASSERT_EQ(by_merge.count(std::string(keys.Format(0))), 1u);
  EXPECT_EQ(by_merge.at(std::string(keys.Format(0))).size(), 3000u);
  std::set<uint64_t> all;
  size_t total = 0;
  for (const auto& [key, ids] : by_merge) {
    EXPECT_LE(ids.size(), 3000u);
    EXPECT_LT(key, std::string(keys.Format(40)));
    total += ids.size();
    all.insert(ids.begin(), ids.end());
  }
  // One writer, sequential ids: the ids 0 .. adds - 1, each in one list.
  EXPECT_EQ(all.size(), total);
  EXPECT_EQ(*all.rbegin(), total - 1);
}

// Two writers and the reader, random ids, the run held until the reader timed Gets at the
// target: every id is in exactly one list and the report holds them all.
TEST_F(PostingListBenchTest, ConcurrentWritersAndReaderAtTheTarget) {
  absl::SetFlag(&FLAGS_threads, 2);
  absl::SetFlag(&FLAGS_posting_ids, "random");
  absl::SetFlag(&FLAGS_posting_target_gets, 20);
  absl::SetFlag(&FLAGS_posting_target_ids, 2000);
  absl::SetFlag(&FLAGS_write_buffer_size, 1 << 20);  // big random-id values: fewer flushes
  for (const std::string name : {"postinglist", "postinglist_rmw"}) {
    std::string json;
    const auto lists = Lists(Run(name, &json));
    KeyFormatter keys(16);
    size_t total = 0;
    std::set<uint64_t> all;
    for (const auto& [key, ids] : lists) {
      total += ids.size();
      all.insert(ids.begin(), ids.end());
    }
    EXPECT_EQ(all.size(), total) << name;
    EXPECT_GE(lists.at(std::string(keys.Format(0))).size(), 2000u) << name;
    EXPECT_NE(json.find("\"adds\": " + std::to_string(total) + ","), std::string::npos)
        << name << json;
    // The top bucket has at least the Gets the run waited for.
    const std::string top_bucket = "\"bucket\": \">=2k\", \"min_ids\": 2000, \"gets\": ";
    const size_t top = json.find(top_bucket);
    ASSERT_NE(top, std::string::npos) << json;
    EXPECT_GE(std::stoll(json.substr(top + top_bucket.size())), 20) << json.substr(top);
  }
}

TEST_F(PostingListBenchTest, PostingListNeedsSortedSet64) {
  absl::SetFlag(&FLAGS_merge_operator, "uint64add");
  absl::SetFlag(&FLAGS_db, dir_ + "_wrong_operator");
  dbs_.push_back(dir_ + "_wrong_operator");
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(Benchmark().Run({"postinglist"}), 1);
  testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("needs --merge_operator=sortedset64"), std::string::npos) << err;
}

}  // namespace
}  // namespace shale::bench
