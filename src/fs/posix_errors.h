// The one place where an errno becomes a Status, so every POSIX failure reads the same way:
// "<path>: <what failed>: <strerror>", with the code chosen from the errno:
//   ENOENT          -> IOError/PathNotFound (Status::IsPathNotFound())
//   ENOSPC, EDQUOT  -> IOError/NoSpace (Status::IsNoSpace())
//   anything else   -> IOError
// EMFILE and ENFILE (the process's or the system's file-descriptor limit) stay plain IOErrors;
// IsTooManyOpenFiles() recognises them, so the table cache can close idle tables and retry.
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

// True for the IOError that PosixError makes of EMFILE or ENFILE (and for the fault-injecting
// file system's "Too many open files", which imitates it). There is no errno in a Status, so
// this matches the message's ending against strerror's text for those two errnos ("Too many
// open files", "Too many open files in system"): an error that wraps it with more text after
// the errno text is not recognised.
bool IsTooManyOpenFiles(const Status& s);

}  // namespace shale

#endif  // SHALE_FS_POSIX_ERRORS_H_
