// log::Writer appends logical records to a log file (a WAL or the MANIFEST) in the block format
// of log_format.h.
//
// Ownership: the Writer owns its WritableFile and closes it in Close() (or, losing any error,
// when destroyed).
// Thread-safety: not thread-safe; the caller serializes all calls (the DB's write leader, or the
// VersionSet under its mutex).
// Errors are sticky: after the first failed Append, Flush or Sync, every later call returns that
// same Status without touching the file, because a record may have been half written.
//
// Per-record cost: a record's headers, small payloads and block padding are gathered in one
// reused buffer and handed to the file in one Append; a fragment payload of kPassThroughSize
// bytes or more is appended straight from the caller's memory (no extra copy of large records).
#ifndef SHALE_WAL_LOG_WRITER_H_
#define SHALE_WAL_LOG_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "shale/file_system.h"
#include "shale/status.h"
#include "wal/log_format.h"

namespace shale::log {

class Writer {
 public:
  // When records reach the operating system.
  enum class FlushPolicy {
    // AddRecord calls WritableFile::Flush after each record, so a record survives a process
    // crash once AddRecord returns (LevelDB's and RocksDB's default).
    kEachRecord,
    // The caller calls Flush() or Sync() itself (group commit, manual WAL flush).
    kManual,
  };

  // Payloads this long or longer are appended without being copied into the record buffer.
  static constexpr size_t kPassThroughSize = 4096;

  // `file` is empty, or (reopening a log to append to it) already holds `initial_length` bytes
  // of a log that ends cleanly; the writer continues its block structure from there.
  explicit Writer(std::unique_ptr<WritableFile> file, uint64_t initial_length = 0,
                  FlushPolicy flush_policy = FlushPolicy::kEachRecord);
  ~Writer();

  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one logical record (any length, including 0), fragmenting it across blocks.
  [[nodiscard]] Status AddRecord(std::string_view record);
  // Hands appended data to the operating system.
  [[nodiscard]] Status Flush();
  // Makes appended data durable.
  [[nodiscard]] Status Sync();
  // Closes the file. Returns the sticky error if there is one (the file is closed anyway).
  // After Close, every call fails.
  [[nodiscard]] Status Close();

  // The first error, or OK.
  const Status& status() const { return status_; }
  // The log's length in bytes: initial_length plus everything appended since.
  uint64_t length() const { return length_; }
  // The file being written (owned by the Writer); null after Close().
  WritableFile* file() const { return file_.get(); }

 private:
  // Appends one fragment (header + payload) of the given type, as part of the current record.
  [[nodiscard]] Status EmitFragment(RecordType type, std::string_view payload);
  // Appends buffer_ to the file if it holds anything, and clears it.
  [[nodiscard]] Status AppendBuffered();
  // Records the first error; returns the sticky status.
  Status Fail(Status s);

  std::unique_ptr<WritableFile> file_;
  const FlushPolicy flush_policy_;
  // Bytes emitted so far (appended or still in buffer_), counting initial_length.
  uint64_t length_;
  // Invariant: block_offset_ == length_ % kBlockSize (the position in the current block).
  size_t block_offset_;
  // Bytes of the current record not yet handed to the file.
  std::string buffer_;
  Status status_;
};

}  // namespace shale::log

#endif  // SHALE_WAL_LOG_WRITER_H_
