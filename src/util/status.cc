#include "shale/status.h"

#include <cstring>

namespace shale {

namespace {

std::unique_ptr<char[]> CopyMessage(const char* msg) {
  if (msg == nullptr) return nullptr;
  size_t n = std::strlen(msg) + 1;
  std::unique_ptr<char[]> copy(new char[n]);
  std::memcpy(copy.get(), msg, n);
  return copy;
}

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kNotSupported: return "Not implemented";
    case Status::Code::kInvalidArgument: return "Invalid argument";
    case Status::Code::kIOError: return "IO error";
    case Status::Code::kMergeInProgress: return "Merge in progress";
    case Status::Code::kIncomplete: return "Result incomplete";
    case Status::Code::kShutdownInProgress: return "Shutdown in progress";
    case Status::Code::kTimedOut: return "Operation timed out";
    case Status::Code::kAborted: return "Operation aborted";
    case Status::Code::kBusy: return "Resource busy";
    case Status::Code::kExpired: return "Operation expired";
    case Status::Code::kTryAgain: return "Operation failed. Try again.";
  }
  return "Unknown code";
}

const char* SubCodeName(Status::SubCode subcode) {
  switch (subcode) {
    case Status::SubCode::kNone: return nullptr;
    case Status::SubCode::kMutexTimeout: return "Timeout Acquiring Mutex";
    case Status::SubCode::kLockTimeout: return "Timeout waiting to lock key";
    case Status::SubCode::kLockLimit: return "Failed to acquire lock due to max_num_locks limit";
    case Status::SubCode::kNoSpace: return "No space left on device";
    case Status::SubCode::kDeadlock: return "Deadlock";
    case Status::SubCode::kStaleFile: return "Stale file handle";
    case Status::SubCode::kMemoryLimit: return "Memory limit reached";
    case Status::SubCode::kSpaceLimit: return "Space limit reached";
    case Status::SubCode::kPathNotFound: return "No such file or directory";
  }
  return nullptr;
}

}  // namespace

Status::Status(Code code, SubCode subcode, std::string_view msg, std::string_view msg2)
    : code_(code), subcode_(subcode) {
  if (msg.empty() && msg2.empty()) return;
  size_t n = msg.size() + (msg2.empty() ? 0 : 2 + msg2.size());
  msg_.reset(new char[n + 1]);
  char* p = msg_.get();
  std::memcpy(p, msg.data(), msg.size());
  p += msg.size();
  if (!msg2.empty()) {
    *p++ = ':';
    *p++ = ' ';
    std::memcpy(p, msg2.data(), msg2.size());
    p += msg2.size();
  }
  *p = '\0';
}

Status::Status(const Status& other)
    : code_(other.code_), subcode_(other.subcode_), msg_(CopyMessage(other.msg_.get())) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    code_ = other.code_;
    subcode_ = other.subcode_;
    msg_ = CopyMessage(other.msg_.get());
  }
  return *this;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string result = CodeName(code_);
  if (const char* sub = SubCodeName(subcode_)) {
    result += ": ";
    result += sub;
  }
  if (msg_) {
    result += ": ";
    result += msg_.get();
  }
  return result;
}

}  // namespace shale
