// The objects of RocksDB's C API that a client builds from C callbacks: comparators, merge
// operators, slice transforms (prefix extractors), compaction filters, their factories and the
// context a factory is given. Included by every group that takes one of them (the options'
// setters, the DB's opens).
//
// Each object keeps the client's `state` and calls the client's `destructor(state)` exactly once,
// when the object itself is deleted. Who deletes it is RocksDB's rule (c.h):
//   - comparator: the caller, with rocksdb_comparator_destroy, after every DB using it is
//     closed (rocksdb_options_set_comparator only borrows it);
//   - merge operator: the options, once rocksdb_options_set_merge_operator has taken it (the
//     options and every DB opened with them share it; the last one deletes it); before that,
//     the caller with rocksdb_mergeoperator_destroy;
//   - slice transform: the options, once rocksdb_options_set_prefix_extractor has taken it;
//   - compaction filter: the caller (rocksdb_options_set_compaction_filter borrows it); a
//     filter returned by a factory's callback belongs to the engine, which deletes it after
//     the compaction;
//   - compaction filter factory: the options, once rocksdb_options_set_compaction_filter_factory
//     has taken it.
//
// rocksdb_comparator_t and rocksdb_mergeoperator_t are ShaleDB's own interfaces
// (shale::Comparator, shale::MergeOperator): the engine calls the client's callbacks through
// them. A slice transform is called by the prefix_same_as_start iterators of the C API
// (prefix_iterator.h); the engine has no prefix extractor. rocksdb_compactionfilter_t and
// rocksdb_compactionfilterfactory_t are shale::CompactionFilter / CompactionFilterFactory
// (shale/compaction_filter.h): the options map them onto ColumnFamilyOptions::compaction_filter
// and compaction_filter_factory, and compactions call the client's callbacks through them.
//
// Thread-safety: the engine calls comparators and merge operators from many threads at once; the
// objects add no state of their own, so they are as thread-safe as the client's callbacks
// (RocksDB requires those to be). Creating and destroying an object is not thread-safe with its
// use.
#ifndef SHALE_ROCKSDB_CAPI_CALLBACKS_H_
#define SHALE_ROCKSDB_CAPI_CALLBACKS_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rocksdb/c.h"
#include "shale/compaction_filter.h"
#include "shale/comparator.h"
#include "shale/merge_operator.h"

// A comparator made of C callbacks (rocksdb_comparator_create). Index keys are not shortened:
// RocksDB's C comparator has no separator callbacks, and not shortening is always correct.
// Invariant: compare and name are not null (rocksdb_comparator_create refuses null ones).
struct rocksdb_comparator_t : public shale::Comparator {
  using CompareFn = int (*)(void*, const char*, size_t, const char*, size_t);
  using NameFn = const char* (*)(void*);

  rocksdb_comparator_t(void* state, void (*destructor)(void*), CompareFn compare, NameFn name)
      : state_(state), destructor_(destructor), compare_(compare), name_(name) {}
  rocksdb_comparator_t(const rocksdb_comparator_t&) = delete;
  rocksdb_comparator_t& operator=(const rocksdb_comparator_t&) = delete;
  // Calls the client's destructor(state) (when it gave one).
  ~rocksdb_comparator_t() override;

  int Compare(std::string_view a, std::string_view b) const override;
  const char* Name() const override;
  void FindShortestSeparator(std::string* start, std::string_view limit) const override;
  void FindShortSuccessor(std::string* key) const override;

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const CompareFn compare_;
  const NameFn name_;
};

// A merge operator made of C callbacks (rocksdb_mergeoperator_create), as RocksDB's C API runs
// it: full_merge gets the existing value (NULL, 0 when there is none) and the operands oldest
// first; partial_merge gets two or more consecutive operands. Each returns a buffer that is
// copied and then handed back to delete_value(state, buffer, length), or to free() when
// delete_value is NULL. A merge whose callback reports !success fails (see
// shale/merge_operator.h: a read returns Corruption); a partial merge that reports !success
// keeps the operands. Without a partial_merge callback operands are never combined early.
// Invariant: full_merge and name are not null (rocksdb_mergeoperator_create refuses null ones).
struct rocksdb_mergeoperator_t : public shale::MergeOperator {
  using FullMergeFn = char* (*)(void*, const char*, size_t, const char*, size_t,
                                const char* const*, const size_t*, int, unsigned char*, size_t*);
  using PartialMergeFn = char* (*)(void*, const char*, size_t, const char* const*,
                                   const size_t*, int, unsigned char*, size_t*);
  using DeleteValueFn = void (*)(void*, const char*, size_t);
  using NameFn = const char* (*)(void*);

