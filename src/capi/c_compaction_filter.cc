// The C ABI of compaction filters (include/shale/c.h): a shale_compactionfilter_t is a
// shale::CompactionFilter whose Filter calls the caller's C callback, as RocksDB's
// rocksdb_compactionfilter_create. shale_options_set_compaction_filter borrows it (RocksDB's
// rule): the caller destroys the handle after closing every DB opened with it.
//
// Thread-safety: compactions call Filter from several threads at once; the object adds no
// state of its own, so it is as thread-safe as the caller's callback (c.h requires that).
#include <string>
#include <string_view>

#include "capi/c_handles.h"
#include "shale/compaction_filter.h"

struct shale_compactionfilter_t final : public shale::CompactionFilter {
  using FilterFn = unsigned char (*)(void*, int, const char*, size_t, const char*, size_t, char**,
                                     size_t*, unsigned char*);
  using NameFn = const char* (*)(void*);

  shale_compactionfilter_t(void* state, void (*destructor)(void*), FilterFn filter, NameFn name)
      : state_(state), destructor_(destructor), filter_(filter), name_(name) {}
  shale_compactionfilter_t(const shale_compactionfilter_t&) = delete;
  shale_compactionfilter_t& operator=(const shale_compactionfilter_t&) = delete;
  // Runs the caller's destructor(state), once.
  ~shale_compactionfilter_t() override {
    if (destructor_ != nullptr) destructor_(state_);
  }

  // The callback's verdict; a changed value is copied from the callback's buffer (which stays
  // the callback's; NULL is the empty value).
  bool Filter(int level, std::string_view key, std::string_view existing_value,
              std::string* new_value, bool* value_changed) const override {
    char* changed = nullptr;
    size_t changed_length = 0;
    unsigned char did_change = 0;
    const unsigned char remove =
        filter_(state_, level, key.data(), key.size(), existing_value.data(),
                existing_value.size(), &changed, &changed_length, &did_change);
    if (remove == 0 && did_change != 0) {
      if (changed == nullptr) {
        new_value->clear();
      } else {
        new_value->assign(changed, changed_length);
      }
      *value_changed = true;
    }
    return remove != 0;
  }

  const char* Name() const override {
    const char* name = name_ == nullptr ? nullptr : name_(state_);
    return name == nullptr ? "shale.CCompactionFilter" : name;
  }

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const FilterFn filter_;  // not null
  const NameFn name_;
};

extern "C" {

shale_compactionfilter_t* shale_compactionfilter_create(
    void* state, void (*destructor)(void*),
    unsigned char (*filter)(void*, int level, const char* key, size_t key_length,
                            const char* existing_value, size_t value_length, char** new_value,
                            size_t* new_value_length, unsigned char* value_changed),
    const char* (*name)(void*)) {
  if (filter == nullptr) return nullptr;
  return new shale_compactionfilter_t(state, destructor, filter, name);
}

void shale_compactionfilter_destroy(shale_compactionfilter_t* filter) { delete filter; }

void shale_options_set_compaction_filter(shale_options_t* options,
                                         shale_compactionfilter_t* filter) {
  options->rep.compaction_filter = filter;
}

}  // extern "C"
