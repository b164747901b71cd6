// log::Reader reads the logical records of a log file (a WAL or the MANIFEST) written by
// log::Writer, and applies a WalRecoveryMode to whatever damage it finds, so that recovery code
// only loops over ReadRecord and then checks status():
//
//   log::Reader reader(file.get(), &reporter, /*checksum=*/true, /*initial_offset=*/0, mode);
//   std::string_view record;
//   std::string scratch;
//   while (reader.ReadRecord(&record, &scratch)) Apply(record);
//   if (!reader.status().ok()) return reader.status();   // the open must fail
//   if (reader.stopped_at_corruption()) ...              // point-in-time: replay no later log
//
// Damage is sorted into two kinds (doc/wal_format.md, "Reading"):
// - A torn tail: the last record was cut short or zero-filled by a crash while being written. It
//   is dropped silently in every mode: torn_tail() becomes true, Reporter::TornTail is told, and
//   status() stays OK. Zero-filled space after the last whole record (preallocation) is simply
//   the end of the log and not a torn tail.
// - A corruption: damage with written data after it. It is given to Reporter::Corruption with a
//   Corruption status naming the log and the offset, and then the mode decides: fail
//   (status() is that Corruption), stop (point in time), or skip to the next block boundary.
// A read error from the file fails the read in every mode (status() is the IOError).
//
// Ownership: the Reader borrows `file` and `reporter`; both must outlive it.
// Thread-safety: not thread-safe; one thread uses a Reader.
#ifndef SHALE_WAL_LOG_READER_H_
#define SHALE_WAL_LOG_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/file_system.h"
#include "shale/status.h"
#include "wal/log_format.h"
#include "wal/wal_recovery_mode.h"

namespace shale::log {

class Reader {
 public:
  // Receives what the reader drops. Calls come from inside ReadRecord.
  class Reporter {
   public:
    virtual ~Reporter();
    // `bytes` bytes were dropped because of a corruption (never for a torn tail). `reason` is a
    // Corruption whose message names the log, what was wrong and its offset. Called in every
    // mode, including for the corruption that ends the read.
    virtual void Corruption(size_t bytes, const Status& reason) = 0;
    // The torn tail of the log, `bytes` bytes long, was dropped. `reason` says where it starts.
    // Default: nothing.
    virtual void TornTail(size_t bytes, const Status& reason);
  };

  // Reads from the current position of `file`, which must be the start of the log. Records that
  // start before `initial_offset` are skipped (the first record returned is the first one that
  // starts at or after it). `checksum` false skips payload checksums (damage is then found
  // only in headers). `log_name` (a file name) is put in messages.
  Reader(SequentialFile* file, Reporter* reporter, bool checksum, uint64_t initial_offset,
         WalRecoveryMode mode, std::string log_name = {});
  ~Reader();

  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Reads the next record into *record and returns true, or returns false at the end of the
  // log, at a torn tail, or when the mode ends reading (see status()). *record stays valid
  // until the next call or until *scratch is changed; it may point into *scratch.
  bool ReadRecord(std::string_view* record, std::string* scratch);

  // OK, or the error that the mode says must fail recovery (a Corruption naming the log and the
  // offset, or an IOError from the file). Final once ReadRecord has returned false.
  const Status& status() const { return status_; }
  // Whether a torn tail was dropped, and its length.
  bool torn_tail() const { return torn_tail_; }
  uint64_t torn_tail_bytes() const { return torn_tail_bytes_; }
  // kPointInTimeRecovery only: reading stopped at a corruption (records after it were ignored).
  bool stopped_at_corruption() const { return stopped_at_corruption_; }
  // Corruptions found (reported to the Reporter) and the bytes they dropped, in any mode.
  uint64_t corruption_count() const { return corruption_count_; }
  uint64_t corrupted_bytes() const { return corrupted_bytes_; }

  // The physical offset of the first header of the last record returned.
  uint64_t LastRecordOffset() const { return last_record_offset_; }
  // The offset just past the last record returned: where a log that ends cleanly after it
  // could be continued.
  uint64_t LastRecordEnd() const { return last_record_end_; }
  // The offset just past the data read from the file so far.
  uint64_t EndOfBufferOffset() const { return end_of_buffer_offset_; }

