// See workload.h: the checked reads (Get, reads through a snapshot, iteration over a range).
#include <thread>

#include "workload.h"

namespace shale::stress {

std::vector<GenWord> Workload::AllowedNow(uint32_t k) const {
  // A live DB shows every acknowledged write; a pending one is left only by a failed write.
  return state_->AllowedAfterCrash(k);
}

Status Workload::DecodeRead(uint32_t k, const Status& s, std::string_view value, const char* op,
                            Found* found) {
  *found = Found();
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  DecodedValue d;
  std::string error;
  if (!DecodeValue(value, &d, &error)) {
    return Status::Corruption(std::string(op) + ": key " + KeyString(k) + ": " + error);
  }
  if (d.key != k) {
    return Status::Corruption(std::string(op) + ": key " + KeyString(k) +
                              " holds the value of key " + KeyString(d.key));
  }
  found->present = true;
  found->word = d.word;
  found->members = std::move(d.members);
  return Status::OK();
}

Status Workload::CheckAllowed(uint32_t k, const Found& found,
                              const std::vector<GenWord>& allowed, const char* op) {
  GenWord resolved = 0;
  if (MatchesAllowed(found, allowed, &resolved)) return Status::OK();
  return Status::Corruption(std::string(op) + ": " + DescribeMismatch(k, found, allowed));
}

Status Workload::DoGet(Random* rnd) {
  const uint32_t k = static_cast<uint32_t>(rnd->Uniform(config_.max_key));
  KeyLocks::Guard guard(&locks_, {k});
  std::string value;
  const Status s = db_->Get(ReadOptions(), KeyString(k), &value);
  Found found;
  Status st = DecodeRead(k, s, value, "get", &found);
  if (st.ok()) st = CheckAllowed(k, found, AllowedNow(k), "get");
  return st;
}

Status Workload::DoSnapshot(Random* rnd) {
  const std::vector<uint32_t> keys = PickKeys(rnd, 1 + static_cast<uint32_t>(rnd->Uniform(4)));
  std::vector<std::vector<GenWord>> allowed;
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
    if (round == 1) std::this_thread::yield();  // let other writers overwrite the keys
    for (size_t i = 0; i < keys.size() && st.ok(); ++i) {
      std::string value;
      const Status s = db_->Get(ro, KeyString(keys[i]), &value);
      Found found;
      st = DecodeRead(keys[i], s, value, "snapshot get", &found);
      if (st.ok()) st = CheckAllowed(keys[i], found, allowed[i], "snapshot get");
      // The second round must read what the first did: narrow the allowed set to it (word 1,
      // a deletion of generation 0, matches only an absent key).
      if (st.ok()) allowed[i] = {found.present ? found.word : GenWord{1}};
    }
  }
  db_->ReleaseSnapshot(snapshot);
  return st;
}

Status Workload::DoIterate(Random* rnd) {
  const uint32_t begin = static_cast<uint32_t>(rnd->Uniform(config_.max_key));
  const uint32_t end =
      std::min<uint32_t>(config_.max_key, begin + 1 + static_cast<uint32_t>(rnd->Uniform(50)));
  std::vector<uint32_t> keys;
  for (uint32_t k = begin; k < end; ++k) keys.push_back(k);
  KeyLocks::Guard guard(&locks_, keys);
  const std::string lower = KeyString(begin), upper = KeyString(end);
  const std::string_view lower_view = lower, upper_view = upper;
  ReadOptions ro;
  ro.iterate_lower_bound = &lower_view;
  ro.iterate_upper_bound = &upper_view;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  std::vector<Found> found(end - begin);
  const bool forward = rnd->OneIn(2);
  int64_t prev = forward ? -1 : int64_t{end};
  Status st;
  for (forward ? it->SeekToFirst() : it->SeekToLast(); st.ok() && it->Valid();
       forward ? it->Next() : it->Prev()) {
    uint32_t k = 0;
    if (!ParseKey(it->key(), &k) || k < begin || k >= end) {
      return Status::Corruption("iterate: key '" + std::string(it->key()) + "' outside [" +
                                lower + ", " + upper + ")");
    }
    if (forward ? int64_t{k} <= prev : int64_t{k} >= prev) {
      return Status::Corruption("iterate: key " + KeyString(k) + " out of order (" +
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
