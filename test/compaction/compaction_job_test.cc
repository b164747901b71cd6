// CompactionJob on real tables in an in-memory file system: the outputs are sorted and
// non-overlapping, cut at the target file size without splitting a user key, carry the range
// deletions clipped to each file, and give every snapshot the view the inputs gave;
// subcompactions give the same entries as one thread; the stop flag and a failing input end
// the job with no output file left behind.
#include "compaction/compaction_job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/filename.h"
#include "compaction/build_table.h"
#include "compaction/compaction_test_util.h"
#include "testutil/status_matchers.h"
#include "shale/file_system.h"
#include "table/block_source.h"
#include "util/random.h"

namespace shale::test {
namespace {

constexpr int kNumLevels = 3;

std::string Key(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%05u", static_cast<unsigned>(i));
  return buf;
}

// One output file as read back: its metadata, point entries and tombstones.
struct OutputFile {
  FileMetaData meta;
  std::vector<PointEntry> points;
  std::vector<Tombstone> tombstones;
};

class CompactionJobTest : public testing::Test {
 protected:
  CompactionJobTest() : fs_(NewMemFileSystem()), icmp_(BytewiseComparator()) {
    EXPECT_OK(fs_->CreateDirIfMissing(kDb));
    table_options_.block_size = 1024;
    cache_ = std::make_unique<TableCache>(kDb, fs_.get(), &icmp_, UncachedBlockSource(),
                                          TableReaderOptions(), 1000);
  }
  ~CompactionJobTest() override {
    if (compaction_ != nullptr) compaction_->ReleaseInputs();
  }

  // Writes a table of the given entries (every version kept) and returns its metadata.
  FileMetaData WriteTable(const std::vector<PointEntry>& points,
                          const std::vector<Tombstone>& tombstones) {
    std::vector<KV> entries, ranges;
    BuildTableOptions bo;
    bo.table_options = table_options_;
    for (const PointEntry& e : points) {
      entries.emplace_back(IKey(e.user_key, e.seq, e.type), e.value);
      bo.snapshots.push_back(e.seq);  // a snapshot per version keeps them all
    }
    for (const Tombstone& t : tombstones) {
      ranges.emplace_back(IKey(t.start, t.seq, kTypeRangeDeletion), t.end);
    }
    std::sort(bo.snapshots.begin(), bo.snapshots.end());
    EntryIterator it(&icmp_, std::move(entries));
    EntryIterator range_it(&icmp_, std::move(ranges));
    FileMetaData meta;
    meta.number = next_number_++;
    EXPECT_OK(BuildTable(kDb, fs_.get(), icmp_, bo, &it, &range_it, &meta));
    input_numbers_.insert(meta.number);
    for (const PointEntry& e : points) input_.points.push_back(e);
    for (const Tombstone& t : tombstones) input_.tombstones.push_back(t);
    return meta;
  }

  // Random inputs: `l1_files` non-overlapping L1 tables of older data, then `l0_files`
  // overlapping L0 tables of newer data (puts, deletions, range deletions).
  void MakeInputs(uint32_t seed, int l0_files, int l1_files, int keys, int entries_per_file,
                  int tombstones_per_l0_file) {
    Random rnd(seed);
    SequenceNumber seq = 1;
    std::vector<std::pair<int, FileMetaData>> files;
    for (int f = 0; f < l1_files; f++) {
      std::vector<PointEntry> points;
      const int lo = keys * f / l1_files, hi = keys * (f + 1) / l1_files;
      for (int k = lo; k < hi; k++) {
        const int versions = 1 + static_cast<int>(rnd.Uniform(2));
        for (int v = 0; v < versions; v++) {
          const std::string value = "old" + std::to_string(seq) + std::string(rnd.Uniform(80), 'o');
          points.push_back(PointEntry{Key(k), seq, kTypeValue, value});
          seq++;
        }
      }
      files.push_back({1, WriteTable(points, {})});
    }
    for (int f = 0; f < l0_files; f++) {
      std::vector<PointEntry> points;
      std::vector<Tombstone> tombstones;
      for (int i = 0; i < entries_per_file; i++) {
        const std::string key = Key(rnd.Uniform(keys));
        if (rnd.OneIn(5)) {
          points.push_back(PointEntry{key, seq++, kTypeDeletion, ""});
        } else {
          const std::string value =
              "new" + std::to_string(seq) + std::string(rnd.Uniform(120), 'n');
          points.push_back(PointEntry{key, seq, kTypeValue, value});
          seq++;
        }
      }
      for (int i = 0; i < tombstones_per_l0_file; i++) {
        const uint64_t start = rnd.Uniform(keys);
        const uint64_t end = start + 1 + rnd.Uniform(keys / 10 + 1);
        tombstones.push_back(Tombstone{Key(start), Key(end), seq++});
      }
      files.push_back({0, WriteTable(points, tombstones)});
    }
    last_seq_ = seq - 1;
    keys_ = keys;
    version_ = std::make_unique<TestVersion>(&icmp_, kNumLevels, files);
    ASSERT_OK(version_->status());
  }

