// libFuzzer entry point for the options parsers (src/options/). The first input byte picks which:
//   - even: the rest is an options string for GetOptionsFromString;
//   - odd: the rest is an OPTIONS file for LoadOptionsFromFile (on the in-memory file system).
// A bad input must fail with InvalidArgument (never crash); an accepted one must round trip:
// GetStringFromOptions of the result parses back to options that print the same, and (for the
// file form) WriteOptionsFile then LoadOptionsFromFile gives the same options again. Validate()
// runs on every accepted result (its verdict is not checked: values are parsed, not validated).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shale/file_system.h"
#include "shale/options.h"
#include "shale/status.h"

namespace {

using shale::Options;
using shale::Status;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "options_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

// The string form of `parsed` must parse back (onto default options) to options that print the
// same, and an OPTIONS file written from it must load to the same.
void CheckRoundTrip(const Options& parsed) {
  parsed.Validate().PermitUncheckedError();
  const std::string printed = shale::GetStringFromOptions(parsed);
  Options reparsed;
  Status s = shale::GetOptionsFromString(Options(), printed, &reparsed);
  if (!s.ok()) std::fprintf(stderr, "%s\n%s\n", printed.c_str(), s.ToString().c_str());
  Check(s.ok(), "printed options parse");
  Check(shale::GetStringFromOptions(reparsed) == printed, "print/parse/print is stable");

  std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
  Check(shale::WriteOptionsFile(fs.get(), "/OPTIONS-1", parsed).ok(), "write OPTIONS");
  Options loaded;
  s = shale::LoadOptionsFromFile(fs.get(), "/OPTIONS-1", &loaded);
  if (!s.ok()) std::fprintf(stderr, "%s\n%s\n", printed.c_str(), s.ToString().c_str());
  Check(s.ok(), "a written OPTIONS file loads");
  Check(shale::GetStringFromOptions(loaded) == printed, "the OPTIONS file round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  Options parsed;
  Status s;
  if ((data[0] & 1) == 0) {
    s = shale::GetOptionsFromString(Options(), text, &parsed);
  } else {
    std::shared_ptr<shale::FileSystem> fs = shale::NewMemFileSystem();
    Check(shale::WriteStringToFile(fs.get(), text, "/OPTIONS-0", false).ok(), "write input");
    std::vector<std::string> warnings;
    s = shale::LoadOptionsFromFile(fs.get(), "/OPTIONS-0", &parsed, &warnings);
  }
  if (!s.ok()) {
    Check(s.IsInvalidArgument() || s.IsCorruption(), "a bad input is InvalidArgument");
    return 0;
  }
  CheckRoundTrip(parsed);
  return 0;
}
