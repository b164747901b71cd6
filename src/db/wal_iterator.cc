// WalIterator (see wal_iterator.h) and DBImpl::GetUpdatesSince.
#include "db/wal_iterator.h"

#include <algorithm>
#include <string>
#include <utility>

#include "base/filename.h"
#include "db/db_impl.h"
#include "db/write_batch_internal.h"

namespace shale {

TransactionLogIterator::~TransactionLogIterator() = default;

namespace {

// Damage goes to status() (kTolerateCorruptedTailRecords fails the read on it); a torn tail
// is the end of a WAL. Nothing to record here.
class SilentReporter final : public log::Reader::Reporter {
 public:
  void Corruption(size_t, const Status&) override {}
};

bool IsGone(const Status& s) { return s.IsPathNotFound() || s.IsNotFound(); }

std::string Seq(uint64_t s) { return std::to_string(s); }

}  // namespace

WalIterator::WalIterator(FileSystem* fs, std::string dbname, LastSequenceFn last_sequence,
                         const ReadOptions& options, uint64_t target)
    : fs_(fs),
      dbname_(std::move(dbname)),
      last_sequence_(std::move(last_sequence)),
      options_(options),
      target_(target) {}

WalIterator::~WalIterator() { CloseReader(); }

Status WalIterator::Create(FileSystem* fs, std::string dbname, LastSequenceFn last_sequence,
                           const ReadOptions& options, uint64_t seq,
                           std::unique_ptr<TransactionLogIterator>* iter) {
  iter->reset();
  const uint64_t published = last_sequence();
  if (seq > published) {
    return Status::NotFound("Requested sequence not yet written in the db",
                            "sequence " + Seq(seq) + ", latest " + Seq(published));
  }
  const uint64_t target = std::max<uint64_t>(seq, 1);
  std::unique_ptr<WalIterator> it(
      new WalIterator(fs, std::move(dbname), std::move(last_sequence), options, target));
  // Sequence 0 of an empty DB: nothing is written yet; Next() looks for the first write.
  if (target <= published) {
    Status s = it->Seek();
    if (!s.ok()) return s;
    it->Advance();
    if (!it->status_.ok()) return it->status_;
  }
  *iter = std::move(it);
  return Status::OK();
}

Status WalIterator::ListWals(std::vector<uint64_t>* numbers) const {
  numbers->clear();
  std::vector<std::string> children;
  Status s = fs_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  for (const std::string& name : children) {
    uint64_t number = 0;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kWalFile) {
      numbers->push_back(number);
    }
  }
  std::sort(numbers->begin(), numbers->end());
  return Status::OK();
}

Status WalIterator::FirstSequence(uint64_t number, uint64_t* first) const {
  *first = 0;
  const std::string path = WalFileName(dbname_, number);
  std::unique_ptr<SequentialFile> file;
  Status s = fs_->NewSequentialFile(path, &file);
  if (!s.ok()) return s;
  SilentReporter reporter;
  log::Reader reader(file.get(), &reporter, options_.verify_checksums, 0,
                     log::WalRecoveryMode::kTolerateCorruptedTailRecords, path);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    if (record.size() < WriteBatchInternal::kHeader) {
      return Status::Corruption(path + ": WAL record shorter than a batch header");
    }
    WriteBatch batch;
    s = WriteBatchInternal::SetContents(&batch, record);
    if (!s.ok()) return s;
    if (WriteBatchInternal::Count(batch) == 0) continue;
    *first = WriteBatchInternal::Sequence(batch);
    return Status::OK();
  }
  return reader.status();
}

Status WalIterator::Seek() {
  std::vector<uint64_t> numbers;
  Status s = ListWals(&numbers);
  if (!s.ok()) return s;
  uint64_t chosen = 0;
  uint64_t oldest_first = 0;
  uint64_t oldest_wal = 0;
  // WAL numbers and the sequences in them grow together: the WAL holding target_ is the last
  // one starting at or before it.
  for (uint64_t number : numbers) {
    uint64_t first = 0;
    s = FirstSequence(number, &first);
    if (IsGone(s)) continue;  // deleted since the listing: flushed, so older than any chosen
    if (!s.ok()) return s;
    if (first == 0) continue;  // no batch in it (yet)
    if (oldest_first == 0) {
      oldest_first = first;
      oldest_wal = number;
    }
    if (first > target_) break;
    chosen = number;
  }
  if (chosen == 0) {
    return Status::NotFound(
        "Requested sequence is older than the oldest WAL",
        "sequence " + Seq(target_) + " is in no live WAL (" +
            (oldest_wal == 0 ? std::string("no live WAL holds a write")
                             : "the oldest, #" + Seq(oldest_wal) + ", starts at sequence " +
                                   Seq(oldest_first)) +
            "); ShaleDB deletes a WAL once its memtables are flushed");
  }
  wal_ = chosen;
  offset_ = 0;
  return Status::OK();
}

Status WalIterator::NextWal(bool* found, uint64_t* next) const {
  *found = false;
  std::vector<uint64_t> numbers;
  Status s = ListWals(&numbers);
  if (!s.ok()) return s;
  auto it = std::upper_bound(numbers.begin(), numbers.end(), wal_);
  if (it != numbers.end()) {
    *found = true;
    *next = *it;
  }
  return Status::OK();
}

Status WalIterator::OpenReader(bool* gone) {
  *gone = false;
  const std::string path = WalFileName(dbname_, wal_);
  Status s = fs_->NewSequentialFile(path, &file_);
  if (IsGone(s)) {
    *gone = true;
    return Status::OK();
  }
  if (!s.ok()) return s;
  reporter_ = std::make_unique<SilentReporter>();
  reader_ = std::make_unique<log::Reader>(file_.get(), reporter_.get(), options_.verify_checksums,
                                          offset_,
                                          log::WalRecoveryMode::kTolerateCorruptedTailRecords,
                                          path);
  return Status::OK();
}

