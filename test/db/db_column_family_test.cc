// Column families (issue 23, doc/column_families.md): targeted tests of the API in shale/db.h,
// one promise each. Every DB lives on the in-memory file system. Each test says what it guards
// against (how it would fail on a wrong engine).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/bulk_loader.h"
#include "shale/cache.h"
#include "shale/checkpoint.h"
#include "shale/db.h"
#include "shale/sst_file_writer.h"
#include "db/column_family_test_util.h"
#include "testutil/status_matchers.h"
#include "testutil/test_merge_operators.h"

namespace shale {
namespace {

using test::Descriptors;
using test::FamilyDB;
using test::FilesAtLevel;
using test::TotalFiles;
using test::GetText;
using test::IntProperty;
using test::ReadFamily;

constexpr char kDBName[] = "/cfdb";

// A different order than the bytewise one, for the comparator restriction.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    return BytewiseComparator()->Compare(b, a);
  }
  const char* Name() const override { return "test.ReverseBytewise"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

using test::WaitFor;

class DBColumnFamilyTest : public ::testing::Test {
 protected:
  DBColumnFamilyTest() : fs_(NewMemFileSystem()) {
    db_options_.file_system = fs_;
    db_options_.create_if_missing = true;
    db_options_.create_missing_column_families = true;
    cf_options_.write_buffer_size = 64 << 10;
  }

  // Opens kDBName with `names` (all with cf_options_).
  void Open(const std::vector<std::string>& names) {
    ASSERT_OK(db_.Open(db_options_, kDBName, Descriptors(names, cf_options_)));
  }
  Status TryOpen(const std::vector<std::string>& names) {
    return db_.Open(db_options_, kDBName, Descriptors(names, cf_options_));
  }
  void Reopen(const std::vector<std::string>& names) {
    ASSERT_OK(db_.Close());
    ASSERT_NO_FATAL_FAILURE(Open(names));
  }
  ColumnFamilyHandle* cf(const std::string& name) {
    return name == kDefaultColumnFamilyName && !db_.has(name) ? db_->DefaultColumnFamily()
                                                              : db_.cf(name);
  }
  Status Put(const std::string& family, std::string_view key, std::string_view value) {
    return db_->Put(WriteOptions(), cf(family), key, value);
  }
  std::string Get(const std::string& family, std::string_view key) {
    return GetText(db_.db(), cf(family), key);
  }
  std::set<uint64_t> TableFiles() {
    return test::FilesOfType(fs_.get(), kDBName, FileType::kTableFile);
  }
  std::vector<std::string> List() {
    std::vector<std::string> names;
    EXPECT_OK(DB::ListColumnFamilies(db_options_, kDBName, &names));
    return names;
  }

  std::shared_ptr<FileSystem> fs_;
  DBOptions db_options_;
  ColumnFamilyOptions cf_options_;
  FamilyDB db_;
};

// ---------------------------------------------------------------- Open and List

// Guards against handles returned in another order than the descriptors (e.g. by id or by
// name), a default family with an id other than 0, or ids shared between families.
TEST_F(DBColumnFamilyTest, OpenCreatesMissingFamiliesAndReturnsHandlesInDescriptorOrder) {
  const std::vector<std::string> names = {"zeta", kDefaultColumnFamilyName, "alpha", "mid"};
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  ASSERT_OK(DB::Open(db_options_, kDBName, Descriptors(names, cf_options_), &handles, &db));
  ASSERT_EQ(handles.size(), names.size());
  std::set<uint32_t> ids;
  for (size_t i = 0; i < names.size(); i++) {
    EXPECT_EQ(handles[i]->GetName(), names[i]) << "handle " << i;
    ids.insert(handles[i]->GetID());
    ColumnFamilyDescriptor d;
    ASSERT_OK(handles[i]->GetDescriptor(&d));
    EXPECT_EQ(d.name, names[i]);
  }
  EXPECT_EQ(ids.size(), names.size()) << "two families share an id";
  EXPECT_EQ(handles[1]->GetID(), 0u) << "the default family's id";
  EXPECT_EQ(db->DefaultColumnFamily()->GetID(), 0u);
  EXPECT_EQ(db->DefaultColumnFamily()->GetName(), kDefaultColumnFamilyName);
  // Each handle writes its own family: the value read back through the same handle.
  for (size_t i = 0; i < names.size(); i++) {
    ASSERT_OK(db->Put(WriteOptions(), handles[i], "who", names[i]));
  }
  for (size_t i = 0; i < names.size(); i++) {
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), handles[i], "who", &value));
    EXPECT_EQ(value, names[i]);
  }
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db->Close());
  db.reset();
  // Reopened in yet another order, with create_missing off: the same ids per name.
  db_options_.create_missing_column_families = false;
  const std::vector<std::string> again = {"mid", "alpha", kDefaultColumnFamilyName, "zeta"};
  ASSERT_OK(DB::Open(db_options_, kDBName, Descriptors(again, cf_options_), &handles, &db));
  ASSERT_EQ(handles.size(), again.size());
  for (size_t i = 0; i < again.size(); i++) {
    EXPECT_EQ(handles[i]->GetName(), again[i]);
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), handles[i], "who", &value));
    EXPECT_EQ(value, again[i]) << "family " << again[i] << " reopened as another";
  }
  for (ColumnFamilyHandle* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db->Close());
}

// Guards against opening a DB while ignoring families it has (their data silently not
// served, their WAL records dropped) and against a message that does not say which.
TEST_F(DBColumnFamilyTest, ReopenWithoutNamingAFamilyFailsNamingTheMissingOnes) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "apple", "banana", "cherry"}));
  ASSERT_OK(Put("banana", "k", "v"));
  ASSERT_OK(db_.Close());
  Status s = TryOpen({kDefaultColumnFamilyName, "apple"});
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("Column families not opened"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("banana"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("cherry"), std::string::npos) << s.ToString();
  EXPECT_EQ(s.ToString().find("apple"), std::string::npos)
      << "names a family that was opened: " << s.ToString();
  // Only default: all three named.
  s = TryOpen({kDefaultColumnFamilyName});
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  for (const char* name : {"apple", "banana", "cherry"}) {
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  }
  // The plain Open (the default family only) is refused the same way.
  std::unique_ptr<DB> plain;
  s = DB::Open(Options(db_options_, cf_options_), kDBName, &plain);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(plain, nullptr);
  // The failed opens changed nothing.
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "apple", "banana", "cherry"}));
  EXPECT_EQ(Get("banana", "k"), "v");
}

// Guards against create_missing_column_families being ignored (a family created anyway) and
// against a refused Open leaving the family half-created in the MANIFEST.
TEST_F(DBColumnFamilyTest, UnknownFamilyWithoutCreateMissingFails) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  ASSERT_OK(db_.Close());
  db_options_.create_missing_column_families = false;
  Status s = TryOpen({kDefaultColumnFamilyName, "nope"});
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("nope"), std::string::npos) << s.ToString();
  EXPECT_EQ(List(), std::vector<std::string>{kDefaultColumnFamilyName});
  // A new DB (create_if_missing) with an extra family, without create_missing: refused too.
  db_options_.create_if_missing = true;
  DBOptions fresh = db_options_;
  std::vector<ColumnFamilyHandle*> handles;
  std::unique_ptr<DB> db;
  s = DB::Open(fresh, "/fresh", Descriptors({kDefaultColumnFamilyName, "x"}), &handles, &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(handles.empty());
}

// Guards against ListColumnFamilies needing an open DB, listing in another order, listing a
// dropped family, or failing silently on a directory without a DB.
TEST_F(DBColumnFamilyTest, ListColumnFamiliesWithoutOpening) {
  ASSERT_NO_FATAL_FAILURE(Open({"second", kDefaultColumnFamilyName, "first"}));
  ASSERT_OK(db_.Create(cf_options_, "third"));
  // While the DB is open too (it reads the MANIFEST).
  EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "second", "first",
                                              "third"}));
  ASSERT_OK(db_.Drop("first"));
  db_.Release("first");
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(),
            (std::vector<std::string>{kDefaultColumnFamilyName, "second", "third"}));
  std::vector<std::string> names;
  Status s = DB::ListColumnFamilies(db_options_, "/no-such-db", &names);
  EXPECT_FALSE(s.ok());
  // A DB made by the plain Open has the default family only.
  std::unique_ptr<DB> plain;
  Options options(db_options_, cf_options_);
  ASSERT_OK(DB::Open(options, "/plain", &plain));
  ASSERT_OK(plain->Close());
  ASSERT_OK(DB::ListColumnFamilies(db_options_, "/plain", &names));
  EXPECT_EQ(names, std::vector<std::string>{kDefaultColumnFamilyName});
}