  // A compaction of every input file into L2.
  Compaction* MakeCompaction(uint64_t target_file_size, bool bottommost,
                             uint32_t max_subcompactions) {
    if (compaction_ != nullptr) compaction_->ReleaseInputs();
    std::vector<CompactionInputLevel> inputs;
    for (int level = 0; level < 2; level++) {
      if (version_->get()->files(level).empty()) continue;
      inputs.push_back(CompactionInputLevel{level, version_->get()->files(level)});
    }
    compaction_ = std::make_unique<Compaction>(version_->get(), &icmp_, CompactionReason::kManual,
                                               std::move(inputs), 2);
    compaction_->target_file_size = target_file_size;
    compaction_->bottommost = bottommost;
    compaction_->max_subcompactions = max_subcompactions;
    compaction_->MarkFilesBeingCompacted(true);
    return compaction_.get();
  }

  CompactionJobContext Context(const std::vector<SequenceNumber>& snapshots) {
    CompactionJobContext ctx;
    ctx.dbname = kDb;
    ctx.fs = fs_.get();
    ctx.table_cache = cache_.get();
    ctx.table_options = table_options_;
    ctx.snapshots = snapshots;
    ctx.new_file_number = [this] { return next_number_.fetch_add(1); };
    ctx.shutting_down = &stop_;
    return ctx;
  }

  // Reads every output file back.
  std::vector<OutputFile> ReadOutputs(const std::vector<FileMetaData>& metas) {
    std::vector<OutputFile> r;
    for (const FileMetaData& m : metas) {
      OutputFile out;
      out.meta = m;
      std::unique_ptr<InternalIterator> it =
          cache_->NewIterator(TableReadOptions(), m.number, m.file_size);
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        ParsedInternalKey p;
        EXPECT_OK(ParseInternalKey(it->key(), &p));
        out.points.push_back(
            PointEntry{std::string(p.user_key), p.sequence, p.type, std::string(it->value())});
        EXPECT_GE(icmp_.Compare(it->key(), m.smallest), 0) << "#" << m.number;
        EXPECT_LE(icmp_.Compare(it->key(), m.largest), 0) << "#" << m.number;
      }
      EXPECT_OK(it->status());
      std::shared_ptr<const CachedTable> table;
      EXPECT_OK(cache_->Find(m.number, m.file_size, &table));
      if (table != nullptr) {
        std::unique_ptr<InternalIterator> t = table->reader->NewRangeTombstoneIterator();
        for (t->SeekToFirst(); t->Valid(); t->Next()) {
          out.tombstones.push_back(Tombstone{std::string(ExtractUserKey(t->key())),
                                             std::string(t->value()), ExtractSequence(t->key())});
        }
        EXPECT_EQ(out.tombstones.size(), m.num_range_deletions) << "#" << m.number;
      }
      r.push_back(std::move(out));
    }
    return r;
  }

