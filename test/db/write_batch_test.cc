// WriteBatch: the serialized format, round trips through Iterate against a model, Append,
// Clear, copies and moves, damaged contents, and InsertInto a MemTable.
#include "shale/write_batch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/internal_key.h"
#include "db/write_batch_internal.h"
#include "memtable/memtable.h"
#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "util/random.h"

namespace shale {
namespace {

// One record as the test sees it.
struct Op {
  ValueType type = kTypeValue;
  std::string key;    // begin key of a range deletion
  std::string value;  // end key of a range deletion; empty for deletions
  bool operator==(const Op&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Op& op) {
  return os << "{type " << static_cast<int>(op.type) << ", '" << op.key << "', '" << op.value
            << "'}";
}

// Records every call; fails the call numbered `fail_at` (from 0) with Aborted, if set.
class RecordingHandler : public WriteBatch::Handler {
 public:
  explicit RecordingHandler(int fail_at = -1) : fail_at_(fail_at) {}

  Status Put(std::string_view key, std::string_view value) override {
    return Record(kTypeValue, key, value);
  }
  Status Delete(std::string_view key) override { return Record(kTypeDeletion, key, {}); }
  Status SingleDelete(std::string_view key) override {
    return Record(kTypeSingleDeletion, key, {});
  }
  Status DeleteRange(std::string_view begin, std::string_view end) override {
    return Record(kTypeRangeDeletion, begin, end);
  }
  Status Merge(std::string_view key, std::string_view value) override {
    return Record(kTypeMerge, key, value);
  }

  std::vector<Op> ops;

