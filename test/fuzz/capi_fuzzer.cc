// libFuzzer entry point for the C ABI (include/shale/c.h): the input is decoded into a sequence
// of calls (put, delete, delete_range, batches, gets, multi_get, iterator moves, snapshots,
// flush, compact_range, close and reopen) on a DB, and every read is checked against a
// std::map model of what the DB must hold. Any error from a call that must succeed, and any
// disagreement with the model, aborts (the fuzzer reports it as a crash).
//
// The DB lives on the in-memory file system: the C ABI has no call to choose one, so the options
// handle's C++ options are reached through capi/c_handles.h (only for that; every other step goes
// through the C functions). Keys come from a small space so that calls collide.
//
// Empty range deletions ([k, k), a no-op) are issued too: they once made a flushed table's
// bounds inverted (regressions/capi_empty_delete_range; fixed in build_table.cc).
// SHALE_FUZZ_EMPTY_RANGES=0 leaves them out.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capi/c_handles.h"
#include "shale/c.h"
#include "shale/file_system.h"

namespace {

using Model = std::map<std::string, std::string>;

constexpr int kMaxCalls = 200;
constexpr const char* kDbName = "/fuzzdb";

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "capi_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

// Aborts if a call that must succeed set *err.
void CheckNoError(char* err, const char* what) {
  if (err != nullptr) {
    std::fprintf(stderr, "capi_fuzzer: %s failed: %s\n", what, err);
    std::abort();
  }
}

std::string NextKey(FuzzedDataProvider* in) {
  char key[8];
  std::snprintf(key, sizeof(key), "k%02u", in->ConsumeIntegralInRange<unsigned>(0, 63));
  return key;
}

std::string NextValue(FuzzedDataProvider* in) {
  std::string v = in->ConsumeRandomLengthString(24);
  // Now and then a large value, so that memtables fill and flush on their own.
  if (in->ConsumeIntegralInRange<int>(0, 15) == 0) v.append(8000, 'x');
  return v;
}

bool EmptyRangesAllowed() {
  static const bool allowed = [] {
    const char* env = std::getenv("SHALE_FUZZ_EMPTY_RANGES");
    return env == nullptr || std::string(env) != "0";
  }();
  return allowed;
}

void EraseRange(Model* model, const std::string& begin, const std::string& end) {
  model->erase(model->lower_bound(begin), model->lower_bound(end));
}

// The handles of one fuzzing run, released in the right order by the destructor.
class Session {
 public:
  explicit Session(FuzzedDataProvider* in) : in_(in) {
    options_ = shale_options_create();
    options_->rep.file_system = shale::NewMemFileSystem();
    shale_options_set_create_if_missing(options_, 1);
    shale_options_set_write_buffer_size(options_, 64 << 10);
    shale_options_set_disable_auto_compactions(options_, in->ConsumeBool());
    shale_options_set_level0_file_num_compaction_trigger(options_, 2);
    write_options_ = shale_writeoptions_create();
    read_options_ = shale_readoptions_create();
    Open();
  }
  ~Session() {
    Close();
    shale_readoptions_destroy(read_options_);
    shale_writeoptions_destroy(write_options_);
    shale_options_destroy(options_);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Step();

 private:
  void Open() {
    char* err = nullptr;
    db_ = shale_open(options_, kDbName, &err);
    CheckNoError(err, "shale_open");
  }
  void Close() {
    ReleaseSnapshot();
    shale_close(db_);
    db_ = nullptr;
  }
  void ReleaseSnapshot() {
    if (snapshot_ == nullptr) return;
    shale_release_snapshot(db_, snapshot_);
    snapshot_ = nullptr;
    snapshot_model_.reset();
  }

  void Put();
  void DeleteRange();
  void Batch();
  void Get(const shale_snapshot_t* snapshot, const Model& model);
  void MultiGet();
  void Iterate(const shale_snapshot_t* snapshot, const Model& model);

  FuzzedDataProvider* const in_;
  shale_options_t* options_ = nullptr;
  shale_writeoptions_t* write_options_ = nullptr;
  shale_readoptions_t* read_options_ = nullptr;
  shale_t* db_ = nullptr;
  Model model_;
  // At most one snapshot, and the model as it was when it was taken.
  const shale_snapshot_t* snapshot_ = nullptr;
  std::optional<Model> snapshot_model_;
};

void Session::Put() {
  std::string k = NextKey(in_), v = NextValue(in_);
  char* err = nullptr;
  shale_put(db_, write_options_, k.data(), k.size(), v.data(), v.size(), &err);
  CheckNoError(err, "shale_put");
  model_[k] = v;
}

void Session::DeleteRange() {
  std::string b = NextKey(in_), e = NextKey(in_);
  if (b == e && !EmptyRangesAllowed()) return;
  char* err = nullptr;
  shale_delete_range(db_, write_options_, b.data(), b.size(), e.data(), e.size(), &err);
  if (e < b) {
    Check(err != nullptr, "shale_delete_range with end < start fails");
    shale_free(err);
    return;
  }
  CheckNoError(err, "shale_delete_range");
  EraseRange(&model_, b, e);
}

void Session::Batch() {
  shale_writebatch_t* batch = shale_writebatch_create();
  Model after = model_;
  const int n = in_->ConsumeIntegralInRange<int>(0, 8);
  int added = 0;
  for (int i = 0; i < n; i++) {
    std::string k = NextKey(in_);
    switch (in_->ConsumeIntegralInRange<int>(0, 2)) {
      case 0: {
        std::string v = NextValue(in_);
        shale_writebatch_put(batch, k.data(), k.size(), v.data(), v.size());
        after[k] = v;
        break;
      }
      case 1:
        shale_writebatch_delete(batch, k.data(), k.size());
        after.erase(k);
        break;
      default: {
        std::string e = NextKey(in_);
        if (e < k) std::swap(k, e);
        if (k == e && !EmptyRangesAllowed()) continue;
        shale_writebatch_delete_range(batch, k.data(), k.size(), e.data(), e.size());
        EraseRange(&after, k, e);
        break;
      }
    }
    added++;
  }
  Check(shale_writebatch_count(batch) == added, "shale_writebatch_count");
  char* err = nullptr;
  shale_write(db_, write_options_, batch, &err);
  CheckNoError(err, "shale_write");
  shale_writebatch_destroy(batch);
  model_ = std::move(after);
}

void Session::Get(const shale_snapshot_t* snapshot, const Model& model) {
  std::string k = NextKey(in_);
  shale_readoptions_set_snapshot(read_options_, snapshot);
  size_t len = 0;
  char* err = nullptr;
  char* v = shale_get(db_, read_options_, k.data(), k.size(), &len, &err);
  shale_readoptions_set_snapshot(read_options_, nullptr);
  CheckNoError(err, "shale_get");
  auto it = model.find(k);
  Check((v != nullptr) == (it != model.end()), "shale_get finds exactly the model's keys");
  if (v != nullptr) Check(std::string(v, len) == it->second, "shale_get returns the value");
  shale_free(v);
}

void Session::MultiGet() {
  std::vector<std::string> keys;
  const int n = in_->ConsumeIntegralInRange<int>(1, 4);
  for (int i = 0; i < n; i++) keys.push_back(NextKey(in_));
  std::vector<const char*> ptrs;
  std::vector<size_t> sizes;
  for (const std::string& k : keys) {
    ptrs.push_back(k.data());
    sizes.push_back(k.size());
  }
  std::vector<char*> values(n), errs(n);
  std::vector<size_t> value_sizes(n);
  shale_multi_get(db_, read_options_, n, ptrs.data(), sizes.data(), values.data(),
                  value_sizes.data(), errs.data());
  for (int i = 0; i < n; i++) {
    CheckNoError(errs[i], "shale_multi_get");
    auto it = model_.find(keys[i]);
    Check((values[i] != nullptr) == (it != model_.end()), "shale_multi_get finds the keys");
    if (values[i] != nullptr) {
      Check(std::string(values[i], value_sizes[i]) == it->second, "shale_multi_get values");
    }
    shale_free(values[i]);
  }
}

// Moves an iterator as the input says and checks each position against the model (the state at
// the iterator's creation, which is also what a snapshot iterator sees).
void Session::Iterate(const shale_snapshot_t* snapshot, const Model& model) {
  shale_readoptions_set_snapshot(read_options_, snapshot);
  shale_iterator_t* iter = shale_create_iterator(db_, read_options_);
  shale_readoptions_set_snapshot(read_options_, nullptr);
  const Model frozen = model;  // later writes in this session must not show
  auto pos = frozen.end();
  const int moves = in_->ConsumeIntegralInRange<int>(1, 12);
  for (int i = 0; i < moves; i++) {
    std::string k = NextKey(in_);
    switch (in_->ConsumeIntegralInRange<int>(0, 5)) {
      case 0:
        shale_iter_seek_to_first(iter);
        pos = frozen.begin();
        break;
      case 1:
        shale_iter_seek_to_last(iter);
        pos = frozen.empty() ? frozen.end() : std::prev(frozen.end());
        break;
      case 2:
        shale_iter_seek(iter, k.data(), k.size());
        pos = frozen.lower_bound(k);
        break;
      case 3: {
        shale_iter_seek_for_prev(iter, k.data(), k.size());
        auto up = frozen.upper_bound(k);
        pos = up == frozen.begin() ? frozen.end() : std::prev(up);
        break;
      }
      case 4:
        shale_iter_next(iter);
        if (pos != frozen.end()) ++pos;
        break;
      default:
        shale_iter_prev(iter);
        if (pos != frozen.end()) pos = pos == frozen.begin() ? frozen.end() : std::prev(pos);
        break;
    }
    char* err = nullptr;
    shale_iter_get_error(iter, &err);
    CheckNoError(err, "iterator");
    Check(shale_iter_valid(iter) == (pos != frozen.end()), "iterator validity");
    if (pos == frozen.end()) continue;
    size_t klen = 0, vlen = 0;
    const char* key = shale_iter_key(iter, &klen);
    const char* value = shale_iter_value(iter, &vlen);
    Check(std::string(key, klen) == pos->first, "iterator key");
    Check(std::string(value, vlen) == pos->second, "iterator value");
  }
  shale_iter_destroy(iter);
}

void Session::Step() {
  char* err = nullptr;
  switch (in_->ConsumeIntegralInRange<int>(0, 13)) {
    case 0:
    case 1:
      Put();
      break;
    case 2: {
      std::string k = NextKey(in_);
      shale_delete(db_, write_options_, k.data(), k.size(), &err);
      CheckNoError(err, "shale_delete");
      model_.erase(k);
      break;
    }
    case 3:
      DeleteRange();
      break;
    case 4:
      Batch();
      break;
    case 5:
      Get(nullptr, model_);
      break;
    case 6:
      MultiGet();
      break;
    case 7:
      Iterate(nullptr, model_);
      break;
    case 8: {
      shale_flushoptions_t* flush = shale_flushoptions_create();
      shale_flush(db_, flush, &err);
      shale_flushoptions_destroy(flush);
      CheckNoError(err, "shale_flush");
      break;
    }
    case 9: {
      std::string b = NextKey(in_), e = NextKey(in_);
      bool open_begin = in_->ConsumeBool(), open_end = in_->ConsumeBool();
      shale_compact_range(db_, open_begin ? nullptr : b.data(), b.size(),
                          open_end ? nullptr : e.data(), e.size());
      break;
    }
    case 10:
      ReleaseSnapshot();
      snapshot_ = shale_create_snapshot(db_);
      snapshot_model_ = model_;
      break;
    case 11:
      if (snapshot_ == nullptr) break;
      if (in_->ConsumeBool()) {
        Get(snapshot_, *snapshot_model_);
      } else {
        Iterate(snapshot_, *snapshot_model_);
      }
      break;
    case 12:
      ReleaseSnapshot();
      break;
    default:
      Close();
      Open();
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Session session(&in);
  for (int i = 0; i < kMaxCalls && in.remaining_bytes() > 0; i++) session.Step();
  return 0;
}
