#include "compaction/compaction_job.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "base/filename.h"
#include "compaction/compaction_iterator.h"
#include "compaction/compaction_picker.h"
#include "iterator/merging_iterator.h"
#include "table/table_builder.h"
#include "version/version_level_files.h"

namespace shale {

// One key range [start, end) of the compaction (a missing bound is open).
struct CompactionJob::Subcompaction {
  std::optional<std::string> start;
  std::optional<std::string> end;
  std::vector<FileMetaData> outputs;
  Status status;
  uint64_t entries_read = 0;
  uint64_t entries_dropped = 0;
  uint64_t filter_removed = 0;
  uint64_t filter_changed = 0;
};

// Writes the output files of one subcompaction, one at a time.
class CompactionJob::OutputWriter {
 public:
  OutputWriter(const CompactionJob* job, Subcompaction* sub)
      : job_(job), c_(job->c_), sub_(sub), interval_start_(sub->start) {}

  ~OutputWriter() {
    if (builder_ != nullptr) Abandon();
  }

  // Adds a kept entry; may finish the current file first.
  Status Add(std::string_view key, std::string_view value) {
    const std::string_view user_key = ExtractUserKey(key);
    const Comparator* ucmp = c_->icmp().user_comparator();
    const bool new_user_key =
        !has_last_ || ucmp->Compare(user_key, last_user_key_) != 0;
    if (new_user_key) {
      const bool cut_for_grandparents = AdvanceGrandparents(user_key);
      if (builder_ != nullptr &&
          (cut_for_grandparents ||
           (c_->target_file_size > 0 && builder_->FileSize() >= c_->target_file_size))) {
        Status s = FinishFile(std::string(user_key));
        if (!s.ok()) return s;
        interval_start_ = std::string(user_key);
      }
    }
    if (builder_ == nullptr) {
      if (Stopping()) return Status::ShutdownInProgress("compaction stopped: the DB is closing");
      Status s = OpenFile();
      if (!s.ok()) return s;
    }
    builder_->Add(key, value);
    meta_.UpdateBoundaries(key, ExtractSequence(key));
    if (new_user_key) {
      last_user_key_.assign(user_key);
      has_last_ = true;
    }
    return Status::OK();
  }

  // Finishes the last file (with the tombstones up to the subcompaction's end); writes a file
  // of tombstones alone when the range has no kept point entry but has tombstones.
  Status Finish() {
    if (builder_ == nullptr && HasTombstonesIn(interval_start_, sub_->end)) {
      Status s = OpenFile();
      if (!s.ok()) return s;
    }
    if (builder_ == nullptr) return Status::OK();
    return FinishFile(sub_->end);
  }

  void Abandon() {
    builder_->Abandon();
    file_->Close().PermitUncheckedError();
    job_->ctx_.fs->DeleteFile(path_).PermitUncheckedError();
    builder_.reset();
    file_.reset();
  }

 private:
  bool Stopping() const {
    return job_->ctx_.shutting_down != nullptr &&
           job_->ctx_.shutting_down->load(std::memory_order_relaxed);
  }

  // Moves past grandparents that end before `user_key`; true when the current file has
  // overlapped more grandparent bytes than allowed and should end before this key.
  bool AdvanceGrandparents(std::string_view user_key) {
    const std::vector<FileMetaData*>& gp = c_->grandparents;
    const Comparator* ucmp = c_->icmp().user_comparator();
    while (gp_index_ < gp.size() &&
           ucmp->Compare(user_key, ExtractUserKey(gp[gp_index_]->largest)) > 0) {
      if (seen_key_) gp_overlap_ += gp[gp_index_]->file_size;
      gp_index_++;
    }
    seen_key_ = true;
    if (c_->max_grandparent_overlap_bytes > 0 && gp_overlap_ > c_->max_grandparent_overlap_bytes) {
      gp_overlap_ = 0;
      return true;
    }
    return false;
  }

  Status OpenFile() {
    meta_ = FileMetaData();
    meta_.number = job_->ctx_.new_file_number();
    path_ = TableFileName(job_->ctx_.dbname, meta_.number);
    Status s = job_->ctx_.fs->NewWritableFile(path_, &file_);
    if (!s.ok()) return s;
    builder_ = std::make_unique<TableBuilder>(job_->ctx_.table_options, c_->compression,
                                              c_->compression_level, &c_->icmp(), file_.get(),
                                              path_);
    builder_->SetColumnFamily(job_->ctx_.column_family_id, job_->ctx_.column_family_name);
    return Status::OK();
  }

