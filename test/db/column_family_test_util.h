// Helpers for the column-family tests (db_column_family*_test.cc): a DB opened with its
// families that owns their handles, and small readers of a DB directory and of a family.
//
// Thread-safety: FamilyDB is used by one test thread at a time for Open/Close/Create/Drop;
// between those, its DB and handles may be used from any thread (as DB's are). The free
// functions are as thread-safe as the DB and FileSystem calls they make.
#ifndef SHALE_TEST_DB_COLUMN_FAMILY_TEST_UTIL_H_
#define SHALE_TEST_DB_COLUMN_FAMILY_TEST_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/filename.h"
#include "gtest/gtest.h"
#include "shale/db.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"

namespace shale::test {

// Waits (up to 20 s) until pred() holds; returns whether it did.
template <typename Pred>
bool WaitFor(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// The numbers of the files of `type` in directory `dbname`.
inline std::set<uint64_t> FilesOfType(FileSystem* fs, const std::string& dbname, FileType type) {
  std::vector<std::string> names;
  EXPECT_OK(fs->GetChildren(dbname, &names));
  std::set<uint64_t> numbers;
  for (const std::string& name : names) {
    uint64_t number;
    FileType t;
    if (ParseFileName(name, &number, &t) && t == type) numbers.insert(number);
  }
  return numbers;
}

// Every key and value a family holds now (a forward scan), or the scan's error as a failure.
inline std::map<std::string, std::string> ReadFamily(DB* db, ColumnFamilyHandle* cf,
                                                     const Snapshot* snapshot = nullptr) {
  std::map<std::string, std::string> out;
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<Iterator> it = db->NewIterator(ro, cf);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace(std::string(it->key()), std::string(it->value()));
  }
  EXPECT_OK(it->status());
  return out;
}

// Get as text: the value, "NOT_FOUND", or the error.
inline std::string GetText(DB* db, ColumnFamilyHandle* cf, std::string_view key,
                           const Snapshot* snapshot = nullptr) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::string value;
  Status s = db->Get(ro, cf, key, &value);
  if (s.IsNotFound()) return "NOT_FOUND";
  if (!s.ok()) return "ERROR: " + s.ToString();
  return value;
}

// An integer property of a family (a failure, and UINT64_MAX, when it is unknown).
inline uint64_t IntProperty(DB* db, ColumnFamilyHandle* cf, std::string_view property) {
  uint64_t value = UINT64_MAX;
  EXPECT_TRUE(db->GetIntProperty(cf, property, &value)) << property;
  return value;
}

inline uint64_t FilesAtLevel(DB* db, ColumnFamilyHandle* cf, int level) {
  return IntProperty(db, cf,
                     std::string(DB::Properties::kNumFilesAtLevelPrefix) + std::to_string(level));
}

// Table files of a family over all its levels. (A flush whose keys overlap nothing goes to
// the lowest level that has room, not always to L0: count every level where the number of
// flushes is what matters.)
inline uint64_t TotalFiles(DB* db, ColumnFamilyHandle* cf) {
  const int levels = db->GetOptions(cf).num_levels;
  uint64_t n = 0;
  for (int level = 0; level < levels; level++) n += FilesAtLevel(db, cf, level);
  return n;
}

// A DB with its column families: owns the DB and one handle per family it opened or created,
// by name. Close() (and the destructor) destroys the handles, then closes the DB.
class FamilyDB {
 public:
  FamilyDB() = default;
  FamilyDB(const FamilyDB&) = delete;
  FamilyDB& operator=(const FamilyDB&) = delete;
  // A test that ends early (a failed assertion) still releases the handles before the DB.
  ~FamilyDB() { Close().PermitUncheckedError(); }

  // Opens `dbname` with `families` (closing the DB open before, if any); keeps the handles by
  // name. A failed Open leaves no DB.
  Status Open(const DBOptions& db_options, const std::string& dbname,
              const std::vector<ColumnFamilyDescriptor>& families) {
    EXPECT_OK(Close());
    std::vector<ColumnFamilyHandle*> handles;
    Status s = DB::Open(db_options, dbname, families, &handles, &db_);
    if (!s.ok()) {
      EXPECT_TRUE(handles.empty()) << "a failed Open left handles";
      EXPECT_EQ(db_, nullptr) << "a failed Open left a DB";
      return s;
    }
    EXPECT_EQ(handles.size(), families.size());
    for (size_t i = 0; i < handles.size() && i < families.size(); i++) {
      EXPECT_EQ(handles[i]->GetName(), families[i].name) << "handle " << i;
      handles_[families[i].name] = handles[i];
    }
    return s;
  }

  // Creates a family and keeps its handle.
  Status Create(const ColumnFamilyOptions& options, const std::string& name) {
    ColumnFamilyHandle* handle = nullptr;
    Status s = db_->CreateColumnFamily(options, name, &handle);
    if (s.ok()) {
      EXPECT_NE(handle, nullptr);
      handles_[name] = handle;
    }
    return s;
  }

  // Drops a family; keeps its handle (see Release).
  Status Drop(const std::string& name) { return db_->DropColumnFamily(cf(name)); }

  // Destroys the handle of `name`.
  void Release(const std::string& name) {
    auto it = handles_.find(name);
    ASSERT_NE(it, handles_.end()) << name;
    EXPECT_OK(db_->DestroyColumnFamilyHandle(it->second));
    handles_.erase(it);
  }

  Status Close() {
    if (db_ == nullptr) return Status::OK();
    for (auto& [name, handle] : handles_) EXPECT_OK(db_->DestroyColumnFamilyHandle(handle));
    handles_.clear();
    Status s = db_->Close();
    db_.reset();
    return s;
  }

  // Destroys the handles and the DB without Close (a crash, when the file system is off).
  void Abandon() {
    for (auto& [name, handle] : handles_) delete handle;
    handles_.clear();
    db_.reset();
  }

  DB* db() const { return db_.get(); }
  DB* operator->() const { return db_.get(); }
  ColumnFamilyHandle* cf(const std::string& name) const {
    auto it = handles_.find(name);
    EXPECT_NE(it, handles_.end()) << "no handle for " << name;
    return it == handles_.end() ? nullptr : it->second;
  }
  bool has(const std::string& name) const { return handles_.count(name) != 0; }

 private:
  std::unique_ptr<DB> db_;
  std::map<std::string, ColumnFamilyHandle*> handles_;
};

// Descriptors for `names`, all with `options`.
inline std::vector<ColumnFamilyDescriptor> Descriptors(const std::vector<std::string>& names,
                                                       const ColumnFamilyOptions& options = {}) {
  std::vector<ColumnFamilyDescriptor> out;
  for (const std::string& name : names) out.emplace_back(name, options);
  return out;
}

}  // namespace shale::test

#endif  // SHALE_TEST_DB_COLUMN_FAMILY_TEST_UTIL_H_