 private:
  Status Record(ValueType type, std::string_view key, std::string_view value) {
    if (static_cast<int>(ops.size()) == fail_at_) return Status::Aborted("handler says stop");
    ops.push_back(Op{type, std::string(key), std::string(value)});
    return Status::OK();
  }
  int fail_at_;
};

std::vector<Op> Replay(const WriteBatch& batch, Status* s) {
  RecordingHandler handler;
  *s = batch.Iterate(&handler);
  return handler.ops;
}

std::vector<Op> ReplayOk(const WriteBatch& batch) {
  Status s;
  std::vector<Op> ops = Replay(batch, &s);
  EXPECT_OK(s);
  return ops;
}

Status Add(WriteBatch* batch, const Op& op) {
  switch (op.type) {
    case kTypeValue:
      return batch->Put(op.key, op.value);
    case kTypeDeletion:
      return batch->Delete(op.key);
    case kTypeSingleDeletion:
      return batch->SingleDelete(op.key);
    case kTypeRangeDeletion:
      return batch->DeleteRange(op.key, op.value);
    case kTypeMerge:
      return batch->Merge(op.key, op.value);
  }
  return Status::InvalidArgument("bad op");
}

// A key from a small space (so that keys repeat), sometimes with binary bytes.
std::string RandomKey(Random* rnd) {
  std::string k = "k";
  k += std::to_string(rnd->Uniform(20));
  if (rnd->OneIn(10)) k.push_back('\0');
  if (rnd->OneIn(10)) k.push_back('\xff');
  return k;
}

// A value whose length is skewed, so that some need multi-byte varint lengths.
std::string RandomValue(Random* rnd) { return RandomString(rnd, rnd->Skewed(10)); }

Op RandomOp(Random* rnd) {
  static constexpr ValueType kTypes[] = {kTypeValue, kTypeDeletion, kTypeSingleDeletion,
                                         kTypeRangeDeletion, kTypeMerge};
  Op op;
  op.type = kTypes[rnd->Uniform(std::size(kTypes))];
  op.key = rnd->OneIn(30) ? std::string() : RandomKey(rnd);
  switch (op.type) {
    case kTypeValue:
    case kTypeMerge:
      op.value = RandomValue(rnd);
      break;
    case kTypeRangeDeletion: {
      std::string end = RandomKey(rnd);
      if (end < op.key) std::swap(end, op.key);
      op.value = end;
      break;
    }
    default:
      break;
  }
  return op;
}

std::vector<Op> RandomOps(Random* rnd, size_t n) {
  std::vector<Op> ops;
  for (size_t i = 0; i < n; ++i) ops.push_back(RandomOp(rnd));
  return ops;
}

WriteBatch BatchOf(const std::vector<Op>& ops) {
  WriteBatch batch;
  for (const Op& op : ops) EXPECT_OK(Add(&batch, op));
  return batch;
}

// The size the documented format gives.
size_t EncodedSize(const std::vector<Op>& ops) {
  size_t size = WriteBatchInternal::kHeader;
  for (const Op& op : ops) {
    size += 1 + VarintLength(op.key.size()) + op.key.size();
    if (op.type == kTypeValue || op.type == kTypeMerge || op.type == kTypeRangeDeletion) {
      size += VarintLength(op.value.size()) + op.value.size();
    }
  }
  return size;
}

bool Has(const std::vector<Op>& ops, ValueType type) {
  for (const Op& op : ops) {
    if (op.type == type) return true;
  }
  return false;
}

void ExpectFlags(const WriteBatch& batch, const std::vector<Op>& ops) {
  EXPECT_EQ(batch.HasPut(), Has(ops, kTypeValue));
  EXPECT_EQ(batch.HasDelete(), Has(ops, kTypeDeletion));
  EXPECT_EQ(batch.HasSingleDelete(), Has(ops, kTypeSingleDeletion));
  EXPECT_EQ(batch.HasDeleteRange(), Has(ops, kTypeRangeDeletion));
  EXPECT_EQ(batch.HasMerge(), Has(ops, kTypeMerge));
}

// ------------------------------------------------------------------ Format and basics

TEST(WriteBatchTest, EmptyBatch) {
  WriteBatch batch;
  EXPECT_EQ(batch.Count(), 0u);
  EXPECT_EQ(batch.GetDataSize(), 12u);
  EXPECT_EQ(batch.Data(), std::string(12, '\0'));
  EXPECT_EQ(WriteBatchInternal::Sequence(batch), 0u);
  EXPECT_TRUE(ReplayOk(batch).empty());
  ExpectFlags(batch, {});
}

TEST(WriteBatchTest, SerializedFormIsTheDocumentedOne) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("ab", "c"));
  ASSERT_OK(batch.Delete("d"));
  ASSERT_OK(batch.SingleDelete("e"));
  ASSERT_OK(batch.DeleteRange("f", "gh"));
  ASSERT_OK(batch.Merge("i", std::string(200, 'x')));
  WriteBatchInternal::SetSequence(&batch, 0x0102030405060708ull);

  std::string expected;
  PutFixed64(&expected, 0x0102030405060708ull);
  PutFixed32(&expected, 5);
  expected += std::string("\x01\x02" "ab" "\x01" "c", 6);
  expected += std::string("\x00\x01" "d", 3);
  expected += std::string("\x07\x01" "e", 3);
  expected += std::string("\x0f\x01" "f" "\x02" "gh", 6);
  expected += std::string("\x02\x01" "i" "\xc8\x01", 5) + std::string(200, 'x');
  EXPECT_EQ(batch.Data(), expected);
  EXPECT_EQ(WriteBatchInternal::Sequence(batch), 0x0102030405060708ull);
  EXPECT_EQ(WriteBatchInternal::Count(batch), 5u);
  EXPECT_EQ(WriteBatchInternal::Contents(batch), expected);
  EXPECT_EQ(WriteBatchInternal::ByteSize(batch), expected.size());
}

TEST(WriteBatchTest, RandomizedRoundTripThroughIterate) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    Random rnd(seed);
    const std::vector<Op> ops = RandomOps(&rnd, rnd.Uniform(60));
    WriteBatch batch = BatchOf(ops);
    EXPECT_EQ(batch.Count(), ops.size());
    EXPECT_EQ(batch.GetDataSize(), EncodedSize(ops));
    EXPECT_EQ(ReplayOk(batch), ops);
    ExpectFlags(batch, ops);

