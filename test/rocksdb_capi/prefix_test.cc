// RocksDB's C API (issue 24): prefix extractors. A DB opens with one (the options own it, as
// RocksDB documents), reads are unaffected, and iterators made with prefix_same_as_start (and
// without total_order_seek) stop at the end of the seek target's prefix in both directions, as
// RocksDB 7.8's do (src/rocksdb_capi/prefix_iterator.h). Compiled against Debian's rocksdb/c.h;
// links lib/shale-rocksdb/librocksdb.so.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "rocksdb/c.h"
#include "rocksdb_capi/db_test_util.h"

namespace shale::rocksdb_capi_test {
namespace {

void Put(rocksdb_t* db, rocksdb_column_family_handle_t* cf, const std::string& key,
         const std::string& value = "v") {
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  char* err = nullptr;
  if (cf == nullptr) {
    rocksdb_put(db, wo, key.data(), key.size(), value.data(), value.size(), &err);
  } else {
    rocksdb_put_cf(db, wo, cf, key.data(), key.size(), value.data(), value.size(), &err);
  }
  rocksdb_writeoptions_destroy(wo);
  ASSERT_EQ(TakeError(&err), std::nullopt);
}

std::string Key(const rocksdb_iterator_t* it) {
  size_t len = 0;
  const char* k = rocksdb_iter_key(it, &len);
  return std::string(k, len);
}

// The keys from the iterator's position on, moving forward (or backward) while it is valid.
std::vector<std::string> Walk(rocksdb_iterator_t* it, bool forward = true) {
  std::vector<std::string> keys;
  while (rocksdb_iter_valid(it)) {
    keys.push_back(Key(it));
    if (forward) {
      rocksdb_iter_next(it);
    } else {
      rocksdb_iter_prev(it);
    }
  }
  char* err = nullptr;
  rocksdb_iter_get_error(it, &err);
  EXPECT_EQ(TakeError(&err), std::nullopt);
  return keys;
}

std::vector<std::string> SeekAndWalk(rocksdb_iterator_t* it, const std::string& target) {
  rocksdb_iter_seek(it, target.data(), target.size());
  return Walk(it);
}

std::vector<std::string> SeekForPrevAndWalk(rocksdb_iterator_t* it, const std::string& target) {
  rocksdb_iter_seek_for_prev(it, target.data(), target.size());
  return Walk(it, false);
}

using Keys = std::vector<std::string>;

class RocksDbCApiPrefixTest : public testing::Test {
 protected:
  void SetUp() override {
    options_ = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(options_, 1);
    ro_ = rocksdb_readoptions_create();
  }
  void TearDown() override {
    if (db_ != nullptr) rocksdb_close(db_);
    rocksdb_readoptions_destroy(ro_);
    rocksdb_options_destroy(options_);
  }

  void Open() {
    char* err = nullptr;
    db_ = rocksdb_open(options_, dir_.path().c_str(), &err);
    ASSERT_EQ(TakeError(&err), std::nullopt);
    ASSERT_NE(db_, nullptr);
  }

  // "a" is shorter than the fixed prefixes of the tests (outside their domain).
  void PutSampleKeys() {
    for (const char* k : {"a", "aa1", "ab1", "ab2", "ab3", "ac1", "b"}) Put(db_, nullptr, k);
  }

  TempDir dir_;
  rocksdb_options_t* options_ = nullptr;
  rocksdb_readoptions_t* ro_ = nullptr;
  rocksdb_t* db_ = nullptr;
};

TEST_F(RocksDbCApiPrefixTest, FixedPrefixSameAsStartStopsAtThePrefixEnd) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_fixed_prefix(2));
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2", "ab3"}));
  EXPECT_EQ(SeekAndWalk(it, "ab2"), (Keys{"ab2", "ab3"}));
  EXPECT_EQ(SeekAndWalk(it, "ab4"), Keys{});  // the next key, "ac1", has another prefix
  EXPECT_EQ(SeekAndWalk(it, "aa"), Keys{"aa1"});
  // Backward: SeekForPrev and Prev stop at the prefix's start.
  EXPECT_EQ(SeekForPrevAndWalk(it, "ab9"), (Keys{"ab3", "ab2", "ab1"}));
  EXPECT_EQ(SeekForPrevAndWalk(it, "ab2"), (Keys{"ab2", "ab1"}));
  EXPECT_EQ(SeekForPrevAndWalk(it, "ab0"), Keys{});  // the previous key, "aa1", is another's
  // Changing direction inside the prefix, then running out of it.
  rocksdb_iter_seek(it, "ab2", 3);
  rocksdb_iter_prev(it);
  ASSERT_TRUE(rocksdb_iter_valid(it));
  EXPECT_EQ(Key(it), "ab1");
  rocksdb_iter_prev(it);
  EXPECT_FALSE(rocksdb_iter_valid(it));
  rocksdb_iter_destroy(it);

