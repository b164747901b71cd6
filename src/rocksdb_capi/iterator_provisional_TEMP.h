// PROVISIONAL, REPLACED AT THE MERGE: the db engineer's src/rocksdb_capi/iterator.h defines
// rocksdb_iterator_t. Until it is on this branch, the batch group's files include this file,
// which defines the same struct (the agreed shape); the merge deletes this file and points
// the includes at rocksdb_capi/iterator.h.
#ifndef SHALE_ROCKSDB_CAPI_ITERATOR_PROVISIONAL_TEMP_H_
#define SHALE_ROCKSDB_CAPI_ITERATOR_PROVISIONAL_TEMP_H_

#include <memory>

#include "rocksdb/c.h"
#include "shale/iterator.h"

// `bounds`: copies of the iterate bounds, kept alive as long as the iterator reads them.
struct rocksdb_iterator_t {
  std::shared_ptr<const void> bounds;
  std::unique_ptr<shale::Iterator> rep;
};

#endif  // SHALE_ROCKSDB_CAPI_ITERATOR_PROVISIONAL_TEMP_H_
