// The one place where an errno becomes a Status, so every POSIX failure reads the same way:
// "<path>: <what failed>: <strerror>", with the code chosen from the errno:
//   ENOENT          -> IOError/PathNotFound (Status::IsPathNotFound())
//   ENOSPC, EDQUOT  -> IOError/NoSpace (Status::IsNoSpace())
//   anything else   -> IOError
#ifndef SHALE_FS_POSIX_ERRORS_H_
#define SHALE_FS_POSIX_ERRORS_H_

#include <string>
#include <string_view>

#include "shale/status.h"

namespace shale {

// `what` names the failed call or step ("open", "pread", "fdatasync").
Status PosixError(std::string_view path, std::string_view what, int err);

// The text of an errno, thread-safe (unlike strerror).
std::string ErrnoText(int err);

}  // namespace shale

#endif  // SHALE_FS_POSIX_ERRORS_H_