  bool HasTombstonesIn(const std::optional<std::string>& lo,
                       const std::optional<std::string>& hi) const {
    if (job_->tombstones_ == nullptr) return false;
    bool any = false;
    ForEachKeptTombstone(lo, hi, [&](std::string_view, std::string_view, SequenceNumber) {
      any = true;
    });
    return any;
  }

  // The tombstones the output keeps in [lo, hi): per fragment, the newest of each snapshot
  // stripe, minus (at the bottommost level) those in the oldest stripe.
  void ForEachKeptTombstone(
      const std::optional<std::string>& lo, const std::optional<std::string>& hi,
      const std::function<void(std::string_view, std::string_view, SequenceNumber)>& fn) const {
    const std::vector<SequenceNumber>& snaps = job_->ctx_.snapshots;
    auto stripe_of = [&](SequenceNumber s) {
      auto it = std::lower_bound(snaps.begin(), snaps.end(), s);
      return it == snaps.end() ? kMaxSequenceNumber : *it;
    };
    const SequenceNumber first_stripe = snaps.empty() ? kMaxSequenceNumber : snaps.front();
    std::optional<std::string_view> l, h;
    if (lo) l = *lo;
    if (hi) h = *hi;
    job_->tombstones_->ForEachFragment(
        l, h, [&](std::string_view start, std::string_view end,
                  const std::vector<SequenceNumber>& seqs) {
          SequenceNumber last_stripe = 0;
          bool first = true;
          for (SequenceNumber seq : seqs) {  // newest first
            const SequenceNumber stripe = stripe_of(seq);
            if (!first && stripe == last_stripe) continue;
            first = false;
            last_stripe = stripe;
            if (c_->bottommost && stripe == first_stripe) continue;
            fn(start, end, seq);
          }
        });
  }

  // Adds the tombstones of [interval_start_, hi), then finishes, syncs and closes the file.
  Status FinishFile(const std::optional<std::string>& hi) {
    if (job_->tombstones_ != nullptr) {
      const InternalKeyComparator& icmp = c_->icmp();
      ForEachKeptTombstone(interval_start_, hi, [&](std::string_view start, std::string_view end,
                                                    SequenceNumber seq) {
        const std::string key = MakeInternalKey(start, seq, kTypeRangeDeletion);
        builder_->Add(key, end);
        const std::string sentinel = MakeInternalKey(end, kMaxSequenceNumber, kTypeRangeDeletion);
        if (meta_.smallest.empty() || icmp.Compare(key, meta_.smallest) < 0) meta_.smallest = key;
        if (meta_.largest.empty() || icmp.Compare(sentinel, meta_.largest) > 0) {
          meta_.largest = sentinel;
        }
        meta_.smallest_seqno = std::min(meta_.smallest_seqno, seq);
        meta_.largest_seqno = std::max(meta_.largest_seqno, seq);
      });
    }
    Status s = builder_->Finish();
    if (s.ok()) s = file_->Sync();
    Status close = file_->Close();
    if (s.ok()) s = close;
    if (!s.ok()) {
      builder_.reset();
      file_.reset();
      job_->ctx_.fs->DeleteFile(path_).PermitUncheckedError();
      return s;
    }
    const TableProperties& props = builder_->properties();
    meta_.file_size = builder_->FileSize();
    meta_.num_entries = props.num_entries;
    meta_.num_deletions = props.num_deletions;
    meta_.num_range_deletions = props.num_range_deletions;
    meta_.raw_key_size = props.raw_key_size;
    meta_.raw_value_size = props.raw_value_size;
    meta_.creation_time = static_cast<uint64_t>(std::time(nullptr));
    sub_->outputs.push_back(meta_);
    builder_.reset();
    file_.reset();
    return Status::OK();
  }