  // Point reads are unaffected.
  EXPECT_EQ(Get(db_, nullptr, "ac1", ro_), "v");
  EXPECT_EQ(Get(db_, nullptr, "a", ro_), "v");

  // Without prefix_same_as_start the order is total (a correct answer for a prefix seek).
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 0);
  it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2", "ab3", "ac1", "b"}));
  rocksdb_iter_destroy(it);
}

TEST_F(RocksDbCApiPrefixTest, TotalOrderSeekIteratesEverything) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_fixed_prefix(2));
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_readoptions_set_total_order_seek(ro_, 1);
  EXPECT_EQ(rocksdb_readoptions_get_prefix_same_as_start(ro_), 1);
  EXPECT_EQ(rocksdb_readoptions_get_total_order_seek(ro_), 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2", "ab3", "ac1", "b"}));
  EXPECT_EQ(SeekForPrevAndWalk(it, "ab2"), (Keys{"ab2", "ab1", "aa1", "a"}));
  rocksdb_iter_seek_to_first(it);
  EXPECT_EQ(Walk(it).size(), 7u);
  rocksdb_iter_destroy(it);
}

TEST_F(RocksDbCApiPrefixTest, KeysOutsideTheDomainHaveNoPrefix) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_fixed_prefix(2));
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  // A target outside the domain has no prefix: nothing has it.
  EXPECT_EQ(SeekAndWalk(it, "a"), Keys{});
  EXPECT_EQ(SeekForPrevAndWalk(it, "b"), Keys{});
  // Backward from "aa1", the next key, "a", is outside the domain: the iteration ends.
  EXPECT_EQ(SeekForPrevAndWalk(it, "aa9"), Keys{"aa1"});
  // SeekToFirst returns the first key unchecked; its prefix (none here) bounds the moves after.
  rocksdb_iter_seek_to_first(it);
  EXPECT_EQ(Walk(it), Keys{"a"});
  // SeekToLast likewise: "b" is outside the domain, so Prev ends the iteration.
  rocksdb_iter_seek_to_last(it);
  EXPECT_EQ(Walk(it, false), Keys{"b"});
  rocksdb_iter_destroy(it);

  // With the short keys gone, SeekToFirst / SeekToLast stay in the first / last key's prefix.
  char* err = nullptr;
  rocksdb_writeoptions_t* wo = rocksdb_writeoptions_create();
  rocksdb_delete(db_, wo, "a", 1, &err);
  rocksdb_delete(db_, wo, "b", 1, &err);
  rocksdb_writeoptions_destroy(wo);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  it = rocksdb_create_iterator(db_, ro_);
  rocksdb_iter_seek_to_first(it);
  EXPECT_EQ(Walk(it), Keys{"aa1"});
  rocksdb_iter_seek_to_last(it);
  EXPECT_EQ(Walk(it, false), Keys{"ac1"});
  rocksdb_iter_destroy(it);
}