    // From the serialized contents: same records and flags (computed by a scan).
    WriteBatch parsed(batch.Data());
    EXPECT_EQ(ReplayOk(parsed), ops);
    ExpectFlags(parsed, ops);
    WriteBatch set;
    ASSERT_OK(WriteBatchInternal::SetContents(&set, batch.Data()));
    EXPECT_EQ(ReplayOk(set), ops);
    ExpectFlags(set, ops);
  }
}

TEST(WriteBatchTest, CopyAndMove) {
  Random rnd(7);
  const std::vector<Op> ops = RandomOps(&rnd, 30);
  WriteBatch batch = BatchOf(ops);
  WriteBatchInternal::SetSequence(&batch, 99);

  WriteBatch copy(batch);
  EXPECT_EQ(copy.Data(), batch.Data());
  ExpectFlags(copy, ops);
  ASSERT_OK(copy.Put("only", "in copy"));
  EXPECT_EQ(ReplayOk(batch), ops);  // the original is independent

  WriteBatch assigned;
  assigned = batch;
  EXPECT_EQ(assigned.Data(), batch.Data());

  WriteBatch moved(std::move(copy));
  EXPECT_EQ(moved.Count(), ops.size() + 1);
  EXPECT_TRUE(moved.HasPut());
  EXPECT_EQ(copy.Count(), 0u);  // NOLINT(bugprone-use-after-move): documented as empty
  EXPECT_EQ(copy.GetDataSize(), 12u);
  EXPECT_FALSE(copy.HasPut());

  WriteBatch move_assigned;
  move_assigned = std::move(moved);
  EXPECT_EQ(move_assigned.Count(), ops.size() + 1);
  EXPECT_EQ(WriteBatchInternal::Sequence(move_assigned), 99u);
  EXPECT_EQ(moved.Count(), 0u);  // NOLINT(bugprone-use-after-move)
}

TEST(WriteBatchTest, ClearResetsEverything) {
  WriteBatch batch;
  ASSERT_OK(batch.Put("a", "b"));
  ASSERT_OK(batch.DeleteRange("a", "z"));
  WriteBatchInternal::SetSequence(&batch, 1234);
  batch.Clear();
  EXPECT_EQ(batch.Count(), 0u);
  EXPECT_EQ(batch.Data(), std::string(12, '\0'));
  ExpectFlags(batch, {});
  ASSERT_OK(batch.Delete("x"));
  EXPECT_EQ(ReplayOk(batch), (std::vector<Op>{{kTypeDeletion, "x", ""}}));
}

TEST(WriteBatchTest, ReservedConstructorStartsEmpty) {
  WriteBatch batch(4096);
  EXPECT_EQ(batch.Count(), 0u);
  EXPECT_EQ(batch.GetDataSize(), 12u);
  ASSERT_OK(batch.Put("k", "v"));
  EXPECT_EQ(ReplayOk(batch), (std::vector<Op>{{kTypeValue, "k", "v"}}));
}

TEST(WriteBatchTest, AppendConcatenatesRecords) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(seed);
    Random rnd(seed);
    const std::vector<Op> a = RandomOps(&rnd, rnd.Uniform(20));
    const std::vector<Op> b = RandomOps(&rnd, rnd.Uniform(20));
    WriteBatch dst = BatchOf(a);
    WriteBatchInternal::SetSequence(&dst, 500);
    WriteBatch src = BatchOf(b);
    WriteBatchInternal::SetSequence(&src, 900);
    ASSERT_OK(WriteBatchInternal::Append(&dst, src));

    std::vector<Op> both = a;
    both.insert(both.end(), b.begin(), b.end());
    EXPECT_EQ(dst.Count(), both.size());
    EXPECT_EQ(WriteBatchInternal::Sequence(dst), 500u);
    EXPECT_EQ(ReplayOk(dst), both);
    ExpectFlags(dst, both);
    EXPECT_EQ(ReplayOk(src), b);  // the source is unchanged
  }
}