// ---------------------------------------------------------------- Isolation

// Guards against families sharing a keyspace anywhere: memtables, tables, range deletions,
// iterators, recovery.
TEST_F(DBColumnFamilyTest, KeysAreIsolatedPerFamily) {
  const std::vector<std::string> fams = {kDefaultColumnFamilyName, "a", "b"};
  ASSERT_NO_FATAL_FAILURE(Open(fams));
  for (const std::string& f : fams) {
    for (int i = 0; i < 10; i++) {
      ASSERT_OK(Put(f, "k" + std::to_string(i), f + std::to_string(i)));
    }
  }
  // Deletions in one family leave the others alone.
  ASSERT_OK(db_->Delete(WriteOptions(), cf("a"), "k1"));
  ASSERT_OK(db_->SingleDelete(WriteOptions(), cf("b"), "k2"));
  ASSERT_OK(db_->DeleteRange(WriteOptions(), cf("a"), "k5", "k8"));
  auto check = [&](const std::string& where) {
    SCOPED_TRACE(where);
    for (const std::string& f : fams) {
      std::map<std::string, std::string> want;
      for (int i = 0; i < 10; i++) want["k" + std::to_string(i)] = f + std::to_string(i);
      if (f == "a") {
        want.erase("k1");
        for (int i = 5; i < 8; i++) want.erase("k" + std::to_string(i));
      }
      if (f == "b") want.erase("k2");
      EXPECT_EQ(ReadFamily(db_.db(), cf(f)), want) << f;
      for (int i = 0; i < 10; i++) {
        const std::string key = "k" + std::to_string(i);
        EXPECT_EQ(Get(f, key), want.count(key) ? want[key] : "NOT_FOUND") << f << " " << key;
      }
    }
  };
  check("memtables");
  ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  check("a flushed");
  ASSERT_OK(db_->Flush(FlushOptions(), cf("b")));
  ASSERT_OK(db_->Flush(FlushOptions(), cf(kDefaultColumnFamilyName)));
  check("all flushed");
  ASSERT_NO_FATAL_FAILURE(Reopen(fams));
  check("reopened");
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), cf("b"), nullptr, nullptr));
  check("b compacted");
}

// ---------------------------------------------------------------- Create

// Guards against a family created in memory only (lost at reopen with its unflushed writes)
// and against create_missing being needed to reopen it.
TEST_F(DBColumnFamilyTest, CreateColumnFamilyIsDurableAcrossReopen) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  ASSERT_OK(db_.Create(cf_options_, "new"));
  EXPECT_NE(cf("new")->GetID(), 0u);
  ASSERT_OK(Put("new", "k", "v-unflushed"));
  std::vector<ColumnFamilyHandle*> more;
  ASSERT_OK(db_->CreateColumnFamilies(cf_options_, {"n2", "n3"}, &more));
  ASSERT_EQ(more.size(), 2u);
  EXPECT_EQ(more[0]->GetName(), "n2");
  EXPECT_EQ(more[1]->GetName(), "n3");
  ASSERT_OK(db_->Put(WriteOptions(), more[1], "k3", "v3"));
  for (ColumnFamilyHandle* h : more) ASSERT_OK(db_->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db_.Close());
  db_options_.create_missing_column_families = false;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "new", "n2", "n3"}));
  EXPECT_EQ(Get("new", "k"), "v-unflushed");
  EXPECT_EQ(Get("n3", "k3"), "v3");
  EXPECT_EQ(Get("n2", "k3"), "NOT_FOUND");
}

// Guards against two live families with one name (which would make reopening ambiguous).
TEST_F(DBColumnFamilyTest, CreateColumnFamilyRefusesADuplicateName) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  ColumnFamilyHandle* handle = nullptr;
  Status s = db_->CreateColumnFamily(cf_options_, "a", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  s = db_->CreateColumnFamily(cf_options_, kDefaultColumnFamilyName, &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  // CreateColumnFamilies stops at the duplicate and hands back those made before it.
  std::vector<ColumnFamilyHandle*> made;
  s = db_->CreateColumnFamilies(cf_options_, {"b", "a", "c"}, &made);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0]->GetName(), "b");
  for (ColumnFamilyHandle* h : made) ASSERT_OK(db_->DestroyColumnFamilyHandle(h));
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "a", "b"}));
}

// Guards against a family without a name (it could never be named in Open).
TEST_F(DBColumnFamilyTest, CreateColumnFamilyRefusesAnEmptyName) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  ColumnFamilyHandle* handle = nullptr;
  Status s = db_->CreateColumnFamily(cf_options_, "", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), std::vector<std::string>{kDefaultColumnFamilyName});
  // Nor at Open.
  s = TryOpen({kDefaultColumnFamilyName, ""});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// ---------------------------------------------------------------- Drop

// Guards against dropping the default family (every DB has one; the plain API writes to it).
TEST_F(DBColumnFamilyTest, DropRefusesTheDefaultFamily) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  Status s = db_->DropColumnFamily(db_->DefaultColumnFamily());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = db_->DropColumnFamily(cf(kDefaultColumnFamilyName));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // DropColumnFamilies stops at it: "a" before it is dropped, nothing after.
  ASSERT_OK(db_.Create(cf_options_, "b"));
  s = db_->DropColumnFamilies({cf("a"), db_->DefaultColumnFamily(), cf("b")});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_OK(db_->Put(WriteOptions(), "k", "v"));
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "k"), "v");
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "b"}));
}

// Guards against writes landing in a dropped family (lost silently, or resurrecting it at
// recovery) and a batch half applied when one record names a dropped family.
TEST_F(DBColumnFamilyTest, WritesToADroppedFamilyFail) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b"}));
  ASSERT_OK(Put("a", "k", "v"));
  ASSERT_OK(db_.Drop("a"));
  Status s = Put("a", "k", "v2");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = db_->Delete(WriteOptions(), cf("a"), "k");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = db_->DeleteRange(WriteOptions(), cf("a"), "a", "z");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  WriteBatch batch;
  ASSERT_OK(batch.Put(cf("b"), "kb", "vb"));
  ASSERT_OK(batch.Put(cf("a"), "ka", "va"));
  ASSERT_OK(batch.Put("kd", "vd"));
  s = db_->Write(WriteOptions(), &batch);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(Get("b", "kb"), "NOT_FOUND") << "part of a refused batch was applied";
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "kd"), "NOT_FOUND")
      << "part of a refused batch was applied";
  // Dropping it again is refused.
  s = db_.Drop("a");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // A null handle is refused too.
  s = db_->Put(WriteOptions(), nullptr, "k", "v");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // The others keep working.
  ASSERT_OK(Put("b", "kb", "vb"));
  EXPECT_EQ(Get("b", "kb"), "vb");
}

