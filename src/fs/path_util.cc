#include "fs/path_util.h"

namespace shale {

std::string NormalizePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string ParentDir(std::string_view normalized_path) {
  size_t slash = normalized_path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(normalized_path.substr(0, slash));
}

std::string_view BaseName(std::string_view normalized_path) {
  size_t slash = normalized_path.rfind('/');
  if (slash == std::string_view::npos) return normalized_path;
  return normalized_path.substr(slash + 1);
}

}  // namespace shale
