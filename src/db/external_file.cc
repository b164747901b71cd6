// Inspecting and copying external table files (see external_file.h).
#include "db/external_file.h"

#include <ctime>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/internal_iterator.h"
#include "table/block_source.h"
#include "table/table_reader.h"
#include "util/absl_compat.h"

namespace shale {

namespace {

// Keeps the code of `s` and prefixes its message with what failed.
Status Annotate(const Status& s, const std::string& what) {
  return Status(s.code(), s.subcode(), what, s.message());
}

std::string Printable(std::string_view user_key) {
  return absl::StrCat("'", absl::CHexEscape(ToAbsl(user_key)), "'");
}

// Checks the point entries: sequence 0, a point type, user keys strictly increasing; and
// takes in their boundaries and counts.
Status ScanPoints(const InternalKeyComparator& icmp, const std::string& path,
                  InternalIterator* it, ExternalFileInfo* info) {
  const Comparator* ucmp = icmp.user_comparator();
  FileMetaData* meta = &info->meta;
  std::string previous;
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ParsedInternalKey parsed;
    Status s = ParseInternalKey(it->key(), &parsed);
    if (!s.ok()) return Annotate(s, absl::StrCat(path, ": entry ", n));
    if (parsed.sequence != 0) {
      return Status::InvalidArgument(absl::StrCat(
          path, ": entry ", n, " has sequence number ", parsed.sequence,
          "; only files whose entries all have sequence 0 (as SstFileWriter writes them) can be "
          "ingested"));
    }
    if (parsed.type != kTypeValue && parsed.type != kTypeDeletion &&
        parsed.type != kTypeSingleDeletion && parsed.type != kTypeMerge) {
      return Status::InvalidArgument(absl::StrCat(path, ": entry ", n, " has value type ",
                                                  static_cast<int>(parsed.type),
                                                  ", which ingestion does not take"));
    }
    if (n > 0 && ucmp->Compare(previous, parsed.user_key) >= 0) {
      return Status::Corruption(absl::StrCat(path, ": keys out of order: entry ", n, " ",
                                             Printable(parsed.user_key), " does not come after ",
                                             Printable(previous)));
    }
    previous.assign(parsed.user_key.data(), parsed.user_key.size());
    meta->UpdateBoundaries(it->key(), 0);
    if (parsed.type == kTypeDeletion || parsed.type == kTypeSingleDeletion) meta->num_deletions++;
    if (parsed.type == kTypeMerge) info->has_merge_operands = true;
  }
  if (!it->status().ok()) return Annotate(it->status(), path);
  meta->num_entries += n;
  return Status::OK();
}

// Checks the range deletions (sequence 0, start < end) and widens the boundaries to them.
Status ScanRangeDeletions(const InternalKeyComparator& icmp, const std::string& path,
                          InternalIterator* it, ExternalFileInfo* info) {
  const Comparator* ucmp = icmp.user_comparator();
  FileMetaData* meta = &info->meta;
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ParsedInternalKey start;
    Status s = ParseInternalKey(it->key(), &start);
    if (!s.ok()) return Annotate(s, absl::StrCat(path, ": range deletion ", n));
    if (start.sequence != 0 || start.type != kTypeRangeDeletion) {
      return Status::InvalidArgument(absl::StrCat(
          path, ": range deletion ", n, " has sequence number ", start.sequence,
          "; only files whose entries all have sequence 0 can be ingested"));
    }
    if (ucmp->Compare(start.user_key, it->value()) >= 0) {
      return Status::Corruption(absl::StrCat(path, ": range deletion ", n, " [",
                                             Printable(start.user_key), ", ",
                                             Printable(it->value()), ") is empty or reversed"));
    }
    // The deletion covers [start, end): the file's largest key is the end key with the
    // largest trailer, as flushes record it.
    const std::string end =
        MakeInternalKey(it->value(), kMaxSequenceNumber, kTypeRangeDeletion);
    if (meta->smallest.empty() || icmp.Compare(it->key(), meta->smallest) < 0) {
      meta->smallest.assign(it->key().data(), it->key().size());
    }
    if (meta->largest.empty() || icmp.Compare(end, meta->largest) > 0) meta->largest = end;
    meta->smallest_seqno = 0;
  }
  if (!it->status().ok()) return Annotate(it->status(), path);
  meta->num_range_deletions = n;
  meta->num_entries += n;
  return Status::OK();
}

}  // namespace