  const CompactionJob* const job_;
  const Compaction* const c_;
  Subcompaction* const sub_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;
  std::string path_;
  FileMetaData meta_;
  // Where the current (or next) file's tombstone interval starts.
  std::optional<std::string> interval_start_;
  std::string last_user_key_;
  bool has_last_ = false;
  size_t gp_index_ = 0;
  uint64_t gp_overlap_ = 0;
  bool seen_key_ = false;
};

CompactionJob::CompactionJob(const Compaction* c, CompactionJobContext context)
    : c_(c), ctx_(std::move(context)) {}

Status CompactionJob::BuildTombstones() {
  for (const CompactionInputLevel& in : c_->inputs()) {
    for (const FileMetaData* f : in.files) {
      if (f->num_range_deletions == 0) continue;
      std::shared_ptr<const CachedTable> table;
      Status s = ctx_.table_cache->Find(f->number, f->file_size, &table, -1, f->global_seqno);
      if (!s.ok()) return s;
      if (tombstones_ == nullptr) {
        tombstones_ = std::make_unique<RangeTombstones>(c_->icmp().user_comparator());
      }
      std::unique_ptr<InternalIterator> it = table->reader->NewRangeTombstoneIterator();
      s = tombstones_->AddAll(it.get());
      if (!s.ok()) return s;
    }
  }
  if (tombstones_ != nullptr) tombstones_->Finish();
  return Status::OK();
}

std::unique_ptr<InternalIterator> CompactionJob::NewInputIterator() const {
  TableReadOptions topts;
  topts.verify_checksums = true;
  topts.fill_cache = false;
  std::vector<std::unique_ptr<InternalIterator>> children;
  TableCache* cache = ctx_.table_cache;
  for (const CompactionInputLevel& in : c_->inputs()) {
    if (in.level == 0) {
      for (const FileMetaData* f : in.files) {
        children.push_back(cache->NewIterator(topts, f->number, f->file_size, -1, f->global_seqno));
      }
      continue;
    }
    children.push_back(NewLevelFilesIterator(&c_->icmp(), cache, topts, &in.files, /*level=*/-1));
  }
  return NewMergingIterator(&c_->icmp(), std::move(children));
}

Status CompactionJob::SplitPoints(size_t n, std::vector<std::string>* points) const {
  points->clear();
  if (n <= 1) return Status::OK();
  const Comparator* ucmp = c_->icmp().user_comparator();
  struct Sample {
    std::string user_key;
    double bytes;
  };
  std::vector<Sample> samples;
  double total = 0;
  for (const CompactionInputLevel& in : c_->inputs()) {
    for (const FileMetaData* f : in.files) {
      std::shared_ptr<const CachedTable> table;
      Status s = ctx_.table_cache->Find(f->number, f->file_size, &table, -1, f->global_seqno);
      if (!s.ok()) return s;
      std::vector<std::string> keys;
      s = table->reader->SampleKeys(128, &keys);
      if (!s.ok()) return s;
      if (keys.empty()) continue;
      const double each = static_cast<double>(f->file_size) / static_cast<double>(keys.size());
      for (std::string& k : keys) {
        samples.push_back(Sample{std::string(ExtractUserKey(k)), each});
        total += each;
      }
    }
  }
  std::sort(samples.begin(), samples.end(), [ucmp](const Sample& a, const Sample& b) {
    return ucmp->Compare(a.user_key, b.user_key) < 0;
  });
  double acc = 0;
  size_t next = 1;
  for (const Sample& s : samples) {
    acc += s.bytes;
    if (next < n && acc >= total * static_cast<double>(next) / static_cast<double>(n)) {
      next++;
      if (ucmp->Compare(s.user_key, c_->smallest_user_key()) <= 0 ||
          ucmp->Compare(s.user_key, c_->largest_user_key()) > 0) {
        continue;
      }
      if (!points->empty() && ucmp->Compare(s.user_key, points->back()) <= 0) continue;
      points->push_back(s.user_key);
    }
  }
  return Status::OK();
}

void CompactionJob::RunSubcompaction(Subcompaction* sub) const {
  std::unique_ptr<InternalIterator> input = NewInputIterator();
  const Comparator* ucmp = c_->icmp().user_comparator();
  if (sub->start) {
    input->Seek(FirstInternalKeyOf(*sub->start));
  } else {
    input->SeekToFirst();
  }
  // Stops the input at the range's end.
  class BoundedInput final : public InternalIterator {
   public:
    BoundedInput(InternalIterator* in, const Comparator* ucmp, const std::optional<std::string>& end,
                 uint64_t* count)
        : in_(in), ucmp_(ucmp), end_(end), count_(count) {}
    bool Valid() const override {
      return in_->Valid() && (!end_ || ucmp_->Compare(ExtractUserKey(in_->key()), *end_) < 0);
    }
    void SeekToFirst() override {}  // positioned by the job
    void SeekToLast() override {}
    void Seek(std::string_view) override {}
    void SeekForPrev(std::string_view) override {}
    void Next() override {
      (*count_)++;
      in_->Next();
    }
    void Prev() override {}
    std::string_view key() const override { return in_->key(); }
    std::string_view value() const override { return in_->value(); }
    Status status() const override { return in_->status(); }

   private:
    InternalIterator* in_;
    const Comparator* ucmp_;
    const std::optional<std::string>& end_;
    uint64_t* count_;
  };
  BoundedInput bounded(input.get(), ucmp, sub->end, &sub->entries_read);
  // The filter: the family's shared one wins over the factory (RocksDB's precedence); a
  // factory makes one per subcompaction, owned here.
  std::unique_ptr<CompactionFilter> own_filter;
  const CompactionFilter* filter = ctx_.compaction_filter;
  if (filter == nullptr && ctx_.compaction_filter_factory != nullptr) {
    own_filter = ctx_.compaction_filter_factory->CreateCompactionFilter(ctx_.filter_context);
    filter = own_filter.get();
  }
  CompactionIterator iter(&bounded, ucmp, ctx_.snapshots, tombstones_.get(), c_->bottommost,
                          ctx_.merge_operator, kMaxValueSize, filter, c_->start_level());
  OutputWriter writer(this, sub);
  Status s;
  uint64_t kept = 0;
  // Input entries read and handed to ctx_.progress so far; each counts for the inputs' mean
  // bytes per entry.
  uint64_t reported = 0;
  const auto report_progress = [&] {
    const uint64_t entries = sub->entries_read - reported;
    reported = sub->entries_read;
    ctx_.progress->Add(static_cast<uint64_t>(static_cast<double>(entries) * bytes_per_entry_),
                       entries);
  };
  for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
    if ((++kept & 4095) == 0 && ctx_.shutting_down != nullptr &&
        ctx_.shutting_down->load(std::memory_order_relaxed)) {
      s = Status::ShutdownInProgress("compaction stopped: the DB is closing");
      break;
    }
    if (ctx_.progress != nullptr && sub->entries_read - reported >= ProgressBatch::kEntries) {
      report_progress();
    }
    s = writer.Add(iter.key(), iter.value());
    if (!s.ok()) break;
  }
  if (ctx_.progress != nullptr) report_progress();
  if (s.ok()) s = iter.status();
  if (s.ok()) s = writer.Finish();
  sub->entries_dropped = iter.num_dropped();
  sub->filter_removed = iter.num_filter_removed();
  sub->filter_changed = iter.num_filter_changed();
  sub->status = s;
}

