// WriteAll (fs/posix_files.h), the loop behind PosixWritableFile's writes, driven by a fake
// write(2): short writes and EINTR are retried; a write that makes no progress (returns 0)
// is an error, not a retry forever (issue 19, finding 17).
#include <cerrno>
#include <string>

#include <gtest/gtest.h>

#include "fs/posix_files.h"
#include "testutil/status_matchers.h"

namespace shale {
namespace {

TEST(PosixWriteAllTest, RetriesShortWritesAndEintr) {
  std::string written;
  int calls = 0;
  Status s = WriteAll("/db/f", "abcdefgh", [&](const char* p, size_t n) -> ssize_t {
    calls++;
    if (calls == 2) {
      errno = EINTR;
      return -1;
    }
    const size_t w = n < 3 ? n : 3;  // at most 3 bytes a call
    written.append(p, w);
    return static_cast<ssize_t>(w);
  });
  ASSERT_OK(s);
  EXPECT_EQ(written, "abcdefgh");
  EXPECT_EQ(calls, 4);
}

TEST(PosixWriteAllTest, ErrnoBecomesAStatusNamingThePath) {
  Status s = WriteAll("/db/f", "abc", [](const char*, size_t) -> ssize_t {
    errno = ENOSPC;
    return -1;
  });
  EXPECT_TRUE(s.IsNoSpace());
  EXPECT_EQ(s.message(), "/db/f: write: No space left on device");
}

// Before the fix the loop called write again and again while it returned 0; the fake gives up
// with EIO after 1000 calls so that the old behaviour fails the test instead of hanging it.
TEST(PosixWriteAllTest, AWriteOfZeroBytesIsAnErrorNotARetry) {
  int calls = 0;
  std::string written;
  Status s = WriteAll("/db/f", "abcdef", [&](const char* p, size_t n) -> ssize_t {
    if (++calls > 1000) {
      errno = EIO;
      return -1;
    }
    if (calls == 1) {  // a short write first: the zero comes on a retry
      written.append(p, 2);
      return 2;
    }
    (void)n;
    return 0;
  });
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.message().find("/db/f"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("wrote 0 of 4 bytes"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(written, "ab");
}

}  // namespace
}  // namespace shale