// Guards against a dropped family's data vanishing under a handle the user still holds
// (RocksDB keeps it readable until the handle is destroyed).
TEST_F(DBColumnFamilyTest, DroppedFamilyStillReadsThroughItsHandle) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  for (int i = 0; i < 100; i++) ASSERT_OK(Put("a", "t" + std::to_string(i), "table"));
  ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  for (int i = 0; i < 100; i++) ASSERT_OK(Put("a", "m" + std::to_string(i), "mem"));
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), cf("a"));
  ASSERT_OK(db_.Drop("a"));
  // A flush and compaction of another family meanwhile (they delete obsolete files).
  for (int i = 0; i < 100; i++) ASSERT_OK(Put(kDefaultColumnFamilyName, "d" + std::to_string(i), "x"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  EXPECT_EQ(Get("a", "t7"), "table");
  EXPECT_EQ(Get("a", "m7"), "mem");
  std::map<std::string, std::string> seen = ReadFamily(db_.db(), cf("a"));
  EXPECT_EQ(seen.size(), 200u);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  ASSERT_OK(it->status());
  EXPECT_EQ(n, 200) << "an iterator opened before the drop";
  it.reset();
  db_.Release("a");
}

// Guards against an iterator over a dropped family losing its tables when the last handle
// goes (the iterator pins the family's memtables and version, not the handle).
TEST_F(DBColumnFamilyTest, IteratorOnADroppedFamilyOutlivesItsHandle) {
  cf_options_.disable_auto_compactions = true;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 50; i++) ASSERT_OK(Put("a", "k" + std::to_string(round * 50 + i), "t"));
    ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  }
  ASSERT_OK(Put("a", "mem", "m"));
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), cf("a"));
  ASSERT_OK(db_.Drop("a"));
  db_.Release("a");
  ASSERT_OK(Put(kDefaultColumnFamilyName, "x", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) n++;
  ASSERT_OK(it->status());
  EXPECT_EQ(n, 151) << "an iterator over a dropped family lost data after its handle went";
  it.reset();
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), std::vector<std::string>{kDefaultColumnFamilyName});
}

// Guards against a drop racing writes to the family: each write either lands before the drop
// (OK, and readable through the handle afterwards) or is refused (InvalidArgument); none is
// acknowledged and lost, none refused and applied, and no other error appears.
TEST_F(DBColumnFamilyTest, DropRacingWritesLinearizes) {
  for (int round = 0; round < 10; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string name = "racy" + std::to_string(round);
    if (round == 0) {
      ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
    }
    ASSERT_OK(db_.Create(cf_options_, name));
    ColumnFamilyHandle* h = cf(name);
    constexpr int kThreads = 3;
    std::vector<std::vector<Status>> results(kThreads);
    std::atomic<int> started{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; t++) {
      writers.emplace_back([&, t] {
        started++;
        for (int i = 0; i < 400; i++) {
          WriteBatch batch;
          EXPECT_OK(batch.Put(h, "t" + std::to_string(t) + "-" + std::to_string(i), "v"));
          // Half the batches also write the default family: all or nothing with it.
          if (i % 2 == 0) {
            EXPECT_OK(batch.Put("d" + std::to_string(round) + "-" + std::to_string(t) + "-" +
                                    std::to_string(i),
                                "v"));
          }
          results[t].push_back(db_->Write(WriteOptions(), &batch));
        }
      });
    }
    while (started.load() < kThreads) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
    EXPECT_OK(db_.Drop(name));  // EXPECT: the writers are joined below
    for (std::thread& w : writers) w.join();
    std::map<std::string, std::string> seen = ReadFamily(db_.db(), h);
    for (int t = 0; t < kThreads; t++) {
      bool refused = false;
      for (int i = 0; i < static_cast<int>(results[t].size()); i++) {
        const Status& s = results[t][i];
        const std::string key = "t" + std::to_string(t) + "-" + std::to_string(i);
        const std::string dkey =
            "d" + std::to_string(round) + "-" + std::to_string(t) + "-" + std::to_string(i);
        if (s.ok()) {
          EXPECT_FALSE(refused) << key << " acknowledged after an earlier write was refused";
          EXPECT_TRUE(seen.count(key)) << key << " acknowledged, then lost by the drop";
          if (i % 2 == 0) {
            EXPECT_EQ(Get(kDefaultColumnFamilyName, dkey), "v");
          }
        } else {
          EXPECT_TRUE(s.IsInvalidArgument()) << key << ": " << s.ToString();
          refused = true;
          EXPECT_FALSE(seen.count(key)) << key << " refused, yet applied";
          if (i % 2 == 0) {
            EXPECT_EQ(Get(kDefaultColumnFamilyName, dkey), "NOT_FOUND")
                << "part of a refused batch applied";
          }
        }
      }
    }
    db_.Release(name);
    if (::testing::Test::HasFailure()) break;
  }
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), std::vector<std::string>{kDefaultColumnFamilyName});
}

// Guards against families created concurrently getting one id, or one of them missing from
// the MANIFEST.
TEST_F(DBColumnFamilyTest, ConcurrentCreatesGetDistinctIdsAndAllPersist) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  constexpr int kThreads = 4, kEach = 8;
  std::vector<std::vector<ColumnFamilyHandle*>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; i++) {
        ColumnFamilyHandle* h = nullptr;
        EXPECT_OK(db_->CreateColumnFamily(cf_options_,
                                          "c" + std::to_string(t) + "-" + std::to_string(i), &h));
        if (h != nullptr) {
          EXPECT_OK(db_->Put(WriteOptions(), h, "k", h->GetName()));
          made[t].push_back(h);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::set<uint32_t> ids;
  std::vector<std::string> names = {kDefaultColumnFamilyName};
  for (auto& list : made) {
    for (ColumnFamilyHandle* h : list) {
      ids.insert(h->GetID());
      names.push_back(h->GetName());
      ASSERT_OK(db_->DestroyColumnFamilyHandle(h));
    }
  }
  EXPECT_EQ(ids.size(), size_t{kThreads * kEach});
  EXPECT_FALSE(ids.count(0));
  ASSERT_OK(db_.Close());
  db_options_.create_missing_column_families = false;
  ASSERT_NO_FATAL_FAILURE(Open(names));
  for (size_t i = 1; i < names.size(); i++) EXPECT_EQ(Get(names[i], "k"), names[i]);
}

// Guards against a null handle crashing the DB (RocksDB's API takes raw pointers) and against
// DestroyColumnFamilyHandle freeing the DB-owned default handle.
TEST_F(DBColumnFamilyTest, NullAndDefaultHandles) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  std::string value;
  Status s = db_->Get(ReadOptions(), nullptr, "k", &value);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), nullptr);
  ASSERT_NE(it, nullptr);
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
  it.reset();
  std::vector<std::unique_ptr<Iterator>> its;
  s = db_->NewIterators(ReadOptions(), {db_->DefaultColumnFamily(), nullptr}, &its);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(its.empty());
  EXPECT_OK(db_->DestroyColumnFamilyHandle(nullptr));
  EXPECT_OK(db_->DestroyColumnFamilyHandle(db_->DefaultColumnFamily()));
  ASSERT_OK(db_->Put(WriteOptions(), db_->DefaultColumnFamily(), "k", "still-there"));
  EXPECT_EQ(db_->DefaultColumnFamily()->GetName(), kDefaultColumnFamilyName);
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "k"), "still-there");
  s = db_->Flush(FlushOptions(), static_cast<ColumnFamilyHandle*>(nullptr));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = db_->CompactRange(CompactRangeOptions(), nullptr, nullptr, nullptr);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// Guards against a dropped family's table files staying on disk forever (space leak) or
// being deleted while a handle still reads them; against the family coming back at reopen;
// and against a re-created family of the same name inheriting the old one's data or id (its
// old WAL records or tables).
TEST_F(DBColumnFamilyTest, DroppedFamilyFilesAreDeletedAndTheNameStartsAfresh) {
  cf_options_.disable_auto_compactions = true;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  const uint32_t old_id = cf("a")->GetID();
  const std::set<uint64_t> before = TableFiles();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 50; i++) ASSERT_OK(Put("a", "k" + std::to_string(i), "old"));
    ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  }
  ASSERT_OK(Put("a", "unflushed", "old"));  // in the WAL only
  std::set<uint64_t> a_files;
  for (uint64_t f : TableFiles()) {
    if (!before.count(f)) a_files.insert(f);
  }
  ASSERT_EQ(a_files.size(), 3u);
  ASSERT_OK(db_.Drop("a"));
  // The handle still needs them.
  ASSERT_OK(Put(kDefaultColumnFamilyName, "x", "1"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Get("a", "k3"), "old");
  db_.Release("a");
  // Now nothing needs them: the next flush and compaction of another family cleans up.
  ASSERT_OK(Put(kDefaultColumnFamilyName, "y", "2"));
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  const bool gone = WaitFor([&] {
    const std::set<uint64_t> now = TableFiles();
    for (uint64_t f : a_files) {
      if (now.count(f)) return false;
    }
    return true;
  });
  EXPECT_TRUE(gone) << "a dropped family's table files are still in the directory";
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), std::vector<std::string>{kDefaultColumnFamilyName});
  // Reopening without "a" is fine: it is no longer a family of the DB.
  db_options_.create_missing_column_families = false;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "y"), "2");
  // Re-created by CreateColumnFamily: empty, a new id.
  ASSERT_OK(db_.Create(cf_options_, "a"));
  EXPECT_NE(cf("a")->GetID(), old_id) << "a family id was reused";
  EXPECT_TRUE(ReadFamily(db_.db(), cf("a")).empty());
  EXPECT_EQ(Get("a", "k3"), "NOT_FOUND");
  EXPECT_EQ(Get("a", "unflushed"), "NOT_FOUND");
  ASSERT_OK(Put("a", "fresh", "new"));
  ASSERT_NO_FATAL_FAILURE(Reopen({kDefaultColumnFamilyName, "a"}));
  EXPECT_EQ(ReadFamily(db_.db(), cf("a")),
            (std::map<std::string, std::string>{{"fresh", "new"}}));
}

