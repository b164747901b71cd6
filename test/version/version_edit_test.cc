// VersionEdit: the encoding round-trips every field, damaged encodings are reported as
// Corruption (never a crash or a read out of bounds), and unknown tags follow the
// safe-to-ignore rule of doc/manifest_format.md.
#include "version/version_edit.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "testutil/status_matchers.h"
#include "util/coding.h"
#include "util/random.h"
#include "version/version_test_util.h"

namespace shale::test {
namespace {

std::string RandomBytes(Random* rnd, size_t max_len) {
  std::string s(rnd->Uniform(max_len + 1), '\0');
  for (char& c : s) c = static_cast<char>(rnd->Uniform(256));
  return s;
}

uint64_t RandomNumber(Random* rnd) { return rnd->OneIn(4) ? rnd->Next64() : rnd->Skewed(40); }

std::string RandomInternalKey(Random* rnd) {
  static constexpr ValueType kTypes[] = {kTypeDeletion, kTypeValue, kTypeMerge,
                                         kTypeSingleDeletion, kTypeRangeDeletion};
  return MakeInternalKey(RandomBytes(rnd, 20), rnd->Uniform(kMaxSequenceNumber + 1),
                         kTypes[rnd->Uniform(5)]);
}

FileMetaData RandomFile(Random* rnd) {
  FileMetaData f;
  f.number = RandomNumber(rnd);
  f.file_size = RandomNumber(rnd);
  f.smallest = RandomInternalKey(rnd);
  f.largest = RandomInternalKey(rnd);
  f.smallest_seqno = RandomNumber(rnd);
  f.largest_seqno = RandomNumber(rnd);
  uint64_t* optional[] = {&f.num_entries,    &f.num_deletions,  &f.num_range_deletions,
                          &f.raw_key_size,   &f.raw_value_size, &f.creation_time};
  for (uint64_t* field : optional) *field = rnd->OneIn(3) ? 0 : RandomNumber(rnd);
  return f;
}

VersionEdit RandomCodecEdit(Random* rnd) {
  VersionEdit e;
  if (rnd->OneIn(2)) e.SetComparatorName(RandomBytes(rnd, 30));
  if (rnd->OneIn(2)) e.SetLogNumber(RandomNumber(rnd));
  if (rnd->OneIn(2)) e.SetPrevLogNumber(RandomNumber(rnd));
  if (rnd->OneIn(2)) e.SetNextFile(RandomNumber(rnd));
  if (rnd->OneIn(2)) e.SetLastSequence(rnd->Uniform(kMaxSequenceNumber + 1));
  if (rnd->OneIn(3)) e.SetColumnFamily(static_cast<uint32_t>(rnd->Next32()));
  if (rnd->OneIn(4)) e.AddColumnFamily(RandomBytes(rnd, 20));
  if (rnd->OneIn(4)) e.DropColumnFamily();
  if (rnd->OneIn(3)) e.SetMaxColumnFamily(static_cast<uint32_t>(rnd->Next32()));
  if (rnd->OneIn(3)) e.MarkAtomicGroup(rnd->Uniform(5) == 0 ? 0 : rnd->Next32());
  for (int i = static_cast<int>(rnd->Uniform(3)); i > 0; --i) {
    e.SetCompactPointer(static_cast<int>(rnd->Uniform(kMaxNumLevels)), RandomInternalKey(rnd));
  }
  for (int i = static_cast<int>(rnd->Uniform(5)); i > 0; --i) {
    e.DeleteFile(static_cast<int>(rnd->Uniform(kMaxNumLevels)), RandomNumber(rnd));
  }
  for (int i = static_cast<int>(rnd->Uniform(5)); i > 0; --i) {
    e.AddFile(static_cast<int>(rnd->Uniform(kMaxNumLevels)), RandomFile(rnd));
  }
  return e;
}

void ExpectSameEdit(const VersionEdit& a, const VersionEdit& b) {
  EXPECT_EQ(a.has_comparator(), b.has_comparator());
  EXPECT_EQ(a.comparator(), b.comparator());
  EXPECT_EQ(a.has_log_number(), b.has_log_number());
  EXPECT_EQ(a.log_number(), b.log_number());
  EXPECT_EQ(a.has_prev_log_number(), b.has_prev_log_number());
  EXPECT_EQ(a.prev_log_number(), b.prev_log_number());
  EXPECT_EQ(a.has_next_file_number(), b.has_next_file_number());
  EXPECT_EQ(a.next_file_number(), b.next_file_number());
  EXPECT_EQ(a.has_last_sequence(), b.has_last_sequence());
  EXPECT_EQ(a.last_sequence(), b.last_sequence());
  EXPECT_EQ(a.column_family(), b.column_family());
  EXPECT_EQ(a.is_column_family_add(), b.is_column_family_add());
  EXPECT_EQ(a.column_family_name(), b.column_family_name());
  EXPECT_EQ(a.is_column_family_drop(), b.is_column_family_drop());
  EXPECT_EQ(a.has_max_column_family(), b.has_max_column_family());
  EXPECT_EQ(a.max_column_family(), b.max_column_family());
  EXPECT_EQ(a.is_in_atomic_group(), b.is_in_atomic_group());
  EXPECT_EQ(a.remaining_entries(), b.remaining_entries());
  EXPECT_EQ(a.compact_pointers(), b.compact_pointers());
  EXPECT_EQ(a.deleted_files(), b.deleted_files());
  ASSERT_EQ(a.new_files().size(), b.new_files().size());
  for (size_t i = 0; i < a.new_files().size(); ++i) {
    EXPECT_EQ(a.new_files()[i].first, b.new_files()[i].first);
    EXPECT_TRUE(a.new_files()[i].second.SamePersistentFields(b.new_files()[i].second))
        << a.new_files()[i].second.DebugString() << "\n" << b.new_files()[i].second.DebugString();
  }
}

TEST(VersionEditTest, EmptyEditRoundTripsWithColumnFamilyZero) {
  VersionEdit e;
  std::string encoded;
  e.EncodeTo(&encoded);
  VersionEdit d;
  d.SetLogNumber(5);
  ASSERT_OK(d.DecodeFrom(encoded));
  EXPECT_FALSE(d.has_log_number());  // decoding replaces the whole edit
  EXPECT_EQ(d.column_family(), 0u);
  ExpectSameEdit(e, d);
  // Decoding nothing at all gives the empty edit too.
  ASSERT_OK(d.DecodeFrom(""));
  ExpectSameEdit(e, d);
  EXPECT_FALSE(d.is_column_family_add());
  EXPECT_FALSE(d.is_column_family_drop());
  EXPECT_FALSE(d.has_max_column_family());
  EXPECT_FALSE(d.is_in_atomic_group());
}

// The column-family fields keep the tag numbers doc/manifest_format.md gives them.
TEST(VersionEditTest, ColumnFamilyFieldsUseTheDocumentedTags) {
  VersionEdit e;
  e.SetColumnFamily(5);
  e.AddColumnFamily("users");
  e.DropColumnFamily();
  e.SetMaxColumnFamily(9);
  e.MarkAtomicGroup(2);
  std::string encoded;
  e.EncodeTo(&encoded);
  std::string want;
  PutVarint32(&want, 9);  // column family
  PutVarint32(&want, 5);
  PutVarint32(&want, 10);  // add column family
  PutLengthPrefixed(&want, "users");
  PutVarint32(&want, 11);  // drop column family
  PutVarint32(&want, 12);  // max column family
  PutVarint32(&want, 9);
  PutVarint32(&want, 13);  // in atomic group
  PutVarint32(&want, 2);
  EXPECT_EQ(absl::CEscape(encoded), absl::CEscape(want));
  VersionEdit d;
  ASSERT_OK(d.DecodeFrom(encoded));
  ExpectSameEdit(e, d);
  // Every cut inside a field is Corruption; a cut between fields leaves a shorter edit.
  const std::set<size_t> between_fields = {2, 9, 10, 12};
  for (size_t cut = 1; cut < encoded.size(); ++cut) {
    const Status s = d.DecodeFrom(std::string_view(encoded).substr(0, cut));
    EXPECT_EQ(s.ok(), between_fields.count(cut) == 1) << cut << ": " << s.ToString();
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << cut << ": " << s.ToString();
    }
  }
}

TEST(VersionEditTest, RandomEditsRoundTrip) {
  Random rnd(301);
  for (int i = 0; i < 2000; ++i) {
    VersionEdit e = RandomCodecEdit(&rnd);
    std::string encoded;
    e.EncodeTo(&encoded);
    VersionEdit d;
    ASSERT_OK(d.DecodeFrom(encoded));
    ExpectSameEdit(e, d);
    std::string again;
    d.EncodeTo(&again);
    ASSERT_EQ(encoded, again) << "edit " << i;
    ASSERT_EQ(e.DebugString(), d.DebugString());
  }
}

TEST(VersionEditTest, RuntimeFieldsAreNotStored) {
  FileMetaData f = MakeFile(7, "a", "b", 1, 2);
  f.refs = 3;
  f.being_compacted = true;
  f.marked_for_compaction = true;
  VersionEdit e;
  e.AddFile(1, f);
  EXPECT_EQ(e.new_files()[0].second.refs, 0);
  EXPECT_FALSE(e.new_files()[0].second.being_compacted);
  EXPECT_FALSE(e.new_files()[0].second.marked_for_compaction);
}

TEST(VersionEditTest, LaterCompactPointerForALevelReplacesEarlier) {
  VersionEdit e;
  e.SetCompactPointer(2, MakeInternalKey("a", 1, kTypeValue));
  e.SetCompactPointer(3, MakeInternalKey("b", 1, kTypeValue));
  e.SetCompactPointer(2, MakeInternalKey("c", 1, kTypeValue));
  ASSERT_EQ(e.compact_pointers().size(), 2u);
  EXPECT_EQ(e.compact_pointers()[0].second, MakeInternalKey("c", 1, kTypeValue));
}

// Every prefix of a valid encoding decodes to OK or Corruption, never anything else.
TEST(VersionEditTest, TruncatedEncodingsAreCorruptionOrAValidPrefix) {
  Random rnd(302);
  for (int i = 0; i < 200; ++i) {
    std::string encoded;
    RandomCodecEdit(&rnd).EncodeTo(&encoded);
    for (size_t len = 0; len < encoded.size(); ++len) {
      // A copy of exactly `len` bytes, so reading past it is caught by sanitizers.
      std::string prefix = encoded.substr(0, len);
      VersionEdit d;
      Status s = d.DecodeFrom(prefix);
      ASSERT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
      if (!s.ok()) {
        EXPECT_NE(s.ToString().find("VersionEdit"), std::string::npos);
      }
    }
  }
}

TEST(VersionEditTest, DamagedEncodingsNeverCrash) {
  Random rnd(303);
  int corrupt = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string encoded;
    RandomCodecEdit(&rnd).EncodeTo(&encoded);
    for (int flips = 1 + static_cast<int>(rnd.Uniform(3)); flips > 0; --flips) {
      encoded[rnd.Uniform(encoded.size())] ^= static_cast<char>(1 + rnd.Uniform(255));
    }
    VersionEdit d;
    Status s = d.DecodeFrom(encoded);
    ASSERT_TRUE(s.ok() || s.IsCorruption()) << s.ToString();
    if (s.ok()) {
      d.DebugString();  // whatever decoded must be printable
    } else {
      ++corrupt;
    }
  }
  EXPECT_GT(corrupt, 100);  // the decoder does notice damage
}

