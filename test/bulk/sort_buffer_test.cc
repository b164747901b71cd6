// SortBuffer and MemoryRunCursor: random keys with duplicates, sorted and deduplicated (the last
// entry added for a key wins) under the bytewise order (radix sort plus prefix-tie fixing) and
// under a custom comparator (stable sort); the admission rule and reuse after Clear.
#include "bulk/sort_buffer.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bulk/run_cursor.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace shale::bulk {
namespace {

// Reverse bytewise order, under a name that is not the bytewise comparator's.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return b.compare(a); }
  const char* Name() const override { return "test.Reverse"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// Keys that stress the prefix: lengths 0..20, few distinct bytes (so prefixes often tie),
// zero bytes (so "a" and "a\0" share a prefix).
std::string RandomKey(Random* rnd) {
  const size_t len = rnd->Uniform(21);
  std::string key(len, '\0');
  for (char& c : key) c = static_cast<char>("\0ab\xff"[rnd->Uniform(4)]);
  return key;
}

struct Reverse {
  bool operator()(const std::string& a, const std::string& b) const { return a > b; }
};

// Reads every entry of a sorted buffer through a cursor.
std::vector<std::pair<std::string, std::string>> ReadAll(const SortBuffer& buffer,
                                                         uint64_t* duplicates) {
  std::vector<std::pair<std::string, std::string>> out;
  for (MemoryRunCursor c(buffer, nullptr, duplicates); c.Valid(); c.Next()) {
    out.emplace_back(c.key(), c.value());
  }
  return out;
}

template <typename Map>
void CheckAgainstModel(const Comparator* comparator) {
  Random rnd(301);
  for (int round = 0; round < 20; round++) {
    SortBuffer buffer(64 << 10, comparator);
    Map model;
    uint64_t added = 0;
    for (;; added++) {
      const std::string key = RandomKey(&rnd);
      const std::string value = std::to_string(added);
      if (!buffer.Add(key, value)) break;
      model[key] = value;  // the last one wins
    }
    ASSERT_GT(added, 500u);
    buffer.Sort();
    uint64_t duplicates = 0;
    const auto got = ReadAll(buffer, &duplicates);
    ASSERT_EQ(got.size(), model.size());
    auto it = model.begin();
    for (const auto& [key, value] : got) {
      EXPECT_EQ(key, it->first);
      EXPECT_EQ(value, it->second) << "key of " << key.size() << " bytes";
      ++it;
    }
    EXPECT_EQ(duplicates, added - model.size());
  }
}

TEST(SortBufferTest, BytewiseMatchesModelLastWins) {
  CheckAgainstModel<std::map<std::string, std::string>>(BytewiseComparator());
}

TEST(SortBufferTest, CustomComparatorMatchesModelLastWins) {
  ReverseComparator reverse;
  CheckAgainstModel<std::map<std::string, std::string, Reverse>>(&reverse);
}

// Fixed 16-byte keys whose prefixes differ only in a few low bytes (shale_bench's shape): the
// radix sort skips the shared bytes; large groups of one prefix take the stable_sort path.
TEST(SortBufferTest, SharedPrefixesAndLargeTieGroups) {
  SortBuffer buffer(1 << 20, BytewiseComparator());
  std::map<std::string, std::string> model;
  Random rnd(7);
  for (int i = 0; i < 5000; i++) {
    std::string key = "pppppppp";  // one prefix for all...
    key += std::to_string(rnd.Uniform(300));  // ...and 300 suffixes: groups of ~17 and more
    const std::string value = absl::StrCat("v", i);
    ASSERT_TRUE(buffer.Add(key, value));
    model[key] = value;
  }
  buffer.Sort();
  buffer.Sort();  // idempotent
  const auto got = ReadAll(buffer, nullptr);
  ASSERT_EQ(got.size(), model.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), model.begin(), [](const auto& a, const auto& b) {
    return a.first == b.first && a.second == b.second;
  }));
}

TEST(SortBufferTest, AdmissionKeepsRoomForTheScratchIndex) {
  SortBuffer buffer(4096, BytewiseComparator());
  const std::string key(10, 'k'), value(20, 'v');
  size_t n = 0;
  while (buffer.Add(key + std::to_string(n % 10), value)) n++;
  // Each entry takes its record and two index slots.
  EXPECT_EQ(n, (4096 - 16) / SortBuffer::Charge(11, 20));
  EXPECT_LE(buffer.record_bytes() + 2 * n * sizeof(SortEntry), buffer.capacity());
  EXPECT_FALSE(buffer.Add(std::string(5000, 'x'), ""));
  buffer.Sort();
  EXPECT_EQ(ReadAll(buffer, nullptr).size(), 10u);

  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_FALSE(buffer.sorted());
  ASSERT_TRUE(buffer.Add("b", "2"));
  ASSERT_TRUE(buffer.Add("a", "1"));
  buffer.Sort();
  const auto got = ReadAll(buffer, nullptr);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, "a");
  EXPECT_EQ(got[1].second, "2");
}

TEST(SortBufferTest, EmptyAndSingleEntry) {
  SortBuffer buffer(1024, BytewiseComparator());
  buffer.Sort();
  EXPECT_TRUE(ReadAll(buffer, nullptr).empty());
  buffer.Clear();
  ASSERT_TRUE(buffer.Add("", ""));
  buffer.Sort();
  const auto got = ReadAll(buffer, nullptr);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, "");
}

TEST(SortBufferTest, CursorStartsAtLowerBound) {
  SortBuffer buffer(1 << 16, BytewiseComparator());
  for (int i = 99; i >= 0; i--) {
    char key[8];
    std::snprintf(key, sizeof(key), "k%03d", i);
    ASSERT_TRUE(buffer.Add(key, "v"));
  }
  buffer.Sort();
  const std::string_view lower = "k0505";  // between k050 and k051
  MemoryRunCursor c(buffer, &lower, nullptr);
  ASSERT_TRUE(c.Valid());
  EXPECT_EQ(c.key(), "k051");
  const std::string_view past = "z";
  EXPECT_FALSE(MemoryRunCursor(buffer, &past, nullptr).Valid());
}

}  // namespace
}  // namespace shale::bulk
