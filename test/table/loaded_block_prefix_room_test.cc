// LoadedBlock reserves room for restart prefixes only where Block::BuildRestartPrefixes can
// fill it (perf review of issue 21): under a user comparator other than the bytewise one no
// prefixes are built, so a kept block must not carry (and be charged for) 4 unused bytes per
// restart -- for an index block, one per entry.
//
// Thread-safety: single-threaded.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "base/internal_key.h"
#include "table/block.h"
#include "table/block_builder.h"
#include "table/block_source.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

// Bytewise order reversed: restart prefixes cannot serve it.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override {
    return BytewiseComparator()->Compare(b, a);
  }
  const char* Name() const override { return "test.Reverse"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// An index-like block: restart interval 1, `n` entries in `cmp`'s order.
std::string IndexLikeBlock(int n) {
  BlockBuilder builder(1);
  for (int i = n - 1; i >= 0; i--) {  // descending user keys: ascending in reverse order
    char user[16];
    std::snprintf(user, sizeof(user), "k%08d", i);
    builder.Add(MakeInternalKey(user, 1, kTypeValue), "handle..");
  }
  return std::string(builder.Finish());
}

TEST(LoadedBlockPrefixRoomTest, NoRoomForPrefixesANonBytewiseOrderCannotUse) {
  ReverseComparator user;
  InternalKeyComparator reverse(&user);
  const std::string contents = IndexLikeBlock(2000);
  std::unique_ptr<LoadedBlock> plain, with_cmp;
  ASSERT_OK(LoadedBlock::MakeBlock(contents, LoadedBlock::Memory::kHugePages, &plain));
  ASSERT_OK(LoadedBlock::MakeBlock(contents, LoadedBlock::Memory::kHugePages, &with_cmp, &reverse));
  EXPECT_FALSE(with_cmp->block()->has_restart_prefixes());
  EXPECT_EQ(with_cmp->charge(), plain->charge());
}

TEST(LoadedBlockPrefixRoomTest, InPlaceReadsReserveNoRoomForANonBytewiseOrder) {
  ReverseComparator user;
  InternalKeyComparator reverse(&user);
  // Block sizes across several of the allocator's size classes: the room (capacity / 64 bytes)
  // moves some of them into the next class.
  for (int n = 100; n < 400; n += 7) {
    const std::string contents = IndexLikeBlock(n);
    auto load = [&](const InternalKeyComparator* cmp, std::unique_ptr<LoadedBlock>* out) {
      return LoadedBlock::ReadBlockInPlace(
          contents.size(), cmp,
          [&](char* buffer, std::string*, std::string_view* view, bool* in_buffer) {
            std::memcpy(buffer, contents.data(), contents.size());
            *view = std::string_view(buffer, contents.size());
            *in_buffer = true;
            return Status::OK();
          },
          out);
    };
    std::unique_ptr<LoadedBlock> plain, with_cmp;
    ASSERT_OK(load(nullptr, &plain));
    ASSERT_OK(load(&reverse, &with_cmp));
    EXPECT_FALSE(with_cmp->block()->has_restart_prefixes());
    EXPECT_EQ(with_cmp->charge(), plain->charge()) << n << " entries";
  }
}

// Second review of issue 21's pins, M2: a data block restarting every 4 keys (the default
// since) of small entries has more restarts than the room a read in place used to reserve
// (one per 256 bytes), so its prefixes took a second allocation. With the restart count the
// reader has seen (restarts_hint) the prefixes share the block's allocation, and the block
// costs no more than MakeBlock's.
TEST(LoadedBlockPrefixRoomTest, InPlaceReadsWithTheRestartsHintNeedNoSecondAllocation) {
  BlockBuilder builder(4);
  for (int i = 0; i < 85; i++) {  // ~48-byte entries: ~21 restarts in 4 KiB
    char user[17];
    std::snprintf(user, sizeof(user), "key%013d", i);
    builder.Add(MakeInternalKey(user, 1, kTypeValue), std::string(24, 'v'));
  }
  const std::string contents(builder.Finish());
  const InternalKeyComparator icmp(BytewiseComparator());
  auto load = [&](size_t hint, std::unique_ptr<LoadedBlock>* out) {
    return LoadedBlock::ReadBlockInPlace(
        contents.size(), &icmp,
        [&](char* buffer, std::string*, std::string_view* view, bool* in_buffer) {
          std::memcpy(buffer, contents.data(), contents.size());
          *view = std::string_view(buffer, contents.size());
          *in_buffer = true;
          return Status::OK();
        },
        out, hint);
  };
  std::unique_ptr<LoadedBlock> made, unhinted, hinted;
  ASSERT_OK(LoadedBlock::MakeBlock(contents, LoadedBlock::Memory::kHugePages, &made, &icmp));
  ASSERT_OK(load(0, &unhinted));
  const size_t restarts = unhinted->block()->num_restarts();
  ASSERT_GT(restarts, contents.size() / 256 + 2) << "the block fits the default room";
  ASSERT_OK(load(restarts, &hinted));
  EXPECT_TRUE(hinted->block()->has_restart_prefixes());
  EXPECT_GT(unhinted->charge(), made->charge()) << "the default room now fits: test is moot";
  EXPECT_LE(hinted->charge(), made->charge());
}

}  // namespace
}  // namespace shale
