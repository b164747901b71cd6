// Randomized damage: whatever is done to a log, the reader never crashes, never returns a record
// that was not written (or out of order), never loses a record that lies wholly before the first
// damaged byte, and keeps each mode's promise.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "wal/log_test_util.h"
#include "testutil/status_matchers.h"
#include "util/random.h"

namespace shale::log::test {
namespace {

using Records = std::vector<std::string>;

std::string RandomBytes(Random* rnd, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rnd->Uniform(256));
  return s;
}

// Damages `log` in place; returns the offset of the first byte changed (log->size() if none).
uint64_t Damage(Random* rnd, std::string* log) {
  uint64_t first = log->size();
  const int ops = 1 + static_cast<int>(rnd->Uniform(3));
  for (int i = 0; i < ops && !log->empty(); ++i) {
    const uint64_t at = rnd->Uniform(log->size());
    switch (rnd->Uniform(5)) {
      case 0: {  // flip one byte
        (*log)[at] ^= static_cast<char>(1 + rnd->Uniform(255));
        first = std::min(first, at);
        break;
      }
      case 1:  // cut
        log->resize(at);
        first = std::min(first, at);
        break;
      case 2: {  // zero a range
        const uint64_t end = std::min<uint64_t>(log->size(), at + 1 + rnd->Skewed(16));
        std::fill(log->begin() + at, log->begin() + end, '\0');
        first = std::min(first, at);
        break;
      }
      case 3: {  // overwrite a range with garbage
        const uint64_t end = std::min<uint64_t>(log->size(), at + 1 + rnd->Skewed(10));
        const std::string garbage = RandomBytes(rnd, end - at);
        log->replace(at, end - at, garbage);
        first = std::min(first, at);
        break;
      }
      default:  // zeros appended (preallocated space)
        log->append(rnd->Skewed(16), '\0');
        break;
    }
  }
  return first;
}

// Whether `got` is `want` with some records left out, in the same order.
bool IsSubsequence(const Records& got, const Records& want) {
  size_t j = 0;
  for (const std::string& r : got) {
    while (j < want.size() && want[j] != r) ++j;
    if (j == want.size()) return false;
    ++j;
  }
  return true;
}

bool IsPrefix(const Records& got, const Records& want) {
  return got.size() <= want.size() && std::equal(got.begin(), got.end(), want.begin());
}

TEST(LogFuzzTest, RandomDamage) {
  Random rnd(20240611);
  for (int iteration = 0; iteration < 1500; ++iteration) {
    Records records;
    std::vector<size_t> sizes;
    const size_t n = 1 + rnd.Uniform(12);
    for (size_t i = 0; i < n; ++i) {
      const size_t size = rnd.OneIn(8) ? rnd.Uniform(100000) : rnd.Skewed(10);
      records.push_back(RandomBytes(&rnd, size));
      sizes.push_back(size);
    }
    const std::string log = WriteLog(records);
    std::string damaged = log;
    const uint64_t first_damage = Damage(&rnd, &damaged);
    // Records that end before the first damaged byte must come back.
    size_t intact = 0;
    while (intact < n &&
           ModelLayout(std::vector<size_t>(sizes.begin(), sizes.begin() + intact + 1)).length <=
               first_damage) {
      ++intact;
    }
    const auto source =
        iteration % 2 ? StringSource::Mode::kOwnBuffer : StringSource::Mode::kScratch;
    for (WalRecoveryMode mode : kAllModes) {
      SCOPED_TRACE(testing::Message() << "iteration " << iteration << " "
                                      << WalRecoveryModeName(mode));
      ReadResult result = ReadAll(damaged, mode, 0, source);
      ASSERT_TRUE(IsSubsequence(result.records, records));
      ASSERT_TRUE(IsPrefix(Records(records.begin(), records.begin() + intact), result.records));
      ASSERT_TRUE(result.status.ok() || result.status.IsCorruption()) << result.status.ToString();
      ASSERT_EQ(result.reporter.corruptions.size(), result.corruption_count);
      if (mode == WalRecoveryMode::kSkipAnyCorruptedRecords) {
        ASSERT_OK(result.status);
      } else {
        ASSERT_TRUE(IsPrefix(result.records, records));
        ASSERT_LE(result.corruption_count, 1u);
      }
      if (mode == WalRecoveryMode::kPointInTimeRecovery) {
        ASSERT_OK(result.status);
        ASSERT_EQ(result.stopped_at_corruption, result.corruption_count == 1);
      }
      if (damaged == log) {
        ASSERT_EQ(result.records, records);
        ASSERT_FALSE(result.torn_tail);
      }
      if (result.status.ok() && result.corruption_count == 0 && !result.torn_tail &&
          result.records.size() < records.size()) {
        // Nothing was reported, so nothing may be missing but what zeros or a cut removed.
        ASSERT_TRUE(std::all_of(damaged.begin() + std::min<uint64_t>(first_damage, damaged.size()),
                                damaged.end(), [](char c) { return c == '\0'; }))
            << "records lost without a report";
      }
    }
  }
}

}  // namespace
}  // namespace shale::log::test