// Guards against a family re-created at Open (create_missing) after a drop picking up the
// dropped family's unflushed WAL records, which are still in the WAL under the old id.
TEST_F(DBColumnFamilyTest, FamilyRecreatedAtOpenDoesNotReplayTheDroppedOnesWal) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  const uint32_t old_id = cf("a")->GetID();
  for (int i = 0; i < 20; i++) ASSERT_OK(Put("a", "k" + std::to_string(i), "old"));
  ASSERT_OK(Put(kDefaultColumnFamilyName, "d", "1"));
  ASSERT_OK(db_.Drop("a"));
  db_.Release("a");
  ASSERT_OK(db_.Close());
  // Without create_missing, naming it is refused: it is gone.
  db_options_.create_missing_column_families = false;
  Status s = TryOpen({kDefaultColumnFamilyName, "a"});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  db_options_.create_missing_column_families = true;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  EXPECT_NE(cf("a")->GetID(), old_id);
  EXPECT_TRUE(ReadFamily(db_.db(), cf("a")).empty()) << "the dropped family's writes came back";
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "d"), "1");
}

// ---------------------------------------------------------------- Writes and reads

// Guards against a batch spanning families becoming visible family by family (a reader seeing
// some of its records and not others), and against its records being split at recovery.
TEST_F(DBColumnFamilyTest, WriteBatchSpanningFamiliesIsAtomicAndVisibleTogether) {
  const std::vector<std::string> fams = {kDefaultColumnFamilyName, "a", "b"};
  ASSERT_NO_FATAL_FAILURE(Open(fams));
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    std::vector<ColumnFamilyHandle*> handles = {cf(fams[0]), cf(fams[1]), cf(fams[2])};
    std::vector<std::string_view> keys = {"n", "n", "n"};
    while (!stop.load()) {
      std::vector<std::string> values;
      std::vector<Status> st = db_->MultiGet(ReadOptions(), handles, keys, &values);
      std::string first;
      for (size_t i = 0; i < st.size(); i++) {
        const std::string v = st[i].ok() ? values[i] : st[i].IsNotFound() ? "none" : "error";
        if (i == 0) first = v;
        if (v != first) torn++;
      }
      // An implicit snapshot per Get: the later reads may see more, never less, so read the
      // families in reverse order with explicit snapshot-free Gets and compare too.
      std::string a, b;
      Status sb = db_->Get(ReadOptions(), handles[2], "n", &b);
      Status sa = db_->Get(ReadOptions(), handles[1], "n", &a);
      if (sb.ok() && (!sa.ok() || std::stoi(a) < std::stoi(b))) torn++;
      reads++;
    }
  });
  for (int i = 1; i <= 3000; i++) {
    WriteBatch batch;
    const std::string n = std::to_string(i);
    // EXPECT, not ASSERT: the reader thread must be stopped and joined whatever happens.
    EXPECT_OK(batch.Put(cf("a"), "n", n));
    EXPECT_OK(batch.Put(cf("b"), "n", n));
    EXPECT_OK(batch.Put("n", n));
    EXPECT_OK(batch.Put(cf("a"), "k" + n, std::string(100, 'a')));
    EXPECT_OK(batch.Delete(cf("b"), "k" + std::to_string(i - 1)));
    Status s = db_->Write(WriteOptions(), &batch);
    EXPECT_OK(s);
    if (i % 500 == 0) EXPECT_OK(db_->Flush(FlushOptions(), cf("a")));
    if (!s.ok()) break;
  }
  stop = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0) << "a reader saw part of a batch (" << reads.load() << " reads)";
  ASSERT_NO_FATAL_FAILURE(Reopen(fams));
  for (const std::string& f : fams) EXPECT_EQ(Get(f, "n"), "3000") << f;
}

// Guards against MultiGet reading every key in one family, mixing up values across
// families, ignoring the snapshot for some families, or accepting mismatched vectors.
TEST_F(DBColumnFamilyTest, MultiGetAcrossFamilies) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b"}));
  ASSERT_OK(Put(kDefaultColumnFamilyName, "k", "d"));
  ASSERT_OK(Put("a", "k", "a"));
  ASSERT_OK(Put("b", "only-b", "b"));
  ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  const Snapshot* snap = db_->GetSnapshot();
  ASSERT_OK(Put("a", "k", "a2"));
  ASSERT_OK(Put("b", "k", "b2"));
  std::vector<ColumnFamilyHandle*> handles = {cf("a"), cf(kDefaultColumnFamilyName), cf("b"),
                                              cf("a"), cf("b")};
  std::vector<std::string_view> keys = {"k", "k", "k", "only-b", "only-b"};
  std::vector<std::string> values;
  std::vector<Status> st = db_->MultiGet(ReadOptions(), handles, keys, &values);
  ASSERT_EQ(st.size(), 5u);
  ASSERT_EQ(values.size(), 5u);
  ASSERT_OK(st[0]);
  EXPECT_EQ(values[0], "a2");
  ASSERT_OK(st[1]);
  EXPECT_EQ(values[1], "d");
  ASSERT_OK(st[2]);
  EXPECT_EQ(values[2], "b2");
  EXPECT_TRUE(st[3].IsNotFound()) << st[3].ToString();
  ASSERT_OK(st[4]);
  EXPECT_EQ(values[4], "b");
  ReadOptions at_snap;
  at_snap.snapshot = snap;
  st = db_->MultiGet(at_snap, handles, keys, &values);
  ASSERT_EQ(st.size(), 5u);
  ASSERT_OK(st[0]);
  EXPECT_EQ(values[0], "a");
  ASSERT_OK(st[1]);
  EXPECT_EQ(values[1], "d");
  EXPECT_TRUE(st[2].IsNotFound()) << "b's later write seen at the snapshot";
  db_->ReleaseSnapshot(snap);
  // Sizes that differ: every status InvalidArgument.
  st = db_->MultiGet(ReadOptions(), {cf("a")}, keys, &values);
  ASSERT_EQ(st.size(), keys.size());
  for (const Status& s : st) EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// Guards against NewIterators taking a separate sequence number per family: a writer puts the
