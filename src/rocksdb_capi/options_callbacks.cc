// The setters of rocksdb_options_t that take the C-callback objects of the table group
// (rocksdb_capi/callbacks.h): comparator and merge operator, which ShaleDB has; the prefix
// extractor, kept for the DB's iterators (prefix_iterator.h); compaction filters and their
// factories (ColumnFamilyOptions::compaction_filter / compaction_filter_factory).
//
// Ownership is RocksDB's:
//   - the comparator is borrowed: the caller keeps it alive while any DB uses it and destroys it
//     with rocksdb_comparator_destroy;
//   - the merge operator, the prefix extractor and the compaction filter factory pass to the
//     options (destroyed with the last copy of the options, or of a DB opened with them);
//   - the compaction filter is borrowed.
//
// Thread-safety: as options.cc.
#include <memory>

#include "rocksdb/c.h"
#include "rocksdb_capi/callbacks.h"
#include "rocksdb_capi/handles.h"
#include "rocksdb_capi/options_internal.h"
#include "shale/compaction_filter.h"
#include "shale/comparator.h"
#include "shale/merge_operator.h"


extern "C" {

// NULL restores the bytewise order (RocksDB would store NULL and crash at open).
void rocksdb_options_set_comparator(rocksdb_options_t* opt, rocksdb_comparator_t* cmp) {
  opt->rep.comparator =
      cmp != nullptr ? static_cast<const shale::Comparator*>(cmp) : shale::BytewiseComparator();
}

void rocksdb_options_set_merge_operator(rocksdb_options_t* opt,
                                        rocksdb_mergeoperator_t* merge_operator) {
  opt->rep.merge_operator = std::shared_ptr<shale::MergeOperator>(merge_operator);
}

// Takes the transform (RocksDB's rule), releasing one set before; NULL removes it. ShaleDB's
// engine has no prefix bloom filters or prefix seek (they only save I/O in RocksDB): the DB
// handles keep the extractor for what a client sees of it, prefix_same_as_start iterators
// (prefix_iterator.h).
void rocksdb_options_set_prefix_extractor(rocksdb_options_t* opt,
                                          rocksdb_slicetransform_t* prefix_extractor) {
  if (prefix_extractor == nullptr) {
    opt->prefix_extractor.reset();
    return;
  }
  opt->prefix_extractor = std::shared_ptr<rocksdb_slicetransform_t>(
      prefix_extractor, [](rocksdb_slicetransform_t* p) { rocksdb_slicetransform_destroy(p); });
}

// Borrowed (RocksDB's rule): the caller keeps the filter alive while any DB opened with these
// options (or a copy) may compact, and destroys it with rocksdb_compactionfilter_destroy. NULL
// removes it. Wins over a factory (shale/options.h).
void rocksdb_options_set_compaction_filter(rocksdb_options_t* opt,
                                           rocksdb_compactionfilter_t* filter) {
  opt->rep.compaction_filter = filter;
}

// Takes the factory (RocksDB's rule): destroyed with the last copy of the options, or of a DB
// opened with them; NULL removes it.
void rocksdb_options_set_compaction_filter_factory(rocksdb_options_t* opt,
                                                   rocksdb_compactionfilterfactory_t* factory) {
  if (factory == nullptr) {
    opt->rep.compaction_filter_factory.reset();
    return;
  }
  opt->rep.compaction_filter_factory = std::shared_ptr<shale::CompactionFilterFactory>(
      factory, [](shale::CompactionFilterFactory* p) {
        rocksdb_compactionfilterfactory_destroy(static_cast<rocksdb_compactionfilterfactory_t*>(p));
      });
}

}  // extern "C"
