// ASSERT_OK / EXPECT_OK for shale::Status, printing the status when it is not OK.
#ifndef SHALE_TEST_TESTUTIL_STATUS_MATCHERS_H_
#define SHALE_TEST_TESTUTIL_STATUS_MATCHERS_H_

#include <gtest/gtest.h>

#include "shale/status.h"

#define ASSERT_OK(expr)                                 \
  do {                                                  \
    ::shale::Status _s = (expr);                        \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

#define EXPECT_OK(expr)                                 \
  do {                                                  \
    ::shale::Status _s = (expr);                        \
    EXPECT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

#endif  // SHALE_TEST_TESTUTIL_STATUS_MATCHERS_H_
