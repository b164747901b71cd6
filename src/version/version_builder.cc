#include "version/version_builder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace shale {

namespace {

#if defined(SHALE_EXPENSIVE_CHECKS) || !defined(NDEBUG)
constexpr bool kCheckAllLevels = true;
#else
constexpr bool kCheckAllLevels = false;
#endif

}  // namespace

VersionBuilder::VersionBuilder(const InternalKeyComparator* icmp, Version* base)
    : icmp_(icmp), base_(base), levels_(static_cast<size_t>(base->num_levels())) {
  base_->Ref();
  for (int level = 0; level < base_->num_levels(); ++level) {
    for (const FileMetaData* f : base_->files(level)) base_level_[f->number] = level;
  }
}

VersionBuilder::~VersionBuilder() { base_->Unref(); }

Status VersionBuilder::CheckLevel(int level, const char* what) const {
  if (level >= 0 && level < base_->num_levels()) return Status::OK();
  return Status::InvalidArgument(absl::StrCat("edit has a ", what, " at level ", level,
                                              " but the DB has ", base_->num_levels(),
                                              " levels"));
}

int VersionBuilder::LevelOf(uint64_t number) const {
  if (auto it = added_level_.find(number); it != added_level_.end()) return it->second;
  if (auto it = base_level_.find(number); it != base_level_.end()) {
    const int level = it->second;
    if (levels_[level].deleted.count(number) == 0) return level;
  }
  return -1;
}

Status VersionBuilder::ApplyDeletion(int level, uint64_t number) {
  Status s = CheckLevel(level, "deleted file");
  if (!s.ok()) return s;
  if (LevelOf(number) != level) {
    return Status::Corruption(
        absl::StrCat("edit deletes file #", number, " from L", level, ", which does not hold it"));
  }
  LevelState& state = levels_[level];
  if (state.added.erase(number) > 0) {
    added_level_.erase(number);
  } else {
    state.deleted.insert(number);
  }
  return Status::OK();
}

Status VersionBuilder::ApplyAddition(int level, const FileMetaData& f) {
  Status s = CheckLevel(level, "new file");
  if (!s.ok()) return s;
  const int existing = LevelOf(f.number);
  if (existing >= 0) {
    return Status::Corruption(absl::StrCat("edit adds file #", f.number, " to L", level,
                                           " but L", existing, " holds it already"));
  }
  levels_[level].added[f.number] = f;
  added_level_[f.number] = level;
  return Status::OK();
}

Status VersionBuilder::Apply(const VersionEdit& edit) {
  for (const auto& [level, key] : edit.compact_pointers()) {
    Status s = CheckLevel(level, "compaction pointer");
    if (!s.ok()) return s;
  }
  for (const auto& [level, number] : edit.deleted_files()) {
    Status s = ApplyDeletion(level, number);
    if (!s.ok()) return s;
  }
  for (const auto& [level, f] : edit.new_files()) {
    Status s = ApplyAddition(level, f);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

void VersionBuilder::SortLevel(int level, std::vector<FileMetaData*>* files) const {
  if (level == 0) {
    std::sort(files->begin(), files->end(), [](const FileMetaData* a, const FileMetaData* b) {
      if (a->largest_seqno != b->largest_seqno) return a->largest_seqno > b->largest_seqno;
      return a->number > b->number;
    });
  } else {
    std::sort(files->begin(), files->end(), [this](const FileMetaData* a, const FileMetaData* b) {
      const int r = icmp_->Compare(a->smallest, b->smallest);
      return r != 0 ? r < 0 : a->number < b->number;
    });
  }
}

Status VersionBuilder::SaveTo(Version* v) const {
  for (int level = 0; level < base_->num_levels(); ++level) {
    const LevelState& state = levels_[level];
    std::vector<FileMetaData*>& out = v->files_[level];
    out.clear();
    out.reserve(base_->files(level).size() + state.added.size());
    for (FileMetaData* f : base_->files(level)) {
      if (state.deleted.count(f->number) == 0) out.push_back(f);
    }
    for (const auto& [number, f] : state.added) out.push_back(NewSharedFileMetaData(f));
    for (FileMetaData* f : out) RefFile(f);
    SortLevel(level, &out);
    if (kCheckAllLevels || !state.added.empty()) {
      Status s = v->CheckLevel(level);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

}  // namespace shale