Status InspectExternalFile(FileSystem* fs, const InternalKeyComparator& icmp,
                           const std::string& path, bool verify_all_checksums,
                           ExternalFileInfo* info) {
  info->path = path;
  info->meta = FileMetaData();
  uint64_t size = 0;
  Status s = fs->GetFileSize(path, &size);
  if (!s.ok()) return s;
  std::unique_ptr<RandomAccessFile> file;
  s = fs->NewRandomAccessFile(path, &file);
  if (!s.ok()) return s;
  TableReaderOptions reader_options;
  reader_options.use_filter = false;  // a full scan needs no filter
  std::unique_ptr<TableReader> reader;
  s = TableReader::Open(reader_options, std::move(file), size, path, /*cache_id=*/0, &icmp,
                        UncachedBlockSource(), &reader);
  if (!s.ok()) return Annotate(s, "not an ingestible table file");
  const TableProperties& props = reader->properties();
  if (props.largest_seqno != 0) {
    return Status::InvalidArgument(absl::StrCat(
        path, ": holds entries up to sequence number ", props.largest_seqno,
        "; only files whose entries all have sequence 0 (as SstFileWriter writes them) can be "
        "ingested"));
  }
  if (verify_all_checksums) {
    s = reader->VerifyChecksums();
    if (!s.ok()) return s;
  }
  TableReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<InternalIterator> points = reader->NewIterator(read_options);
  s = ScanPoints(icmp, path, points.get(), info);
  if (!s.ok()) return s;
  std::unique_ptr<InternalIterator> range_dels = reader->NewRangeTombstoneIterator();
  s = ScanRangeDeletions(icmp, path, range_dels.get(), info);
  if (!s.ok()) return s;
  FileMetaData* meta = &info->meta;
  if (meta->num_entries == 0) {
    return Status::InvalidArgument(path + ": the file holds no entries");
  }
  meta->smallest_seqno = 0;
  meta->largest_seqno = 0;
  meta->file_size = size;
  meta->raw_key_size = props.raw_key_size;
  meta->raw_value_size = props.raw_value_size;
  meta->creation_time = static_cast<uint64_t>(std::time(nullptr));
  const std::string_view smallest = ExtractUserKey(meta->smallest);
  const std::string_view largest = ExtractUserKey(meta->largest);
  info->smallest_user_key.assign(smallest.data(), smallest.size());
  info->largest_user_key.assign(largest.data(), largest.size());
  return Status::OK();
}

Status CopyFileSynced(FileSystem* fs, const std::string& src, const std::string& target,
                      ProgressReporter* progress) {
  std::unique_ptr<SequentialFile> in;
  Status s = fs->NewSequentialFile(src, &in);
  if (!s.ok()) return s;
  std::unique_ptr<WritableFile> out;
  s = fs->NewWritableFile(target, &out);
  if (!s.ok()) return s;
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<char[]> buffer(new char[kChunk]);
  while (s.ok()) {
    std::string_view chunk;
    s = in->Read(kChunk, &chunk, buffer.get());
    if (!s.ok() || chunk.empty()) break;
    s = out->Append(chunk);
    if (s.ok() && progress != nullptr) progress->Add(chunk.size(), 0);
  }
  if (s.ok()) s = out->Sync();
  Status closed = out->Close();
  if (s.ok()) s = closed;
  if (!s.ok()) fs->DeleteFile(target).PermitUncheckedError();
  return s;
}

Status SyncExistingFile(FileSystem* fs, const std::string& path) {
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewAppendableFile(path, &file);
  if (!s.ok()) return s;
  s = file->Sync();
  Status closed = file->Close();
  return s.ok() ? closed : s;
}

}  // namespace shale
