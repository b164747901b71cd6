// Test helpers for Options: field-by-field equality (naming the field that differs) and random
// options for the round-trip tests.
#ifndef SHALE_TEST_OPTIONS_OPTIONS_TEST_UTIL_H_
#define SHALE_TEST_OPTIONS_OPTIONS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "shale/options.h"
#include "util/random.h"

namespace shale {

// A comparator other than the bytewise one, to check that custom comparators survive.
class ReverseComparator final : public Comparator {
 public:
  int Compare(std::string_view a, std::string_view b) const override { return b.compare(a); }
  const char* Name() const override { return "test.ReverseComparator"; }
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

inline const Comparator* TestReverseComparator() {
  static const ReverseComparator comparator;
  return &comparator;
}

// Adds a failure naming each field where a and b differ. Compares every field but
// file_system, which options strings and files do not carry.
void ExpectOptionsEqual(const Options& a, const Options& b);

// Options with every printed field set to a random value of its type (not necessarily valid:
// parsing does not validate). The comparator is bytewise or TestReverseComparator().
Options RandomOptions(Random* rnd);

}  // namespace shale

#endif  // SHALE_TEST_OPTIONS_OPTIONS_TEST_UTIL_H_