std::string EncodedWithExtraField(uint32_t tag, std::string_view payload) {
  VersionEdit e;
  e.SetLogNumber(9);
  std::string encoded;
  e.EncodeTo(&encoded);
  PutVarint32(&encoded, tag);
  PutLengthPrefixed(&encoded, payload);
  return encoded;
}

TEST(VersionEditTest, UnknownTagWithSafeToIgnoreBitIsSkipped) {
  VersionEdit d;
  ASSERT_OK(d.DecodeFrom(EncodedWithExtraField(VersionEdit::kTagSafeToIgnoreBit | 77, "future")));
  EXPECT_EQ(d.log_number(), 9u);
}

TEST(VersionEditTest, UnknownTagWithoutSafeToIgnoreBitIsCorruption) {
  VersionEdit d;
  Status s = d.DecodeFrom(EncodedWithExtraField(77, "future"));
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown tag 77"), std::string::npos) << s.ToString();
}

TEST(VersionEditTest, TruncatedIgnorableFieldIsCorruption) {
  std::string encoded = EncodedWithExtraField(VersionEdit::kTagSafeToIgnoreBit | 5, "abcdef");
  encoded.resize(encoded.size() - 2);
  VersionEdit d;
  EXPECT_TRUE(d.DecodeFrom(encoded).IsCorruption());
}