  // The shape every output must have: sorted, non-overlapping files, no user key split, the
  // tombstones of each file within its bounds.
  void CheckShape(const std::vector<OutputFile>& outs) {
    for (size_t i = 0; i < outs.size(); i++) {
      const FileMetaData& m = outs[i].meta;
      SCOPED_TRACE("output #" + std::to_string(m.number));
      EXPECT_LE(icmp_.Compare(m.smallest, m.largest), 0);
      const std::string lo(ExtractUserKey(m.smallest)), hi(ExtractUserKey(m.largest));
      for (const Tombstone& t : outs[i].tombstones) {
        EXPECT_GE(t.start, lo) << "tombstone [" << t.start << ", " << t.end << ")";
        EXPECT_LE(t.end, hi) << "tombstone [" << t.start << ", " << t.end << ")";
      }
      if (i + 1 < outs.size()) {
        const FileMetaData& next = outs[i + 1].meta;
        EXPECT_LT(icmp_.Compare(m.largest, next.smallest), 0)
            << Describe(m.largest) << " vs " << Describe(next.smallest);
        if (!outs[i].points.empty() && !outs[i + 1].points.empty()) {
          EXPECT_NE(outs[i].points.back().user_key, outs[i + 1].points.front().user_key)
              << "a user key is split between two outputs";
        }
        for (const Tombstone& t : outs[i].tombstones) {
          EXPECT_LE(t.end, std::string(ExtractUserKey(next.smallest)));
        }
      }
    }
  }

  // Every reader at a snapshot (or at the latest sequence) sees the same in the outputs as in
  // the inputs. At the bottom, "deleted" and "absent" read the same.
  void CheckViews(const std::vector<OutputFile>& outs, const std::vector<SequenceNumber>& snapshots,
                  bool bottommost) {
    LsmContents out_contents;
    for (const OutputFile& o : outs) {
      out_contents.points.insert(out_contents.points.end(), o.points.begin(), o.points.end());
      out_contents.tombstones.insert(out_contents.tombstones.end(), o.tombstones.begin(),
                                     o.tombstones.end());
    }
    ReadModel want_model(input_), got_model(out_contents);
    std::vector<SequenceNumber> readers = snapshots;
    readers.push_back(kMaxSequenceNumber);
    int mismatches = 0;
    for (SequenceNumber s : readers) {
      for (int k = 0; k < keys_ + 2 && mismatches < 5; k++) {
        std::string want = want_model.Lookup(Key(k), s);
        std::string got = got_model.Lookup(Key(k), s);
        if (bottommost) {
          if (want == "deleted") want = "absent";
          if (got == "deleted") got = "absent";
        }
        if (got != want) {
          mismatches++;
          ADD_FAILURE() << Key(k) << " at snapshot " << s << ": got " << got << ", want " << want;
        }
      }
    }
  }

  // The files in the DB directory that are not inputs.
  std::vector<std::string> StrayFiles() {
    std::vector<std::string> children, stray;
    EXPECT_OK(fs_->GetChildren(kDb, &children));
    std::set<std::string> inputs;
    for (uint64_t n : input_numbers_) inputs.insert(TableFileName(kDb, n));
    for (const std::string& c : children) {
      const std::string path = std::string(kDb) + "/" + c;
      if (inputs.count(path) == 0 && c != "." && c != "..") stray.push_back(c);
    }
    return stray;
  }

  std::vector<SequenceNumber> RandomSnapshots(Random* rnd, int n) {
    std::set<SequenceNumber> s;
    for (int i = 0; i < n; i++) s.insert(1 + rnd->Uniform(last_seq_));
    return {s.begin(), s.end()};
  }

