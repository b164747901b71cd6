// See verifier.h.
#include "verifier.h"

#include <algorithm>

namespace shale::stress {
namespace {

// Decodes the value of slot k into *f, or appends a failure.
void DecodeInto(const Keyspace& ks, uint32_t k, std::string_view value, Found* f,
                std::vector<std::string>* failures) {
  DecodedValue d;
  std::string error;
  if (!DecodeValue(value, &d, &error)) {
    failures->push_back("key " + ks.Name(k) + ": " + error);
    return;
  }
  if (d.key != k) {
    const std::string other = d.key < ks.slots() ? ks.Name(d.key) : KeyString(d.key);
    failures->push_back("key " + ks.Name(k) + " holds the value of key " + other);
    return;
  }
  *f = FoundFromValue(std::move(d));
}

bool SameFound(const Found& a, const Found& b) {
  return a.present == b.present && (!a.present || a.state() == b.state());
}

// Rule 4 for one slot read by `how`.
Status CrossCheckOne(const Keyspace& ks, uint32_t k, const Status& s, const std::string& value,
                     const char* how, const Found& expected,
                     std::vector<std::string>* failures) {
  if (!s.ok() && !s.IsNotFound()) return s;
  Found g;
  if (s.ok()) DecodeInto(ks, k, value, &g, failures);
  if (!SameFound(g, expected)) {
    failures->push_back("key " + ks.Name(k) + ": " + how + " found " + DescribeFound(g) +
                        " but the iterator " + DescribeFound(expected));
  }
  return Status::OK();
}

// Rule 4: a Get and a MultiGet (in batches, which mix the families: consecutive reads go to
// consecutive families) of every slot agree with the iterators.
Status CrossCheckWithGets(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                          const Keyspace& ks, const std::vector<Found>& found,
                          std::vector<std::string>* failures) {
  constexpr uint32_t kBatch = 64;
  const uint32_t n = ks.slots();
  std::string value;
  for (uint32_t k = 0; k < n; ++k) {
    Status s = db->Get(ReadOptions(), families[ks.Family(k)], KeyString(ks.Key(k)),
                       &value);  // before `value` is read
    s = CrossCheckOne(ks, k, s, value, "Get", found[k], failures);
    if (!s.ok()) return s;
  }
  // The i-th read of the walk is key i / families of family i % families.
  auto slot_of = [&ks](uint32_t i) { return ks.Slot(i % ks.families, i / ks.families); };
  for (uint32_t begin = 0; begin < n; begin += kBatch) {
    std::vector<std::string> keys;
    std::vector<ColumnFamilyHandle*> handles;
    for (uint32_t i = begin; i < n && i < begin + kBatch; ++i) {
      keys.push_back(KeyString(ks.Key(slot_of(i))));
      handles.push_back(families[ks.Family(slot_of(i))]);
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    const std::vector<Status> statuses = db->MultiGet(ReadOptions(), handles, views, &values);
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint32_t k = slot_of(begin + static_cast<uint32_t>(i));
      Status s = CrossCheckOne(ks, k, statuses[i], values[i], "MultiGet", found[k], failures);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

// Rule 3 for the multi-key write whose value slot k shows.
void CheckMembers(const Keyspace& ks, uint32_t k, const std::vector<Found>& found,
                  const AllowedFn& allowed, std::vector<std::string>* failures) {
  for (const Member& m : found[k].members) {
    if (m.key >= found.size()) {
      failures->push_back("key " + ks.Name(k) + ": member key " + std::to_string(m.key) +
                          " out of range");
      continue;
    }
    const Found& other = found[m.key];
    bool ok = other.present && Gen(other.word) >= Gen(m.word);
    if (!other.present) {
      for (const KeyState& s : allowed(m.key)) {
        ok = ok || (!IsPresent(s) && Gen(s.word) >= Gen(m.word));
      }
    }
    if (!ok) {
      const bool cross = ks.Family(m.key) != ks.Family(k);
      failures->push_back(
          "key " + ks.Name(k) + " shows " + DescribeWord(found[k].word) + " of a multi-key write" +
          (cross ? " across families" : "") + ", but its member " + ks.Name(m.key) +
          " (written " + DescribeWord(m.word) + " by it) is " + DescribeFound(other) +
          (cross ? ": the batch is torn, family " + Keyspace::FamilyName(ks.Family(k)) +
                       " has it and family " + Keyspace::FamilyName(ks.Family(m.key)) +
                       " does not"
                 : ": the write is not all or nothing"));
    }
  }
}

}  // namespace

Found FoundFromValue(DecodedValue d) {
  Found f;
  f.present = true;
  f.word = d.word;
  f.hash = d.hash;
  f.base = d.base;
  f.merges = d.merges;
  f.members = std::move(d.members);
  return f;
}

std::string DescribeFound(const Found& f) {
  if (!f.present) return "absent";
  std::string out = DescribeState(f.state());
  if (f.merges > 0) {
    out += " (" + std::to_string(f.merges) + " operands over " +
           (f.base == 0 ? std::string("no value") : DescribeWord(f.base)) + ")";
  }
  return out;
}

Status ReadState(DB* db, const std::vector<ColumnFamilyHandle*>& families,
                 const Keyspace& keyspace, std::vector<Found>* found,
                 std::vector<std::string>* failures) {
  if (families.size() != keyspace.families) {
    return Status::InvalidArgument("ReadState: " + std::to_string(families.size()) +
                                   " family handles for " +
                                   std::to_string(keyspace.families) + " families");
  }
  found->assign(keyspace.slots(), Found());
  for (uint32_t f = 0; f < keyspace.families; ++f) {
    std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), families[f]);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      uint32_t k = 0;
      if (!ParseKey(it->key(), &k) || k >= keyspace.max_key) {
        failures->push_back("unexpected key '" + std::string(it->key()) + "' in family " +
                            Keyspace::FamilyName(f));
        continue;
      }
      const uint32_t slot = keyspace.Slot(f, k);
      DecodeInto(keyspace, slot, it->value(), &(*found)[slot], failures);
    }
    Status s = it->status();
    if (!s.ok()) return s;
  }
  return CrossCheckWithGets(db, families, keyspace, *found, failures);
}

Status ReadState(DB* db, uint32_t max_key, std::vector<Found>* found,
                 std::vector<std::string>* failures) {
  return ReadState(db, {db->DefaultColumnFamily()}, Keyspace{max_key, 1}, found, failures);
}

bool MatchesAllowed(const Found& found, const std::vector<KeyState>& allowed,
                    KeyState* resolved) {
  bool match = false;
  for (const KeyState& s : allowed) {
    if (found.present ? s == found.state() : !IsPresent(s)) {
      // For an absent key keep the newest deletion (the generations only grow).
      if (!match || Gen(s.word) > Gen(resolved->word)) *resolved = s;
      match = true;
    }
  }
  return match;
}

std::string DescribeMismatch(uint32_t key, const Found& found,
                             const std::vector<KeyState>& allowed) {
  return DescribeMismatch(Keyspace{key + 1, 1}, key, found, allowed);
}

std::string DescribeMismatch(const Keyspace& keyspace, uint32_t slot, const Found& found,
                             const std::vector<KeyState>& allowed) {
  std::string out =
      "key " + keyspace.Name(slot) + ": found " + DescribeFound(found) + ", allowed {";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += ", ";
    out += DescribeState(allowed[i]);
  }
  return out + "}";
}

VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed) {
  return CheckState(found, allowed, Keyspace{static_cast<uint32_t>(found.size()), 1});
}

VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed,
                        const Keyspace& keyspace) {
  VerifyResult r;
  r.resolved.assign(found.size(), KeyState());
  for (uint32_t k = 0; k < found.size(); ++k) {
    ++r.keys_checked;
    if (found[k].present) ++r.keys_present;
    if (found[k].present && found[k].merges > 0) ++r.keys_merged;
    const std::vector<KeyState> ok = allowed(k);
    if (!MatchesAllowed(found[k], ok, &r.resolved[k])) {
      r.failures.push_back(DescribeMismatch(keyspace, k, found[k], ok));
    }
  }
  for (uint32_t k = 0; k < found.size(); ++k) {
    if (found[k].present) CheckMembers(keyspace, k, found, allowed, &r.failures);
  }
  return r;
}

}  // namespace shale::stress
