// See workload.h: the checked reads (Get and MultiGet, reads through a snapshot, iteration over
// a range).
#include <thread>

#include "workload.h"

namespace shale::stress {

namespace {

// How ReadKeys reads.
enum ReadHow : int { kByGet = 0, kByMultiGet = 1, kBySeek = 2 };
constexpr const char* kReadNames[] = {"get", "multiget", "seek"};

}  // namespace

std::vector<KeyState> Workload::AllowedNow(uint32_t k) const {
  // A live DB shows every acknowledged write; a pending one is left only by a failed write.
  return state_->AllowedAfterCrash(k);
}

Status Workload::DecodeRead(uint32_t k, const Status& s, std::string_view value, const char* op,
                            Found* found) const {
  *found = Found();
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  DecodedValue d;
  std::string error;
  if (!DecodeValue(value, &d, &error)) {
    return Status::Corruption(std::string(op) + ": key " + keyspace_.Name(k) + ": " + error);
  }
  if (d.key != k) {
    return Status::Corruption(
        std::string(op) + ": key " + keyspace_.Name(k) + " holds the value of key " +
        (d.key < keyspace_.slots() ? keyspace_.Name(d.key) : KeyString(d.key)));
  }
  *found = FoundFromValue(std::move(d));
  return Status::OK();
}

Status Workload::CheckAllowed(uint32_t k, const Found& found,
                              const std::vector<KeyState>& allowed, const char* op) const {
  KeyState resolved;
  if (MatchesAllowed(found, allowed, &resolved)) return Status::OK();
  return Status::Corruption(std::string(op) + ": " +
                            DescribeMismatch(keyspace_, k, found, allowed));
}

Status Workload::ReadKeys(const ReadOptions& ro, const std::vector<uint32_t>& keys, int how,
                          std::vector<Found>* found) {
  found->assign(keys.size(), Found());
  const char* op = kReadNames[how];
  std::vector<std::string> names;
  std::vector<ColumnFamilyHandle*> handles;
  for (uint32_t k : keys) {
    names.push_back(DbKey(k));
    handles.push_back(Family(k));
  }
  if (how == kByMultiGet) {
    std::vector<std::string_view> views(names.begin(), names.end());
    std::vector<std::string> values;
    const std::vector<Status> statuses = db_->MultiGet(ro, handles, views, &values);
    Status st;
    for (size_t i = 0; i < keys.size() && st.ok(); ++i) {
      st = DecodeRead(keys[i], statuses[i], values[i], op, &(*found)[i]);
    }
    return st;
  }
  // Seeks: one iterator per family; with several, from NewIterators (one consistent view).
  std::vector<std::unique_ptr<Iterator>> iters;
  Status st;
  if (how == kBySeek && families_.size() == 1) {
    iters.push_back(db_->NewIterator(ro, families_[0]));
  } else if (how == kBySeek) {
    st = db_->NewIterators(ro, families_, &iters);
  }
  for (size_t i = 0; i < keys.size() && st.ok(); ++i) {
    if (iters.empty()) {
      std::string value;
      const Status s = db_->Get(ro, handles[i], names[i], &value);  // before `value` is read
      st = DecodeRead(keys[i], s, value, op, &(*found)[i]);
      continue;
    }
    Iterator* it = iters[keyspace_.Family(keys[i])].get();
    // Seek for even positions, SeekForPrev for odd ones: both directions land on the key.
    if (i % 2 == 0) {
      it->Seek(names[i]);
    } else {
      it->SeekForPrev(names[i]);
    }
    if (it->Valid() && it->key() == names[i]) {
      st = DecodeRead(keys[i], Status::OK(), it->value(), op, &(*found)[i]);
    } else if (!it->status().ok()) {
      st = it->status();
    }
  }
  return st;
}

Status Workload::DoGet(Random* rnd) {
  // One key by Get two times in three, else a few by MultiGet.
  const bool multi = rnd->OneIn(3);
  const std::vector<uint32_t> keys =
      multi ? PickKeys(rnd, 2 + static_cast<uint32_t>(rnd->Uniform(5)))
            : std::vector<uint32_t>{static_cast<uint32_t>(rnd->Uniform(keyspace_.slots()))};
  KeyLocks::Guard guard(&locks_, keys);
  const int how = multi ? kByMultiGet : kByGet;
  std::vector<Found> found;
  Status st = ReadKeys(ReadOptions(), keys, how, &found);
  for (size_t i = 0; i < keys.size() && st.ok(); ++i) {
    st = CheckAllowed(keys[i], found[i], AllowedNow(keys[i]), kReadNames[how]);
  }
  return st;
}

Status Workload::MaybeMaintainDuringSnapshot(const std::vector<uint32_t>& keys, Random* rnd) {
  if (rnd->OneIn(16)) return DoFlush(rnd);
  if (!rnd->OneIn(32)) return Status::OK();
  // The family of the first key, from it to the last key if that is in the same family, else
  // to the family's end.
  const uint32_t last = keyspace_.Family(keys.back()) == keyspace_.Family(keys.front())
                            ? keys.back()
                            : keyspace_.FamilyEnd(keys.front()) - 1;
  const std::string b = DbKey(keys.front()), e = DbKey(last);
  const std::string_view bv = b, ev = e;
  return db_->CompactRange(CompactRangeOptions(), Family(keys.front()), &bv, &ev);
}

Status Workload::DoSnapshot(Random* rnd) {
  const std::vector<uint32_t> keys = PickKeys(rnd, 1 + static_cast<uint32_t>(rnd->Uniform(4)));
  std::vector<std::vector<KeyState>> allowed;
  const Snapshot* snapshot = nullptr;
  {
    KeyLocks::Guard guard(&locks_, keys);
    snapshot = db_->GetSnapshot();
    for (uint32_t k : keys) allowed.push_back(AllowedNow(k));
  }
  ReadOptions ro;
  ro.snapshot = snapshot;
  Status st;
  for (int round = 0; round < 2 && st.ok(); ++round) {
    // The second round comes after other writers had a chance to overwrite or merge into the
    // keys (and maybe a flush or compaction), and reads by another path.
    if (round == 1) std::this_thread::yield();
    if (round == 1) st = MaybeMaintainDuringSnapshot(keys, rnd);
    const int how = round == 0 ? kByGet : static_cast<int>(rnd->Uniform(3));
    std::vector<Found> found;
    if (st.ok()) st = ReadKeys(ro, keys, how, &found);
    for (size_t i = 0; i < keys.size() && st.ok(); ++i) {
      st = CheckAllowed(keys[i], found[i], allowed[i], "snapshot read");
      // The second round must read what the first did: narrow the allowed set to it (a
      // deletion of generation 0 matches only an absent key).
      if (st.ok()) {
        allowed[i] = {found[i].present ? found[i].state()
                                       : KeyState{MakeWord(0, WriteKind::kDelete), 0}};
      }
    }
  }
  db_->ReleaseSnapshot(snapshot);
  return st;
}

Status Workload::DoIterate(Random* rnd) {
  // Slots [begin, end) of one family: DB keys [first, first + (end - begin)) of it.
  const uint32_t begin = static_cast<uint32_t>(rnd->Uniform(keyspace_.slots()));
  const uint32_t end = std::min<uint32_t>(keyspace_.FamilyEnd(begin),
                                          begin + 1 + static_cast<uint32_t>(rnd->Uniform(50)));
  const uint32_t first = keyspace_.Key(begin);
  std::vector<uint32_t> keys;
  for (uint32_t k = begin; k < end; ++k) keys.push_back(k);
  KeyLocks::Guard guard(&locks_, keys);
  const std::string lower = KeyString(first), upper = KeyString(first + (end - begin));
  const std::string_view lower_view = lower, upper_view = upper;
  ReadOptions ro;
  ro.iterate_lower_bound = &lower_view;
  ro.iterate_upper_bound = &upper_view;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro, Family(begin));
  std::vector<Found> found(end - begin);
  const bool forward = rnd->OneIn(2);
  int64_t prev = forward ? -1 : int64_t{end};
  Status st;
  for (forward ? it->SeekToFirst() : it->SeekToLast(); st.ok() && it->Valid();
       forward ? it->Next() : it->Prev()) {
    uint32_t local = 0;
    if (!ParseKey(it->key(), &local) || local < first || local - first >= end - begin) {
      return Status::Corruption("iterate: key '" + std::string(it->key()) + "' outside [" +
                                lower + ", " + upper + ") of family " +
                                Keyspace::FamilyName(keyspace_.Family(begin)));
    }
    const uint32_t k = begin + (local - first);
    if (forward ? int64_t{k} <= prev : int64_t{k} >= prev) {
      return Status::Corruption("iterate: key " + keyspace_.Name(k) + " out of order (" +
                                (forward ? "forward" : "backward") + ")");
    }
    prev = k;
    st = DecodeRead(k, Status::OK(), it->value(), "iterate", &found[k - begin]);
  }
  if (st.ok()) st = it->status();
  for (uint32_t k = begin; k < end && st.ok(); ++k) {
    st = CheckAllowed(k, found[k - begin], AllowedNow(k), "iterate");
  }
  return st;
}

}  // namespace shale::stress
