// RocksDB's C API for objects made of C callbacks: comparators, merge operators, slice
// transforms and compaction filters (callbacks.h says who owns what).
#include "rocksdb_capi/callbacks.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "rocksdb/c.h"

// ------------------------------------------------------------------------------ Comparator

rocksdb_comparator_t::~rocksdb_comparator_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

int rocksdb_comparator_t::Compare(std::string_view a, std::string_view b) const {
  return compare_(state_, a.data(), a.size(), b.data(), b.size());
}

const char* rocksdb_comparator_t::Name() const { return name_(state_); }

void rocksdb_comparator_t::FindShortestSeparator(std::string* /*start*/,
                                                 std::string_view /*limit*/) const {}

void rocksdb_comparator_t::FindShortSuccessor(std::string* /*key*/) const {}

// ------------------------------------------------------------------------------ MergeOperator

rocksdb_mergeoperator_t::~rocksdb_mergeoperator_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

void rocksdb_mergeoperator_t::TakeResult(char* result, size_t length, bool success,
                                         std::string* out) const {
  if (success) {
    if (result != nullptr) {
      out->assign(result, length);
    } else {
      out->clear();  // a NULL result can only mean an empty one
    }
  }
  if (result == nullptr) return;
  if (delete_value_ != nullptr) {
    delete_value_(state_, result, length);
  } else {
    std::free(result);
  }
}

bool rocksdb_mergeoperator_t::FullMergeV2(const MergeOperationInput& merge_in,
                                          MergeOperationOutput* merge_out) const {
  const size_t n = merge_in.operand_list.size();
  std::vector<const char*> data(n);
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    data[i] = merge_in.operand_list[i].data();
    sizes[i] = merge_in.operand_list[i].size();
  }
  const char* existing = nullptr;
  size_t existing_size = 0;
  if (merge_in.existing_value != nullptr) {
    existing = merge_in.existing_value->data();
    existing_size = merge_in.existing_value->size();
  }
  unsigned char success = 0;
  size_t length = 0;
  char* result =
      full_merge_(state_, merge_in.key.data(), merge_in.key.size(), existing, existing_size,
                  data.data(), sizes.data(), static_cast<int>(n), &success, &length);
  TakeResult(result, length, success != 0, &merge_out->new_value);
  if (success == 0) {
    merge_out->error_message = "full_merge callback reported failure";
  }
  return success != 0;
}

bool rocksdb_mergeoperator_t::RunPartialMerge(std::string_view key,
                                              const std::vector<std::string_view>& operands,
                                              std::string* new_value) const {
  if (partial_merge_ == nullptr) return false;
  const size_t n = operands.size();
  std::vector<const char*> data(n);
  std::vector<size_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    data[i] = operands[i].data();
    sizes[i] = operands[i].size();
  }
  unsigned char success = 0;
  size_t length = 0;
  char* result = partial_merge_(state_, key.data(), key.size(), data.data(), sizes.data(),
                                static_cast<int>(n), &success, &length);
  TakeResult(result, length, success != 0, new_value);
  return success != 0;
}

bool rocksdb_mergeoperator_t::PartialMerge(std::string_view key, std::string_view left_operand,
                                           std::string_view right_operand,
                                           std::string* new_value) const {
  return RunPartialMerge(key, {left_operand, right_operand}, new_value);
}

bool rocksdb_mergeoperator_t::PartialMergeMulti(std::string_view key,
                                                const std::deque<std::string_view>& operand_list,
                                                std::string* new_value) const {
  return RunPartialMerge(key, std::vector<std::string_view>(operand_list.begin(),
                                                            operand_list.end()),
                         new_value);
}

const char* rocksdb_mergeoperator_t::Name() const { return name_(state_); }

// ------------------------------------------------------------------------------ SliceTransform

rocksdb_slicetransform_t::~rocksdb_slicetransform_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

std::string_view rocksdb_slicetransform_t::Transform(std::string_view key) const {
  size_t length = 0;
  const char* prefix = transform_(state_, key.data(), key.size(), &length);
  return length == 0 ? std::string_view() : std::string_view(prefix, length);
}

bool rocksdb_slicetransform_t::InDomain(std::string_view key) const {
  return in_domain_(state_, key.data(), key.size()) != 0;
}

bool rocksdb_slicetransform_t::InRange(std::string_view prefix) const {
  return in_range_ != nullptr && in_range_(state_, prefix.data(), prefix.size()) != 0;
}

const char* rocksdb_slicetransform_t::Name() const { return name_(state_); }

