// A gtest fixture for picker tests on hand-built Versions (compaction_test_util.h): files
// numbered and sequenced in creation order, picks kept (and checked to mark their inputs) until
// Release, and a compact text form of a pick's inputs. Small level targets (1000 bytes at L1,
// x10 per level, 500-byte files) so a few files make a level due.
// Thread-safety: a test's fixture is used by its own thread only.
#ifndef SHALE_TEST_COMPACTION_PICKER_FIXTURE_H_
#define SHALE_TEST_COMPACTION_PICKER_FIXTURE_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compaction/compaction_picker.h"
#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"

namespace shale::test {

class PickerFixture : public testing::Test {
 protected:
  PickerFixture() : icmp_(BytewiseComparator()) {
    options_.num_levels = 4;
    options_.level_compaction_dynamic_level_bytes = false;
    options_.max_bytes_for_level_base = 1000;
    options_.max_bytes_for_level_multiplier = 10;
    options_.level0_file_num_compaction_trigger = 4;  // a test may lower it
    options_.target_file_size_base = 500;
  }
  ~PickerFixture() override { Release(); }

  // Files are numbered in creation order and each is newer (higher sequences) than the last.
  FileMetaData File(std::string_view lo, std::string_view hi, uint64_t size,
                    uint64_t creation_time = 0) {
    const SequenceNumber seq = next_seq_;
    next_seq_ += 10;
    return MakeFile(next_number_++, lo, hi, seq, seq + 9, size, creation_time);
  }
  void Build(std::vector<std::pair<int, FileMetaData>> files) {
    Release();
    version_ = std::make_unique<TestVersion>(&icmp_, options_.num_levels, files);
    ASSERT_OK(version_->status());
  }
  Version* v() { return version_->get(); }
  FileMetaData* F(uint64_t number) { return version_->File(number); }

  // The pick (owned by the fixture until Release), or null.
  Compaction* Pick(CompactionPicker* picker, uint64_t now = 0) {
    return Keep(picker->PickCompaction(v(), options_, pending_, now));
  }
  // Checks the marks of a fresh pick and keeps it until Release.
  Compaction* Keep(std::unique_ptr<Compaction> c) {
    if (c == nullptr) return nullptr;
    for (const CompactionInputLevel& in : c->inputs()) {
      for (const FileMetaData* f : in.files) EXPECT_TRUE(f->being_compacted) << f->number;
    }
    picked_.push_back(std::move(c));
    return picked_.back().get();
  }
  // Releases the inputs of every pick (clearing their marks) and destroys them.
  void Release() {
    for (std::unique_ptr<Compaction>& c : picked_) c->ReleaseInputs();
    picked_.clear();
  }
  // "L0:1,2 L1:5" for the inputs of c.
  static std::string Inputs(const Compaction& c) {
    std::string r;
    for (const CompactionInputLevel& in : c.inputs()) {
      absl::StrAppend(&r, r.empty() ? "" : " ", "L", in.level, ":");
      const char* sep = "";
      for (uint64_t n : Numbers(in.files)) {
        absl::StrAppend(&r, sep, n);
        sep = ",";
      }
    }
    return r;
  }

  InternalKeyComparator icmp_;
  Options options_;
  std::vector<PendingOutputRange> pending_;
  std::unique_ptr<TestVersion> version_;
  std::vector<std::unique_ptr<Compaction>> picked_;  // released before their Version goes
  uint64_t next_number_ = 1;
  SequenceNumber next_seq_ = 1;
};

}  // namespace shale::test

#endif  // SHALE_TEST_COMPACTION_PICKER_FIXTURE_H_
