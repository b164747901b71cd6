#include "compaction/compaction.h"

#include <algorithm>
#include <cassert>

#include "absl/strings/str_cat.h"

namespace shale {

const char* CompactionReasonName(CompactionReason reason) {
  switch (reason) {
    case CompactionReason::kL0FileCount: return "L0 files";
    case CompactionReason::kLevelMaxBytes: return "level size";
    case CompactionReason::kUniversalSizeAmp: return "universal size amplification";
    case CompactionReason::kUniversalSizeRatio: return "universal size ratio";
    case CompactionReason::kUniversalRunCount: return "universal sorted runs";
    case CompactionReason::kFifoMaxSize: return "FIFO max size";
    case CompactionReason::kFifoTtl: return "FIFO ttl";
    case CompactionReason::kTtl: return "ttl";
    case CompactionReason::kManual: return "manual";
  }
  return "unknown";
}

Compaction::Compaction(Version* input_version, const InternalKeyComparator* icmp,
                       CompactionReason reason, std::vector<CompactionInputLevel> inputs,
                       int output_level)
    : reason_(reason),
      icmp_(icmp),
      inputs_(std::move(inputs)),
      output_level_(output_level),
      input_version_(input_version) {
  assert(!inputs_.empty());
  input_version_->Ref();
  const Comparator* ucmp = icmp_->user_comparator();
  bool first = true;
  for (const CompactionInputLevel& in : inputs_) {
    for (const FileMetaData* f : in.files) {
      std::string_view lo = ExtractUserKey(f->smallest);
      std::string_view hi = ExtractUserKey(f->largest);
      if (first || ucmp->Compare(lo, smallest_user_key_) < 0) smallest_user_key_.assign(lo);
      if (first || ucmp->Compare(hi, largest_user_key_) > 0) largest_user_key_.assign(hi);
      first = false;
    }
  }
}

Compaction::~Compaction() { assert(input_version_ == nullptr); }

size_t Compaction::NumInputFiles() const {
  size_t n = 0;
  for (const CompactionInputLevel& in : inputs_) n += in.files.size();
  return n;
}

uint64_t Compaction::InputBytes() const {
  uint64_t n = 0;
  for (const CompactionInputLevel& in : inputs_) {
    for (const FileMetaData* f : in.files) n += f->file_size;
  }
  return n;
}

uint64_t Compaction::InputBytesAt(int level) const {
  uint64_t n = 0;
  for (const CompactionInputLevel& in : inputs_) {
    if (in.level != level) continue;
    for (const FileMetaData* f : in.files) n += f->file_size;
  }
  return n;
}

bool Compaction::IsTrivialMove() const {
  if (deletion_only || reason_ == CompactionReason::kManual) return false;
  size_t levels_with_files = 0;
  for (const CompactionInputLevel& in : inputs_) {
    if (!in.files.empty()) levels_with_files++;
  }
  if (levels_with_files != 1 || inputs_.front().files.empty()) return false;
  if (start_level() == output_level_) return false;
  if (start_level() > 0 || output_level_ == 0) return true;
  // L0 files move into a sorted level only if no two of them hold a common user key. The test
  // is on user keys: internal keys order the versions of one key newest first, so a newer file
  // ending with a key's deletion sorts before an older file starting with the key's value, yet
  // side by side in a sorted level they would split the key (invariant 1b).
  const Comparator* ucmp = icmp_->user_comparator();
  std::vector<FileMetaData*> files = inputs_.front().files;
  std::sort(files.begin(), files.end(), [ucmp](const FileMetaData* a, const FileMetaData* b) {
    return ucmp->Compare(ExtractUserKey(a->smallest), ExtractUserKey(b->smallest)) < 0;
  });
  for (size_t i = 1; i < files.size(); i++) {
    if (ucmp->Compare(ExtractUserKey(files[i - 1]->largest), ExtractUserKey(files[i]->smallest)) >=
        0) {
      return false;
    }
  }
  return true;
}

std::string Compaction::InputSummary() const {
  std::string r;
  for (const CompactionInputLevel& in : inputs_) {
    if (in.files.empty()) continue;
    if (!r.empty()) r += " + ";
    absl::StrAppend(&r, in.files.size(), "@L", in.level);
  }
  absl::StrAppend(&r, " -> L", output_level_);
  return r;
}

void Compaction::AddInputDeletions(VersionEdit* edit) const {
  for (const CompactionInputLevel& in : inputs_) {
    for (const FileMetaData* f : in.files) edit->DeleteFile(in.level, f->number);
  }
}

void Compaction::MarkFilesBeingCompacted(bool value) {
  for (const CompactionInputLevel& in : inputs_) {
    for (FileMetaData* f : in.files) {
      assert(f->being_compacted != value);
      f->being_compacted = value;
    }
  }
}

void Compaction::ReleaseInputs() {
  if (input_version_ == nullptr) return;
  MarkFilesBeingCompacted(false);
  input_version_->Unref();
  input_version_ = nullptr;
}

}  // namespace shale
