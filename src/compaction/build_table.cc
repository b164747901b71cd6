#include "compaction/build_table.h"

#include <algorithm>
#include <ctime>
#include <memory>

#include "base/filename.h"
#include "compaction/compaction_iterator.h"
#include "table/table_builder.h"

namespace shale {
namespace {

// Adds the entries to the builder and the key and sequence ranges to *meta.
Status AddEntries(const InternalKeyComparator& icmp, const BuildTableOptions& options,
                  InternalIterator* points, InternalIterator* range_deletions,
                  TableBuilder* builder, FileMetaData* meta) {
  // The range deletions, so that entries they hide are dropped and a merge stops at them.
  std::unique_ptr<RangeTombstones> tombstones;
  if (range_deletions != nullptr) {
    tombstones = std::make_unique<RangeTombstones>(icmp.user_comparator());
    Status s = tombstones->AddAll(range_deletions);
    if (!s.ok()) return s;
    tombstones->Finish();
  }
  points->SeekToFirst();
  CompactionIterator iter(points, icmp.user_comparator(), options.snapshots, tombstones.get(),
                          /*bottommost=*/false, options.merge_operator);
  for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
    builder->Add(iter.key(), iter.value());
    meta->UpdateBoundaries(iter.key(), ExtractSequence(iter.key()));
  }
  Status s = iter.status();
  if (!s.ok()) return s;
  if (range_deletions == nullptr) return Status::OK();
  for (range_deletions->SeekToFirst(); range_deletions->Valid(); range_deletions->Next()) {
    std::string_view start = range_deletions->key();
    // An empty range [k, k) (a batch may hold one) deletes nothing; kept, it would make the
    // file's largest key (its end) smaller than its smallest.
    if (icmp.user_comparator()->Compare(ExtractUserKey(start), range_deletions->value()) >= 0) {
      continue;
    }
    builder->Add(start, range_deletions->value());
    // The file covers [start, end): its largest key is the end key with the largest trailer,
    // which sorts before every real entry of the end key.
    const SequenceNumber seq = ExtractSequence(start);
    const std::string end =
        MakeInternalKey(range_deletions->value(), kMaxSequenceNumber, kTypeRangeDeletion);
    if (meta->smallest.empty() || icmp.Compare(start, meta->smallest) < 0) {
      meta->smallest.assign(start);
    }
    if (meta->largest.empty() || icmp.Compare(end, meta->largest) > 0) meta->largest = end;
    meta->smallest_seqno = std::min(meta->smallest_seqno, seq);
    meta->largest_seqno = std::max(meta->largest_seqno, seq);
  }
  return range_deletions->status();
}

}  // namespace

Status BuildTable(const std::string& dbname, FileSystem* fs, const InternalKeyComparator& icmp,
                  const BuildTableOptions& options, InternalIterator* points,
                  InternalIterator* range_deletions, FileMetaData* meta) {
  const std::string path = TableFileName(dbname, meta->number);
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  TableBuilder builder(options.table_options, options.compression, options.compression_level,
                       &icmp, file.get(), path);
  builder.SetColumnFamily(options.column_family_id, options.column_family_name);
  s = AddEntries(icmp, options, points, range_deletions, &builder, meta);
  const bool empty = builder.NumEntries() == 0;
  if (s.ok() && !empty) {
    s = builder.Finish();
  } else {
    builder.Abandon();
  }
  if (s.ok() && !empty) s = file->Sync();
  Status close = file->Close();
  if (s.ok()) s = close;
  // The directory entry must be durable before a MANIFEST edit names the file.
  if (s.ok() && !empty) s = fs->SyncDir(dbname);
  if (s.ok() && !empty) {
    const TableProperties& props = builder.properties();
    meta->file_size = builder.FileSize();
    meta->num_entries = props.num_entries;
    meta->num_deletions = props.num_deletions;
    meta->num_range_deletions = props.num_range_deletions;
    meta->raw_key_size = props.raw_key_size;
    meta->raw_value_size = props.raw_value_size;
    meta->creation_time = static_cast<uint64_t>(std::time(nullptr));
    return Status::OK();
  }
  fs->DeleteFile(path).PermitUncheckedError();
  meta->file_size = 0;
  return s;
}

}  // namespace shale
