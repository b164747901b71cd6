// WriteBatch: a list of updates (Put, Delete, SingleDelete, DeleteRange, Merge) that DB::Write
// applies atomically and in order: a reader sees all of them or none. RocksDB's shape.
//
//   shale::WriteBatch batch;
//   s = batch.Delete("key1");
//   s = batch.Put("key2", value);
//   s = db->Write(shale::WriteOptions(), &batch);
//
// The batch owns a copy of every key and value given to it: the caller's buffers may be reused
// as soon as a call returns.
//
// Serialized form (Data()), the same bytes the WAL stores, all little-endian:
//   fixed64 sequence    first sequence number of the batch (set by the DB when it writes it)
//   fixed32 count       number of records
//   record*             `count` records, each a tag byte and its fields:
//     kTypeValue (0x1)                     varstring key, varstring value
//     kTypeDeletion (0x0)                  varstring key
//     kTypeSingleDeletion (0x7)            varstring key
//     kTypeRangeDeletion (0xF)             varstring begin_key, varstring end_key
//     kTypeMerge (0x2)                     varstring key, varstring value
//     kTypeColumnFamilyValue (0x5)         varint32 cf, then as kTypeValue
//     kTypeColumnFamilyDeletion (0x4)      varint32 cf, then as kTypeDeletion
//     kTypeColumnFamilySingleDeletion (0x8) varint32 cf, then as kTypeSingleDeletion
//     kTypeColumnFamilyRangeDeletion (0xE) varint32 cf, then as kTypeRangeDeletion
//     kTypeColumnFamilyMerge (0x6)         varint32 cf, then as kTypeMerge
//   varstring = varint32 length, then that many bytes.
// Records of the default column family (id 0) are written without a cf id, those of another
// family with a column-family tag and the family's id (ColumnFamilyHandle::GetID). The tag
// values are RocksDB's. Record i (from 0) takes sequence number `sequence + i`.
//
// Thread-safety: a WriteBatch is a plain value. Const methods may be called concurrently;
// anything that modifies it needs external synchronisation. Distinct batches are independent.
#ifndef SHALE_WRITE_BATCH_H_
#define SHALE_WRITE_BATCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "shale/export.h"
#include "shale/limits.h"
#include "shale/status.h"

namespace shale {

class ColumnFamilyHandle;  // shale/db.h

class SHALE_EXPORT WriteBatch {
 public:
  // Receives the records of a batch, in order, from Iterate(). A handler method that returns an
  // error stops the iteration, and Iterate returns that error.
  class SHALE_EXPORT Handler {
   public:
    virtual ~Handler();
    virtual Status Put(std::string_view key, std::string_view value) = 0;
    virtual Status Delete(std::string_view key) = 0;
    virtual Status SingleDelete(std::string_view key) = 0;
    // Deletes the keys in [begin_key, end_key).
    virtual Status DeleteRange(std::string_view begin_key, std::string_view end_key) = 0;
    virtual Status Merge(std::string_view key, std::string_view value) = 0;

    // Iterate calls these for every record, with its column family's id. By default a record
    // of the default family (0) goes to the method above, and any other fails with
    // InvalidArgument: a handler that takes column families overrides these.
    virtual Status PutCF(uint32_t column_family_id, std::string_view key, std::string_view value);
    virtual Status DeleteCF(uint32_t column_family_id, std::string_view key);
    virtual Status SingleDeleteCF(uint32_t column_family_id, std::string_view key);
    virtual Status DeleteRangeCF(uint32_t column_family_id, std::string_view begin_key,
                                 std::string_view end_key);
    virtual Status MergeCF(uint32_t column_family_id, std::string_view key,
                           std::string_view value);
  };

  // An empty batch (sequence 0, no records).
  WriteBatch();
  // An empty batch whose buffer has room for `reserved_bytes` bytes.
  explicit WriteBatch(size_t reserved_bytes);
  // A batch over serialized contents (Data() of another batch, or a WAL record). The contents
  // are not checked here: Iterate() reports Corruption if they are damaged. Contents shorter
  // than the 12-byte header read as an empty batch (Count() == 0) that fails Iterate(); an
  // update or Clear() turns it into a real empty batch first.
  explicit WriteBatch(std::string rep);