void CompactionJob::DeleteOutputs(const std::vector<FileMetaData>& files) const {
  for (const FileMetaData& f : files) {
    ctx_.fs->DeleteFile(TableFileName(ctx_.dbname, f.number)).PermitUncheckedError();
  }
}

Status CompactionJob::Run() {
  const auto start = std::chrono::steady_clock::now();
  stats_.bytes_read = c_->InputBytes();
  if (ctx_.progress != nullptr) {
    uint64_t entries = 0;
    for (const CompactionInputLevel& in : c_->inputs()) {
      for (const FileMetaData* f : in.files) entries += f->num_entries;
    }
    bytes_per_entry_ =
        entries > 0 ? static_cast<double>(stats_.bytes_read) / static_cast<double>(entries) : 0;
  }
  Status s = BuildTombstones();
  if (!s.ok()) return s;
  // One thread per range: bounded, so a huge max_subcompactions (or per-call
  // CompactRangeOptions::max_subcompactions) cannot start thousands of threads.
  const size_t ranges = std::min<size_t>(c_->max_subcompactions, Options::kMaxSubcompactions);
  std::vector<std::string> points;
  s = SplitPoints(ranges, &points);
  if (!s.ok()) return s;
  std::vector<Subcompaction> subs(points.size() + 1);
  for (size_t i = 0; i < subs.size(); i++) {
    if (i > 0) subs[i].start = points[i - 1];
    if (i < points.size()) subs[i].end = points[i];
  }
  std::vector<std::thread> threads;
  for (size_t i = 1; i < subs.size(); i++) {
    threads.emplace_back([this, &subs, i] { RunSubcompaction(&subs[i]); });
  }
  RunSubcompaction(&subs[0]);
  for (std::thread& t : threads) t.join();
  stats_.subcompactions = static_cast<int>(subs.size());
  for (Subcompaction& sub : subs) {
    if (s.ok() && !sub.status.ok()) s = sub.status;
    stats_.entries_read += sub.entries_read;
    stats_.entries_dropped += sub.entries_dropped;
    stats_.filter_removed += sub.filter_removed;
    stats_.filter_changed += sub.filter_changed;
  }
  for (Subcompaction& sub : subs) {
    if (!s.ok()) {
      DeleteOutputs(sub.outputs);
      continue;
    }
    for (FileMetaData& f : sub.outputs) {
      stats_.bytes_written += f.file_size;
      outputs_.push_back(std::move(f));
    }
  }
  // The directory entries must be durable before a MANIFEST edit names the files.
  if (s.ok() && !outputs_.empty()) {
    s = ctx_.fs->SyncDir(ctx_.dbname);
    if (!s.ok()) {
      DeleteOutputs(outputs_);
      outputs_.clear();
    }
  }
  stats_.micros = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - start)
                                            .count());
  return s;
}

}  // namespace shale