// same counter into both families in each batch, so two iterators made together must agree.
TEST_F(DBColumnFamilyTest, NewIteratorsSeeOneStateWhileWritesContinue) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b"}));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> written{0};
  std::thread writer([&] {
    for (uint64_t i = 1; !stop.load(); i++) {
      WriteBatch batch;
      const std::string n = std::to_string(i);
      EXPECT_OK(batch.Put(cf("a"), "counter", n));
      EXPECT_OK(batch.Put(cf("b"), "counter", n));
      // Keys that grow with the counter, some of them in one family only, so the scans differ
      // in length if the iterators are not at one point.
      EXPECT_OK(batch.Put(cf("a"), "key" + std::to_string(i % 200), n));
      EXPECT_OK(batch.Put(cf("b"), "key" + std::to_string(i % 200), n));
      EXPECT_OK(db_->Write(WriteOptions(), &batch));
      if (i % 700 == 0) EXPECT_OK(db_->Flush(FlushOptions(), cf(i % 1400 ? "a" : "b")));
      written.store(i);
    }
  });
  int disagreements = 0;
  int rounds = 0;
  // At least 300 rounds, and until the writer has written (and flushed) a good deal meanwhile.
  for (; rounds < 300 || written.load() < 5000; rounds++) {
    std::vector<std::unique_ptr<Iterator>> its;
    Status s = db_->NewIterators(ReadOptions(), {cf("a"), cf("b")}, &its);
    EXPECT_OK(s);
    if (!s.ok() || its.size() != 2) break;
    std::map<std::string, std::string> seen[2];
    for (int j = 0; j < 2; j++) {
      for (its[j]->SeekToFirst(); its[j]->Valid(); its[j]->Next()) {
        seen[j].emplace(std::string(its[j]->key()), std::string(its[j]->value()));
      }
      EXPECT_OK(its[j]->status());
    }
    if (seen[0] != seen[1]) disagreements++;
  }
  stop = true;
  writer.join();
  EXPECT_GT(written.load(), 0u);
  EXPECT_EQ(disagreements, 0) << "of " << rounds << " rounds";
  // With an explicit snapshot: both iterators at it.
  const Snapshot* snap = db_->GetSnapshot();
  const std::string at_snap = GetText(db_.db(), cf("a"), "counter", snap);
  ASSERT_OK(Put("a", "counter", "later"));
  ASSERT_OK(Put("b", "counter", "later"));
  ReadOptions ro;
  ro.snapshot = snap;
  std::vector<std::unique_ptr<Iterator>> its;
  ASSERT_OK(db_->NewIterators(ro, {cf("b"), cf("a")}, &its));
  for (auto& it : its) {
    it->Seek("counter");
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value(), at_snap);
  }
  its.clear();
  db_->ReleaseSnapshot(snap);
}

// ---------------------------------------------------------------- Per-family options

// Guards against one write_buffer_size for all families (the default family's, or the
// first's): a small-buffer family must flush often while a large-buffer one does not at all.
TEST_F(DBColumnFamilyTest, WriteBufferSizeIsPerFamily) {
  ColumnFamilyOptions small = cf_options_;
  small.write_buffer_size = 64 << 10;
  small.disable_auto_compactions = true;
  ColumnFamilyOptions large = small;
  large.write_buffer_size = 8 << 20;
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, large),
                      ColumnFamilyDescriptor("small", small),
                      ColumnFamilyDescriptor("large", large)}));
  const std::string value(1000, 'v');
  for (int i = 0; i < 1000; i++) {  // ~1 MB into each
    ASSERT_OK(Put("small", "k" + std::to_string(i), value));
    ASSERT_OK(Put("large", "k" + std::to_string(i), value));
  }
  ASSERT_TRUE(WaitFor([&] {
    return IntProperty(db_.db(), cf("small"), DB::Properties::kNumRunningFlushes) == 0;
  }));
  ASSERT_OK(db_->Flush(FlushOptions(), cf("small")));
  EXPECT_GE(TotalFiles(db_.db(), cf("small")), 8u) << "64 KiB buffers, 1 MB written";
  EXPECT_EQ(TotalFiles(db_.db(), cf("large")), 0u) << "8 MiB buffer, 1 MB written";
  EXPECT_EQ(TotalFiles(db_.db(), cf(kDefaultColumnFamilyName)), 0u);
  EXPECT_EQ(db_->GetOptions(cf("small")).write_buffer_size, size_t{64 << 10});
  EXPECT_EQ(db_->GetOptions(cf("large")).write_buffer_size, size_t{8 << 20});
}

// Guards against the merge operator being DB-wide: a family without one must refuse Merge
// (as a DB without one does), and the other must merge with its own.
TEST_F(DBColumnFamilyTest, MergeOperatorIsPerFamily) {
  ColumnFamilyOptions with = cf_options_;
  with.merge_operator = std::make_shared<test::JoinOperator>();
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("merging", with),
                      ColumnFamilyDescriptor("plain", cf_options_)}));
  ASSERT_OK(db_->Merge(WriteOptions(), cf("merging"), "k", "a"));
  ASSERT_OK(db_->Merge(WriteOptions(), cf("merging"), "k", "b"));
  Status s = db_->Merge(WriteOptions(), cf("plain"), "k", "x");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = db_->Merge(WriteOptions(), "k", "x");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  WriteBatch batch;
  ASSERT_OK(batch.Merge(cf("merging"), "k", "c"));
  ASSERT_OK(batch.Merge(cf("plain"), "k", "y"));
  s = db_->Write(WriteOptions(), &batch);
  EXPECT_TRUE(s.IsInvalidArgument()) << "a batch merging into a family without an operator: "
                                     << s.ToString();
  EXPECT_EQ(Get("merging", "k"), "a,b");
  EXPECT_EQ(Get("plain", "k"), "NOT_FOUND");
  ASSERT_OK(db_->Flush(FlushOptions(), cf("merging")));
  ASSERT_OK(db_->Merge(WriteOptions(), cf("merging"), "k", "d"));
  EXPECT_EQ(Get("merging", "k"), "a,b,d");
  ASSERT_OK(db_.Close());
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("merging", with),
                      ColumnFamilyDescriptor("plain", cf_options_)}));
  EXPECT_EQ(Get("merging", "k"), "a,b,d");
}

// Guards against one compaction style for every family: a kCompactionStyleNone family keeps
// its L0 files while a level-style family with the same trigger compacts them.
TEST_F(DBColumnFamilyTest, CompactionStyleIsPerFamily) {
  ColumnFamilyOptions level = cf_options_;
  level.level0_file_num_compaction_trigger = 2;
  ColumnFamilyOptions none = level;
  none.compaction_style = kCompactionStyleNone;
  ColumnFamilyOptions universal = level;
  universal.compaction_style = kCompactionStyleUniversal;
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("level", level),
                      ColumnFamilyDescriptor("none", none),
                      ColumnFamilyDescriptor("universal", universal)}));
  EXPECT_EQ(db_->GetOptions(cf("none")).compaction_style, kCompactionStyleNone);
  EXPECT_EQ(db_->GetOptions(cf("universal")).compaction_style, kCompactionStyleUniversal);
  EXPECT_EQ(db_->GetOptions(cf("level")).compaction_style, kCompactionStyleLevel);
  for (int f = 0; f < 5; f++) {
    for (const char* fam : {"level", "none", "universal"}) {
      for (int i = 0; i < 20; i++) ASSERT_OK(Put(fam, "k" + std::to_string(i * 5 + f), "v"));
      ASSERT_OK(db_->Flush(FlushOptions(), cf(fam)));
    }
  }
  EXPECT_TRUE(WaitFor([&] {
    return TotalFiles(db_.db(), cf("level")) < 5 &&
           TotalFiles(db_.db(), cf("universal")) < 5 &&
           IntProperty(db_.db(), cf("level"), DB::Properties::kNumRunningCompactions) == 0;
  })) << "the level and universal families were not compacted";
  EXPECT_EQ(TotalFiles(db_.db(), cf("none")), 5u) << "a kCompactionStyleNone family compacted";
  for (const char* fam : {"level", "none", "universal"}) {
    EXPECT_EQ(ReadFamily(db_.db(), cf(fam)).size(), 100u) << fam;
  }
}

