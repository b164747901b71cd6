// The C ABI of write options, flush options and write batches (include/shale/c.h).
#include <utility>

#include "capi/c_handles.h"
#include "shale/limits.h"

using shale::capi::View;

// The C ABI's size-limit macros are the engine's limits.
static_assert(SHALE_MAX_KEY_SIZE == shale::kMaxKeySize);
static_assert(SHALE_MAX_VALUE_SIZE == shale::kMaxValueSize);
static_assert(SHALE_MAX_WRITE_BATCH_SIZE == shale::kMaxWriteBatchSize);
static_assert(SHALE_MAX_TABLE_BLOCK_SIZE == shale::kMaxTableBlockSizeOption);

namespace {

// Keeps the first error of a batch update (see shale_writebatch_t::error).
void KeepFirstError(shale_writebatch_t* batch, shale::Status s) {
  if (batch->error.ok()) batch->error = std::move(s);
}

}  // namespace

extern "C" {

shale_writeoptions_t* shale_writeoptions_create(void) { return new shale_writeoptions_t; }

void shale_writeoptions_destroy(shale_writeoptions_t* options) { delete options; }

void shale_writeoptions_set_sync(shale_writeoptions_t* options, unsigned char v) {
  options->rep.sync = v != 0;
}

void shale_writeoptions_disable_WAL(shale_writeoptions_t* options, int disable) {
  options->rep.disableWAL = disable != 0;
}

shale_flushoptions_t* shale_flushoptions_create(void) { return new shale_flushoptions_t; }

void shale_flushoptions_destroy(shale_flushoptions_t* options) { delete options; }

void shale_flushoptions_set_wait(shale_flushoptions_t* options, unsigned char v) {
  options->rep.wait = v != 0;
}

// ---------------------------------------------------------------- Write batch

shale_writebatch_t* shale_writebatch_create(void) { return new shale_writebatch_t; }

void shale_writebatch_destroy(shale_writebatch_t* batch) { delete batch; }

void shale_writebatch_clear(shale_writebatch_t* batch) {
  batch->rep.Clear();
  batch->error = shale::Status::OK();
}

int shale_writebatch_count(shale_writebatch_t* batch) {
  return static_cast<int>(batch->rep.Count());
}

void shale_writebatch_put(shale_writebatch_t* batch, const char* key, size_t klen,
                          const char* val, size_t vlen) {
  KeepFirstError(batch, batch->rep.Put(View(key, klen), View(val, vlen)));
}

void shale_writebatch_delete(shale_writebatch_t* batch, const char* key, size_t klen) {
  KeepFirstError(batch, batch->rep.Delete(View(key, klen)));
}

void shale_writebatch_delete_range(shale_writebatch_t* batch, const char* start_key,
                                   size_t start_key_len, const char* end_key,
                                   size_t end_key_len) {
  KeepFirstError(batch, batch->rep.DeleteRange(View(start_key, start_key_len),
                                               View(end_key, end_key_len)));
}

}  // extern "C"
