// FIFO picking (compaction_options_fifo, ttl): no merging. Flushes all go to L0; once the
// tables add up to more than max_table_files_size, the oldest are deleted until they fit, and
// with ttl > 0 tables written more than ttl seconds ago are deleted too. Files in levels below
// L0 (left by an earlier compaction style) are older than every L0 file and go first.
// Data older than the newest deleted table may vanish: FIFO is for data that ages out.
// With allow_ingest_behind the reserved last level is left alone: its files are neither
// counted against max_table_files_size nor deleted (by size or by ttl); they stay until the
// user removes them (compaction/reserved_level.h).
#include <algorithm>
#include <ctime>

#include "compaction/compaction_picker.h"
#include "compaction/reserved_level.h"

namespace shale {
namespace {

class FifoCompactionPicker final : public CompactionPicker {
 public:
  using CompactionPicker::CompactionPicker;

  std::unique_ptr<Compaction> PickCompaction(Version* v, const Options& o,
                                             const std::vector<PendingOutputRange>&,
                                             uint64_t now) override {
    std::vector<FileMetaData*> oldest_first = OldestFirst(*v, o);
    for (const FileMetaData* f : oldest_first) {
      if (f->being_compacted) return nullptr;
    }
    uint64_t total = 0;
    for (const FileMetaData* f : oldest_first) total += f->file_size;
    std::vector<FileMetaData*> victims;
    CompactionReason reason = CompactionReason::kFifoTtl;
    for (FileMetaData* f : oldest_first) {
      if (Expired(*f, o, now)) {
        victims.push_back(f);
        total -= f->file_size;
      } else {
        break;  // files are in age order: the rest are newer
      }
    }
    for (size_t i = victims.size(); i < oldest_first.size() &&
                                    total > o.compaction_options_fifo.max_table_files_size;
         i++) {
      victims.push_back(oldest_first[i]);
      total -= oldest_first[i]->file_size;
      reason = CompactionReason::kFifoMaxSize;
    }
    if (victims.empty()) return nullptr;
    // Group the victims per level, levels in increasing order, each in the level's order.
    std::vector<CompactionInputLevel> inputs;
    for (int level = 0; level < v->num_levels(); level++) {
      CompactionInputLevel in{level, {}};
      for (FileMetaData* f : v->files(level)) {
        if (std::find(victims.begin(), victims.end(), f) != victims.end()) in.files.push_back(f);
      }
      // A file below L0 goes with the neighbours sharing its boundary user keys: deleting the
      // file with a key's deletion but not the neighbour with the key's older value would bring
      // the deleted value back (compaction.h invariant 1b).
      ExpandToCleanCut(*v, level, &in.files);
      if (!in.files.empty()) inputs.push_back(std::move(in));
    }
    for (const CompactionInputLevel& in : inputs) {
      for (const FileMetaData* f : in.files) {
        if (f->being_compacted) return nullptr;
      }
    }
    auto c = std::make_unique<Compaction>(v, icmp_, reason, std::move(inputs), 0);
    c->deletion_only = true;
    c->MarkFilesBeingCompacted(true);
    return c;
  }

  bool NeedsCompaction(const Version& v, const Options& o, uint64_t now) const override {
    const std::vector<FileMetaData*> files = OldestFirst(v, o);
    uint64_t total = 0;
    for (const FileMetaData* f : files) total += f->file_size;
    if (total > o.compaction_options_fifo.max_table_files_size) return true;
    return !files.empty() && Expired(*files.front(), o, now);
  }

  uint64_t EstimatePendingCompactionBytes(const Version&, const Options&) const override {
    return 0;  // deletions cost no I/O
  }

  std::unique_ptr<Compaction> PickManualCompaction(
      Version* v, const Options& o, const std::vector<PendingOutputRange>& pending,
      std::optional<std::string_view>, std::optional<std::string_view>, bool, uint32_t,
      bool* conflict) override {
    *conflict = false;
    return PickCompaction(v, o, pending, static_cast<uint64_t>(std::time(nullptr)));
  }

 private:
  static bool Expired(const FileMetaData& f, const Options& o, uint64_t now) {
    return o.ttl > 0 && f.creation_time > 0 && f.creation_time + o.ttl < now;
  }

  // Every file FIFO may delete, oldest first: the bottom (last writable) level up to L1, then
  // L0 from its oldest file.
  static std::vector<FileMetaData*> OldestFirst(const Version& v, const Options& o) {
    std::vector<FileMetaData*> files;
    for (int level = LastWritableLevel(o, v.num_levels()); level >= 1; level--) {
      for (FileMetaData* f : v.files(level)) files.push_back(f);
    }
    const std::vector<FileMetaData*>& l0 = v.files(0);
    for (auto it = l0.rbegin(); it != l0.rend(); ++it) files.push_back(*it);
    return files;
  }
};

}  // namespace

std::unique_ptr<CompactionPicker> NewFifoCompactionPicker(const InternalKeyComparator* icmp) {
  return std::make_unique<FifoCompactionPicker>(icmp);
}

}  // namespace shale