// Guards against SetOptions changing every family (or the default one whatever the handle),
// and GetOptions reporting the default family's values for every handle.
TEST_F(DBColumnFamilyTest, GetAndSetOptionsAreScopedToTheFamily) {
  ColumnFamilyOptions a = cf_options_;
  a.write_buffer_size = 1 << 20;
  a.level0_file_num_compaction_trigger = 3;
  ColumnFamilyOptions b = cf_options_;
  b.write_buffer_size = 2 << 20;
  b.level0_file_num_compaction_trigger = 5;
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("a", a), ColumnFamilyDescriptor("b", b)}));
  EXPECT_EQ(db_->GetOptions(cf("a")).write_buffer_size, size_t{1} << 20);
  EXPECT_EQ(db_->GetOptions(cf("b")).write_buffer_size, size_t{2} << 20);
  EXPECT_EQ(db_->GetOptions().write_buffer_size, size_t{64} << 10);
  ASSERT_OK(db_->SetOptions(cf("a"), {{"write_buffer_size", "3M"},
                                      {"level0_file_num_compaction_trigger", "7"}}));
  EXPECT_EQ(db_->GetOptions(cf("a")).write_buffer_size, size_t{3} << 20);
  EXPECT_EQ(db_->GetOptions(cf("a")).level0_file_num_compaction_trigger, 7);
  EXPECT_EQ(db_->GetOptions(cf("b")).write_buffer_size, size_t{2} << 20);
  EXPECT_EQ(db_->GetOptions(cf("b")).level0_file_num_compaction_trigger, 5);
  EXPECT_EQ(db_->GetOptions().write_buffer_size, size_t{64} << 10);
  EXPECT_EQ(db_->GetOptions().level0_file_num_compaction_trigger, 4);
  ColumnFamilyDescriptor d;
  ASSERT_OK(cf("a")->GetDescriptor(&d));
  EXPECT_EQ(d.name, "a");
  EXPECT_EQ(d.options.write_buffer_size, size_t{3} << 20);
  ASSERT_OK(cf("b")->GetDescriptor(&d));
  EXPECT_EQ(d.options.write_buffer_size, size_t{2} << 20);
  // The default family through the plain overload.
  ASSERT_OK(db_->SetOptions({{"level0_file_num_compaction_trigger", "9"}}));
  EXPECT_EQ(db_->GetOptions(cf(kDefaultColumnFamilyName)).level0_file_num_compaction_trigger, 9);
  EXPECT_EQ(db_->GetOptions(cf("a")).level0_file_num_compaction_trigger, 7);
}

// Guards against the DB and family option sets being mixed up: SetDBOptions must refuse a
// family option (which family would it change?), SetOptions a DB option; a DB option set
// shows in every family's GetOptions.
TEST_F(DBColumnFamilyTest, SetDBOptionsAndSetOptionsRefuseEachOthersNames) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a"}));
  Status s = db_->SetDBOptions({{"write_buffer_size", "1M"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("write_buffer_size"), std::string::npos) << s.ToString();
  s = db_->SetOptions(cf("a"), {{"max_total_wal_size", "1M"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("max_total_wal_size"), std::string::npos) << s.ToString();
  // All or none: a good name beside a bad one changes nothing.
  s = db_->SetDBOptions({{"max_total_wal_size", "2M"}, {"level0_file_num_compaction_trigger", "8"}});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(db_->GetDBOptions().max_total_wal_size, 0u);
  ASSERT_OK(db_->SetDBOptions({{"max_total_wal_size", "1M"}}));
  EXPECT_EQ(db_->GetDBOptions().max_total_wal_size, uint64_t{1} << 20);
  EXPECT_EQ(db_->GetOptions(cf("a")).max_total_wal_size, uint64_t{1} << 20);
  EXPECT_EQ(db_->GetOptions().max_total_wal_size, uint64_t{1} << 20);
  EXPECT_EQ(db_->GetOptions(cf("a")).write_buffer_size, size_t{64} << 10);
}

// Guards against a family ordered by another comparator (one WAL, one sequence, shared
// snapshots and recovery assume the DB's order) and one with its own block cache (the cache
// is shared: a family's reads would escape the DB's capacity).
TEST_F(DBColumnFamilyTest, AnotherComparatorOrBlockCacheIsRefused) {
  static ReverseComparator reverse;
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  cf_options_.table_options.block_cache = cache;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName}));
  ColumnFamilyOptions other_order = cf_options_;
  other_order.comparator = &reverse;
  ColumnFamilyHandle* handle = nullptr;
  Status s = db_->CreateColumnFamily(other_order, "rev", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  ColumnFamilyOptions other_cache = cf_options_;
  other_cache.table_options.block_cache = NewLRUCache(1 << 20);
  s = db_->CreateColumnFamily(other_cache, "cache", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  // The DB's own cache, or none (the DB's then), are fine.
  ASSERT_OK(db_.Create(cf_options_, "same-cache"));
  ColumnFamilyOptions no_cache = cf_options_;
  no_cache.table_options.block_cache = nullptr;
  ASSERT_OK(db_.Create(no_cache, "no-cache"));
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "same-cache", "no-cache"}));
  // At Open, as a new family, the same.
  ColumnFamilyOptions same = cf_options_;
  s = db_.Open(db_options_, kDBName,
               {ColumnFamilyDescriptor(kDefaultColumnFamilyName, same),
                ColumnFamilyDescriptor("same-cache", same), ColumnFamilyDescriptor("no-cache", same),
                ColumnFamilyDescriptor("rev", other_order)});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// The text of the section `[header]` of an OPTIONS file (to the next section), or "".
std::string Section(const std::string& text, const std::string& header) {
  const std::string start = "[" + header + "]";
  size_t pos = text.find(start);
  if (pos == std::string::npos) return "";
  pos += start.size();
  const size_t end = text.find("\n[", pos);
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

// The value of `name=` in a section's text, or "".
std::string ValueIn(const std::string& section, const std::string& name) {
  const std::string needle = "\n  " + name + "=";
  size_t pos = section.find(needle);
  if (pos == std::string::npos) return "";
  pos += needle.size();
  return section.substr(pos, section.find('\n', pos) - pos);
}

// Guards against an OPTIONS file with only the default family's options (RocksDB's tools and
// LoadLatestOptions expect a [CFOptions "name"] and table section per family, with its values).
TEST_F(DBColumnFamilyTest, OptionsFileHasASectionPerFamily) {
  ColumnFamilyOptions a = cf_options_;
  a.write_buffer_size = 1 << 20;
  a.table_options.block_size = 8 << 10;
  ColumnFamilyOptions b = cf_options_;
  b.write_buffer_size = 2 << 20;
  b.table_options.block_size = 16 << 10;
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("a", a), ColumnFamilyDescriptor("b", b)}));
  auto latest = [&] {
    std::set<uint64_t> numbers = test::FilesOfType(fs_.get(), kDBName, FileType::kOptionsFile);
    EXPECT_FALSE(numbers.empty());
    std::string text;
    std::unique_ptr<SequentialFile> file;
    EXPECT_OK(fs_->NewSequentialFile(OptionsFileName(kDBName, *numbers.rbegin()), &file));
    if (file == nullptr) return text;
    char buf[4096];
    for (;;) {
      std::string_view got;
      EXPECT_OK(file->Read(sizeof(buf), &got, buf));
      if (got.empty()) break;
      text.append(got);
    }
    return text;
  };
  std::string text = latest();
  for (const char* fam : {"default", "a", "b"}) {
    const std::string cf_section = Section(text, std::string("CFOptions \"") + fam + "\"");
    EXPECT_FALSE(cf_section.empty()) << "no [CFOptions \"" << fam << "\"] in\n" << text;
    EXPECT_FALSE(Section(text, std::string("TableOptions/BlockBasedTable \"") + fam + "\"").empty())
        << "no table section for " << fam;
  }
  EXPECT_EQ(ValueIn(Section(text, "CFOptions \"a\""), "write_buffer_size"), "1048576");
  EXPECT_EQ(ValueIn(Section(text, "CFOptions \"b\""), "write_buffer_size"), "2097152");
  EXPECT_EQ(ValueIn(Section(text, "CFOptions \"default\""), "write_buffer_size"), "65536");
  EXPECT_EQ(ValueIn(Section(text, "TableOptions/BlockBasedTable \"b\""), "block_size"), "16384");
  // SetOptions on "a": its section changes, b's does not.
  ASSERT_OK(db_->SetOptions(cf("a"), {{"write_buffer_size", "3M"}}));
  text = latest();
  EXPECT_EQ(ValueIn(Section(text, "CFOptions \"a\""), "write_buffer_size"), "3145728");
  EXPECT_EQ(ValueIn(Section(text, "CFOptions \"b\""), "write_buffer_size"), "2097152");
  // A created family gets a section; a dropped one loses it.
  ASSERT_OK(db_.Create(cf_options_, "c"));
  ASSERT_OK(db_.Drop("b"));
  text = latest();
  EXPECT_FALSE(Section(text, "CFOptions \"c\"").empty()) << text;
  EXPECT_TRUE(Section(text, "CFOptions \"b\"").empty()) << "a dropped family's section:\n" << text;
  // The default family's section comes first (RocksDB's readers expect it).
  EXPECT_LT(text.find("[CFOptions \"default\"]"), text.find("[CFOptions \"a\"]"));
}

