// Textual path helpers shared by the in-memory and fault-injecting file systems, which have no
// kernel to resolve paths for them. Nothing here touches the disk, follows links or resolves
// "." and ".."; two spellings of one path that differ in more than duplicate or trailing '/'
// are different paths to these helpers.
#ifndef SHALE_FS_PATH_UTIL_H_
#define SHALE_FS_PATH_UTIL_H_

#include <string>
#include <string_view>

namespace shale {

// Collapses runs of '/' into one and strips a trailing '/' (except for the root "/").
// "//a//b/" -> "/a/b", "a/" -> "a", "/" -> "/", "" -> "".
std::string NormalizePath(std::string_view path);

// The directory holding a normalised path: "/a/b" -> "/a", "/a" -> "/", "a" -> "" (the
// current directory), "/" -> "/".
std::string ParentDir(std::string_view normalized_path);

// The last component of a normalised path: "/a/b" -> "b", "a" -> "a", "/" -> "".
std::string_view BaseName(std::string_view normalized_path);

}  // namespace shale

#endif  // SHALE_FS_PATH_UTIL_H_
