#include "iterator/level_iterator.h"

#include <cassert>
#include <string>
#include <utility>

namespace shale {

namespace {

class VectorLevelFileList final : public LevelFileList {
 public:
  explicit VectorLevelFileList(std::vector<LevelFile> files) : files_(std::move(files)) {}

  size_t Size() const override { return files_.size(); }
  std::string_view Smallest(size_t i) const override { return files_[i].smallest; }
  std::string_view Largest(size_t i) const override { return files_[i].largest; }

 private:
  const std::vector<LevelFile> files_;
};

class LevelIterator final : public InternalIterator {
 public:
  LevelIterator(const Comparator* cmp, std::unique_ptr<const LevelFileList> files,
                LevelFileOpener open)
      : cmp_(cmp), files_(std::move(files)), open_(std::move(open)) {}

  bool Valid() const override { return file_iter_ != nullptr && file_iter_->Valid(); }
  std::string_view key() const override { return file_iter_->key(); }
  std::string_view value() const override { return file_iter_->value(); }

  void SeekToFirst() override {
    if (!PositionAt(0)) return;
    file_iter_->SeekToFirst();
    SkipEmptyFilesForward();
  }
  void SeekToLast() override {
    if (!PositionAt(files_->Size() == 0 ? 0 : files_->Size() - 1)) return;
    file_iter_->SeekToLast();
    SkipEmptyFilesBackward();
  }
  void Seek(std::string_view target) override {
    if (!PositionAt(FindFile(*cmp_, *files_, target))) return;
    file_iter_->Seek(target);
    SkipEmptyFilesForward();
  }
  void SeekForPrev(std::string_view target) override {
    if (!PositionAt(FindFileForPrev(*cmp_, *files_, target))) return;
    file_iter_->SeekForPrev(target);
    SkipEmptyFilesBackward();
  }
  void Next() override {
    assert(Valid());
    file_iter_->Next();
    SkipEmptyFilesForward();
  }
  void Prev() override {
    assert(Valid());
    file_iter_->Prev();
    SkipEmptyFilesBackward();
  }

  Status status() const override {
    if (!open_status_.ok()) return open_status_;
    return file_iter_ != nullptr ? file_iter_->status() : Status::OK();
  }

 private:
  // Starts a positioning operation in file i (i == Size(): past the last file, so the
  // iteration is over). Returns true when file_iter_ is ready to be positioned.
  bool PositionAt(size_t i) {
    open_status_ = Status::OK();
    if (i >= files_->Size()) {
      CloseFile();
      return false;
    }
    return OpenFile(i);
  }

  // Makes file_iter_ iterate file i, keeping the open one when it is file i and healthy.
  // On error closes it, records the error and returns false.
  bool OpenFile(size_t i) {
    if (file_iter_ != nullptr && file_index_ == i && file_iter_->status().ok()) return true;
    CloseFile();
    Status s;
    std::unique_ptr<InternalIterator> iter = open_(i, &s);
    if (s.ok() && iter == nullptr) {
      s = Status::Corruption("level iterator: the opener returned no iterator for file " +
                             std::to_string(i) + " of the level");
    }
    if (!s.ok()) {
      open_status_ = std::move(s);
      return false;
    }
    file_iter_ = std::move(iter);
    file_index_ = i;
    return true;
  }

  void CloseFile() { file_iter_.reset(); }

  // While the open file has no entry left in this direction (and did not fail), moves to the
  // next file and its first entry. Stops at the last file, on an entry, or on an error.
  void SkipEmptyFilesForward() {
    while (!file_iter_->Valid() && file_iter_->status().ok()) {
      if (file_index_ + 1 >= files_->Size() || !OpenFile(file_index_ + 1)) return;
      file_iter_->SeekToFirst();
    }
  }

  void SkipEmptyFilesBackward() {
    while (!file_iter_->Valid() && file_iter_->status().ok()) {
      if (file_index_ == 0 || !OpenFile(file_index_ - 1)) return;
      file_iter_->SeekToLast();
    }
  }

  const Comparator* const cmp_;
  const std::unique_ptr<const LevelFileList> files_;
  const LevelFileOpener open_;
  // Invariant: file_iter_ is null or iterates file file_index_; open_status_ is the error of
  // the last failed open (file_iter_ is then null), OK otherwise.
  std::unique_ptr<InternalIterator> file_iter_;
  size_t file_index_ = 0;
  Status open_status_;
};

}  // namespace

std::unique_ptr<LevelFileList> NewLevelFileList(std::vector<LevelFile> files) {
  return std::make_unique<VectorLevelFileList>(std::move(files));
}

size_t FindFile(const Comparator& cmp, const LevelFileList& files, std::string_view key) {
  // Invariant: files before lo have largest < key; files at and after hi have largest >= key.
  size_t lo = 0;
  size_t hi = files.Size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (cmp.Compare(files.Largest(mid), key) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t FindFileForPrev(const Comparator& cmp, const LevelFileList& files,
                       std::string_view key) {
  // Invariant: files before lo have smallest <= key; files at and after hi have smallest > key.
  size_t lo = 0;
  size_t hi = files.Size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (cmp.Compare(files.Smallest(mid), key) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? files.Size() : lo - 1;
}

std::unique_ptr<InternalIterator> NewLevelIterator(const Comparator* cmp,
                                                   std::unique_ptr<const LevelFileList> files,
                                                   LevelFileOpener open) {
  assert(files != nullptr && open);
  return std::make_unique<LevelIterator>(cmp, std::move(files), std::move(open));
}

}  // namespace shale