// ---------------------------------------------------------------- Introspection

// Guards against properties answered for the default family (or the DB) whatever the handle.
TEST_F(DBColumnFamilyTest, GetPropertyIsPerFamily) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b"}));
  for (int i = 0; i < 100; i++) ASSERT_OK(Put("a", "k" + std::to_string(i), std::string(100, 'a')));
  ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  for (int i = 0; i < 40; i++) ASSERT_OK(Put("b", "k" + std::to_string(i), std::string(1000, 'b')));
  EXPECT_EQ(TotalFiles(db_.db(), cf("a")), 1u);
  EXPECT_EQ(TotalFiles(db_.db(), cf("b")), 0u);
  EXPECT_EQ(TotalFiles(db_.db(), cf(kDefaultColumnFamilyName)), 0u);
  // The level a's table went to (a flush into an empty tree goes to the bottom level).
  int level = 0;
  while (level < 7 && FilesAtLevel(db_.db(), cf("a"), level) == 0) level++;
  ASSERT_LT(level, 7);
  std::string text;
  ASSERT_TRUE(db_->GetProperty(cf("a"), "shale.num-files-at-level" + std::to_string(level), &text));
  EXPECT_EQ(text, "1");
  ASSERT_TRUE(db_->GetProperty(cf("b"), "rocksdb.num-files-at-level" + std::to_string(level), &text));
  EXPECT_EQ(text, "0");
  const uint64_t mem_a = IntProperty(db_.db(), cf("a"), DB::Properties::kCurSizeAllMemTables);
  const uint64_t mem_b = IntProperty(db_.db(), cf("b"), DB::Properties::kCurSizeAllMemTables);
  EXPECT_GT(mem_b, 40000u) << "b's memtable holds ~40 KB";
  EXPECT_LT(mem_a, mem_b) << "a's memtable was flushed";
  EXPECT_EQ(IntProperty(db_.db(), cf("a"), DB::Properties::kEstimateNumKeys), 100u);
  EXPECT_EQ(IntProperty(db_.db(), cf("b"), DB::Properties::kEstimateNumKeys), 40u);
  EXPECT_EQ(IntProperty(db_.db(), cf(kDefaultColumnFamilyName), DB::Properties::kEstimateNumKeys),
            0u);
}

// Guards against GetApproximateSizes measuring the default family (or all) whatever the handle.
TEST_F(DBColumnFamilyTest, GetApproximateSizesIsPerFamily) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "big", "small"}));
  for (int i = 0; i < 1000; i++) {
    char key[16];
    snprintf(key, sizeof(key), "k%05d", i);
    ASSERT_OK(Put("big", key, std::string(1000, 'x')));
    ASSERT_OK(Put("small", key, "x"));
  }
  ASSERT_OK(db_->Flush(FlushOptions(), {cf("big"), cf("small")}));
  Range r("k", "l");
  uint64_t size = 0;
  ASSERT_OK(db_->GetApproximateSizes(cf("big"), &r, 1, &size));
  EXPECT_GT(size, 500u << 10);
  ASSERT_OK(db_->GetApproximateSizes(cf("small"), &r, 1, &size));
  EXPECT_LT(size, 100u << 10);
  EXPECT_GT(size, 0u);
  ASSERT_OK(db_->GetApproximateSizes(&r, 1, &size));
  EXPECT_EQ(size, 0u) << "the default family has no tables";
}

// Guards against Flush(vector) flushing only the first family (or every family), and
// CompactRange(cf) compacting another family.
TEST_F(DBColumnFamilyTest, FlushOfSeveralFamiliesAndCompactRangeOfOne) {
  cf_options_.disable_auto_compactions = true;
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b", "c"}));
  for (int round = 0; round < 3; round++) {
    for (const char* f : {kDefaultColumnFamilyName.c_str(), "a", "b", "c"}) {
      for (int i = 0; i < 20; i++) ASSERT_OK(Put(f, "k" + std::to_string(i * 3 + round), f));
    }
    ASSERT_OK(db_->Flush(FlushOptions(), {cf("a"), cf("b")}));
  }
  EXPECT_EQ(TotalFiles(db_.db(), cf("a")), 3u);
  EXPECT_EQ(TotalFiles(db_.db(), cf("b")), 3u);
  EXPECT_EQ(TotalFiles(db_.db(), cf("c")), 0u);
  EXPECT_EQ(TotalFiles(db_.db(), cf(kDefaultColumnFamilyName)), 0u);
  ASSERT_OK(db_->CompactRange(CompactRangeOptions(), cf("a"), nullptr, nullptr));
  EXPECT_EQ(FilesAtLevel(db_.db(), cf("a"), 0), 0u);
  EXPECT_EQ(TotalFiles(db_.db(), cf("a")), 1u) << "a's three overlapping tables merged into one";
  EXPECT_EQ(TotalFiles(db_.db(), cf("b")), 3u) << "b was compacted by CompactRange(a)";
  EXPECT_EQ(ReadFamily(db_.db(), cf("a")).size(), 60u);
  EXPECT_EQ(ReadFamily(db_.db(), cf("b")).size(), 60u);
  EXPECT_EQ(Get("a", "k0"), "a");
  EXPECT_EQ(Get("b", "k0"), "b");
}

// Guards against an ingested file landing in the default family (or in the wrong family's
// levels) whatever the handle.
TEST_F(DBColumnFamilyTest, IngestExternalFileLandsOnlyInItsFamily) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "a", "b"}));
  ASSERT_OK(Put(kDefaultColumnFamilyName, "i5", "default"));
  ASSERT_OK(Put("a", "i7", "before"));
  SstFileWriter writer(TableOptions(), kNoCompression, BytewiseComparator(), fs_);
  ASSERT_OK(writer.Open("/ingest.sst"));
  for (int i = 0; i < 10; i++) ASSERT_OK(writer.Put("i" + std::to_string(i), "ingested"));
  ASSERT_OK(writer.Finish());
  ASSERT_OK(db_->IngestExternalFile(cf("a"), {"/ingest.sst"}, IngestExternalFileOptions()));
  EXPECT_EQ(Get("a", "i7"), "ingested");
  EXPECT_EQ(ReadFamily(db_.db(), cf("a")).size(), 10u);
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "i5"), "default");
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "i6"), "NOT_FOUND");
  EXPECT_TRUE(ReadFamily(db_.db(), cf("b")).empty());
  EXPECT_GE(TotalFiles(db_.db(), cf("a")), 1u);
  ASSERT_NO_FATAL_FAILURE(Reopen({kDefaultColumnFamilyName, "a", "b"}));
  EXPECT_EQ(Get("a", "i3"), "ingested");
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "i3"), "NOT_FOUND");
  EXPECT_EQ(Get("b", "i3"), "NOT_FOUND");
}

