// libFuzzer entry point for MANIFEST record decoding: the input is one encoded VersionEdit.
// DecodeFrom must never read outside the input nor crash; when it accepts the input, the edit
// must survive a round trip: encoding it and decoding the result gives an edit that encodes to
// the same bytes and prints the same (unknown safe-to-ignore fields are dropped on the first
// decode, so the input itself need not be reproduced).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "shale/status.h"
#include "version/version_edit.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "version_edit_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  shale::VersionEdit edit;
  shale::Status s = edit.DecodeFrom(input);
  if (!s.ok()) {
    Check(s.IsCorruption(), "a bad edit is Corruption");
    return 0;
  }
  std::string encoded;
  edit.EncodeTo(&encoded);
  shale::VersionEdit again;
  Check(again.DecodeFrom(encoded).ok(), "an encoded edit decodes");
  std::string reencoded;
  again.EncodeTo(&reencoded);
  Check(encoded == reencoded, "encode(decode(encode(edit))) == encode(edit)");
  Check(edit.DebugString() == again.DebugString(), "the round trip prints the same");
  return 0;
}
