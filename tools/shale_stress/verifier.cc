// See verifier.h.
#include "verifier.h"

#include <algorithm>

namespace shale::stress {
namespace {

// Decodes the value of key k into *f, or appends a failure.
void DecodeInto(uint32_t k, std::string_view value, Found* f, std::vector<std::string>* failures) {
  DecodedValue d;
  std::string error;
  if (!DecodeValue(value, &d, &error)) {
    failures->push_back("key " + KeyString(k) + ": " + error);
    return;
  }
  if (d.key != k) {
    failures->push_back("key " + KeyString(k) + " holds the value of key " + KeyString(d.key));
    return;
  }
  *f = FoundFromValue(std::move(d));
}

bool SameFound(const Found& a, const Found& b) {
  return a.present == b.present && (!a.present || a.state() == b.state());
}

// Rule 4 for one key read by `how`.
Status CrossCheckOne(uint32_t k, const Status& s, const std::string& value, const char* how,
                     const Found& expected, std::vector<std::string>* failures) {
  if (!s.ok() && !s.IsNotFound()) return s;
  Found g;
  if (s.ok()) DecodeInto(k, value, &g, failures);
  if (!SameFound(g, expected)) {
    failures->push_back("key " + KeyString(k) + ": " + how + " found " + DescribeFound(g) +
                        " but the iterator " + DescribeFound(expected));
  }
  return Status::OK();
}

// Rule 4: a Get and a MultiGet (in batches) of every key agree with the iterator.
Status CrossCheckWithGets(DB* db, const std::vector<Found>& found,
                          std::vector<std::string>* failures) {
  constexpr uint32_t kBatch = 64;
  const uint32_t n = static_cast<uint32_t>(found.size());
  std::string value;
  for (uint32_t k = 0; k < n; ++k) {
    Status s = db->Get(ReadOptions(), KeyString(k), &value);  // before `value` is read
    s = CrossCheckOne(k, s, value, "Get", found[k], failures);
    if (!s.ok()) return s;
  }
  for (uint32_t begin = 0; begin < n; begin += kBatch) {
    std::vector<std::string> keys;
    for (uint32_t k = begin; k < n && k < begin + kBatch; ++k) keys.push_back(KeyString(k));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    const std::vector<Status> statuses = db->MultiGet(ReadOptions(), views, &values);
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint32_t k = begin + static_cast<uint32_t>(i);
      Status s = CrossCheckOne(k, statuses[i], values[i], "MultiGet", found[k], failures);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

// Rule 3 for the multi-key write whose value key k shows.
void CheckMembers(uint32_t k, const std::vector<Found>& found, const AllowedFn& allowed,
                  std::vector<std::string>* failures) {
  for (const Member& m : found[k].members) {
    if (m.key >= found.size()) {
      failures->push_back("key " + KeyString(k) + ": member key " + std::to_string(m.key) +
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
      failures->push_back("key " + KeyString(k) + " shows " + DescribeWord(found[k].word) +
                          " of a multi-key write, but its member " + KeyString(m.key) +
                          " (written " + DescribeWord(m.word) + " by it) is " +
                          DescribeFound(other) + ": the write is not all or nothing");
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

Status ReadState(DB* db, uint32_t max_key, std::vector<Found>* found,
                 std::vector<std::string>* failures) {
  found->assign(max_key, Found());
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint32_t k = 0;
    if (!ParseKey(it->key(), &k) || k >= max_key) {
      failures->push_back("unexpected key '" + std::string(it->key()) + "' in the DB");
      continue;
    }
    DecodeInto(k, it->value(), &(*found)[k], failures);
  }
  Status s = it->status();
  it.reset();
  if (!s.ok()) return s;
  return CrossCheckWithGets(db, *found, failures);
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
  std::string out = "key " + KeyString(key) + ": found " + DescribeFound(found) + ", allowed {";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += ", ";
    out += DescribeState(allowed[i]);
  }
  return out + "}";
}

VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed) {
  VerifyResult r;
  r.resolved.assign(found.size(), KeyState());
  for (uint32_t k = 0; k < found.size(); ++k) {
    ++r.keys_checked;
    if (found[k].present) ++r.keys_present;
    if (found[k].present && found[k].merges > 0) ++r.keys_merged;
    const std::vector<KeyState> ok = allowed(k);
    if (!MatchesAllowed(found[k], ok, &r.resolved[k])) {
      r.failures.push_back(DescribeMismatch(k, found[k], ok));
    }
  }
  for (uint32_t k = 0; k < found.size(); ++k) {
    if (found[k].present) CheckMembers(k, found, allowed, &r.failures);
  }
  return r;
}

}  // namespace shale::stress