TEST_F(RocksDbCApiPrefixTest, SeekToFirstAndLastWithBoundsSeekToTheBounds) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_fixed_prefix(2));
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  // RocksDB: SeekToFirst with a lower bound is Seek(lower bound), SeekToLast with an upper
  // bound SeekForPrev(upper bound): the bound's prefix is the start's.
  rocksdb_readoptions_set_iterate_lower_bound(ro_, "ab", 2);
  rocksdb_readoptions_set_iterate_upper_bound(ro_, "ab3", 3);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  rocksdb_iter_seek_to_first(it);
  EXPECT_EQ(Walk(it), (Keys{"ab1", "ab2"}));
  rocksdb_iter_seek_to_last(it);
  EXPECT_EQ(Walk(it, false), (Keys{"ab2", "ab1"}));
  rocksdb_iter_destroy(it);
}

// A transform of C callbacks: the prefix is the key up to and including its first ':'; keys
// without one are outside the domain. Transform fails the test when called outside the domain
// (RocksDB's contract lets a transform assume its domain).
int destroyed = 0;
const char* UpToColon(const char* key, size_t length) {
  return static_cast<const char*>(std::memchr(key, ':', length));
}
char* ColonTransform(void*, const char* key, size_t length, size_t* dst_length) {
  const char* colon = UpToColon(key, length);
  EXPECT_NE(colon, nullptr) << "Transform called outside the domain: " << std::string(key, length);
  *dst_length = colon == nullptr ? length : static_cast<size_t>(colon - key) + 1;
  return const_cast<char*>(key);
}
unsigned char ColonInDomain(void*, const char* key, size_t length) {
  return UpToColon(key, length) != nullptr ? 1 : 0;
}
unsigned char ColonInRange(void*, const char* key, size_t length) {
  return length > 0 && key[length - 1] == ':' ? 1 : 0;
}
const char* ColonName(void*) { return "test.colon"; }
void CountDestroy(void*) { destroyed++; }

TEST_F(RocksDbCApiPrefixTest, CallbackExtractorIsOwnedByTheOptionsAndTheirDbs) {
  destroyed = 0;
  rocksdb_slicetransform_t* colon = rocksdb_slicetransform_create(
      nullptr, CountDestroy, ColonTransform, ColonInDomain, ColonInRange, ColonName);
  ASSERT_NE(colon, nullptr);
  rocksdb_options_set_prefix_extractor(options_, colon);
  // The DB opens with a copy of the options; the options and the copy go before the DB does.
  rocksdb_options_t* copy = rocksdb_options_create_copy(options_);
  char* err = nullptr;
  db_ = rocksdb_open(copy, dir_.path().c_str(), &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_options_destroy(copy);
  rocksdb_options_destroy(options_);
  options_ = rocksdb_options_create();
  EXPECT_EQ(destroyed, 0);

  for (const char* k : {"user:1", "user:2", "userx", "v:1", "w"}) Put(db_, nullptr, k);
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "user:"), (Keys{"user:1", "user:2"}));  // "userx" has no prefix
  EXPECT_EQ(SeekAndWalk(it, "v:0"), Keys{"v:1"});                   // "w" has no prefix
  EXPECT_EQ(SeekForPrevAndWalk(it, "v:9"), Keys{"v:1"});            // nor "userx"
  EXPECT_EQ(SeekAndWalk(it, "userx"), Keys{});                      // nor the target
  rocksdb_iter_destroy(it);
  EXPECT_EQ(destroyed, 0);
  rocksdb_close(db_);
  db_ = nullptr;
  EXPECT_EQ(destroyed, 1);  // once, with the last holder

  // Replacing or removing the extractor releases the one set before.
  destroyed = 0;
  rocksdb_options_set_prefix_extractor(
      options_, rocksdb_slicetransform_create(nullptr, CountDestroy, ColonTransform,
                                              ColonInDomain, ColonInRange, ColonName));
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_noop());
  EXPECT_EQ(destroyed, 1);
  rocksdb_options_set_prefix_extractor(options_, nullptr);
}

TEST_F(RocksDbCApiPrefixTest, NoopExtractorBoundsToTheWholeKey) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_noop());
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "ab2"), Keys{"ab2"});
  EXPECT_EQ(SeekAndWalk(it, "ab"), Keys{});
  rocksdb_iter_destroy(it);
}