namespace {

// The state of rocksdb_slicetransform_create_fixed_prefix's transform: the prefix length and
// RocksDB's name for it, "rocksdb.FixedPrefix.<length>". Immutable.
struct FixedPrefixState {
  size_t length;
  std::string name;
};

void DeleteFixedPrefix(void* state) { delete static_cast<FixedPrefixState*>(state); }

char* FixedPrefixTransform(void* state, const char* key, size_t length, size_t* dst_length) {
  const size_t prefix = static_cast<FixedPrefixState*>(state)->length;
  *dst_length = length < prefix ? length : prefix;
  return const_cast<char*>(key);
}

unsigned char FixedPrefixInDomain(void* state, const char* /*key*/, size_t length) {
  return length >= static_cast<FixedPrefixState*>(state)->length ? 1 : 0;
}

unsigned char FixedPrefixInRange(void* state, const char* /*key*/, size_t length) {
  return length == static_cast<FixedPrefixState*>(state)->length ? 1 : 0;
}

const char* FixedPrefixName(void* state) {
  return static_cast<FixedPrefixState*>(state)->name.c_str();
}

char* NoopTransform(void* /*state*/, const char* key, size_t length, size_t* dst_length) {
  *dst_length = length;
  return const_cast<char*>(key);
}

unsigned char AlwaysTrue(void* /*state*/, const char* /*key*/, size_t /*length*/) { return 1; }

const char* NoopName(void* /*state*/) { return "rocksdb.Noop"; }

}  // namespace

// ------------------------------------------------------------------------------ CompactionFilter

rocksdb_compactionfilter_t::~rocksdb_compactionfilter_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

bool rocksdb_compactionfilter_t::Filter(int level, std::string_view key,
                                        std::string_view existing_value, std::string* new_value,
                                        bool* value_changed) const {
  char* changed = nullptr;
  size_t changed_length = 0;
  unsigned char did_change = 0;
  const unsigned char drop =
      filter_(state_, level, key.data(), key.size(), existing_value.data(),
              existing_value.size(), &changed, &changed_length, &did_change);
  if (did_change != 0) {
    if (changed != nullptr) {
      new_value->assign(changed, changed_length);
    } else {
      new_value->clear();
    }
    *value_changed = true;
  }
  return drop != 0;
}

const char* rocksdb_compactionfilter_t::Name() const { return name_(state_); }

rocksdb_compactionfilterfactory_t::~rocksdb_compactionfilterfactory_t() {
  if (destructor_ != nullptr) destructor_(state_);
}

std::unique_ptr<rocksdb_compactionfilter_t>
rocksdb_compactionfilterfactory_t::CreateCompactionFilter(
    const rocksdb_compactionfiltercontext_t& context) const {
  rocksdb_compactionfiltercontext_t copy = context;
  return std::unique_ptr<rocksdb_compactionfilter_t>(create_(state_, &copy));
}

std::unique_ptr<shale::CompactionFilter>
rocksdb_compactionfilterfactory_t::CreateCompactionFilter(
    const shale::CompactionFilter::Context& context) {
  rocksdb_compactionfiltercontext_t c;
  c.is_full_compaction = context.is_full_compaction;
  c.is_manual_compaction = context.is_manual_compaction;
  return CreateCompactionFilter(c);
}

const char* rocksdb_compactionfilterfactory_t::Name() const { return name_(state_); }

// ------------------------------------------------------------------------------ C functions

