// WriteBatchInternal: the engine's access to a WriteBatch's serialized form (the header's
// sequence and count, raw contents, concatenation) and the code that applies a batch to a
// memtable. Kept out of the public header so that users see only the WriteBatch API.
//
// The format (also written in include/shale/write_batch.h):
//   fixed64 sequence | fixed32 count | record*
//   record = tag byte [varint32 cf, for the column-family tags] varstring key [varstring value]
// Record i takes sequence number `sequence + i`.
//
// Thread-safety: like WriteBatch itself; the functions that modify a batch need exclusive
// access to it. InsertInto needs the exclusive right to add to the memtable (MemTable::Add).
#ifndef SHALE_DB_WRITE_BATCH_INTERNAL_H_
#define SHALE_DB_WRITE_BATCH_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "base/internal_key.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace shale {

class MemTable;

// The tags of column-family records (RocksDB's values). The default-family tags are the
// ValueTypes of base/internal_key.h: kTypeValue, kTypeDeletion, kTypeSingleDeletion,
// kTypeRangeDeletion, kTypeMerge. Each column-family tag is followed by a varint32 family id,
// then the same fields as its default-family tag.
enum WriteBatchColumnFamilyTag : unsigned char {
  kTypeColumnFamilyDeletion = 0x4,
  kTypeColumnFamilyValue = 0x5,
  kTypeColumnFamilyMerge = 0x6,
  kTypeColumnFamilySingleDeletion = 0x8,
  kTypeColumnFamilyRangeDeletion = 0xE,
};

// One decoded record. The views point into the batch's contents.
struct WriteBatchRecord {
  ValueType type = kTypeValue;      // the default-family tag (column-family tags are mapped)
  uint32_t column_family = 0;       // 0 for default-family tags
  std::string_view key;             // the begin key for kTypeRangeDeletion
  std::string_view value;           // the end key for kTypeRangeDeletion; empty for deletions
};

// Decodes the record at the front of *input and advances past it. Corruption (saying what is
// wrong) when the record is cut short or its tag is unknown; *input is then unspecified.
// Never reads outside *input.
Status ReadWriteBatchRecord(std::string_view* input, WriteBatchRecord* record);

class WriteBatchInternal {
 public:
  // Bytes of the header: fixed64 sequence, fixed32 count.
  static constexpr size_t kHeader = 12;

  // The sequence number of the first record.
  static SequenceNumber Sequence(const WriteBatch& batch);
  static void SetSequence(WriteBatch* batch, SequenceNumber seq);

  // The record count stored in the header (0 if the contents are shorter than the header).
  static uint32_t Count(const WriteBatch& batch) { return batch.Count(); }
  static void SetCount(WriteBatch* batch, uint32_t count);

  // The serialized form; valid until the batch is modified or destroyed.
  static std::string_view Contents(const WriteBatch& batch) { return batch.rep_; }
  static size_t ByteSize(const WriteBatch& batch) { return batch.rep_.size(); }

  // Replaces the batch with `contents` (a WAL record). Corruption if shorter than the header;
  // the records themselves are checked when iterated. The batch is unchanged on error.
  static Status SetContents(WriteBatch* batch, std::string_view contents);

  // Appends src's records to dst (dst keeps its sequence). InvalidArgument, with dst
  // unchanged, when the total count would not fit in 32 bits; Corruption if src is shorter
  // than the header.
  static Status Append(WriteBatch* dst, const WriteBatch& src);

  // OK, or InvalidArgument naming `what` and the limit when a record of `type` (its key, and
  // its value, merge operand or range end key) breaks the size limits of shale/limits.h.
  static Status CheckRecordSizes(std::string_view what, ValueType type, std::string_view key,
                                 std::string_view value);

  // Applies every record to `mem`, record i with sequence Sequence(batch) + i. The whole
  // batch is checked first, so a damaged batch (Corruption), a record of a column family other
  // than the default (InvalidArgument) or a sequence range past kMaxSequenceNumber
  // (InvalidArgument) adds nothing. REQUIRES: the caller is the memtable's only writer; `mem`
  // holds no entry with these sequence numbers.
  static Status InsertInto(const WriteBatch& batch, MemTable* mem);

  // Decides, for a merge record (column family, sequence, key, operand), whether to add a
  // value instead: returns true with the value in *value. See Options::max_successive_merges.
  using MergeRewriter =
      absl::FunctionRef<bool(uint32_t column_family, SequenceNumber, std::string_view key,
                             std::string_view operand, std::string* value)>;
  // The memtable that takes the records of a column family, or null when it has none.
  using MemTableForFamily = absl::FunctionRef<MemTable*(uint32_t column_family)>;
  // InsertInto for a DB with column families: each record goes to mem_for(its family), and
  // `rewrite` is asked about each merge record. A family without a memtable (null) fails the
  // whole batch with InvalidArgument before anything is added, unless
  // `skip_families_without_memtable` (recovery: records of a family since dropped, or whose
  // tables already hold them), when its records are skipped and still take their sequence
  // numbers. REQUIRES: as above, for every memtable mem_for returns.
  static Status InsertInto(const WriteBatch& batch, MemTableForFamily mem_for,
                           bool skip_families_without_memtable, MergeRewriter rewrite);
};

}  // namespace shale

#endif  // SHALE_DB_WRITE_BATCH_INTERNAL_H_