TEST(WriteBatchTest, AppendToItselfDoublesTheRecords) {
  Random rnd(3);
  const std::vector<Op> ops = RandomOps(&rnd, 40);
  WriteBatch batch = BatchOf(ops);
  ASSERT_OK(WriteBatchInternal::Append(&batch, batch));
  std::vector<Op> twice = ops;
  twice.insert(twice.end(), ops.begin(), ops.end());
  EXPECT_EQ(ReplayOk(batch), twice);
}

TEST(WriteBatchTest, AppendRejectsCountOverflow) {
  WriteBatch dst;
  ASSERT_OK(dst.Put("a", "1"));
  WriteBatchInternal::SetCount(&dst, UINT32_MAX);
  WriteBatch src;
  ASSERT_OK(src.Put("b", "2"));
  const std::string before = dst.Data();
  Status s = WriteBatchInternal::Append(&dst, src);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(dst.Data(), before);
  // The same limit applies to a single update.
  s = dst.Put("c", "3");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(dst.Data(), before);
}

TEST(WriteBatchTest, OversizedKeyOrValueIsRejected) {
  // The sizes are checked before any byte is read, so the views need not be backed.
  const char byte = 'x';
  const std::string_view huge(&byte, (uint64_t{1} << 32));
  WriteBatch batch;
  EXPECT_TRUE(batch.Put(huge, "v").IsInvalidArgument());
  EXPECT_TRUE(batch.Put("k", huge).IsInvalidArgument());
  EXPECT_TRUE(batch.Delete(huge).IsInvalidArgument());
  EXPECT_TRUE(batch.DeleteRange("a", huge).IsInvalidArgument());
  EXPECT_TRUE(batch.Merge("k", huge).IsInvalidArgument());
  EXPECT_EQ(batch.Count(), 0u);
  EXPECT_EQ(batch.GetDataSize(), 12u);
}

TEST(WriteBatchTest, HandlerErrorStopsIteration) {
  WriteBatch batch = BatchOf({{kTypeValue, "a", "1"}, {kTypeDeletion, "b", ""},
                              {kTypeMerge, "c", "3"}, {kTypeValue, "d", "4"}});
  RecordingHandler handler(/*fail_at=*/2);
  Status s = batch.Iterate(&handler);
  EXPECT_TRUE(s.IsAborted()) << s.ToString();
  EXPECT_EQ(handler.ops.size(), 2u);
}

// ------------------------------------------------------------------ Column-family records

