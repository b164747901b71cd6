// Micro benchmarks of the log record format (src/wal): the per-record cost of log::Writer and
// log::Reader over in-memory files, so that file system costs do not hide the framing's.
//
//   BM_LogAddRecord/<record bytes>   AddRecord into a WritableFile that copies into memory
//   BM_LogReadRecord/<record bytes>  ReadRecord over a log held in memory
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "shale/file_system.h"
#include "wal/log_reader.h"
#include "wal/log_writer.h"

namespace shale::log {
namespace {

// Copies what is appended into a reused 1 MiB window (the cost of a buffered file's memcpy,
// without page faults), keeping only the size; or, with `keep`, keeps all of it.
class MemorySink final : public WritableFile {
 public:
  explicit MemorySink(bool keep) : keep_(keep), window_(kWindow, '\0') {}
  Status Append(std::string_view data) override {
    size_ += data.size();
    if (keep_) {
      kept_.append(data);
      return Status::OK();
    }
    while (!data.empty()) {
      const size_t n = std::min(data.size(), kWindow - position_);
      std::memcpy(window_.data() + position_, data.data(), n);
      position_ = (position_ + n) % kWindow;
      data.remove_prefix(n);
    }
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
  uint64_t GetFileSize() const override { return size_; }
  const std::string& kept() const { return kept_; }

 private:
  static constexpr size_t kWindow = 1 << 20;
  const bool keep_;
  std::string window_;
  size_t position_ = 0;
  std::string kept_;
  uint64_t size_ = 0;
};

class MemorySource final : public SequentialFile {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  Status Read(size_t n, std::string_view* result, char* scratch) override {
    n = std::min(n, data_.size() - pos_);
    std::memcpy(scratch, data_.data() + pos_, n);
    *result = std::string_view(scratch, n);
    pos_ += n;
    return Status::OK();
  }
  Status Skip(uint64_t n) override {
    pos_ = std::min<uint64_t>(data_.size(), pos_ + n);
    return Status::OK();
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

void BM_LogAddRecord(benchmark::State& state) {
  const std::string record(static_cast<size_t>(state.range(0)), 'v');
  Writer writer(std::make_unique<MemorySink>(/*keep=*/false));
  for (auto _ : state) {
    Status s = writer.AddRecord(record);
    if (!s.ok()) state.SkipWithError("AddRecord failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_LogAddRecord)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000);

void BM_LogReadRecord(benchmark::State& state) {
  const std::string record(static_cast<size_t>(state.range(0)), 'v');
  auto sink = std::make_unique<MemorySink>(/*keep=*/true);
  MemorySink* log = sink.get();
  Writer writer(std::move(sink));
  const size_t count = std::max<size_t>(1, (16 << 20) / (record.size() + 7));
  for (size_t i = 0; i < count; ++i) {
    if (!writer.AddRecord(record).ok()) state.SkipWithError("AddRecord failed");
  }
  std::string_view contents = log->kept();
  auto reader = std::make_unique<MemorySource>(contents);
  auto log_reader = std::make_unique<Reader>(reader.get(), nullptr, true, 0,
                                             WalRecoveryMode::kAbsoluteConsistency);
  std::string_view result;
  std::string scratch;
  for (auto _ : state) {
    if (!log_reader->ReadRecord(&result, &scratch)) {
      state.PauseTiming();
      reader = std::make_unique<MemorySource>(contents);
      log_reader = std::make_unique<Reader>(reader.get(), nullptr, true, 0,
                                            WalRecoveryMode::kAbsoluteConsistency);
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_LogReadRecord)->Arg(100)->Arg(1000)->Arg(10000)->Arg(100000);

}  // namespace
}  // namespace shale::log

BENCHMARK_MAIN();
