// The helpers of batch.h: save points, slice concatenation and the C-callback iteration.
#include <cstring>
#include <string>
#include <utility>

#include "rocksdb_capi/batch.h"
#include "rocksdb_capi/handles.h"

namespace shale::rocksdb_capi {

namespace {

// The offset of the record count in the serialized header (after the fixed64 sequence).
constexpr size_t kCountOffset = 8;
constexpr size_t kHeaderSize = 12;

// Receives the records for IterateWithCallbacks. The default-family methods of RocksDB's
// Handler that the C API overrides are Put and Delete; the others do nothing; a record of
// another family, or a range deletion, ends the iteration with an error (which the C API drops).
class CallbackHandler : public WriteBatch::Handler {
 public:
  CallbackHandler(void* state, void (*put)(void*, const char*, size_t, const char*, size_t),
                  void (*deleted)(void*, const char*, size_t))
      : state_(state), put_(put), deleted_(deleted) {}

  Status Put(std::string_view key, std::string_view value) override {
    if (put_ != nullptr) put_(state_, key.data(), key.size(), value.data(), value.size());
    return Status::OK();
  }
  Status Delete(std::string_view key) override {
    if (deleted_ != nullptr) deleted_(state_, key.data(), key.size());
    return Status::OK();
  }
  Status SingleDelete(std::string_view) override { return Status::OK(); }
  Status DeleteRange(std::string_view, std::string_view) override {
    return Status::InvalidArgument("DeleteRangeCF not implemented");
  }
  Status Merge(std::string_view, std::string_view) override { return Status::OK(); }

 private:
  void* state_;
  void (*put_)(void*, const char*, size_t, const char*, size_t);
  void (*deleted_)(void*, const char*, size_t);
};

}  // namespace

BatchSavePoint MakeSavePoint(const WriteBatch& batch) {
  return BatchSavePoint{batch.GetDataSize(), batch.Count()};
}

void TruncateBatch(WriteBatch* batch, const BatchSavePoint& point) {
  if (point.size < kHeaderSize) {
    batch->Clear();
    return;
  }
  std::string data = batch->Data().substr(0, point.size);
  for (size_t i = 0; i < 4; ++i) {
    data[kCountOffset + i] = static_cast<char>((point.count >> (8 * i)) & 0xff);
  }
  *batch = WriteBatch(std::move(data));
}

std::string Concat(int n, const char* const* list, const size_t* sizes) {
  std::string out;
  if (n <= 0 || list == nullptr || sizes == nullptr) return out;
  for (int i = 0; i < n; ++i) {
    if (sizes[i] != 0) out.append(list[i], sizes[i]);
  }
  return out;
}

void IterateWithCallbacks(const WriteBatch& batch, void* state,
                          void (*put)(void*, const char*, size_t, const char*, size_t),
                          void (*deleted)(void*, const char*, size_t)) {
  CallbackHandler handler(state, put, deleted);
  // RocksDB's rocksdb_writebatch_iterate drops the status too: the callbacks have seen the
  // records before the one that stopped it.
  batch.Iterate(&handler).PermitUncheckedError();
}

uint32_t FamilyId(const rocksdb_column_family_handle_t* column_family) {
  if (column_family == nullptr || column_family->rep == nullptr) return 0;
  return column_family->rep->GetID();
}

}  // namespace shale::rocksdb_capi
