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
// Thread-safety: WriteRunFile and RunFileCursor share nothing; one thread per cursor.
#ifndef SHALE_BULK_RUN_FILE_H_
#define SHALE_BULK_RUN_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bulk/run_cursor.h"
#include "shale/comparator.h"
#include "shale/file_system.h"
#include "shale/status.h"

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

// Creates `path` and writes the entries of *cursor from its position to its end, sampling a
// key every `sample_bytes`. On failure the caller deletes the file.
Status WriteRunFile(FileSystem* fs, const std::string& path, MemoryRunCursor* cursor,
                    uint64_t sample_bytes, RunFileInfo* info);

class RunFileCursor final : public RunCursor {
 public:
  // Opens the run file `info` describes, positioned at its first key >= *lower under
  // `comparator` (at its first key if lower is null), reading `buffer_size` bytes at a time.
  // `info` and `comparator` must outlive the cursor.
  static Status Open(FileSystem* fs, const RunFileInfo& info, const Comparator* comparator,
                     const std::string_view* lower, size_t buffer_size,
                     std::unique_ptr<RunFileCursor>* cursor);

  void Next() override;
  Status status() const override { return status_; }

 private:
  RunFileCursor(const RunFileInfo& info, std::unique_ptr<SequentialFile> file,
                uint64_t start_offset, size_t buffer_size);

  // Moves the unread bytes to the front of the buffer and reads more after them (growing the
  // buffer when a single record fills it). Sets eof_ when the file is read to its end.
  Status Refill();
  void Fail(Status s);

  const RunFileInfo& info_;
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
