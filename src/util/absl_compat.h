// Debian's abseil is built with its own absl::string_view (ABSL_USES_STD_STRING_VIEW is 0 for
// ABI stability), which does not convert from std::string_view. Wrap std::string_view with
// ToAbsl() before handing it to absl::StrCat, absl::CEscape, absl::SimpleAtoi and friends.
#ifndef SHALE_UTIL_ABSL_COMPAT_H_
#define SHALE_UTIL_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace shale {

inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view FromAbsl(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace shale

#endif  // SHALE_UTIL_ABSL_COMPAT_H_