TEST(WriteBatchTest, ColumnFamilyRecords) {
  // A kTypeColumnFamilyValue record for family 0 reads as a default-family Put.
  std::string rep;
  PutFixed64(&rep, 1);
  PutFixed32(&rep, 1);
  rep.push_back(static_cast<char>(kTypeColumnFamilyValue));
  PutVarint32(&rep, 0);
  PutLengthPrefixed(&rep, "k");
  PutLengthPrefixed(&rep, "v");
  EXPECT_EQ(ReplayOk(WriteBatch(rep)), (std::vector<Op>{{kTypeValue, "k", "v"}}));

  // Each column-family tag maps to its default-family type.
  const std::pair<unsigned char, ValueType> kTags[] = {
      {kTypeColumnFamilyDeletion, kTypeDeletion},
      {kTypeColumnFamilySingleDeletion, kTypeSingleDeletion},
      {kTypeColumnFamilyRangeDeletion, kTypeRangeDeletion},
      {kTypeColumnFamilyMerge, kTypeMerge}};
  for (const auto& [tag, type] : kTags) {
    std::string input(1, static_cast<char>(tag));
    PutVarint32(&input, 300);
    PutLengthPrefixed(&input, "key");
    if (type != kTypeDeletion && type != kTypeSingleDeletion) PutLengthPrefixed(&input, "val");
    std::string_view view(input);
    WriteBatchRecord record;
    ASSERT_OK(ReadWriteBatchRecord(&view, &record));
    EXPECT_TRUE(view.empty());
    EXPECT_EQ(record.type, type);
    EXPECT_EQ(record.column_family, 300u);
    EXPECT_EQ(record.key, "key");
  }

  // A record of another family is refused by a handler that takes the default family only
  // (the Handler's *CF defaults), not misapplied to the default one.
  std::string other;
  PutFixed64(&other, 1);
  PutFixed32(&other, 1);
  other.push_back(static_cast<char>(kTypeColumnFamilyMerge));
  PutVarint32(&other, 3);
  PutLengthPrefixed(&other, "k");
  PutLengthPrefixed(&other, "v");
  Status s;
  EXPECT_TRUE(Replay(WriteBatch(other), &s).empty());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("column family 3"), std::string::npos) << s.ToString();
}

// ------------------------------------------------------------------ Damaged contents

WriteBatch SampleBatch() {
  Random rnd(11);
  std::vector<Op> ops = RandomOps(&rnd, 25);
  ops.push_back({kTypeValue, "last", "value"});
  return BatchOf(ops);
}

TEST(WriteBatchTest, TruncationAtEveryByteIsCorruption) {
  const WriteBatch batch = SampleBatch();
  const std::string& full = batch.Data();
  for (size_t len = 0; len < full.size(); ++len) {
    SCOPED_TRACE(len);
    WriteBatch truncated(full.substr(0, len));
    Status s;
    const std::vector<Op> ops = Replay(truncated, &s);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_LT(ops.size(), batch.Count());
    // The flags scan stops at the damage without reading past it.
    (void)truncated.HasPut();
    if (len < WriteBatchInternal::kHeader) {
      EXPECT_EQ(truncated.Count(), 0u);
      EXPECT_TRUE(WriteBatchInternal::SetContents(&truncated, full.substr(0, len)).IsCorruption());
    }
  }
}

TEST(WriteBatchTest, UnknownTagIsCorruption) {
  const WriteBatch batch = SampleBatch();
  // Find each record's tag offset by decoding.
  std::vector<size_t> tag_offsets;
  std::string_view input(batch.Data());
  input.remove_prefix(WriteBatchInternal::kHeader);
  while (!input.empty()) {
    tag_offsets.push_back(batch.GetDataSize() - input.size());
    WriteBatchRecord record;
    ASSERT_OK(ReadWriteBatchRecord(&input, &record));
  }
  ASSERT_EQ(tag_offsets.size(), batch.Count());

  const std::set<int> known = {kTypeDeletion, kTypeValue, kTypeMerge, kTypeSingleDeletion,
                               kTypeRangeDeletion, kTypeColumnFamilyDeletion,
                               kTypeColumnFamilyValue, kTypeColumnFamilyMerge,
                               kTypeColumnFamilySingleDeletion, kTypeColumnFamilyRangeDeletion};
  for (size_t i = 0; i < tag_offsets.size(); ++i) {
    for (int tag = 0; tag < 256; ++tag) {
      if (known.count(tag)) continue;
      std::string rep = batch.Data();
      rep[tag_offsets[i]] = static_cast<char>(tag);
      Status s;
      const std::vector<Op> ops = Replay(WriteBatch(rep), &s);
      ASSERT_TRUE(s.IsCorruption()) << "record " << i << " tag " << tag << ": " << s.ToString();
      EXPECT_NE(s.ToString().find("unknown tag"), std::string::npos) << s.ToString();
      EXPECT_EQ(ops.size(), i);  // the records before it were delivered, none after
    }
  }
}