// A new-file record: level 1, then the body given.
std::string EncodedNewFile(const std::string& body) {
  std::string encoded;
  PutVarint32(&encoded, 7);  // kNewFile
  PutVarint32(&encoded, 1);
  PutLengthPrefixed(&encoded, body);
  return encoded;
}

std::string FileBody(uint32_t extra_tag, std::string_view extra_payload) {
  std::string body;
  PutVarint64(&body, 12);    // number
  PutVarint64(&body, 4096);  // size
  PutLengthPrefixed(&body, MakeInternalKey("a", 5, kTypeValue));
  PutLengthPrefixed(&body, MakeInternalKey("z", 3, kTypeValue));
  PutVarint64(&body, 3);
  PutVarint64(&body, 5);
  PutVarint32(&body, extra_tag);
  PutLengthPrefixed(&body, extra_payload);
  return body;
}

TEST(VersionEditTest, FileFieldsFollowTheSafeToIgnoreRule) {
  VersionEdit d;
  ASSERT_OK(d.DecodeFrom(EncodedNewFile(FileBody(VersionEdit::kTagSafeToIgnoreBit | 40, "xyz"))));
  ASSERT_EQ(d.new_files().size(), 1u);
  EXPECT_EQ(d.new_files()[0].second.number, 12u);
  EXPECT_EQ(d.new_files()[0].second.largest_seqno, 5u);

  Status s = d.DecodeFrom(EncodedNewFile(FileBody(40, "xyz")));
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown field tag 40"), std::string::npos) << s.ToString();

  // A known field whose payload is not exactly one varint.
  std::string payload;
  PutVarint64(&payload, 99);
  payload.push_back('!');
  s = d.DecodeFrom(EncodedNewFile(FileBody(1, payload)));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  payload.pop_back();
  ASSERT_OK(d.DecodeFrom(EncodedNewFile(FileBody(1, payload))));
  EXPECT_EQ(d.new_files()[0].second.num_entries, 99u);
}

