// See workload.h: the writes (put, delete, merge, range deletion, write batch, ingested file)
// and the maintenance operations (flush, compact range).
#include <algorithm>

#include "shale/sst_file_writer.h"
#include "workload.h"

namespace shale::stress {

Status Workload::WriteKeys(std::vector<KeyWrite> writes, bool can_sync, Random* rnd,
                           const WriteFn& fn) {
  std::vector<uint32_t> keys;
  for (const KeyWrite& w : writes) keys.push_back(w.key);
  KeyLocks::Guard guard(&locks_, keys);
  for (KeyWrite& w : writes) {
    w.word = state_->NextWord(w.key, w.kind);
    state_->MarkPending(w.key, w.word);
    if (tracker_ != nullptr) tracker_->Issue(w.key, w.word);
  }
  WriteOptions wo;
  wo.sync = can_sync && (config_.sync || (config_.sync_one_in > 0 &&
                                          rnd->OneIn(config_.sync_one_in)));
  const uint64_t clock = tracker_ != nullptr ? tracker_->Clock() : 0;
  Status s = fn(writes, wo);
  if (!s.ok()) return s;  // the writes stay pending: they may or may not have landed
  const uint64_t ticket = tracker_ != nullptr ? tracker_->NextTicket() : 0;
  for (const KeyWrite& w : writes) {
    state_->Commit(w.key);
    if (tracker_ != nullptr) tracker_->Acknowledge(w.key, ticket, wo.sync);
    if (w.kind == WriteKind::kMerge) merges_done_.fetch_add(1);
  }
  if (tracker_ != nullptr && wo.sync) tracker_->MarkDurable(clock);
  return Status::OK();
}

std::vector<uint32_t> Workload::PickKeys(Random* rnd, uint32_t n) const {
  return PickKeys(rnd, n, 0, keyspace_.slots());
}

std::vector<uint32_t> Workload::PickKeys(Random* rnd, uint32_t n, uint32_t begin,
                                         uint32_t end) const {
  const uint32_t range = end - begin;
  n = std::min(n, range);
  const bool clustered = rnd->OneIn(2) && range > 4 * n;
  const uint32_t base = static_cast<uint32_t>(rnd->Uniform(range));
  std::vector<uint32_t> keys;
  while (keys.size() < n) {
    const uint32_t k =
        begin + (clustered ? static_cast<uint32_t>((base + rnd->Uniform(4 * n)) % range)
                           : static_cast<uint32_t>(rnd->Uniform(range)));
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<uint32_t> Workload::PickCrossFamilyKeys(Random* rnd) const {
  std::vector<uint32_t> slots;
  // 1-4 keys; each goes into every family half of the time, else into two or more of them.
  for (uint32_t k : PickKeys(rnd, 1 + static_cast<uint32_t>(rnd->Uniform(4)), 0,
                             keyspace_.max_key)) {
    const bool all = rnd->OneIn(2);
    std::vector<uint32_t> fams;
    for (uint32_t f = 0; f < keyspace_.families; ++f) {
      if (all || rnd->OneIn(2)) fams.push_back(f);
    }
    for (uint32_t f = 0; fams.size() < 2; ++f) {
      if (std::find(fams.begin(), fams.end(), f) == fams.end()) fams.push_back(f);
    }
    for (uint32_t f : fams) slots.push_back(keyspace_.Slot(f, k));
  }
  std::sort(slots.begin(), slots.end());
  return slots;
}

std::string Workload::MakeValue(uint32_t key, GenWord word, const std::vector<Member>& members,
                                Random* rnd) const {
  const size_t filler = rnd->Uniform(uint64_t{config_.max_filler} + 1);
  return Kind(word) == WriteKind::kMerge ? EncodeOperand(key, word, members, filler)
                                        : EncodeValue(key, word, members, filler);
}

Status Workload::AddToBatch(const KeyWrite& x, const std::vector<Member>& members, Random* rnd,
                            WriteBatch* batch) const {
  const std::string key = DbKey(x.key);
  ColumnFamilyHandle* cf = Family(x.key);
  switch (x.kind) {
    case WriteKind::kDelete: return batch->Delete(cf, key);
    case WriteKind::kMerge: return batch->Merge(cf, key, MakeValue(x.key, x.word, members, rnd));
    case WriteKind::kPut: break;
  }
  return batch->Put(cf, key, MakeValue(x.key, x.word, members, rnd));
}

Status Workload::DoWrite(Random* rnd, WriteKind kind) {
  uint32_t k = static_cast<uint32_t>(rnd->Uniform(keyspace_.slots()));
  // The last family is cold: 7 in 8 of the writes that pick it go to another family instead.
  if (keyspace_.families > 1 && keyspace_.Family(k) == keyspace_.families - 1 && !rnd->OneIn(8)) {
    k = static_cast<uint32_t>(rnd->Uniform(keyspace_.FamilyBegin(k)));
  }
  return WriteKeys({{k, kind}}, true, rnd,
                   [&](const std::vector<KeyWrite>& w, const WriteOptions& wo) {
                     const std::string key = DbKey(k);
                     ColumnFamilyHandle* cf = Family(k);
                     switch (kind) {
                       case WriteKind::kDelete: return db_->Delete(wo, cf, key);
                       case WriteKind::kMerge:
                         return db_->Merge(wo, cf, key, MakeValue(k, w[0].word, {}, rnd));
                       case WriteKind::kPut: break;
                     }
                     return db_->Put(wo, cf, key, MakeValue(k, w[0].word, {}, rnd));
                   });
}

Status Workload::DoDeleteRange(Random* rnd) {
  // Within one family: [begin, end) are slots of the family of `begin`.
  const uint32_t begin = static_cast<uint32_t>(rnd->Uniform(keyspace_.slots()));
  const uint32_t end = std::min<uint32_t>(keyspace_.FamilyEnd(begin),
                                          begin + 1 + static_cast<uint32_t>(rnd->Uniform(8)));
  std::vector<KeyWrite> writes;
  for (uint32_t k = begin; k < end; ++k) writes.push_back({k, WriteKind::kDelete});
  return WriteKeys(std::move(writes), true, rnd,
                   [&](const std::vector<KeyWrite>&, const WriteOptions& wo) {
                     return db_->DeleteRange(wo, Family(begin), DbKey(begin),
                                             KeyString(keyspace_.Key(begin) + (end - begin)));
                   });
}

Status Workload::DoBatch(Random* rnd) {
  std::vector<KeyWrite> writes;
  // A batch of merges only, now and then: all its keys then verify through merged values.
  const bool all_merges = rnd->OneIn(8);
  const std::vector<uint32_t> slots =
      keyspace_.families > 1 && rnd->OneIn(2)
          ? PickCrossFamilyKeys(rnd)
          : PickKeys(rnd, 2 + static_cast<uint32_t>(rnd->Uniform(7)));
  for (uint32_t k : slots) {
    const uint64_t r = rnd->Uniform(10);
    const WriteKind kind = all_merges || r >= 7 ? WriteKind::kMerge
                           : r < 2              ? WriteKind::kDelete
                                                : WriteKind::kPut;
    writes.push_back({k, kind});
  }
  return WriteKeys(std::move(writes), true, rnd,
                   [&](const std::vector<KeyWrite>& w, const WriteOptions& wo) {
                     std::vector<Member> members;
                     for (const KeyWrite& x : w) members.push_back({x.key, x.word});
                     WriteBatch batch;
                     for (const KeyWrite& x : w) {
                       Status s = AddToBatch(x, members, rnd, &batch);
                       if (!s.ok()) return s;
                     }
                     return db_->Write(wo, &batch);
                   });
}

Status Workload::DoIngest(uint32_t thread, Random* rnd) {
  std::vector<KeyWrite> writes;
  // Puts and deletes only (SstFileWriter writes no operands): an ingested put replaces the
  // key's value and operands, an ingested delete removes them.
  // Into one family: its keys, sorted as the file needs them.
  const uint32_t family =
      keyspace_.families == 1 ? 0 : static_cast<uint32_t>(rnd->Uniform(keyspace_.families));
  const uint32_t first = keyspace_.Slot(family, 0);
  const uint32_t n = 1 + static_cast<uint32_t>(rnd->Uniform(8));
  for (uint32_t k : PickKeys(rnd, n, first, first + keyspace_.max_key)) {
    writes.push_back({k, rnd->OneIn(6) ? WriteKind::kDelete : WriteKind::kPut});
  }
  ColumnFamilyHandle* const cf = families_[family];
  const Options options = db_->GetOptions(cf);
  const std::string path =
      config_.expected_dir + "/ingest-" + std::to_string(thread) + ".sst";
  const bool move = rnd->OneIn(2);
  Status s = WriteKeys(std::move(writes), false, rnd,
                       [&](const std::vector<KeyWrite>& w, const WriteOptions&) {
    std::vector<Member> members;
    for (const KeyWrite& x : w) members.push_back({x.key, x.word});
    SstFileWriter writer(options.table_options, options.compression, options.comparator,
                         options.file_system);
    // A process killed after a move_files ingestion committed but before it unlinked the
    // original leaves `path` hard-linked to a live table: unlink it rather than truncate it.
    Status st;
    if (options.file_system->FileExists(path).ok()) st = options.file_system->DeleteFile(path);
    if (st.ok()) st = writer.Open(path);
    for (size_t i = 0; st.ok() && i < w.size(); ++i) {
      const std::string key = DbKey(w[i].key);
      st = w[i].kind == WriteKind::kDelete
               ? writer.Delete(key)
               : writer.Put(key, MakeValue(w[i].key, w[i].word, members, rnd));
    }
    if (st.ok()) st = writer.Finish();
    if (!st.ok()) return st;
    IngestExternalFileOptions io;
    io.move_files = move;
    return db_->IngestExternalFile(cf, {path}, io);
  });
  // A copied (or failed) file is still there; a moved one is gone (NotFound is fine).
  options.file_system->DeleteFile(path).PermitUncheckedError();
  return s;
}

Status Workload::DoFlush(Random* rnd) {
  const uint64_t clock = tracker_ != nullptr ? tracker_->Clock() : 0;
  Status s;
  if (families_.size() == 1) {
    s = db_->Flush(FlushOptions(), families_[0]);
  } else if (rnd->OneIn(4)) {
    s = db_->Flush(FlushOptions(), families_);
  } else {
    // Never the cold last family alone: its writes stay in old WALs, which the flushes of
    // the others must not delete (it is flushed when its memtable fills, by
    // max_total_wal_size, or with all the others).
    s = db_->Flush(FlushOptions(), families_[rnd->Uniform(families_.size() - 1)]);
  }
  // Writes acknowledged before the flush are durable even in the families not flushed: the
  // memtable switch syncs the WAL they are in (as RocksDB syncs the closed WALs before a flush
  // when there are several families), so the power-loss rules may count on them.
  if (s.ok() && tracker_ != nullptr) tracker_->MarkDurable(clock);
  return s;
}

Status Workload::DoCompactRange(Random* rnd) {
  CompactRangeOptions co;
  co.exclusive_manual_compaction = rnd->OneIn(2);
  // (One family draws no number: the same seed makes the same run as before families.)
  ColumnFamilyHandle* const cf =
      families_.size() == 1 ? families_[0] : families_[rnd->Uniform(families_.size())];
  if (rnd->OneIn(8)) return db_->CompactRange(co, cf, nullptr, nullptr);
  const uint32_t max_key = keyspace_.max_key;
  const uint32_t begin = static_cast<uint32_t>(rnd->Uniform(max_key));
  const uint32_t end = std::min<uint32_t>(
      max_key - 1, begin + static_cast<uint32_t>(rnd->Uniform(max_key / 10 + 1)));
  const std::string b = KeyString(begin), e = KeyString(end);
  const std::string_view bv = b, ev = e;
  return db_->CompactRange(co, cf, &bv, &ev);
}

}  // namespace shale::stress
