// MultiGateFileSystem: a test file system whose Syncs of chosen files wait until the test
// releases them, to line up races between the DB's threads deterministically (the column-family
// review tests).
#ifndef SHALE_TEST_DB_MULTI_GATE_FILE_SYSTEM_H_
#define SHALE_TEST_DB_MULTI_GATE_FILE_SYSTEM_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "testutil/forwarding_file_system.h"

namespace shale::test {

// A FileSystem passing every call through, where Syncs of files whose path contains an armed
// text wait until released. Several gates at once (by id). Tests only. Thread-safe.
class MultiGateFileSystem final : public ForwardingFileSystem {
 public:
  using ForwardingFileSystem::ForwardingFileSystem;
  const char* Name() const override { return "multigate"; }

  // Gate `id`: the next Sync of a path containing `text` waits until Release(id).
  void Arm(int id, std::string text) {
    std::lock_guard<std::mutex> l(mu_);
    Gate& g = gates_[id];
    g.armed = true;
    g.held = false;
    g.released = false;
    g.text = std::move(text);
  }
  bool WaitUntilHeld(int id, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return gates_[id].held; });
  }
  void Release(int id) {
    std::lock_guard<std::mutex> l(mu_);
    gates_[id].armed = false;
    gates_[id].released = true;
    cv_.notify_all();
  }
  void MaybeHold(const std::string& path) {
    std::unique_lock<std::mutex> l(mu_);
    for (auto& [id, g] : gates_) {
      if (!g.armed || g.held || path.find(g.text) == std::string::npos) continue;
      g.armed = false;
      g.held = true;
      cv_.notify_all();
      const int gate = id;
      cv_.wait(l, [&] { return gates_[gate].released; });
      return;
    }
  }

  Status NewWritableFile(const std::string& path,
                         std::unique_ptr<WritableFile>* result) override {
    Status s = base()->NewWritableFile(path, result);
    if (s.ok()) *result = std::make_unique<File>(this, path, std::move(*result));
    return s;
  }

 private:
  struct Gate {
    bool armed = false;
    bool held = false;
    bool released = false;
    std::string text;
  };
  class File final : public ForwardingWritableFile {
   public:
    File(MultiGateFileSystem* fs, std::string path, std::unique_ptr<WritableFile> base)
        : ForwardingWritableFile(std::move(base)), fs_(fs), path_(std::move(path)) {}
    Status Sync() override {
      fs_->MaybeHold(path_);
      return base()->Sync();
    }

   private:
    MultiGateFileSystem* const fs_;
    const std::string path_;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, Gate> gates_;  // guarded by mu_
};

}  // namespace shale::test

#endif  // SHALE_TEST_DB_MULTI_GATE_FILE_SYSTEM_H_
