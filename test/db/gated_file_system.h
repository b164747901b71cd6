// GatedFileSystem (tests only): a FileSystem that passes every call to another one, and can
// hold one chosen call -- a WritableFile::Sync of a file, a NewWritableFile, or a RenameFile
// onto a name, whose path contains a given text, or an UnlockFile (armed with an empty text:
// it has no path) -- until the test lets it go. A test uses it to stop the engine
// at an exact point of its I/O (the MANIFEST write of an ingestion, the OPTIONS file of a
// SetOptions) and act while it is stopped there, without sleeps.
//
//   fs->Arm(GatedFileSystem::Op::kSync, "MANIFEST");   // the next such Sync will wait
//   std::thread t([&] { db->IngestExternalFile(...); });
//   ASSERT_TRUE(fs->WaitUntilHeld(10s));              // the Sync is waiting now
//   ... act ...
//   fs->Release();                                     // the Sync goes on
//
// One gate at a time: a call matches while the gate is armed and nothing holds it; the call
// that matches disarms it. Thread-safety: thread-safe; the file objects it returns point back
// to it, so it must outlive them.
#ifndef SHALE_TEST_DB_GATED_FILE_SYSTEM_H_
#define SHALE_TEST_DB_GATED_FILE_SYSTEM_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "shale/file_system.h"
#include "testutil/forwarding_file_system.h"

namespace shale {

class GatedFileSystem final : public test::ForwardingFileSystem {
 public:
  enum class Op { kSync, kCreate, kRename, kUnlock };

  using ForwardingFileSystem::ForwardingFileSystem;

  // The next `op` on a path containing `text` waits in Hold until Release.
  void Arm(Op op, std::string text) {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
    op_ = op;
    text_ = std::move(text);
    released_ = false;
  }
  // True once a call is waiting at the gate (false after `timeout`).
  bool WaitUntilHeld(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return held_; });
  }
  // Lets the waiting call (or the next matching one) go; disarms the gate.
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = false;
    released_ = true;
    cv_.notify_all();
  }
  // Blocks the caller if `op` on `path` matches the armed gate, until Release.
  void MaybeHold(Op op, const std::string& path) {
    std::unique_lock<std::mutex> l(mu_);
    if (!armed_ || held_ || op != op_ || path.find(text_) == std::string::npos) return;
    armed_ = false;
    held_ = true;
    cv_.notify_all();
    cv_.wait(l, [&] { return released_; });
    held_ = false;
  }

  const char* Name() const override { return "gated"; }
  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    MaybeHold(Op::kCreate, path);
    return Wrap(path, base()->NewWritableFile(path, result), result);
  }
  Status NewAppendableFile(const std::string& path,
                           std::unique_ptr<WritableFile>* result) override {
    return Wrap(path, base()->NewAppendableFile(path, result), result);
  }
  Status RenameFile(const std::string& src, const std::string& target) override {
    MaybeHold(Op::kRename, target);
    return base()->RenameFile(src, target);
  }
  Status UnlockFile(std::unique_ptr<FileLock> lock) override {
    MaybeHold(Op::kUnlock, "");
    return base()->UnlockFile(std::move(lock));
  }

 private:
  // Passes calls to the wrapped file; Sync may wait at the gate.
  class File final : public test::ForwardingWritableFile {
   public:
    File(GatedFileSystem* fs, std::string path, std::unique_ptr<WritableFile> base)
        : ForwardingWritableFile(std::move(base)), fs_(fs), path_(std::move(path)) {}
    Status Sync() override {
      fs_->MaybeHold(Op::kSync, path_);
      return base()->Sync();
    }

   private:
    GatedFileSystem* const fs_;
    const std::string path_;
  };

  Status Wrap(const std::string& path, Status s, std::unique_ptr<WritableFile>* result) {
    if (s.ok()) *result = std::make_unique<File>(this, path, std::move(*result));
    return s;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  bool armed_ = false;
  bool held_ = false;      // a call waits at the gate
  bool released_ = false;  // Release was called since the last Arm
  Op op_ = Op::kSync;
  std::string text_;
};

}  // namespace shale

#endif  // SHALE_TEST_DB_GATED_FILE_SYSTEM_H_