TEST_F(RocksDbCApiPrefixTest, ColumnFamiliesHaveTheirOwnExtractors) {
  ASSERT_NO_FATAL_FAILURE(Open());  // the default family has none
  rocksdb_options_t* cf_options = rocksdb_options_create();
  rocksdb_options_set_prefix_extractor(cf_options, rocksdb_slicetransform_create_fixed_prefix(2));
  char* err = nullptr;
  rocksdb_column_family_handle_t* cf =
      rocksdb_create_column_family(db_, cf_options, "prefixed", &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  for (const char* k : {"ab1", "ab2", "ac1"}) {
    Put(db_, nullptr, k);
    Put(db_, cf, k);
  }
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it = rocksdb_create_iterator_cf(db_, ro_, cf);
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2"}));
  rocksdb_iter_destroy(it);
  it = rocksdb_create_iterator(db_, ro_);
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2", "ac1"}));
  rocksdb_iter_destroy(it);
  rocksdb_column_family_handle_destroy(cf);
  rocksdb_close(db_);
  db_ = nullptr;

  // Reopened with per-family options: the default family gets one too this time.
  rocksdb_options_t* default_options = rocksdb_options_create();
  rocksdb_options_set_prefix_extractor(default_options,
                                       rocksdb_slicetransform_create_fixed_prefix(1));
  const char* names[] = {"default", "prefixed"};
  const rocksdb_options_t* family_options[] = {default_options, cf_options};
  rocksdb_column_family_handle_t* handles[2] = {nullptr, nullptr};
  db_ = rocksdb_open_column_families(options_, dir_.path().c_str(), 2, names, family_options,
                                     handles, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  rocksdb_options_destroy(default_options);
  rocksdb_options_destroy(cf_options);
  Put(db_, nullptr, "b1");
  it = rocksdb_create_iterator(db_, ro_);  // fixed(1): "a..." is one prefix
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab2", "ac1"}));
  rocksdb_iter_destroy(it);
  rocksdb_iterator_t* its[2] = {nullptr, nullptr};
  rocksdb_create_iterators(db_, ro_, handles, its, 2, &err);
  ASSERT_EQ(TakeError(&err), std::nullopt);
  EXPECT_EQ(SeekAndWalk(its[0], "ab"), (Keys{"ab1", "ab2", "ac1"}));
  EXPECT_EQ(SeekAndWalk(its[1], "ab"), (Keys{"ab1", "ab2"}));
  rocksdb_iter_destroy(its[0]);
  rocksdb_iter_destroy(its[1]);
  for (rocksdb_column_family_handle_t* h : handles) rocksdb_column_family_handle_destroy(h);
}

TEST_F(RocksDbCApiPrefixTest, WriteBatchWithIndexIteratorKeepsThePrefix) {
  rocksdb_options_set_prefix_extractor(options_, rocksdb_slicetransform_create_fixed_prefix(2));
  ASSERT_NO_FATAL_FAILURE(Open());
  PutSampleKeys();
  rocksdb_writebatch_wi_t* wbwi = rocksdb_writebatch_wi_create(0, 1);
  rocksdb_writebatch_wi_put(wbwi, "ab5", 3, "w", 1);
  rocksdb_writebatch_wi_put(wbwi, "ab9", 3, "w", 1);
  rocksdb_writebatch_wi_put(wbwi, "ac0", 3, "w", 1);
  rocksdb_writebatch_wi_delete(wbwi, "ab2", 3);
  rocksdb_readoptions_set_prefix_same_as_start(ro_, 1);
  rocksdb_iterator_t* it =
      rocksdb_writebatch_wi_create_iterator_with_base(wbwi, rocksdb_create_iterator(db_, ro_));
  EXPECT_EQ(SeekAndWalk(it, "ab"), (Keys{"ab1", "ab3", "ab5", "ab9"}));
  EXPECT_EQ(SeekForPrevAndWalk(it, "ab6"), (Keys{"ab5", "ab3", "ab1"}));
  EXPECT_EQ(SeekAndWalk(it, "ac"), (Keys{"ac0", "ac1"}));
  rocksdb_iter_destroy(it);
  rocksdb_writebatch_wi_destroy(wbwi);
}

}  // namespace
}  // namespace shale::rocksdb_capi_test
