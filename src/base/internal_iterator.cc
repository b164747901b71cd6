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

std::unique_ptr<InternalIterator> NewEmptyInternalIterator(Status status) {
  return std::make_unique<EmptyIterator>(std::move(status));
}

}  // namespace shale
