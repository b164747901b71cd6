// A random walk of an iterator checked against a std::map model, shared by the merge tests.
#ifndef SHALE_TEST_DB_ITERATOR_WALK_H_
#define SHALE_TEST_DB_ITERATOR_WALK_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "shale/db.h"
#include "util/random.h"

namespace shale::test {

// Walks an iterator with random moves, checking each position against the model within the
// read's bounds. Returns a failure description, empty when every position matched.
inline std::string RandomWalk(DB* db, const std::map<std::string, std::string>& model,
                              const ReadOptions& ro, Random* rnd, int steps,
                              const std::vector<std::string>& targets) {
  std::vector<std::pair<std::string, std::string>> in;
  for (const auto& [k, v] : model) {
    if (ro.iterate_lower_bound != nullptr && k < *ro.iterate_lower_bound) continue;
    if (ro.iterate_upper_bound != nullptr && k >= *ro.iterate_upper_bound) continue;
    in.emplace_back(k, v);
  }
  const int n = static_cast<int>(in.size());
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  int pos = -1;
  std::string trace;
  for (int step = 0; step < steps; step++) {
    const int what = static_cast<int>(rnd->Uniform(6));
    const std::string& t = targets[rnd->Uniform(targets.size())];
    if (what == 0) {
      it->SeekToFirst();
      pos = n > 0 ? 0 : -1;
      trace += " First";
    } else if (what == 1) {
      it->SeekToLast();
      pos = n > 0 ? n - 1 : -1;
      trace += " Last";
    } else if (what == 2) {
      it->Seek(t);
      pos = -1;
      for (int i = 0; i < n; i++) {
        if (in[i].first >= t) {
          pos = i;
          break;
        }
      }
      trace += " Seek(" + t + ")";
    } else if (what == 3) {
      it->SeekForPrev(t);
      pos = -1;
      for (int i = n - 1; i >= 0; i--) {
        if (in[i].first <= t) {
          pos = i;
          break;
        }
      }
      trace += " SeekForPrev(" + t + ")";
    } else if (pos < 0) {
      continue;
    } else if (what == 4) {
      it->Next();
      pos = pos + 1 < n ? pos + 1 : -1;
      trace += " Next";
    } else {
      it->Prev();
      pos = pos - 1;
      trace += " Prev";
    }
    if (!it->status().ok()) return it->status().ToString() + trace;
    if (it->Valid() != (pos >= 0)) return "validity differs:" + trace;
    if (pos >= 0 && (it->key() != in[pos].first || it->value() != in[pos].second)) {
      return "at " + std::string(it->key()) + "=" + std::string(it->value()) + " want " +
             in[pos].first + "=" + in[pos].second + ":" + trace;
    }
  }
  return "";
}

}  // namespace shale::test

#endif  // SHALE_TEST_DB_ITERATOR_WALK_H_
