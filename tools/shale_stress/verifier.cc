// See verifier.h.
#include "verifier.h"

#include <algorithm>

namespace shale::stress {
namespace {

std::string DescribeFound(const Found& f) {
  return f.present ? DescribeWord(f.word) : std::string("absent");
}

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
  f->present = true;
  f->word = d.word;
  f->members = std::move(d.members);
}

// Rule 4: a Get of every key agrees with the iterator.
Status CrossCheckWithGet(DB* db, const std::vector<Found>& found,
                         std::vector<std::string>* failures) {
  std::string value;
  for (uint32_t k = 0; k < found.size(); ++k) {
    Status s = db->Get(ReadOptions(), KeyString(k), &value);
    if (!s.ok() && !s.IsNotFound()) return s;
    Found g;
    if (s.ok()) DecodeInto(k, value, &g, failures);
    if (g.present != found[k].present || (g.present && g.word != found[k].word)) {
      failures->push_back("key " + KeyString(k) + ": Get found " + DescribeFound(g) +
                          " but the iterator " + DescribeFound(found[k]));
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
      for (GenWord w : allowed(m.key)) ok = ok || (IsAbsentWord(w) && Gen(w) >= Gen(m.word));
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
  return CrossCheckWithGet(db, *found, failures);
}

bool MatchesAllowed(const Found& found, const std::vector<GenWord>& allowed, GenWord* resolved) {
  bool match = false;
  for (GenWord w : allowed) {
    if (found.present ? w == found.word : IsAbsentWord(w)) {
      // For an absent key keep the newest deletion (the generations only grow).
      if (!match || Gen(w) > Gen(*resolved)) *resolved = w;
      match = true;
    }
  }
  return match;
}

std::string DescribeMismatch(uint32_t key, const Found& found,
                             const std::vector<GenWord>& allowed) {
  std::string out = "key " + KeyString(key) + ": found " + DescribeFound(found) + ", allowed {";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += ", ";
    out += DescribeWord(allowed[i]);
  }
  return out + "}";
}

VerifyResult CheckState(const std::vector<Found>& found, const AllowedFn& allowed) {
  VerifyResult r;
  r.resolved.assign(found.size(), 0);
  for (uint32_t k = 0; k < found.size(); ++k) {
    ++r.keys_checked;
    if (found[k].present) ++r.keys_present;
    const std::vector<GenWord> ok = allowed(k);
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