// Guards against the bulk loader writing into the default family (or shaping its files by the
// default family's options) when BulkLoaderOptions::column_family names another.
TEST_F(DBColumnFamilyTest, BulkLoaderLoadsIntoItsFamily) {
  ColumnFamilyOptions small_files = cf_options_;
  small_files.target_file_size_base = 64 << 10;
  ASSERT_OK(db_.Open(db_options_, kDBName,
                     {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                      ColumnFamilyDescriptor("loaded", small_files),
                      ColumnFamilyDescriptor("other", cf_options_)}));
  ASSERT_OK(Put("loaded", "k00001", "old"));
  ASSERT_OK(Put(kDefaultColumnFamilyName, "k00002", "default"));
  BulkLoaderOptions lo;
  lo.column_family = cf("loaded");
  lo.memory_budget = 64 << 10;  // spills: the run files too must end up in the family
  std::unique_ptr<BulkLoader> loader;
  ASSERT_OK(BulkLoader::Open(db_.db(), lo, &loader));
  // Keys in a scrambled order, each twice (the last Add wins).
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < 2000; i++) {
      char key[16];
      snprintf(key, sizeof(key), "k%05d", (i * 7919) % 2000);
      ASSERT_OK(loader->Add(key, std::string(100, pass == 0 ? 'a' : 'b')));
    }
  }
  BulkLoadResult result;
  ASSERT_OK(loader->Finish(&result));
  loader.reset();
  EXPECT_EQ(result.entries_loaded, 2000u);
  EXPECT_GE(result.files, 2u) << "the family's 64 KiB target file size should cut the output";
  std::map<std::string, std::string> got = ReadFamily(db_.db(), cf("loaded"));
  EXPECT_EQ(got.size(), 2000u);
  EXPECT_EQ(got["k00001"], std::string(100, 'b'));
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "k00002"), "default");
  EXPECT_EQ(Get(kDefaultColumnFamilyName, "k00003"), "NOT_FOUND");
  EXPECT_TRUE(ReadFamily(db_.db(), cf("other")).empty());
  EXPECT_GE(TotalFiles(db_.db(), cf("loaded")), 2u);
  EXPECT_EQ(TotalFiles(db_.db(), cf(kDefaultColumnFamilyName)), 0u);
  ASSERT_NO_FATAL_FAILURE(Reopen({kDefaultColumnFamilyName, "loaded", "other"}));
  EXPECT_EQ(ReadFamily(db_.db(), cf("loaded")).size(), 2000u);
  // A handle of another DB (a caller's mistake) is refused, at Open or at Finish, and nothing
  // lands in either DB.
  FamilyDB other;
  ASSERT_OK(other.Open(db_options_, "/otherdb", Descriptors({kDefaultColumnFamilyName, "x"})));
  lo.column_family = other.cf("x");
  Status s = BulkLoader::Open(db_.db(), lo, &loader);
  if (s.ok()) {
    ASSERT_OK(loader->Add("foreign", "v"));
    s = loader->Finish();
    EXPECT_FALSE(s.ok()) << "a load into another DB's family";
    loader.reset();
  }
  EXPECT_EQ(GetText(other.db(), other.cf("x"), "foreign"), "NOT_FOUND");
  for (const char* f : {kDefaultColumnFamilyName.c_str(), "loaded", "other"}) {
    EXPECT_EQ(Get(f, "foreign"), "NOT_FOUND") << f;
  }
}

// Guards against a handle of another open DB (an easy mistake with two DBs and handles kept in
// a map, or through the bindings) being used silently: a write would land in this DB's family
// that has the same id, a read would read the other DB's family under this DB's locks. The
// error text of the handle checks ("null or foreign column family handle") promises the
// refusal; RocksDB leaves it undefined.
TEST_F(DBColumnFamilyTest, ForeignHandleIsInvalidArgument) {
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "mine"}));
  ASSERT_OK(Put("mine", "k", "mine"));
  FamilyDB other;
  ASSERT_OK(other.Open(db_options_, "/otherdb", Descriptors({kDefaultColumnFamilyName, "theirs"})));
  ASSERT_OK(other->Put(WriteOptions(), other.cf("theirs"), "k", "theirs"));
  ASSERT_EQ(cf("mine")->GetID(), other.cf("theirs")->GetID()) << "the test needs equal ids";
  Status s = db_->Put(WriteOptions(), other.cf("theirs"), "foreign", "v");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(Get("mine", "foreign"), "NOT_FOUND") << "a write through another DB's handle landed";
  std::string value;
  s = db_->Get(ReadOptions(), other.cf("theirs"), "k", &value);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString() << " value " << value;
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), other.cf("theirs"));
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
  it.reset();
  s = db_->DropColumnFamily(other.cf("theirs"));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(GetText(other.db(), other.cf("theirs"), "k"), "theirs");
  ASSERT_OK(other.Close());
}

// Guards against Open accepting descriptors that do not describe the DB: without the default
// family, with one name twice (a family created twice by create_missing), or with bad options
// for a family (checked as Open checks Options).
TEST_F(DBColumnFamilyTest, OpenRefusesBadDescriptors) {
  Status s = TryOpen({"a", "b"});
  EXPECT_TRUE(s.IsInvalidArgument()) << "no default family: " << s.ToString();
  s = TryOpen({kDefaultColumnFamilyName, "x", "x"});
  if (s.ok()) {
    // Accepted (RocksDB gives two handles of the one family): then there is one "x".
    EXPECT_EQ(cf("x")->GetID(), cf("x")->GetID());
    ASSERT_OK(db_.Close());
    EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "x"}));
  } else {
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  }
  ColumnFamilyOptions bad = cf_options_;
  bad.num_levels = 100;  // above the 64 a MANIFEST records
  s = db_.Open(db_options_, kDBName,
               {ColumnFamilyDescriptor(kDefaultColumnFamilyName, cf_options_),
                ColumnFamilyDescriptor("bad", bad)});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_NO_FATAL_FAILURE(Open({kDefaultColumnFamilyName, "x"}));
  ColumnFamilyHandle* handle = nullptr;
  s = db_->CreateColumnFamily(bad, "bad", &handle);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(handle, nullptr);
  ASSERT_OK(db_.Close());
  EXPECT_EQ(List(), (std::vector<std::string>{kDefaultColumnFamilyName, "x"}));
}

// Guards against a checkpoint that copies the default family only (its MANIFEST or tables),
// or loses the families' unflushed writes.
TEST_F(DBColumnFamilyTest, CheckpointHoldsEveryFamily) {
  const std::vector<std::string> fams = {kDefaultColumnFamilyName, "a", "b"};
  ASSERT_NO_FATAL_FAILURE(Open(fams));
  ASSERT_OK(db_.Create(cf_options_, "dropped"));
  ASSERT_OK(Put("dropped", "k", "gone"));
  ASSERT_OK(db_.Drop("dropped"));
  db_.Release("dropped");
  // Dropped, its handle still held (its data still readable): not part of a checkpoint either.
  ASSERT_OK(db_.Create(cf_options_, "held"));
  ASSERT_OK(Put("held", "k", "held"));
  ASSERT_OK(db_->Flush(FlushOptions(), cf("held")));
  ASSERT_OK(Put("held", "k2", "held"));
  ASSERT_OK(db_.Drop("held"));
  for (const std::string& f : fams) {
    for (int i = 0; i < 50; i++) ASSERT_OK(Put(f, "t" + std::to_string(i), f + "-table"));
  }
  ASSERT_OK(db_->Flush(FlushOptions(), cf("a")));
  for (const std::string& f : fams) ASSERT_OK(Put(f, "mem", f + "-mem"));
  // First with the WALs copied (the families' unflushed writes and the dropped family's
  // records are replayed by the copy), then with the memtables flushed.
  for (uint64_t log_size_for_flush : {uint64_t{1} << 30, uint64_t{0}}) {
    SCOPED_TRACE("log_size_for_flush " + std::to_string(log_size_for_flush));
    const std::string dir = "/cp" + std::to_string(log_size_for_flush);
    std::unique_ptr<Checkpoint> checkpoint;
    ASSERT_OK(Checkpoint::Create(db_.db(), &checkpoint));
    ASSERT_OK(checkpoint->CreateCheckpoint(dir, log_size_for_flush));
    std::vector<std::string> names;
    ASSERT_OK(DB::ListColumnFamilies(db_options_, dir, &names));
    EXPECT_EQ(names, fams);
    DBOptions cp_options = db_options_;
    cp_options.create_missing_column_families = false;
    cp_options.create_if_missing = false;
    FamilyDB cp;
    ASSERT_OK(cp.Open(cp_options, dir, Descriptors(fams, cf_options_)));
    for (const std::string& f : fams) {
      auto got = ReadFamily(cp.db(), cp.cf(f));
      EXPECT_EQ(got.size(), 51u) << f;
      EXPECT_EQ(got["t7"], f + "-table") << f;
      EXPECT_EQ(got["mem"], f + "-mem") << f;
    }
    ASSERT_OK(cp.Close());
  }
  EXPECT_EQ(Get("held", "k2"), "held");
  db_.Release("held");
}

}  // namespace
}  // namespace shale
