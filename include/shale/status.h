// shale::Status: the result of every operation that can fail. The engine uses no exceptions.
//
// A Status holds a code (RocksDB's codes and numeric values), a subcode that refines it (for
// example IOError + NoSpace) and an optional message naming the file and what failed.
// OK and a NotFound without a message do not allocate.
//
// Thread-safety: a Status is a value; distinct objects may be used from different threads,
// const methods of one object may be called concurrently.
#ifndef SHALE_STATUS_H_
#define SHALE_STATUS_H_

#include <memory>
#include <string>
#include <string_view>

#include "shale/export.h"

namespace shale {

class [[nodiscard]] SHALE_EXPORT Status {
 public:
  // The same codes and numbers as RocksDB's Status::Code.
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound = 1,
    kCorruption = 2,
    kNotSupported = 3,
    kInvalidArgument = 4,
    kIOError = 5,
    kMergeInProgress = 6,
    kIncomplete = 7,
    kShutdownInProgress = 8,
    kTimedOut = 9,
    kAborted = 10,
    kBusy = 11,
    kExpired = 12,
    kTryAgain = 13,
  };
  // The same subcodes and numbers as RocksDB's Status::SubCode.
  enum class SubCode : unsigned char {
    kNone = 0,
    kMutexTimeout = 1,
    kLockTimeout = 2,
    kLockLimit = 3,
    kNoSpace = 4,
    kDeadlock = 5,
    kStaleFile = 6,
    kMemoryLimit = 7,
    kSpaceLimit = 8,
    kPathNotFound = 9,
  };

  Status() noexcept = default;
  ~Status() = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg = {}, std::string_view msg2 = {}) {
    return Status(Code::kNotFound, SubCode::kNone, msg, msg2);
  }
  static Status Corruption(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kCorruption, SubCode::kNone, msg, msg2);
  }
  static Status NotSupported(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kNotSupported, SubCode::kNone, msg, msg2);
  }
  static Status InvalidArgument(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kInvalidArgument, SubCode::kNone, msg, msg2);
  }
  static Status IOError(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIOError, SubCode::kNone, msg, msg2);
  }
  // IOError with subcode kNoSpace: the disk (or a quota) is full.
  static Status NoSpace(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIOError, SubCode::kNoSpace, msg, msg2);
  }
  // IOError with subcode kPathNotFound: a file or directory does not exist.
  static Status PathNotFound(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIOError, SubCode::kPathNotFound, msg, msg2);
  }
  static Status MergeInProgress(std::string_view msg = {}, std::string_view msg2 = {}) {
    return Status(Code::kMergeInProgress, SubCode::kNone, msg, msg2);
  }
  static Status Incomplete(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIncomplete, SubCode::kNone, msg, msg2);
  }
  static Status ShutdownInProgress(std::string_view msg = {}, std::string_view msg2 = {}) {
    return Status(Code::kShutdownInProgress, SubCode::kNone, msg, msg2);
  }
  static Status TimedOut(std::string_view msg = {}, std::string_view msg2 = {}) {
    return Status(Code::kTimedOut, SubCode::kNone, msg, msg2);
  }
  static Status Aborted(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kAborted, SubCode::kNone, msg, msg2);
  }
  // Aborted with subcode kMemoryLimit: a memory budget (the block cache with
  // strict_capacity_limit) refused what the operation needed.
  static Status MemoryLimit(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kAborted, SubCode::kMemoryLimit, msg, msg2);
  }
  // Busy with subcode kLockTimeout etc. can be made with the general constructor below.
  static Status Busy(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kBusy, SubCode::kNone, msg, msg2);
  }
  static Status Expired(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kExpired, SubCode::kNone, msg, msg2);
  }
  static Status TryAgain(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kTryAgain, SubCode::kNone, msg, msg2);
  }

  // The general form: `msg2`, when not empty, is appended after ": ".
  Status(Code code, SubCode subcode, std::string_view msg, std::string_view msg2 = {});

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsMergeInProgress() const { return code_ == Code::kMergeInProgress; }
  bool IsIncomplete() const { return code_ == Code::kIncomplete; }
  bool IsShutdownInProgress() const { return code_ == Code::kShutdownInProgress; }
  bool IsTimedOut() const { return code_ == Code::kTimedOut; }
  bool IsAborted() const { return code_ == Code::kAborted; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsExpired() const { return code_ == Code::kExpired; }
  bool IsTryAgain() const { return code_ == Code::kTryAgain; }
  bool IsMemoryLimit() const {
    return code_ == Code::kAborted && subcode_ == SubCode::kMemoryLimit;
  }
  bool IsNoSpace() const { return code_ == Code::kIOError && subcode_ == SubCode::kNoSpace; }
  bool IsPathNotFound() const {
    return (code_ == Code::kIOError || code_ == Code::kNotFound) &&
           subcode_ == SubCode::kPathNotFound;
  }

  Code code() const { return code_; }
  SubCode subcode() const { return subcode_; }
  // The message alone (may be empty).
  std::string_view message() const { return msg_ ? std::string_view(msg_.get()) : std::string_view(); }
  // "OK", or the code's name, the subcode's when there is one, and the message:
  // "IO error: No space left on device: /db/000012.sst: write failed".
  std::string ToString() const;

  // Spells out that an error is deliberately ignored at a call site.
  void PermitUncheckedError() const {}

  bool operator==(const Status& other) const {
    return code_ == other.code_ && subcode_ == other.subcode_;
  }

 private:
  Code code_ = Code::kOk;
  SubCode subcode_ = SubCode::kNone;
  // Null for OK and for errors without a message; otherwise a NUL-terminated copy.
  std::unique_ptr<char[]> msg_;
};

}  // namespace shale

#endif  // SHALE_STATUS_H_
