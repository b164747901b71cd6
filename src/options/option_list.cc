#include "options/option_list.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"

namespace shale {

Status BadOptionValue(std::string_view name, std::string_view value, std::string_view expected) {
  return Status::InvalidArgument(
      name, absl::StrCat("invalid value '", ToAbsl(value), "' (expected ", ToAbsl(expected), ")"));
}

Status UnknownOption(std::string_view name, std::string_view value,
                     const OptionParseContext& ctx) {
  if (ctx.warnings == nullptr) {
    return Status::InvalidArgument(
        absl::StrCat("unknown option '", ToAbsl(name), "' (value '", ToAbsl(value), "')"));
  }
  ctx.warnings->push_back(
      absl::StrCat("skipped unknown option '", ToAbsl(name), "' (value '", ToAbsl(value), "')"));
  return Status::OK();
}

namespace {

constexpr std::string_view kSpace = " \t\r\n";

// The index just past the '}' matching the '{' at text[open], or npos if unbalanced.
size_t SkipBraces(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); i++) {
    if (text[i] == '{') {
      depth++;
    } else if (text[i] == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Reads the value that starts at text[*pos] (just after '='), leaving *pos at the ';' that ends
// the entry (or at the end).
Status ReadValue(std::string_view text, std::string_view qualified, size_t* pos,
                 std::string_view* value) {
  size_t start = text.find_first_not_of(kSpace, *pos);
  if (start == std::string_view::npos || text[start] != '{') {
    size_t end = std::min(text.find(';', *pos), text.size());
    *value = TrimOptionText(text.substr(*pos, end - *pos));
    *pos = end;
    return Status::OK();
  }
  size_t close = SkipBraces(text, start);
  if (close == std::string_view::npos) {
    return Status::InvalidArgument(qualified, "'{' without a matching '}'");
  }
  *value = text.substr(start + 1, close - start - 2);
  size_t next = text.find_first_not_of(kSpace, close);
  if (next != std::string_view::npos && text[next] != ';') {
    return Status::InvalidArgument(
        qualified, absl::StrCat("unexpected text after '}': '", ToAbsl(text.substr(next)), "'"));
  }
  *pos = next == std::string_view::npos ? text.size() : next;
  return Status::OK();
}

}  // namespace

Status SplitOptionList(std::string_view text, const OptionParseContext& ctx,
                       std::vector<OptionPair>* pairs) {
  pairs->clear();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t entry_end = std::min(text.find(';', pos), text.size());
    size_t eq = text.find('=', pos);
    if (eq == std::string_view::npos || eq > entry_end) {
      std::string_view entry = TrimOptionText(text.substr(pos, entry_end - pos));
      if (!entry.empty()) {
        return Status::InvalidArgument(absl::StrCat(
            "option entry '", ToAbsl(ctx.prefix), ToAbsl(entry), "' has no '=' (expected name=value)"));
      }
      pos = entry_end + 1;  // an empty entry: ";;" or a trailing ';'
      continue;
    }
    std::string_view name = TrimOptionText(text.substr(pos, eq - pos));
    if (name.empty()) {
      return Status::InvalidArgument(absl::StrCat("option entry '", ToAbsl(ctx.prefix),
                                                  ToAbsl(TrimOptionText(text.substr(pos, entry_end - pos))),
                                                  "' has no name"));
    }
    pos = eq + 1;
    std::string_view value;
    Status s = ReadValue(text, ctx.prefix + std::string(name), &pos, &value);
    if (!s.ok()) return s;
    pairs->push_back({name, value});
    pos++;  // past the ';'
  }
  return Status::OK();
}

}  // namespace shale