  rocksdb_mergeoperator_t(void* state, void (*destructor)(void*), FullMergeFn full_merge,
                          PartialMergeFn partial_merge, DeleteValueFn delete_value, NameFn name)
      : state_(state),
        destructor_(destructor),
        full_merge_(full_merge),
        partial_merge_(partial_merge),
        delete_value_(delete_value),
        name_(name) {}
  rocksdb_mergeoperator_t(const rocksdb_mergeoperator_t&) = delete;
  rocksdb_mergeoperator_t& operator=(const rocksdb_mergeoperator_t&) = delete;
  // Calls the client's destructor(state) (when it gave one).
  ~rocksdb_mergeoperator_t() override;

  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override;
  bool PartialMerge(std::string_view key, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override;
  bool PartialMergeMulti(std::string_view key, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override;
  const char* Name() const override;

 private:
  // Runs partial_merge over `operands` (oldest first); false when there is no callback or it
  // reports failure.
  bool RunPartialMerge(std::string_view key, const std::vector<std::string_view>& operands,
                       std::string* new_value) const;
  // Copies the callback's result into *out, then gives the buffer back to the client.
  void TakeResult(char* result, size_t length, bool success, std::string* out) const;

  void* const state_;
  void (*const destructor_)(void*);
  const FullMergeFn full_merge_;
  const PartialMergeFn partial_merge_;
  const DeleteValueFn delete_value_;
  const NameFn name_;
};

// A prefix extractor made of C callbacks (rocksdb_slicetransform_create), or one of RocksDB's
// built-ins (rocksdb_slicetransform_create_fixed_prefix, _noop), which are made of callbacks of
// this file. The transform callback returns a pointer to the prefix (RocksDB's contract: into the
// key or to memory the client keeps), which is not freed. Transform is called only for keys
// InDomain (RocksDB's contract lets a client's transform assume it). The adapters below are
// what the C API's prefix_same_as_start iterators call (prefix_iterator.h).
// Invariant: transform, in_domain and name are not null; in_range may be.
struct rocksdb_slicetransform_t {
  using TransformFn = char* (*)(void*, const char*, size_t, size_t*);
  using PredicateFn = unsigned char (*)(void*, const char*, size_t);
  using NameFn = const char* (*)(void*);

  rocksdb_slicetransform_t(void* state, void (*destructor)(void*), TransformFn transform,
                           PredicateFn in_domain, PredicateFn in_range, NameFn name)
      : state_(state),
        destructor_(destructor),
        transform_(transform),
        in_domain_(in_domain),
        in_range_(in_range),
        name_(name) {}
  rocksdb_slicetransform_t(const rocksdb_slicetransform_t&) = delete;
  rocksdb_slicetransform_t& operator=(const rocksdb_slicetransform_t&) = delete;
  // Calls the client's destructor(state) (when it gave one).
  ~rocksdb_slicetransform_t();

  // The prefix of `key` (only for keys InDomain).
  std::string_view Transform(std::string_view key) const;
  bool InDomain(std::string_view key) const;
  // Whether `prefix` is a possible result of Transform (false without an in_range callback).
  bool InRange(std::string_view prefix) const;
  const char* Name() const;

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const TransformFn transform_;
  const PredicateFn in_domain_;
  const PredicateFn in_range_;
  const NameFn name_;
};

// A compaction filter made of C callbacks (rocksdb_compactionfilter_create); compactions call
// Filter. Invariant: filter and name are not null.
struct rocksdb_compactionfilter_t final : public shale::CompactionFilter {
  using FilterFn = unsigned char (*)(void*, int, const char*, size_t, const char*, size_t, char**,
                                     size_t*, unsigned char*);
  using NameFn = const char* (*)(void*);

  rocksdb_compactionfilter_t(void* state, void (*destructor)(void*), FilterFn filter, NameFn name)
      : state_(state), destructor_(destructor), filter_(filter), name_(name) {}
  rocksdb_compactionfilter_t(const rocksdb_compactionfilter_t&) = delete;
  rocksdb_compactionfilter_t& operator=(const rocksdb_compactionfilter_t&) = delete;
  // Calls the client's destructor(state) (when it gave one).
  ~rocksdb_compactionfilter_t() override;

  // RocksDB's CompactionFilter::Filter over the callback: true drops the entry; when the
  // callback sets value_changed, *new_value gets a copy of the bytes it returned (they stay
  // the client's) and *value_changed is set.
  bool Filter(int level, std::string_view key, std::string_view existing_value,
              std::string* new_value, bool* value_changed) const override;
  const char* Name() const override;

  // rocksdb_compactionfilter_set_ignore_snapshots; RocksDB's C filters start with true.
  // Recorded only: the engine calls the filter whatever snapshots exist, as RocksDB since 6.0
  // (which ignores the flag).
  bool ignore_snapshots = true;

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const FilterFn filter_;
  const NameFn name_;
};

// What a compaction tells a compaction filter factory about itself.
struct rocksdb_compactionfiltercontext_t {
  bool is_full_compaction = false;
  bool is_manual_compaction = false;
};

// A compaction filter factory made of C callbacks (rocksdb_compactionfilterfactory_create);
// compactions call CreateCompactionFilter(const shale::CompactionFilter::Context&).
// Invariant: create_compaction_filter and name are not null.
struct rocksdb_compactionfilterfactory_t final : public shale::CompactionFilterFactory {
  using CreateFn = rocksdb_compactionfilter_t* (*)(void*, rocksdb_compactionfiltercontext_t*);
  using NameFn = const char* (*)(void*);

  rocksdb_compactionfilterfactory_t(void* state, void (*destructor)(void*), CreateFn create,
                                    NameFn name)
      : state_(state), destructor_(destructor), create_(create), name_(name) {}
  rocksdb_compactionfilterfactory_t(const rocksdb_compactionfilterfactory_t&) = delete;
  rocksdb_compactionfilterfactory_t& operator=(const rocksdb_compactionfilterfactory_t&) = delete;
  // Calls the client's destructor(state) (when it gave one).
  ~rocksdb_compactionfilterfactory_t() override;

  // The filter for one compaction (may be null: no filtering); the caller owns it.
  std::unique_ptr<rocksdb_compactionfilter_t> CreateCompactionFilter(
      const rocksdb_compactionfiltercontext_t& context) const;
  // The engine's entry: the same, with the engine's context.
  std::unique_ptr<shale::CompactionFilter> CreateCompactionFilter(
      const shale::CompactionFilter::Context& context) override;
  const char* Name() const override;

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const CreateFn create_;
  const NameFn name_;
};

#endif  // SHALE_ROCKSDB_CAPI_CALLBACKS_H_