  static constexpr const char* kDb = "/job";
  std::shared_ptr<FileSystem> fs_;
  InternalKeyComparator icmp_;
  TableOptions table_options_;
  std::unique_ptr<TableCache> cache_;
  std::atomic<uint64_t> next_number_{10};
  std::atomic<bool> stop_{false};
  std::set<uint64_t> input_numbers_;
  LsmContents input_;
  SequenceNumber last_seq_ = 0;
  int keys_ = 0;
  std::unique_ptr<TestVersion> version_;
  std::unique_ptr<Compaction> compaction_;
};

TEST_F(CompactionJobTest, OutputsAreSortedAndKeepEverySnapshotsView) {
  for (uint32_t seed = 1; seed <= 6; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    input_ = LsmContents();
    MakeInputs(seed, 4, 3, 600, 300, 3);
    Random rnd(seed * 7);
    const bool bottommost = seed % 2 == 0;
    const std::vector<SequenceNumber> snapshots = RandomSnapshots(&rnd, 1 + seed % 4);
    CompactionJob job(MakeCompaction(8 << 10, bottommost, 1), Context(snapshots));
    ASSERT_OK(job.Run());
    ASSERT_FALSE(job.outputs().empty());
    EXPECT_GT(job.stats().entries_dropped, 0u);
    EXPECT_EQ(job.stats().bytes_read, compaction_->InputBytes());
    std::vector<OutputFile> outs = ReadOutputs(job.outputs());
    CheckShape(outs);
    CheckViews(outs, snapshots, bottommost);
    if (HasFailure()) return;
  }
}

TEST_F(CompactionJobTest, CutsAtTheTargetSizeWithoutSplittingUserKeys) {
  // Few keys with many versions each, all kept by snapshots: a cut could easily fall inside a
  // user key's versions.
  std::vector<PointEntry> points;
  SequenceNumber seq = 1;
  std::vector<SequenceNumber> snapshots;
  for (int k = 0; k < 60; k++) {
    for (int v = 0; v < 40; v++) {
      points.push_back(PointEntry{Key(k), seq, kTypeValue, std::string(100, 'a' + v % 26)});
      snapshots.push_back(seq++);
    }
  }
  keys_ = 60;
  last_seq_ = seq - 1;
  std::vector<std::pair<int, FileMetaData>> files = {{0, WriteTable(points, {})}};
  version_ = std::make_unique<TestVersion>(&icmp_, kNumLevels, files);
  ASSERT_OK(version_->status());
  constexpr uint64_t kTarget = 16 << 10;
  CompactionJob job(MakeCompaction(kTarget, true, 1), Context(snapshots));
  ASSERT_OK(job.Run());
  std::vector<OutputFile> outs = ReadOutputs(job.outputs());
  ASSERT_GE(outs.size(), 10u) << "about 300 KB cut at 16 KB";
  for (size_t i = 0; i + 1 < outs.size(); i++) {
    EXPECT_GE(outs[i].meta.file_size, kTarget) << "output " << i << " was cut early";
  }
  for (const OutputFile& o : outs) {
    // One user key's versions (40 x ~110 bytes) plus a block may follow the target.
    EXPECT_LE(o.meta.file_size, kTarget + 8 * 1024) << "#" << o.meta.number;
  }
  CheckShape(outs);
  CheckViews(outs, snapshots, true);
  size_t total = 0;
  for (const OutputFile& o : outs) total += o.points.size();
  EXPECT_EQ(total, points.size());
}

TEST_F(CompactionJobTest, SubcompactionsGiveTheSameEntriesAsOne) {
  MakeInputs(11, 4, 4, 3000, 1200, 4);
  Random rnd(5);
  const std::vector<SequenceNumber> snapshots = RandomSnapshots(&rnd, 3);
  std::vector<std::vector<OutputFile>> results;
  for (uint32_t subs : {1u, 4u}) {
    SCOPED_TRACE("max_subcompactions " + std::to_string(subs));
    CompactionJob job(MakeCompaction(16 << 10, false, subs), Context(snapshots));
    ASSERT_OK(job.Run());
    if (subs > 1) {
      EXPECT_GT(job.stats().subcompactions, 1) << "the inputs spread enough to split";
    }
    results.push_back(ReadOutputs(job.outputs()));
    CheckShape(results.back());
    CheckViews(results.back(), snapshots, false);
  }
  auto points = [](const std::vector<OutputFile>& outs) {
    std::vector<std::string> r;
    for (const OutputFile& o : outs) {
      for (const PointEntry& e : o.points) {
        r.push_back(e.user_key + "@" + std::to_string(e.seq) + ":" +
                    std::to_string(static_cast<int>(e.type)) + "=" + e.value);
      }
    }
    return r;
  };
  EXPECT_EQ(points(results[0]), points(results[1]));
}

TEST_F(CompactionJobTest, RangeTombstonesAreClippedToEachFile) {
  // Wide tombstones over many small output files, kept (not bottommost, snapshots between).
  std::vector<PointEntry> points;
  SequenceNumber seq = 1;
  for (int k = 0; k < 2000; k++) {
    points.push_back(PointEntry{Key(k), seq++, kTypeValue, std::string(60, 'x')});
  }
  std::vector<Tombstone> tombstones = {{Key(100), Key(1900), seq++}, {Key(0), Key(500), seq++}};
  for (int k = 0; k < 2000; k += 3) {
    points.push_back(PointEntry{Key(k), seq++, kTypeValue, std::string(60, 'y')});
  }
  tombstones.push_back(Tombstone{Key(700), Key(2500), seq++});
  keys_ = 2600;
  last_seq_ = seq - 1;
  std::vector<std::pair<int, FileMetaData>> files = {{0, WriteTable(points, tombstones)}};
  version_ = std::make_unique<TestVersion>(&icmp_, kNumLevels, files);
  ASSERT_OK(version_->status());
  const std::vector<SequenceNumber> snapshots = {1000, 2001, 2400};
  CompactionJob job(MakeCompaction(8 << 10, false, 2), Context(snapshots));
  ASSERT_OK(job.Run());
  std::vector<OutputFile> outs = ReadOutputs(job.outputs());
  ASSERT_GE(outs.size(), 3u);
  size_t with_tombstones = 0;
  for (const OutputFile& o : outs) with_tombstones += o.tombstones.empty() ? 0 : 1;
  EXPECT_GE(with_tombstones, 3u) << "each file carries its share of the wide tombstones";
  CheckShape(outs);
  CheckViews(outs, snapshots, false);
  // The last file reaches the end of the widest tombstone, past every point key.
  EXPECT_EQ(ExtractUserKey(outs.back().meta.largest), Key(2500));
}

TEST_F(CompactionJobTest, StopFlagEndsTheJobWithNoOutputLeft) {
  MakeInputs(3, 3, 2, 2000, 3000, 1);
  stop_ = true;
  {
    CompactionJob job(MakeCompaction(8 << 10, true, 1), Context({}));
    Status s = job.Run();
    EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
    EXPECT_TRUE(job.outputs().empty());
    EXPECT_EQ(StrayFiles(), std::vector<std::string>());
  }
  // Set while the job runs: when it asks for its third output file.
  stop_ = false;
  for (uint32_t subs : {1u, 3u}) {
    SCOPED_TRACE("max_subcompactions " + std::to_string(subs));
    std::atomic<int> opened{0};
    CompactionJobContext ctx = Context({});
    ctx.new_file_number = [this, &opened] {
      if (++opened == 3) stop_ = true;
      return next_number_.fetch_add(1);
    };
    CompactionJob job(MakeCompaction(4 << 10, true, subs), std::move(ctx));
    Status s = job.Run();
    EXPECT_TRUE(s.IsShutdownInProgress()) << s.ToString();
    EXPECT_GE(opened.load(), 3);
    EXPECT_EQ(StrayFiles(), std::vector<std::string>());
    stop_ = false;
  }
}

TEST_F(CompactionJobTest, MissingInputFailsAndLeavesNoOutput) {
  MakeInputs(4, 2, 2, 500, 200, 0);
  const FileMetaData* victim = version_->get()->files(1).back();
  ASSERT_OK(fs_->DeleteFile(TableFileName(kDb, victim->number)));
  input_numbers_.erase(victim->number);
  CompactionJob job(MakeCompaction(4 << 10, true, 1), Context({}));
  Status s = job.Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find(std::to_string(victim->number)), std::string::npos)
      << "the error names the file: " << s.ToString();
  EXPECT_EQ(StrayFiles(), std::vector<std::string>());
}

}  // namespace
}  // namespace shale::test
