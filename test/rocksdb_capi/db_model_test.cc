// A model-based randomized test of the db group's functions of RocksDB's C API (issue 24):
// random puts, deletes, range deletes and batches over two column families, with flushes,
// compactions and reopens in between, checked against a std::map per family after every step
// (gets, multi-gets and full iterator scans). Deterministic (fixed seeds).
// SHALE_STRESS=1 runs ten times as many operations.
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

using Model = std::map<std::string, std::string>;

class CApiModel {
 public:
  explicit CApiModel(const std::string& path) : path_(path) {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    rocksdb_options_set_create_missing_column_families(options_, 1);
    rocksdb_options_set_write_buffer_size(options_, 64 << 10);
    ro_ = rocksdb_readoptions_create();
    wo_ = rocksdb_writeoptions_create();
    Open();
  }
  ~CApiModel() {
    Close();
    rocksdb_writeoptions_destroy(wo_);
    rocksdb_readoptions_destroy(ro_);
    rocksdb_options_destroy(options_);
  }

  void Open() {
    const char* names[] = {"default", "cf1"};
    const rocksdb_options_t* cf_options[] = {options_, options_};
    char* err = nullptr;
    db_ = rocksdb_open_column_families(options_, path_.c_str(), 2, names, cf_options, cf_, &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }
  void Close() {
    for (auto*& h : cf_) {
      rocksdb_column_family_handle_destroy(h);
      h = nullptr;
    }
    rocksdb_close(db_);
    db_ = nullptr;
  }

  // One random step on family `f`.
  void Step(std::mt19937& rng) {
    const int f = rng() % 2;
    auto key = [&] {
      char buf[8];
      snprintf(buf, sizeof(buf), "k%03u", static_cast<unsigned>(rng() % 60));
      return std::string(buf);
    };
    char* err = nullptr;
    const unsigned op = rng() % 100;
    if (op < 45) {
      const std::string k = key();
      std::string v = "v";  // (not "v" + ...: GCC 12 warns falsely, -Wrestrict)
      v += std::to_string(rng() % 100000);
      rocksdb_put_cf(db_, wo_, cf_[f], k.data(), k.size(), v.data(), v.size(), &err);
      model_[f][k] = v;
    } else if (op < 60) {
      const std::string k = key();
      rocksdb_delete_cf(db_, wo_, cf_[f], k.data(), k.size(), &err);
      model_[f].erase(k);
    } else if (op < 65) {
      std::string a = key(), b = key();
      if (b < a) std::swap(a, b);
      rocksdb_delete_range_cf(db_, wo_, cf_[f], a.data(), a.size(), b.data(), b.size(), &err);
      model_[f].erase(model_[f].lower_bound(a), model_[f].lower_bound(b));
    } else if (op < 80) {
      rocksdb_writebatch_t* batch = rocksdb_writebatch_create();
      for (int i = 0; i < 5; i++) {
        const int g = rng() % 2;
        const std::string k = key();
        std::string v = "b";
        v += std::to_string(rng() % 100000);
        rocksdb_writebatch_put_cf(batch, cf_[g], k.data(), k.size(), v.data(), v.size());
        model_[g][k] = v;
      }
      rocksdb_write(db_, wo_, batch, &err);
      rocksdb_writebatch_destroy(batch);
    } else if (op < 88) {
      Check(rng);
    } else if (op < 93) {
      rocksdb_flushoptions_t* fo = rocksdb_flushoptions_create();
      rocksdb_flush_cf(db_, fo, cf_[f], &err);
      rocksdb_flushoptions_destroy(fo);
    } else if (op < 96) {
      rocksdb_compact_range_cf(db_, cf_[f], nullptr, 0, nullptr, 0);
    } else {
      Close();
      Open();
    }
    ASSERT_EQ(TakeError(&err), std::nullopt);
  }

  // Every family's contents against the model: a full scan, a bounded scan, gets, multi_get.
  void Check(std::mt19937& rng) {
    for (int f = 0; f < 2; f++) {
      rocksdb_iterator_t* it = rocksdb_create_iterator_cf(db_, ro_, cf_[f]);
      Model seen;
      for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
        size_t kl, vl;
        const char* k = rocksdb_iter_key(it, &kl);
        const char* v = rocksdb_iter_value(it, &vl);
        seen[std::string(k, kl)] = std::string(v, vl);
      }
      rocksdb_iter_destroy(it);
      ASSERT_EQ(seen, model_[f]) << "family " << f;

      std::vector<std::string> keys;
      for (int i = 0; i < 8; i++) {
        keys.push_back(std::string("k0").append(std::to_string(10 + rng() % 50)));
      }
      std::vector<const char*> ptrs;
      std::vector<size_t> sizes;
      std::vector<const rocksdb_column_family_handle_t*> cfs;
      for (const std::string& k : keys) {
        ptrs.push_back(k.data());
        sizes.push_back(k.size());
        cfs.push_back(cf_[f]);
      }
      std::vector<char*> values(keys.size()), errs(keys.size());
      std::vector<size_t> value_sizes(keys.size());
      rocksdb_multi_get_cf(db_, ro_, cfs.data(), keys.size(), ptrs.data(), sizes.data(),
                           values.data(), value_sizes.data(), errs.data());
      for (size_t i = 0; i < keys.size(); i++) {
        ASSERT_EQ(errs[i], nullptr);
        auto m = model_[f].find(keys[i]);
        if (m == model_[f].end()) {
          EXPECT_EQ(values[i], nullptr) << keys[i];
        } else {
          ASSERT_NE(values[i], nullptr) << keys[i];
          EXPECT_EQ(std::string(values[i], value_sizes[i]), m->second);
        }
        rocksdb_free(values[i]);
        const std::optional<std::string> got = Get(db_, cf_[f], keys[i]);
        EXPECT_EQ(got, m == model_[f].end() ? std::nullopt
                                            : std::optional<std::string>(m->second));
      }
    }
  }

 private:
  std::string path_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_readoptions_t* ro_ = nullptr;
  rocksdb_writeoptions_t* wo_ = nullptr;
  rocksdb_t* db_ = nullptr;
  rocksdb_column_family_handle_t* cf_[2] = {nullptr, nullptr};
  Model model_[2];
};

TEST(RocksDbCApiDbModelTest, RandomOperationsAcrossReopensMatchAMap) {
  const bool stress = std::getenv("SHALE_STRESS") != nullptr;
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    TempDir dir;
    std::mt19937 rng(seed);
    CApiModel model(dir.Sub("db"));
    const int steps = stress ? 20000 : 2000;
    for (int i = 0; i < steps; i++) {
      ASSERT_NO_FATAL_FAILURE(model.Step(rng));
    }
    ASSERT_NO_FATAL_FAILURE(model.Check(rng));
  }
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