void WalIterator::CloseReader() {
  reader_.reset();
  reporter_.reset();
  file_.reset();
}

void WalIterator::Fail(Status s) {
  CloseReader();
  valid_ = false;
  status_ = std::move(s);
}

void WalIterator::Next() {
  if (!status_.ok()) return;
  Advance();
}

BatchResult WalIterator::GetBatch() {
  BatchResult result;
  if (!valid_) return result;
  result.sequence = batch_seq_;
  result.writeBatchPtr = std::make_unique<WriteBatch>(batch_);
  return result;
}

void WalIterator::Advance() {
  valid_ = false;
  if (!status_.ok()) return;
  if (wal_ == 0) {
    // The start was not written when the iterator was made (an empty DB).
    if (last_sequence_() < target_) return;
    Status s = Seek();
    if (!s.ok()) return Fail(std::move(s));
  }
  const uint64_t expected = started_ ? last_seq_ + 1 : target_;
  auto gap = [&](const std::string& where) {
    return Status::Corruption("Gap in sequence numbers",
                              "sequence " + Seq(expected) + " is in no WAL: " + where +
                                  " (written with disableWAL, taken by an ingestion, or in a "
                                  "WAL deleted after a flush)");
  };
  // A WAL newer than wal_ listed before wal_ was opened: wal_ was complete (switched, never
  // appended again) before any of it was read, so its end is final.
  bool newer_known = false;
  uint64_t newer = 0;
  // wal_ was reopened in this call after reaching its end (so the end seen is not one a read
  // made before the publication of `expected` left in the reader's buffer).
  bool reread = false;
  // Reads of wal_ that met damage while no newer WAL was known (see below).
  constexpr int kMaxRacingRereads = 8;
  int racing_rereads = 0;
  while (true) {
    if (reader_ == nullptr) {
      Status s = NextWal(&newer_known, &newer);
      if (!s.ok()) return Fail(std::move(s));
      bool gone = false;
      s = OpenReader(&gone);
      if (!s.ok()) return Fail(std::move(s));
      if (gone) {
        if (!started_) {
          // The WAL chosen to start at was deleted since: choose again (which may now find
          // that the start is older than every WAL left).
          s = Seek();
          if (!s.ok()) return Fail(std::move(s));
          continue;
        }
        if (newer_known) {
          wal_ = newer;
          offset_ = 0;
          continue;
        }
        if (last_sequence_() >= expected) {
          return Fail(gap("WAL #" + Seq(wal_) + " was deleted and no newer WAL exists"));
        }
        return;  // nothing more is written; a later poll looks again
      }
    }
    const uint64_t published = last_sequence_();
    if (published < expected) {
      // Everything published is read. A later poll reopens wal_ at offset_.
      CloseReader();
      return;
    }
    std::string_view record;
    if (!reader_->ReadRecord(&record, &scratch_)) {
      Status s = reader_->status();
      CloseReader();
      if (!s.ok() && s.IsCorruption() && !newer_known && racing_rereads < kMaxRacingRereads) {
        // wal_ is the newest WAL, being written: its writer copies records into space
        // allocated ahead (zeros), so a read racing the copies can see a record half there,
        // or zeros with data after them, which a finished log never holds. Read again from
        // offset_ before calling it damage.
        racing_rereads++;
        continue;
      }
      if (!s.ok()) return Fail(std::move(s));
      if (newer_known) {
        wal_ = newer;
        offset_ = 0;
        continue;
      }
      if (!reread) {
        reread = true;
        continue;
      }
      return Fail(gap("WAL #" + Seq(wal_) + " ends at offset " + Seq(offset_) +
                      " and no newer WAL exists"));
    }
    offset_ = reader_->LastRecordEnd();
    const std::string path = WalFileName(dbname_, wal_);
    if (record.size() < WriteBatchInternal::kHeader) {
      return Fail(Status::Corruption(path + ": WAL record shorter than a batch header"));
    }
    WriteBatch batch;
    Status s = WriteBatchInternal::SetContents(&batch, record);
    if (!s.ok()) return Fail(Status::Corruption(path + ": bad batch in WAL", s.ToString()));
    const uint64_t count = WriteBatchInternal::Count(batch);
    if (count == 0) continue;
    const uint64_t first = WriteBatchInternal::Sequence(batch);
    const uint64_t last = first + count - 1;
    if (!started_ && last < expected) continue;  // before the requested sequence
    if (started_ ? first != expected : first > expected) {
      return Fail(gap("WAL #" + Seq(wal_) + " holds sequence " + Seq(first) + " next"));
    }
    batch_ = std::move(batch);
    batch_seq_ = first;
    last_seq_ = last;
    started_ = true;
    valid_ = true;
    return;
  }
}

Status DBImpl::GetUpdatesSince(uint64_t seq, std::unique_ptr<TransactionLogIterator>* iter,
                               const TransactionLogIterator::ReadOptions& read_options) {
  if (iter == nullptr) return Status::InvalidArgument("GetUpdatesSince: iter is null");
  iter->reset();
  InFlightCall call(this, /*mu_held=*/false);
  if (!call.status().ok()) return call.status();
  const VersionSet* versions = versions_.get();
  return WalIterator::Create(
      fs_, dbname_, [versions] { return versions->LastSequence(); }, read_options, seq, iter);
}

}  // namespace shale