TEST(VersionEditTest, BadLevelsAndKeysAreCorruption) {
  VersionEdit d;
  std::string encoded;
  PutVarint32(&encoded, 6);  // kDeletedFile
  PutVarint32(&encoded, kMaxNumLevels);
  PutVarint64(&encoded, 3);
  EXPECT_TRUE(d.DecodeFrom(encoded).IsCorruption());

  encoded.clear();
  PutVarint32(&encoded, 5);  // kCompactPointer with a key shorter than a trailer
  PutVarint32(&encoded, 1);
  PutLengthPrefixed(&encoded, "short");
  EXPECT_TRUE(d.DecodeFrom(encoded).IsCorruption());

  std::string body;
  PutVarint64(&body, 12);
  PutVarint64(&body, 4096);
  std::string bad_type = MakeInternalKey("a", 5, kTypeValue);
  bad_type[bad_type.size() - 8] = 0x55;  // not a value type
  PutLengthPrefixed(&body, bad_type);
  Status s = d.DecodeFrom(EncodedNewFile(body));
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("#12"), std::string::npos) << s.ToString();
}

TEST(VersionEditTest, DebugStringShowsEveryField) {
  VersionEdit e;
  e.SetComparatorName("leveldb.BytewiseComparator");
  e.SetLogNumber(11);
  e.SetPrevLogNumber(10);
  e.SetNextFile(20);
  e.SetLastSequence(300);
  e.SetColumnFamily(0);
  e.AddColumnFamily("users");
  e.DropColumnFamily();
  e.SetMaxColumnFamily(4);
  e.MarkAtomicGroup(2);
  e.SetCompactPointer(1, MakeInternalKey("mid", 7, kTypeValue));
  e.DeleteFile(2, 15);
  e.AddFile(3, MakeFile(17, "a", "m", 1, 9));
  const std::string s = e.DebugString();
  for (const char* want : {"Comparator: leveldb.BytewiseComparator", "LogNumber: 11",
                           "PrevLogNumber: 10", "NextFileNumber: 20", "LastSequence: 300",
                           "CompactPointer: L1 'mid' @ 7", "DeleteFile: L2 #15", "AddFile: L3 #17",
                           "ColumnFamily: 0", "ColumnFamilyAdd: users", "ColumnFamilyDrop",
                           "MaxColumnFamily: 4", "AtomicGroupRemaining: 2"}) {
    EXPECT_NE(s.find(want), std::string::npos) << want << " in\n" << s;
  }
}

}  // namespace
}  // namespace shale::test
