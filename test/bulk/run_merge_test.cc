// Run files, the k-way merge and key-range splitting: runs (some spilled to files, some in
// memory) merge into one stream with the newest run's entry per key; merging range by range
// from sampled split keys gives the same stream; a truncated run file is a Corruption.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bulk/key_ranges.h"
#include "bulk/run_file.h"
#include "bulk/run_merger.h"
#include "bulk/sort_buffer.h"
#include "gtest/gtest.h"
#include "shale/file_system.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::bulk {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

class RunMergeTest : public testing::Test {
 protected:
  // Fills `n` buffers with random keys from a space of `key_space` (so runs share keys); the
  // model keeps the last value per key. The first `spilled` buffers go to run files.
  void MakeRuns(int n, int spilled, int entries_per_run, uint64_t key_space) {
    Random rnd(42);
    for (int b = 0; b < n; b++) {
      auto buffer = std::make_unique<SortBuffer>(8 << 20, BytewiseComparator());
      for (int i = 0; i < entries_per_run; i++) {
        const std::string key = absl::StrCat("key", rnd.Uniform(key_space));
        const std::string value = absl::StrCat("run", b, ".", i, std::string(rnd.Uniform(40), 'x'));
        ASSERT_TRUE(buffer->Add(key, value));
        model_[key] = value;
        added_++;
      }
      buffer->Sort();
      if (b < spilled) {
        RunFileInfo info;
        MemoryRunCursor cursor(*buffer, nullptr, nullptr);
        ASSERT_OK(WriteRunFile(fs_.get(), absl::StrCat("/run", b), &cursor,
                               RunSampleBytes(buffer->record_bytes()), &info));
        files_.push_back(std::move(info));
      } else {
        buffers_.push_back(std::move(buffer));
      }
    }
  }

  // The merge of every run over [*lower, *upper).
  Entries Merge(const std::string* lower, const std::string* upper, uint64_t* duplicates,
                Status* status) {
    std::string_view lower_view = lower != nullptr ? std::string_view(*lower) : "";
    std::vector<std::unique_ptr<RunCursor>> cursors;
    for (const RunFileInfo& info : files_) {
      std::unique_ptr<RunFileCursor> c;
      *status = RunFileCursor::Open(fs_.get(), info, BytewiseComparator(),
                                    lower != nullptr ? &lower_view : nullptr, 4096, nullptr, &c);
      if (!status->ok()) return {};
      cursors.push_back(std::move(c));
    }
    for (const auto& b : buffers_) {
      cursors.push_back(std::make_unique<MemoryRunCursor>(
          *b, lower != nullptr ? &lower_view : nullptr, duplicates));
    }
    RunMerger merger(std::move(cursors), BytewiseComparator(), true, upper);
    Entries out;
    for (; merger.Valid(); merger.Next()) out.emplace_back(merger.key(), merger.value());
    *status = merger.status();
    if (duplicates != nullptr) *duplicates += merger.duplicates();
    return out;
  }

  Entries ModelEntries() const { return Entries(model_.begin(), model_.end()); }

  std::shared_ptr<FileSystem> fs_ = NewMemFileSystem();
  std::vector<RunFileInfo> files_;  // oldest first, all older than buffers_
  std::vector<std::unique_ptr<SortBuffer>> buffers_;
  std::map<std::string, std::string> model_;
  uint64_t added_ = 0;
};

TEST_F(RunMergeTest, NewestRunWinsAcrossFilesAndMemory) {
  MakeRuns(/*n=*/6, /*spilled=*/4, /*entries_per_run=*/3000, /*key_space=*/5000);
  for (const RunFileInfo& info : files_) {
    EXPECT_GT(info.samples.size(), 1u) << "a run of " << info.bytes << " bytes";
    EXPECT_EQ(info.samples[0].offset, 0u);
  }
  uint64_t duplicates = 0;
  Status s;
  const Entries merged = Merge(nullptr, nullptr, &duplicates, &s);
  ASSERT_OK(s);
  EXPECT_EQ(merged, ModelEntries());
  // Duplicates dropped inside run files were dropped when they were written; the rest here.
  uint64_t in_files = 0;
  for (const RunFileInfo& info : files_) in_files += info.entries;
  EXPECT_EQ(merged.size(), added_ - duplicates - (4 * 3000 - in_files));
}

TEST_F(RunMergeTest, RangesFromSampledSplitsCoverTheStreamOnce) {
  MakeRuns(5, 3, 4000, 1000000);
  for (int ranges : {2, 3, 7}) {
    std::vector<KeySample> samples;
    for (const RunFileInfo& info : files_) SampleRunFile(info, &samples);
    for (const auto& b : buffers_) SampleSortBuffer(*b, 100, &samples);
    const std::vector<std::string> splits =
        SplitKeySpace(std::move(samples), ranges, BytewiseComparator());
    ASSERT_EQ(splits.size(), static_cast<size_t>(ranges - 1));
    Entries all;
    std::vector<size_t> sizes;
    for (size_t r = 0; r <= splits.size(); r++) {
      Status s;
      const Entries part = Merge(r > 0 ? &splits[r - 1] : nullptr,
                                 r < splits.size() ? &splits[r] : nullptr, nullptr, &s);
      ASSERT_OK(s);
      sizes.push_back(part.size());
      all.insert(all.end(), part.begin(), part.end());
    }
    EXPECT_EQ(all, ModelEntries()) << ranges << " ranges";
    // About equal shares (random keys): none below half of a fair share.
    for (size_t size : sizes) EXPECT_GT(size, model_.size() / ranges / 2) << ranges;
  }
}

TEST_F(RunMergeTest, TruncatedRunFileIsCorruption) {
  MakeRuns(2, 2, 2000, 100000);
  std::string contents;
  ASSERT_OK(ReadFileToString(fs_.get(), files_[1].path, &contents));
  contents.resize(contents.size() - 3);  // cut the last record short
  ASSERT_OK(WriteStringToFile(fs_.get(), contents, files_[1].path, false));
  Status s;
  Merge(nullptr, nullptr, nullptr, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(files_[1].path), std::string::npos) << s.ToString();
}

TEST(KeyRangesTest, FewDistinctKeysGiveFewerSplits) {
  std::vector<KeySample> samples = {{"a", 10}, {"a", 10}, {"a", 10}};
  EXPECT_TRUE(SplitKeySpace(samples, 4, BytewiseComparator()).empty());
  samples.push_back({"b", 10});
  EXPECT_EQ(SplitKeySpace(samples, 4, BytewiseComparator()), std::vector<std::string>{"b"});
  EXPECT_TRUE(SplitKeySpace({}, 4, BytewiseComparator()).empty());
  EXPECT_TRUE(SplitKeySpace(samples, 1, BytewiseComparator()).empty());
}

}  // namespace
}  // namespace shale::bulk
