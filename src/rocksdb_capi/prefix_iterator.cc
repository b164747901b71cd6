// prefix_same_as_start for the C API's iterators: see prefix_iterator.h.
#include "rocksdb_capi/prefix_iterator.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "rocksdb_capi/callbacks.h"

namespace shale::rocksdb_capi {

namespace {

// An iterator over `base` that is valid only while base is valid and its key has the start
// prefix (prefix_iterator.h gives the rules). Invariant, after every move: in_prefix_ is false
// only when base is valid at a key without the start prefix (has_prefix_ false: there is
// none), where the iteration has ended.
class PrefixSameAsStartIterator final : public Iterator {
 public:
  PrefixSameAsStartIterator(std::unique_ptr<Iterator> base,
                            std::shared_ptr<const rocksdb_slicetransform_t> extractor,
                            std::optional<std::string> lower_bound,
                            std::optional<std::string> upper_bound)
      : base_(std::move(base)),
        extractor_(std::move(extractor)),
        lower_bound_(std::move(lower_bound)),
        upper_bound_(std::move(upper_bound)) {}

  bool Valid() const override { return in_prefix_ && base_->Valid(); }

  void Seek(std::string_view target) override {
    base_->Seek(target);
    StartAt(target);
    CheckCurrent();
  }

  void SeekForPrev(std::string_view target) override {
    base_->SeekForPrev(target);
    StartAt(target);
    CheckCurrent();
  }

  // RocksDB: Seek(lower bound) when there is one.
  void SeekToFirst() override {
    if (lower_bound_.has_value()) {
      Seek(*lower_bound_);
      return;
    }
    base_->SeekToFirst();
    StartAtCurrent();
  }

  // RocksDB: SeekForPrev(upper bound), less the bound itself (the base excludes it), when there
  // is one.
  void SeekToLast() override {
    if (upper_bound_.has_value()) {
      base_->SeekToLast();
      StartAt(*upper_bound_);
      CheckCurrent();
      return;
    }
    base_->SeekToLast();
    StartAtCurrent();
  }

  void Next() override {
    if (!Valid()) return;
    base_->Next();
    CheckCurrent();
  }

  void Prev() override {
    if (!Valid()) return;
    base_->Prev();
    CheckCurrent();
  }

  std::string_view key() const override { return base_->key(); }
  std::string_view value() const override { return base_->value(); }
  Status status() const override { return base_->status(); }

  // The iterator beneath (this one is left without one: destroy it next).
  std::unique_ptr<Iterator> TakeBase() { return std::move(base_); }
  const std::shared_ptr<const rocksdb_slicetransform_t>& extractor() const { return extractor_; }
  const std::optional<std::string>& lower_bound() const { return lower_bound_; }
  const std::optional<std::string>& upper_bound() const { return upper_bound_; }

 private:
  // The start prefix becomes `target`'s (none when it is outside the transform's domain).
  void StartAt(std::string_view target) {
    has_prefix_ = extractor_->InDomain(target);
    if (has_prefix_) prefix_.assign(extractor_->Transform(target));
  }

  // The start prefix becomes the current key's, which is returned without a check.
  void StartAtCurrent() {
    in_prefix_ = true;
    has_prefix_ = false;
    if (base_->Valid()) StartAt(base_->key());
  }

  void CheckCurrent() {
    in_prefix_ = !base_->Valid() || HasStartPrefix(base_->key());
  }

  bool HasStartPrefix(std::string_view key) const {
    return has_prefix_ && extractor_->InDomain(key) && extractor_->Transform(key) == prefix_;
  }

  std::unique_ptr<Iterator> base_;
  const std::shared_ptr<const rocksdb_slicetransform_t> extractor_;
  const std::optional<std::string> lower_bound_;
  const std::optional<std::string> upper_bound_;
  bool has_prefix_ = false;  // prefix_ holds the start prefix
  std::string prefix_;
  bool in_prefix_ = true;
};

}  // namespace

void ApplyPrefixSameAsStart(const rocksdb_readoptions_t* options,
                            std::shared_ptr<rocksdb_slicetransform_t> extractor,
                            rocksdb_iterator_t* it) {
  if (options == nullptr || !options->prefix_same_as_start || options->total_order_seek ||
      extractor == nullptr || it->rep == nullptr) {
    return;
  }
  std::optional<std::string> lower;
  std::optional<std::string> upper;
  if (options->has_lower_bound) lower = options->lower_bound;
  if (options->has_upper_bound) upper = options->upper_bound;
  it->rep = std::make_unique<PrefixSameAsStartIterator>(std::move(it->rep), std::move(extractor),
                                                        std::move(lower), std::move(upper));
  it->prefix_bounded = true;
}

PrefixBound TakePrefixBound(rocksdb_iterator_t* it) {
  if (!it->prefix_bounded) return {};
  auto* bounded = static_cast<PrefixSameAsStartIterator*>(it->rep.get());
  PrefixBound bound = [extractor = bounded->extractor(), lower = bounded->lower_bound(),
                       upper = bounded->upper_bound()](std::unique_ptr<Iterator> inner) {
    return std::unique_ptr<Iterator>(
        std::make_unique<PrefixSameAsStartIterator>(std::move(inner), extractor, lower, upper));
  };
  it->rep = bounded->TakeBase();  // deletes `bounded`
  it->prefix_bounded = false;
  return bound;
}

}  // namespace shale::rocksdb_capi
