// The C ABI of merges (include/shale/c.h): shale_merge, shale_writebatch_merge, and merge
// operator handles, either built-in (by name) or made of the caller's C callbacks, as
// RocksDB's rocksdb_mergeoperator_create.
//
// Ownership: a shale_mergeoperator_t holds a std::shared_ptr to its operator, and
// shale_options_set_merge_operator shares that operator into the options (and so into every
// DB opened with them). The handle and the options are independent owners: the operator, and
// with it the callbacks' state, lives until the last of them is gone. CallbackMergeOperator's
// destructor calls the caller's destructor(state), so that runs exactly once, then.
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "capi/c_handles.h"
#include "shale/merge_operator.h"

struct shale_mergeoperator_t {
  std::shared_ptr<shale::MergeOperator> rep;
};

using shale::capi::SaveError;
using shale::capi::View;

namespace {

using FullMergeFn = char* (*)(void*, const char*, size_t, const char*, size_t,
                              const char* const*, const size_t*, int, unsigned char*, size_t*);
using PartialMergeFn = char* (*)(void*, const char*, size_t, const char* const*, const size_t*,
                                 int, unsigned char*, size_t*);
using DeleteValueFn = void (*)(void*, const char*, size_t);
using NameFn = const char* (*)(void*);

// The operands of one callback call as the two parallel arrays the C callbacks take.
class OperandArrays {
 public:
  template <typename Container>
  explicit OperandArrays(const Container& operands) {
    data_.reserve(operands.size());
    sizes_.reserve(operands.size());
    for (std::string_view operand : operands) {
      data_.push_back(operand.data());
      sizes_.push_back(operand.size());
    }
  }
  const char* const* data() const { return data_.data(); }
  const size_t* sizes() const { return sizes_.data(); }
  int count() const { return static_cast<int>(data_.size()); }

 private:
  std::vector<const char*> data_;
  std::vector<size_t> sizes_;
};

// A MergeOperator whose merges are the caller's C callbacks. Thread-safety: the engine calls
// it from many threads at once, so the callbacks must be safe for concurrent calls (c.h).
class CallbackMergeOperator final : public shale::MergeOperator {
 public:
  CallbackMergeOperator(void* state, void (*destructor)(void*), FullMergeFn full_merge,
                        PartialMergeFn partial_merge, DeleteValueFn delete_value, NameFn name)
      : state_(state),
        destructor_(destructor),
        full_merge_(full_merge),
        partial_merge_(partial_merge),
        delete_value_(delete_value),
        name_(name) {}

  CallbackMergeOperator(const CallbackMergeOperator&) = delete;
  CallbackMergeOperator& operator=(const CallbackMergeOperator&) = delete;

  ~CallbackMergeOperator() override {
    if (destructor_ != nullptr) destructor_(state_);
  }

  bool FullMergeV2(const MergeOperationInput& merge_in,
                   MergeOperationOutput* merge_out) const override {
    const OperandArrays operands(merge_in.operand_list);
    const std::string_view* existing = merge_in.existing_value;
    unsigned char success = 0;
    size_t length = 0;
    char* result = full_merge_(state_, merge_in.key.data(), merge_in.key.size(),
                               existing == nullptr ? nullptr : existing->data(),
                               existing == nullptr ? 0 : existing->size(), operands.data(),
                               operands.sizes(), operands.count(), &success, &length);
    if (success == 0) {
      merge_out->error_message = "full_merge callback reported failure";
    } else {
      AssignResult(result, length, &merge_out->new_value);
    }
    Release(result, length);
    return success != 0;
  }

  bool PartialMerge(std::string_view key, std::string_view left_operand,
                    std::string_view right_operand, std::string* new_value) const override {
    const std::vector<std::string_view> pair = {left_operand, right_operand};
    return CallPartialMerge(key, OperandArrays(pair), new_value);
  }

  bool PartialMergeMulti(std::string_view key, const std::deque<std::string_view>& operand_list,
                         std::string* new_value) const override {
    return CallPartialMerge(key, OperandArrays(operand_list), new_value);
  }

  // Asks the callback every time, as RocksDB's C operator does (its answer may point into its
  // state).
  const char* Name() const override {
    const char* name = name_ == nullptr ? nullptr : name_(state_);
    return name == nullptr ? "shale.CMergeOperator" : name;
  }

 private:
  // A NULL partial_merge callback means "cannot combine operands": the engine keeps them.
  bool CallPartialMerge(std::string_view key, const OperandArrays& operands,
                        std::string* new_value) const {
    if (partial_merge_ == nullptr) return false;
    unsigned char success = 0;
    size_t length = 0;
    char* result = partial_merge_(state_, key.data(), key.size(), operands.data(),
                                  operands.sizes(), operands.count(), &success, &length);
    if (success != 0) AssignResult(result, length, new_value);
    Release(result, length);
    return success != 0;
  }

  // A successful callback's result: NULL is the empty value (whatever the length says).
  static void AssignResult(const char* result, size_t length, std::string* value) {
    if (result == nullptr) {
      value->clear();
    } else {
      value->assign(result, length);
    }
  }

  // Gives a callback's result buffer back: delete_value when the caller gave one, else free.
  void Release(char* result, size_t length) const {
    if (result == nullptr) return;
    if (delete_value_ != nullptr) {
      delete_value_(state_, result, length);
    } else {
      std::free(result);
    }
  }

  void* const state_;
  void (*const destructor_)(void*);
  const FullMergeFn full_merge_;
  const PartialMergeFn partial_merge_;
  const DeleteValueFn delete_value_;
  const NameFn name_;
};

}  // namespace

extern "C" {

void shale_merge(shale_t* db, const shale_writeoptions_t* options, const char* key,
                 size_t keylen, const char* val, size_t vallen, char** errptr) {
  SaveError(errptr, db->rep->Merge(options->rep, View(key, keylen), View(val, vallen)));
}

void shale_writebatch_merge(shale_writebatch_t* batch, const char* key, size_t klen,
                            const char* val, size_t vlen) {
  shale::Status s = batch->rep.Merge(View(key, klen), View(val, vlen));
  if (batch->error.ok()) batch->error = std::move(s);
}

shale_mergeoperator_t* shale_mergeoperator_create(
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
  if (full_merge == nullptr) return nullptr;
  return new shale_mergeoperator_t{std::make_shared<CallbackMergeOperator>(
      state, destructor, full_merge, partial_merge, delete_value, name)};
}

shale_mergeoperator_t* shale_mergeoperator_create_builtin(const char* name) {
  if (name == nullptr) return nullptr;
  std::shared_ptr<shale::MergeOperator> op;
  if (!shale::CreateMergeOperatorFromString(name, &op).ok() || op == nullptr) return nullptr;
  return new shale_mergeoperator_t{std::move(op)};
}

void shale_mergeoperator_destroy(shale_mergeoperator_t* merge_operator) {
  delete merge_operator;
}

void shale_options_set_merge_operator(shale_options_t* options,
                                      shale_mergeoperator_t* merge_operator) {
  options->rep.merge_operator = merge_operator == nullptr ? nullptr : merge_operator->rep;
}

void shale_options_set_max_successive_merges(shale_options_t* options, size_t v) {
  options->rep.max_successive_merges = v;
}

}  // extern "C"
