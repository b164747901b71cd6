#include "fs/posix_errors.h"

#include <cerrno>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

std::string ErrnoText(int err) { return std::generic_category().message(err); }

Status PosixError(std::string_view path, std::string_view what, int err) {
  std::string context = absl::StrCat(ToAbsl(path), ": ", ToAbsl(what));
  std::string text = ErrnoText(err);
  switch (err) {
    case ENOENT:
      return Status::PathNotFound(context, text);
    case ENOSPC:
    case EDQUOT:
      return Status::NoSpace(context, text);
    default:
      return Status::IOError(context, text);
  }
}

bool IsTooManyOpenFiles(const Status& s) {
  if (!s.IsIOError() || s.subcode() != Status::SubCode::kNone) return false;
  const std::string_view message = s.message();
  for (int err : {EMFILE, ENFILE}) {
    const std::string suffix = ": " + ErrnoText(err);
    if (message.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace shale