TEST(WriteBatchTest, CountMismatchIsCorruption) {
  WriteBatch batch = BatchOf({{kTypeValue, "a", "1"}, {kTypeValue, "b", "2"},
                              {kTypeValue, "c", "3"}});
  WriteBatchInternal::SetCount(&batch, 4);
  Status s;
  EXPECT_EQ(Replay(batch, &s).size(), 3u);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  WriteBatchInternal::SetCount(&batch, 2);
  EXPECT_EQ(Replay(batch, &s).size(), 2u);  // the extra record is not delivered
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(WriteBatchTest, RandomDamageNeverCrashes) {
  const WriteBatch batch = SampleBatch();
  Random rnd(5);
  int corrupt = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string rep = batch.Data();
    const int flips = 1 + static_cast<int>(rnd.Uniform(4));
    for (int f = 0; f < flips; ++f) {
      rep[WriteBatchInternal::kHeader + rnd.Uniform(rep.size() - WriteBatchInternal::kHeader)] ^=
          static_cast<char>(1 + rnd.Uniform(255));
    }
    Status s;
    Replay(WriteBatch(rep), &s);
    // A damaged tag may turn a record into one of another column family, which the
    // default-family handler refuses (InvalidArgument).
    ASSERT_TRUE(s.ok() || s.IsCorruption() || s.IsInvalidArgument()) << s.ToString();
    corrupt += s.IsCorruption() ? 1 : 0;
  }
  EXPECT_GT(corrupt, 0);
}

// ------------------------------------------------------------------ InsertInto

struct Unreffer {
  void operator()(MemTable* m) const { m->Unref(); }
};
using MemTablePtr = std::unique_ptr<MemTable, Unreffer>;

MemTablePtr NewMemTable(const InternalKeyComparator& cmp) {
  auto* mem = new MemTable(cmp);
  mem->Ref();
  return MemTablePtr(mem);
}

// What MemTable::Get should answer for `key` at `snapshot`, given that ops[i] has sequence
// first + i: the newest point entry unless a newer range deletion covers the key.
struct Expected {
  bool found = false;
  Status::Code code = Status::Code::kOk;
  std::string value;
  SequenceNumber seq = 0;
  bool operator==(const Expected&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Expected& e) {
  return os << "{found " << e.found << ", code " << static_cast<int>(e.code) << ", '" << e.value
            << "', seq " << e.seq << "}";
}

Expected Model(const std::vector<Op>& ops, SequenceNumber first, std::string_view key,
               SequenceNumber snapshot) {
  SequenceNumber point = 0, tombstone = 0;
  const Op* newest = nullptr;
  for (size_t i = 0; i < ops.size(); ++i) {
    const SequenceNumber seq = first + i;
    if (seq > snapshot) break;
    const Op& op = ops[i];
    if (op.type == kTypeRangeDeletion) {
      if (op.key <= key && key < op.value) tombstone = seq;
    } else if (op.key == key) {
      point = seq;
      newest = &op;
    }
  }
  Expected e;
  if (newest != nullptr && tombstone < point) {
    e.found = true;
    e.seq = point;
    if (newest->type == kTypeValue) {
      e.value = newest->value;
    } else if (newest->type == kTypeMerge) {
      e.code = Status::Code::kMergeInProgress;
      e.value = newest->value;
    } else {
      e.code = Status::Code::kNotFound;
    }
  } else if (tombstone > 0) {
    e.found = true;
    e.seq = tombstone;
    e.code = Status::Code::kNotFound;
  }
  return e;
}

Expected Lookup(const MemTable& mem, std::string_view key, SequenceNumber snapshot) {
  LookupKey lkey(key, snapshot);
  Expected e;
  Status s;
  e.found = mem.Get(lkey, &e.value, &s, &e.seq);
  if (!e.found) return Expected{};
  e.code = s.code();
  if (!s.ok() && !s.IsMergeInProgress()) e.value.clear();
  return e;
}

class InsertIntoTest : public testing::Test {
 protected:
  InternalKeyComparator cmp_{BytewiseComparator()};
};

TEST_F(InsertIntoTest, AppliesEveryRecordWithConsecutiveSequences) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    Random rnd(seed);
    const std::vector<Op> ops = RandomOps(&rnd, 1 + rnd.Uniform(80));
    WriteBatch batch = BatchOf(ops);
    const SequenceNumber first = 1 + rnd.Uniform(1000000);
    WriteBatchInternal::SetSequence(&batch, first);

