// MemTableSet's contract (memtable/memtable_set.h): the switch, removal of flushed memtables
// oldest first, the WAL numbers, the unlogged-writes flag, the accounting and the room
// decision that write stalls rest on, and the references it holds and hands out.
#include "memtable/memtable_set.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "shale/comparator.h"

namespace shale {
namespace {

class MemTableSetTest : public ::testing::Test {
 protected:
  // A new memtable with the creator's reference, as the DB makes them.
  MemTable* NewMem() {
    auto* mem = new MemTable(icmp_);
    mem->Ref();
    return mem;
  }
  // Adds `n` values of `size` bytes to `mem` (as the write leader would).
  void Fill(MemTable* mem, int n, size_t size = 100) {
    for (int i = 0; i < n; i++) {
      const SequenceNumber seq = ++sequence_;
      mem->Add(seq, kTypeValue, "key" + std::to_string(seq), std::string(size, 'v'));
    }
  }

  InternalKeyComparator icmp_{BytewiseComparator()};
  SequenceNumber sequence_ = 0;
};

TEST_F(MemTableSetTest, SwitchRetiresTheActiveMemTableNewestFirst) {
  MemTableSet set;
  set.SetLogNumber(5);
  MemTable* first = NewMem();
  set.Init(first);
  EXPECT_EQ(set.mem(), first);
  EXPECT_EQ(set.log_number(), 5u);
  EXPECT_EQ(set.NumImmutable(), 0u);

  MemTable* second = NewMem();
  set.Switch(second, 8);
  MemTable* third = NewMem();
  set.Switch(third, 9);
  EXPECT_EQ(set.mem(), third);
  EXPECT_EQ(set.log_number(), 9u);
  ASSERT_EQ(set.NumImmutable(), 2u);
  // Newest first; each records the WAL started when it was retired.
  EXPECT_EQ(set.immutables()[0].mem, second);
  EXPECT_EQ(set.immutables()[0].next_log_number, 9u);
  EXPECT_EQ(set.immutables()[1].mem, first);
  EXPECT_EQ(set.immutables()[1].next_log_number, 8u);
  EXPECT_EQ(set.Oldest().mem, first);
  EXPECT_EQ(set.retired_count(), 2u);
  EXPECT_EQ(set.flushed_count(), 0u);
}

TEST_F(MemTableSetTest, RemoveOldestGoesInRetireOrderAndCountsFlushes) {
  MemTableSet set;
  set.SetLogNumber(1);
  MemTable* a = NewMem();
  set.Init(a);
  MemTable* b = NewMem();
  set.Switch(b, 2);
  set.Switch(NewMem(), 3);
  EXPECT_EQ(set.RemoveOldest(a), a);
  a->Unref();
  EXPECT_EQ(set.flushed_count(), 1u);
  EXPECT_EQ(set.Oldest().mem, b);
  EXPECT_EQ(set.RemoveOldest(b), b);
  b->Unref();
  EXPECT_EQ(set.flushed_count(), 2u);
  EXPECT_EQ(set.retired_count() - set.flushed_count(), set.NumImmutable());
  EXPECT_EQ(set.NumImmutable(), 0u);
}

// WaitForFlush's question: is a memtable retired before WAL n was started still unflushed?
TEST_F(MemTableSetTest, HasImmutableUpToFollowsTheWalNumbers) {
  MemTableSet set;
  set.SetLogNumber(10);
  MemTable* a = NewMem();
  set.Init(a);
  EXPECT_FALSE(set.HasImmutableUpTo(set.log_number()));  // nothing retired
  set.Switch(NewMem(), 11);  // a: next_log_number 11
  MemTable* b = set.mem();
  set.Switch(NewMem(), 12);  // b: next_log_number 12
  EXPECT_FALSE(set.HasImmutableUpTo(10));  // retired before WAL 10: none
  EXPECT_TRUE(set.HasImmutableUpTo(11));   // a
  EXPECT_TRUE(set.HasImmutableUpTo(12));   // a and b
  set.RemoveOldest(a)->Unref();
  EXPECT_FALSE(set.HasImmutableUpTo(11));
  EXPECT_TRUE(set.HasImmutableUpTo(set.log_number()));
  set.RemoveOldest(b)->Unref();
  EXPECT_FALSE(set.HasImmutableUpTo(set.log_number()));
}

TEST_F(MemTableSetTest, UnloggedWritesTravelWithTheirMemTableUntilFlushed) {
  MemTableSet set;
  set.SetLogNumber(1);
  MemTable* a = NewMem();
  set.Init(a);
  EXPECT_FALSE(set.HasUnloggedWrites());
  set.MarkUnloggedWrite();
  EXPECT_TRUE(set.HasUnloggedWrites());
  set.Switch(NewMem(), 2);  // the flag goes with `a`; the new active memtable is clean
  EXPECT_TRUE(set.immutables()[0].has_unlogged_writes);
  EXPECT_TRUE(set.HasUnloggedWrites());
  set.Switch(NewMem(), 3);
  EXPECT_FALSE(set.immutables()[0].has_unlogged_writes);
  set.RemoveOldest(a)->Unref();
  EXPECT_FALSE(set.HasUnloggedWrites());
}

TEST_F(MemTableSetTest, MemoryUsageAndFlushedBytesStillPinned) {
  MemTableSet set;
  set.SetLogNumber(1);
  MemTable* a = NewMem();
  set.Init(a);
  Fill(a, 100);
  set.Switch(NewMem(), 2);
  Fill(set.mem(), 10);
  EXPECT_EQ(set.MemoryUsage(),
            a->ApproximateMemoryUsage() + set.mem()->ApproximateMemoryUsage());
  EXPECT_EQ(set.FlushedBytesPinned(), 0u);

  const size_t a_bytes = a->ApproximateMemoryUsage();
  a->Ref();  // a reader (an iterator's SuperVersion) still holds it
  set.RemoveOldest(a)->Unref();
  EXPECT_EQ(set.MemoryUsage(), set.mem()->ApproximateMemoryUsage());
  EXPECT_EQ(set.FlushedBytesPinned(), a_bytes);  // counted until the reader lets go
  a->Unref();
  EXPECT_EQ(set.FlushedBytesPinned(), 0u);
}

TEST_F(MemTableSetTest, RoomForWrite) {
  using Room = MemTableSet::Room;
  MemTableSet set;
  set.SetLogNumber(1);
  set.Init(NewMem());
  const size_t kBuffer = 64 << 10;
  // Empty active memtable: never full; a forced switch has nothing to retire; over the
  // budget with nothing to flush, nothing can free memory: go ahead.
  EXPECT_EQ(set.RoomForWrite(kBuffer, false, false), Room::kReady);
  EXPECT_EQ(set.RoomForWrite(kBuffer, false, true), Room::kReady);
  EXPECT_EQ(set.RoomForWrite(kBuffer, true, false), Room::kReady);
  EXPECT_EQ(set.RoomForWrite(0, false, false), Room::kReady);

  Fill(set.mem(), 10);
  ASSERT_LT(set.mem()->ApproximateMemoryUsage(), size_t{8} << 20);
  EXPECT_EQ(set.RoomForWrite(size_t{8} << 20, false, false), Room::kReady);
  EXPECT_EQ(set.RoomForWrite(size_t{8} << 20, false, true), Room::kSwitch);  // Flush
  EXPECT_EQ(set.RoomForWrite(1, false, false), Room::kSwitch);               // full
  // Over the budget with no flush under way: retire the active memtable (a flush frees).
  EXPECT_EQ(set.RoomForWrite(size_t{8} << 20, true, false), Room::kSwitch);

  set.Switch(NewMem(), 2);
  // Over the budget with a flush under way: wait for it, whether the active memtable is
  // empty or not (unless it is full: then it is retired).
  EXPECT_EQ(set.RoomForWrite(size_t{8} << 20, true, false), Room::kWaitForFlush);
  Fill(set.mem(), 1);
  EXPECT_EQ(set.RoomForWrite(size_t{8} << 20, true, false), Room::kWaitForFlush);
  EXPECT_EQ(set.RoomForWrite(1, true, false), Room::kSwitch);
  EXPECT_EQ(set.RoomForWrite(1, false, false), Room::kSwitch);
}

TEST_F(MemTableSetTest, CanSwitchUntilMaxWriteBufferNumber) {
  MemTableSet set;
  set.SetLogNumber(1);
  set.Init(NewMem());
  EXPECT_TRUE(set.CanSwitch(2));
  set.Switch(NewMem(), 2);
  EXPECT_FALSE(set.CanSwitch(2));  // 2 memtables exist: the active and one immutable
  EXPECT_TRUE(set.CanSwitch(3));
  set.Switch(NewMem(), 3);
  EXPECT_FALSE(set.CanSwitch(3));
  EXPECT_TRUE(set.CanSwitch(4));
}

// The set's references: RefAll adds one per memtable for a reader, ReleaseAll hands the set's
// own back, and the destructor drops what is still listed. A memtable's deletion is seen
// through CountUntilDeleted.
TEST_F(MemTableSetTest, ReferencesHandedOutAndBack) {
  auto alive_counter = std::make_shared<std::atomic<uint64_t>>(0);
  std::atomic<uint64_t>& alive = *alive_counter;
  {
    MemTableSet set;
    set.SetLogNumber(1);
    MemTable* a = NewMem();
    set.Init(a);
    Fill(a, 5);
    set.Switch(NewMem(), 2);
    MemTable* b = set.mem();
    Fill(b, 5);
    a->CountUntilDeleted(alive_counter);
    b->CountUntilDeleted(alive_counter);
    const uint64_t both = alive.load();
    ASSERT_GT(both, 0u);

    MemTable* mem = nullptr;
    std::vector<MemTable*> imm;
    set.RefAll(&mem, &imm);
    EXPECT_EQ(mem, b);
    ASSERT_EQ(imm.size(), 1u);
    EXPECT_EQ(imm[0], a);

    std::vector<MemTable*> refs;
    set.ReleaseAll(&refs);
    EXPECT_EQ(set.mem(), nullptr);
    EXPECT_EQ(set.NumImmutable(), 0u);
    ASSERT_EQ(refs.size(), 2u);
    for (MemTable* m : refs) m->Unref();
    EXPECT_EQ(alive.load(), both);  // the reader's references keep them
    mem->Unref();
    for (MemTable* m : imm) m->Unref();
    EXPECT_EQ(alive.load(), 0u);

    // Listed memtables go with the set (an Open that failed half-way).
    MemTable* c = NewMem();
    set.Init(c);
    Fill(c, 5);
    set.Switch(NewMem(), 3);
    c->CountUntilDeleted(alive_counter);
    EXPECT_GT(alive.load(), 0u);
  }
  EXPECT_EQ(alive.load(), 0u);
}

}  // namespace
}  // namespace shale