  WriteBatch(const WriteBatch& other);
  WriteBatch& operator=(const WriteBatch& other);
  // A moved-from batch is empty.
  WriteBatch(WriteBatch&& other) noexcept;
  WriteBatch& operator=(WriteBatch&& other) noexcept;
  ~WriteBatch();

  // Each update returns InvalidArgument, and leaves the batch unchanged, when a key (either
  // end of a range included) is longer than kMaxKeySize, a value or merge operand longer than
  // kMaxValueSize, the batch would grow past kMaxWriteBatchSize bytes (GetDataSize), or it
  // already holds 2^32 - 1 records (shale/limits.h).

  // Stores key -> value.
  Status Put(std::string_view key, std::string_view value);
  // Removes key, if present.
  Status Delete(std::string_view key);
  // Removes key, which the caller promises was Put at most once since it was last deleted and
  // never merged (RocksDB's SingleDelete: cheaper to compact, undefined otherwise).
  Status SingleDelete(std::string_view key);
  // Removes every key in [begin_key, end_key). DB::Write rejects begin_key > end_key.
  Status DeleteRange(std::string_view begin_key, std::string_view end_key);
  // Adds a merge operand for key, combined with the existing value by the merge operator.
  Status Merge(std::string_view key, std::string_view value);

  // The same, for the column family `column_family` (null: the default family). The batch
  // records the family's id; DB::Write refuses the batch if the DB has no such family.
  Status Put(ColumnFamilyHandle* column_family, std::string_view key, std::string_view value);
  Status Delete(ColumnFamilyHandle* column_family, std::string_view key);
  Status SingleDelete(ColumnFamilyHandle* column_family, std::string_view key);
  Status DeleteRange(ColumnFamilyHandle* column_family, std::string_view begin_key,
                     std::string_view end_key);
  Status Merge(ColumnFamilyHandle* column_family, std::string_view key, std::string_view value);

  // Removes every record and resets the sequence to 0.
  void Clear();

  // Number of records.
  uint32_t Count() const;

  // The serialized form (see above). The reference stays valid, and the bytes unchanged, until
  // the batch is next modified or destroyed.
  const std::string& Data() const { return rep_; }
  // Data().size().
  size_t GetDataSize() const { return rep_.size(); }

  // Whether the batch holds at least one record of the kind. The first call on a batch built
  // from serialized contents scans them (a damaged batch answers for its readable prefix).
  bool HasPut() const;
  bool HasDelete() const;
  bool HasSingleDelete() const;
  bool HasDeleteRange() const;
  bool HasMerge() const;

  // Hands every record to `handler`, in order. Returns the first error of the handler, or
  // Corruption (naming what is wrong and where) when the contents are damaged: a header or
  // record cut short, an unknown tag, or a record count that does not match the header. Each
  // record goes to the handler's *CF method (see Handler). Never reads outside Data(). Records
  // before the damaged one have already been handed to the handler.
  Status Iterate(Handler* handler) const;

 private:
  friend class WriteBatchInternal;

  // Bits of content_flags_.
  enum ContentFlags : uint32_t {
    kDeferred = 1u << 0,  // not computed yet: scan rep_ (built from serialized contents)
    kHasPut = 1u << 1,
    kHasDelete = 1u << 2,
    kHasSingleDelete = 1u << 3,
    kHasDeleteRange = 1u << 4,
    kHasMerge = 1u << 5,
  };

  // Validates sizes, then appends one record (default-family `tag`; written with the
  // column-family tag when column_family_id != 0) and counts it.
  Status AddRecord(uint32_t column_family_id, unsigned char tag, std::string_view key,
                   std::string_view value, bool has_value);
  // The ContentFlags bit of a default-family tag.
  static uint32_t FlagFor(unsigned char tag);
  // The content flags, computed first if deferred.
  uint32_t ComputeContentFlags() const;

  // The serialized form. Invariant: at least the 12-byte header, except when built from
  // shorter serialized contents.
  std::string rep_;
  // ContentFlags. Computed lazily for batches built from serialized contents, so a const
  // Has*() may store it: atomic (relaxed) so that concurrent const calls stay safe; racing
  // first calls compute the same value.
  mutable std::atomic<uint32_t> content_flags_{0};
};

}  // namespace shale

#endif  // SHALE_WRITE_BATCH_H_