 private:
  // One physical record, or what stopped the search for one.
  enum class Outcome { kFragment, kEnd, kTornTail, kCorruption, kReadError };
  struct Fragment {
    RecordType type;
    std::string_view payload;
    uint64_t offset;  // of its header
  };
  // A damaged physical record: where it is, what was wrong, and the bytes given up for it
  // [drop_start, drop_end) (for a torn tail, drop_start alone matters).
  struct Damage {
    uint64_t offset;
    uint64_t drop_start;
    uint64_t drop_end;
    const char* what;
  };
  // Whether the bytes from an offset to the end of the file are all zero.
  enum class ZeroScan { kZerosToEnd, kDataFollows, kReadError };

  // The next physical record at or after initial_offset_, reading blocks as needed.
  Outcome ReadFragment(Fragment* fragment, Damage* damage);
  // Parses the physical record at the start of buffer_. REQUIRES: buffer_ holds a header.
  Outcome ParseFragment(Fragment* fragment, Damage* damage);
  // The verdict on a damaged header or payload at `offset` (the start of buffer_)
  // whose header claims the record ends at `claimed_end`.
  Outcome Classify(uint64_t offset, uint64_t claimed_end, const char* what, Damage* damage);
  // Handles a short remainder of the buffer: a block trailer, the end, or a torn header.
  Outcome ReadShortRemainder(Damage* damage);
  // Loads the next block into buffer_. False on a read error (status_ set).
  bool ReadBlock();
  // Scans from file offset `from` (at or after the start of buffer_) to the end of the file.
  // On kZerosToEnd the whole file has been consumed; on kDataFollows the block holding the
  // first non-zero byte after the current one (if any) is kept for ReadBlock.
  ZeroScan ScanZerosToEnd(uint64_t from);
  // Drops the rest of the current block; returns the offset at which reading resumes.
  uint64_t DropBlock();

  // What ReadRecord does after AddFragment.
  enum class Step { kNeedMore, kHaveRecord, kStop };
  // Adds a fragment to the record being assembled in *scratch (or returns it whole).
  Step AddFragment(const Fragment& fragment, std::string_view* record, std::string* scratch);
  // Positions the file at the block holding initial_offset_. False on a skip error.
  bool SkipToInitialBlock();

  // Applies the mode to a corruption; true if reading continues.
  bool OnCorruption(const Damage& damage);
  // Ends reading at a torn tail that starts at `tail_start`.
  void OnTornTail(uint64_t tail_start, const char* what);

  uint64_t CurrentOffset() const { return end_of_buffer_offset_ - buffer_.size(); }

  SequentialFile* const file_;
  Reporter* const reporter_;
  const bool checksum_;
  const uint64_t initial_offset_;
  const WalRecoveryMode mode_;
  const std::string log_name_;

  // The current block's storage, and the unread part of the current block (which may point into
  // the file's own memory instead). Invariant: buffer_ ends where the block ends (at
  // end_of_buffer_offset_), and a block is kBlockSize bytes unless it is the file's last.
  std::unique_ptr<char[]> backing_;
  std::string_view buffer_;
  uint64_t end_of_buffer_offset_ = 0;
  // The last block read was short: nothing follows buffer_ in the file (except a pending block).
  bool eof_ = false;
  // A block read ahead by ScanZerosToEnd, next in line for ReadBlock.
  std::unique_ptr<char[]> lookahead_;
  std::string_view pending_;
  uint64_t pending_offset_ = 0;
  bool has_pending_ = false;
  bool pending_eof_ = false;

  // The file has been positioned at the block holding initial_offset_.
  bool started_ = false;
  // Skipping fragments of a record that began before initial_offset_.
  bool resyncing_;
  // The record being assembled in ReadRecord's scratch: whether a first fragment was seen, and
  // its offset. Reset by every ReadRecord call.
  bool in_fragmented_ = false;
  uint64_t record_offset_ = 0;
  // ReadRecord returns false from now on.
  bool done_ = false;

  Status status_;
  bool torn_tail_ = false;
  uint64_t torn_tail_bytes_ = 0;
  bool stopped_at_corruption_ = false;
  uint64_t corruption_count_ = 0;
  uint64_t corrupted_bytes_ = 0;
  uint64_t last_record_offset_ = 0;
  uint64_t last_record_end_ = 0;
};

}  // namespace shale::log

#endif  // SHALE_WAL_LOG_READER_H_
