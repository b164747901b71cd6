// FilterPolicy: which filter a table stores for its keys, so that point lookups skip tables
// (or filter partitions) that cannot hold the key. ShaleDB's filter is a cache-line-local bloom
// filter on the user key: each key's probes fall in one 64-byte cache line, so a lookup costs
// one cache miss.
//
// Thread-safety: immutable after construction; share one policy among many options and DBs.
#ifndef SHALE_FILTER_POLICY_H_
#define SHALE_FILTER_POLICY_H_

#include <memory>

#include "shale/export.h"

namespace shale {

class SHALE_EXPORT FilterPolicy {
 public:
  virtual ~FilterPolicy();
  // Stored in table properties; "shale.CacheLocalBloomFilter".
  virtual const char* Name() const = 0;
  // Bits of filter per key (10 gives about a 1% false-positive rate).
  virtual double bits_per_key() const = 0;
};

// A cache-line-local bloom filter with `bits_per_key` bits per key. Values below 1 are raised
// to 1 and above 100 lowered to 100 (RocksDB's behaviour); fractional values are honoured.
SHALE_EXPORT std::shared_ptr<const FilterPolicy> NewBloomFilterPolicy(double bits_per_key);

}  // namespace shale

#endif  // SHALE_FILTER_POLICY_H_
