#include "shale/comparator.h"

#include <algorithm>

namespace shale {

Comparator::~Comparator() = default;

namespace {

// Lexicographic order of unsigned bytes. Stateless, so safe from any thread.
class BytewiseComparatorImpl final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return a.compare(b); }
  bool Equal(std::string_view a, std::string_view b) const override { return a == b; }
  const char* Name() const override { return "leveldb.BytewiseComparator"; }

  void FindShortestSeparator(std::string* start, std::string_view limit) const override {
    size_t min_len = std::min(start->size(), limit.size());
    size_t diff = 0;
    while (diff < min_len && (*start)[diff] == limit[diff]) diff++;
    if (diff >= min_len) return;  // one is a prefix of the other
    auto byte = static_cast<unsigned char>((*start)[diff]);
    if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[diff])) {
      (*start)[diff] = static_cast<char>(byte + 1);
      start->resize(diff + 1);
    }
  }

  void FindShortSuccessor(std::string* key) const override {
    for (size_t i = 0; i < key->size(); i++) {
      auto byte = static_cast<unsigned char>((*key)[i]);
      if (byte != 0xff) {
        (*key)[i] = static_cast<char>(byte + 1);
        key->resize(i + 1);
        return;
      }
    }
    // All 0xff: leave it as it is.
  }
};

}  // namespace

const Comparator* BytewiseComparator() {
  static const BytewiseComparatorImpl* const kInstance = new BytewiseComparatorImpl();
  return kInstance;
}

}  // namespace shale
