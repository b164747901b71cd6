// Run files: a sorted run spilled to disk when the bulk loader's memory budget fills, read back
// by the merge in Finish.
//
// Format: the run's records back to back (record.h), in key order, one per key; nothing else.
// A run file lives only as long as the load that wrote it, in the loader's temporary
// directory, so it has no header, no checksum and is never synced: a crash loses the load
// either way. A record that does not decode (a truncated file) is reported as Corruption
// naming the file and offset.
//
// The writer keeps a sample of keys with their offsets, one per RunSampleBytes() of file: the
// loader splits the key space between its merge threads by them, and each thread's cursor
// starts reading at the sample before its range instead of at the start of the file.
//
// Merged runs: when there are more run files than the merge may open at once, Finish merges
// groups of them into longer runs first (WriteMergedRunFile), in the same format.
//
// Memory accounting: the buffers the merge reads and writes runs through are charged to a
// BufferAccount (when one is given), so that the loader can report, and a test can check, the
// most bytes they held at once.
//
// Thread-safety: WriteRunFile, WriteMergedRunFile and RunFileCursor share nothing; one thread
// per cursor. A BufferAccount is thread-safe.
#ifndef SHALE_BULK_RUN_FILE_H_
#define SHALE_BULK_RUN_FILE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bulk/run_cursor.h"
#include "bulk/run_merger.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "shale/status.h"
#include "util/progress_reporter.h"

namespace shale::bulk {

// Bytes of run file between two samples for a run of `run_bytes`: about 1/1024 of the run
// (so that small runs still split finely), at least 512 bytes and at most 64 KiB.
inline uint64_t RunSampleBytes(uint64_t run_bytes) {
  const uint64_t step = run_bytes / 1024;
  return step < 512 ? 512 : (step > (64 << 10) ? (64 << 10) : step);
}

struct RunSample {
  std::string key;
  uint64_t offset = 0;  // where the key's record starts in the file
};

// What WriteRunFile wrote.
struct RunFileInfo {
  std::string path;
  uint64_t bytes = 0;
  uint64_t entries = 0;
  // The first record of the file, then the first record at least `sample_bytes` past the
  // previous sample, and so on; in key order.
  std::vector<RunSample> samples;
};

// Bytes of buffers held now and at most at once, by the merge's cursors and writers.
// Thread-safe (relaxed atomics: the figures are statistics, not synchronisation).
class BufferAccount {
 public:
  void Charge(size_t bytes) {
    const uint64_t now = held_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void Release(size_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }
  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> held_{0};
  std::atomic<uint64_t> peak_{0};
};

// Creates `path` and writes the entries of *cursor from its position to its end, sampling a
// key every `sample_bytes`, through a 1 MiB write buffer. On failure the caller deletes the
// file.
Status WriteRunFile(FileSystem* fs, const std::string& path, MemoryRunCursor* cursor,
                    uint64_t sample_bytes, RunFileInfo* info);

// Creates `path` and writes the rest of *merger (its distinct keys, each with its newest
// value) as a run file, sampling a key every `sample_bytes`, through a write buffer of
// `buffer_size` bytes charged to *account (if not null), counting the entries written and
// their key and value bytes in *progress (if not null). Returns the merger's error if it ends
// early. On failure the caller deletes the file.
Status WriteMergedRunFile(FileSystem* fs, const std::string& path, RunMerger* merger,
                          uint64_t sample_bytes, size_t buffer_size, BufferAccount* account,
                          RunFileInfo* info, ProgressReporter* progress = nullptr);

class RunFileCursor final : public RunCursor {
 public:
  // Opens the run file `info` describes, positioned at its first key >= *lower under
  // `comparator` (at its first key if lower is null), reading `buffer_size` bytes at a time.
  // The buffer (and its growth, when one record is larger) is charged to *account if not
  // null. `info`, `comparator` and `account` must outlive the cursor.
  static Status Open(FileSystem* fs, const RunFileInfo& info, const Comparator* comparator,
                     const std::string_view* lower, size_t buffer_size, BufferAccount* account,
                     std::unique_ptr<RunFileCursor>* cursor);
  ~RunFileCursor() override;

  void Next() override;
  Status status() const override { return status_; }

 private:
  RunFileCursor(const RunFileInfo& info, std::unique_ptr<SequentialFile> file,
                uint64_t start_offset, size_t buffer_size, BufferAccount* account);

  // Moves the unread bytes to the front of the buffer and reads more after them (growing the
  // buffer when a single record fills it). Sets eof_ when the file is read to its end.
  Status Refill();
  void Fail(Status s);

  const RunFileInfo& info_;
  BufferAccount* const account_;  // may be null
  std::unique_ptr<SequentialFile> file_;
  std::unique_ptr<char[]> buffer_;
  size_t buffer_size_;
  size_t pos_ = 0;    // the next record starts at buffer_[pos_]
  size_t limit_ = 0;  // bytes of buffer_ read from the file
  uint64_t file_offset_;  // the file offset of buffer_[limit_]
  bool eof_ = false;
  Status status_;
};

}  // namespace shale::bulk

#endif  // SHALE_BULK_RUN_FILE_H_
