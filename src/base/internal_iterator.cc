#include "base/internal_iterator.h"

namespace shale {

namespace {

class EmptyIterator final : public InternalIterator {
 public:
  explicit EmptyIterator(Status s) : status_(std::move(s)) {}
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Seek(std::string_view) override {}
  void SeekForPrev(std::string_view) override {}
  void Next() override {}
  void Prev() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

}  // namespace

namespace {

class HoldingIterator final : public InternalIterator {
 public:
  HoldingIterator(std::shared_ptr<const void> holder, std::unique_ptr<InternalIterator> iter)
      : holder_(std::move(holder)), iter_(std::move(iter)) {}

  bool Valid() const override { return iter_->Valid(); }
  void SeekToFirst() override { iter_->SeekToFirst(); }
  void SeekToLast() override { iter_->SeekToLast(); }
  void Seek(std::string_view target) override { iter_->Seek(target); }
  void SeekForPrev(std::string_view target) override { iter_->SeekForPrev(target); }
  void Next() override { iter_->Next(); }
  void Prev() override { iter_->Prev(); }
  std::string_view key() const override { return iter_->key(); }
  std::string_view value() const override { return iter_->value(); }
  Status status() const override { return iter_->status(); }

 private:
  std::shared_ptr<const void> holder_;  // declared first: outlives iter_
  std::unique_ptr<InternalIterator> iter_;
};

}  // namespace

std::unique_ptr<InternalIterator> NewHoldingIterator(std::shared_ptr<const void> holder,
                                                     std::unique_ptr<InternalIterator> iter) {
  return std::make_unique<HoldingIterator>(std::move(holder), std::move(iter));
}

std::unique_ptr<InternalIterator> NewEmptyInternalIterator(Status status) {
  return std::make_unique<EmptyIterator>(std::move(status));
}

}  // namespace shale