    MemTablePtr mem = NewMemTable(cmp_);
    ASSERT_OK(WriteBatchInternal::InsertInto(batch, mem.get()));
    EXPECT_EQ(mem->num_entries(), ops.size());

    // Every record landed with its own sequence number.
    std::set<SequenceNumber> seqs;
    std::unique_ptr<InternalIterator> iters[] = {mem->NewIterator(),
                                                 mem->NewRangeTombstoneIterator()};
    for (std::unique_ptr<InternalIterator>& it : iters) {
      for (it->SeekToFirst(); it->Valid(); it->Next()) seqs.insert(ExtractSequence(it->key()));
    }
    ASSERT_EQ(seqs.size(), ops.size());
    EXPECT_EQ(*seqs.begin(), first);
    EXPECT_EQ(*seqs.rbegin(), first + ops.size() - 1);

    // Reads at every snapshot agree with the model.
    std::set<std::string> keys;
    for (const Op& op : ops) keys.insert(op.key);
    for (int k = 0; k < 20; ++k) keys.insert(std::string("k").append(std::to_string(k)));
    for (SequenceNumber snap = first - 1; snap <= first + ops.size(); ++snap) {
      for (const std::string& key : keys) {
        ASSERT_EQ(Lookup(*mem, key, snap), Model(ops, first, key, snap))
            << "key '" << key << "' at snapshot " << snap;
      }
    }
  }
}

TEST_F(InsertIntoTest, DamagedBatchAddsNothing) {
  WriteBatch batch = BatchOf({{kTypeValue, "a", "1"}, {kTypeValue, "b", "2"}});
  WriteBatchInternal::SetSequence(&batch, 10);
  std::string rep = batch.Data();
  rep.pop_back();  // cut the last record short
  MemTablePtr mem = NewMemTable(cmp_);
  Status s = WriteBatchInternal::InsertInto(WriteBatch(rep), mem.get());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(mem->num_entries(), 0u);
}

TEST_F(InsertIntoTest, SequencePastTheMaximumAddsNothing) {
  WriteBatch batch = BatchOf({{kTypeValue, "a", "1"}, {kTypeValue, "b", "2"}});
  MemTablePtr mem = NewMemTable(cmp_);
  WriteBatchInternal::SetSequence(&batch, kMaxSequenceNumber);
  Status s = WriteBatchInternal::InsertInto(batch, mem.get());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(mem->num_entries(), 0u);

  // Exactly reaching the maximum is fine.
  WriteBatchInternal::SetSequence(&batch, kMaxSequenceNumber - 1);
  ASSERT_OK(WriteBatchInternal::InsertInto(batch, mem.get()));
  EXPECT_EQ(Lookup(*mem, "b", kMaxSequenceNumber).value, "2");
}

TEST_F(InsertIntoTest, EmptyBatchAddsNothing) {
  WriteBatch batch;
  WriteBatchInternal::SetSequence(&batch, kMaxSequenceNumber);
  MemTablePtr mem = NewMemTable(cmp_);
  ASSERT_OK(WriteBatchInternal::InsertInto(batch, mem.get()));
  EXPECT_EQ(mem->num_entries(), 0u);
}

}  // namespace
}  // namespace shale