extern "C" {

rocksdb_comparator_t* rocksdb_comparator_create(void* state, void (*destructor)(void*),
                                                int (*compare)(void*, const char* a, size_t alen,
                                                               const char* b, size_t blen),
                                                const char* (*name)(void*)) {
  if (compare == nullptr || name == nullptr) return nullptr;
  return new rocksdb_comparator_t(state, destructor, compare, name);
}

void rocksdb_comparator_destroy(rocksdb_comparator_t* cmp) { delete cmp; }

// User-defined timestamps are not supported by ShaleDB: no comparator is made (NULL), and the
// caller keeps its state (the destructor is not called).
rocksdb_comparator_t* rocksdb_comparator_with_ts_create(
    void* /*state*/, void (*/*destructor*/)(void*),
    int (*/*compare*/)(void*, const char* a, size_t alen, const char* b, size_t blen),
    int (*/*compare_ts*/)(void*, const char* a_ts, size_t a_tslen, const char* b_ts,
                          size_t b_tslen),
    int (*/*compare_without_ts*/)(void*, const char* a, size_t alen, unsigned char a_has_ts,
                                  const char* b, size_t blen, unsigned char b_has_ts),
    const char* (*/*name*/)(void*), size_t /*timestamp_size*/) {
  return nullptr;
}

rocksdb_mergeoperator_t* rocksdb_mergeoperator_create(
    void* state, void (*destructor)(void*),
    char* (*full_merge)(void*, const char* key, size_t key_length, const char* existing_value,
                        size_t existing_value_length, const char* const* operands_list,
                        const size_t* operands_list_length, int num_operands,
                        unsigned char* success, size_t* new_value_length),
    char* (*partial_merge)(void*, const char* key, size_t key_length,
                           const char* const* operands_list, const size_t* operands_list_length,
                           int num_operands, unsigned char* success, size_t* new_value_length),
    void (*delete_value)(void*, const char* value, size_t value_length),
    const char* (*name)(void*)) {
  if (full_merge == nullptr || name == nullptr) return nullptr;
  return new rocksdb_mergeoperator_t(state, destructor, full_merge, partial_merge, delete_value,
                                     name);
}

void rocksdb_mergeoperator_destroy(rocksdb_mergeoperator_t* merge_operator) {
  delete merge_operator;
}

rocksdb_slicetransform_t* rocksdb_slicetransform_create(
    void* state, void (*destructor)(void*),
    char* (*transform)(void*, const char* key, size_t length, size_t* dst_length),
    unsigned char (*in_domain)(void*, const char* key, size_t length),
    unsigned char (*in_range)(void*, const char* key, size_t length),
    const char* (*name)(void*)) {
  if (transform == nullptr || in_domain == nullptr || name == nullptr) return nullptr;
  return new rocksdb_slicetransform_t(state, destructor, transform, in_domain, in_range, name);
}

rocksdb_slicetransform_t* rocksdb_slicetransform_create_fixed_prefix(size_t prefix_len) {
  auto* state =
      new FixedPrefixState{prefix_len, "rocksdb.FixedPrefix." + std::to_string(prefix_len)};
  return new rocksdb_slicetransform_t(state, &DeleteFixedPrefix, &FixedPrefixTransform,
                                      &FixedPrefixInDomain, &FixedPrefixInRange,
                                      &FixedPrefixName);
}

rocksdb_slicetransform_t* rocksdb_slicetransform_create_noop(void) {
  return new rocksdb_slicetransform_t(nullptr, nullptr, &NoopTransform, &AlwaysTrue, &AlwaysTrue,
                                      &NoopName);
}

void rocksdb_slicetransform_destroy(rocksdb_slicetransform_t* st) { delete st; }

rocksdb_compactionfilter_t* rocksdb_compactionfilter_create(
    void* state, void (*destructor)(void*),
    unsigned char (*filter)(void*, int level, const char* key, size_t key_length,
                            const char* existing_value, size_t value_length, char** new_value,
                            size_t* new_value_length, unsigned char* value_changed),
    const char* (*name)(void*)) {
  if (filter == nullptr || name == nullptr) return nullptr;
  return new rocksdb_compactionfilter_t(state, destructor, filter, name);
}

void rocksdb_compactionfilter_set_ignore_snapshots(rocksdb_compactionfilter_t* filter,
                                                   unsigned char v) {
  filter->ignore_snapshots = v != 0;
}

void rocksdb_compactionfilter_destroy(rocksdb_compactionfilter_t* filter) { delete filter; }

unsigned char rocksdb_compactionfiltercontext_is_full_compaction(
    rocksdb_compactionfiltercontext_t* context) {
  return context->is_full_compaction ? 1 : 0;
}

unsigned char rocksdb_compactionfiltercontext_is_manual_compaction(
    rocksdb_compactionfiltercontext_t* context) {
  return context->is_manual_compaction ? 1 : 0;
}

rocksdb_compactionfilterfactory_t* rocksdb_compactionfilterfactory_create(
    void* state, void (*destructor)(void*),
    rocksdb_compactionfilter_t* (*create_compaction_filter)(
        void*, rocksdb_compactionfiltercontext_t* context),
    const char* (*name)(void*)) {
  if (create_compaction_filter == nullptr || name == nullptr) return nullptr;
  return new rocksdb_compactionfilterfactory_t(state, destructor, create_compaction_filter, name);
}

void rocksdb_compactionfilterfactory_destroy(rocksdb_compactionfilterfactory_t* factory) {
  delete factory;
}

}  // extern "C"
