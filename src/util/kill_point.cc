#include "util/kill_point.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/random.h"

namespace shale {
namespace {

constexpr char kEnvName[] = "SHALE_KILL_POINTS";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool Matches(std::string_view pattern, bool prefix, std::string_view name) {
  return prefix ? name.substr(0, pattern.size()) == pattern : name == pattern;
}

// Writes all of `text` to stderr with write(2): no stdio buffer is involved, so the text is
// out before the process dies.
void WriteToStderr(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

[[noreturn]] void Die(const char* name) {
  // No allocation on the way out: the line is built in a fixed buffer.
  char line[160];
  std::string_view n(name);
  if (n.size() > 100) n = n.substr(0, 100);
  size_t len = 0;
  for (std::string_view part : {std::string_view("kill point "), n, std::string_view(" hit\n")}) {
    part.copy(line + len, part.size());
    len += part.size();
  }
  WriteToStderr(std::string_view(line, len));
  std::raise(SIGKILL);
  std::abort();  // not reached: SIGKILL cannot be caught or ignored
}

// The spec from the environment, read by the first caller (a function-local static, so the
// read is thread-safe) and published in kill_point_internal::state. Never destroyed: a point
// may be reached by a background thread while the process exits.
const KillPointSpec& LoadedSpec() {
  static const KillPointSpec* const spec = [] {
    auto* s = new KillPointSpec;
    const char* env = std::getenv(kEnvName);
    if (env != nullptr) {
      Status st = KillPointSpec::Parse(env, s);
      if (!st.ok()) {
        WriteToStderr(absl::StrCat(kEnvName, ": ", st.ToString(), "\n"));
        std::abort();
      }
    }
    kill_point_internal::state.store(
        s->empty() ? kill_point_internal::kDisarmed : kill_point_internal::kArmed,
        std::memory_order_relaxed);
    return s;
  }();
  return *spec;
}

}  // namespace

Status KillPointSpec::Parse(std::string_view text, KillPointSpec* spec) {
  std::vector<Entry> entries;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = Trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    Entry e;
    std::string_view pattern = item;
    const size_t colon = item.rfind(':');
    if (colon != std::string_view::npos) {
      pattern = Trim(item.substr(0, colon));
      const std::string_view odds = Trim(item.substr(colon + 1));
      const auto [end, ec] = std::from_chars(odds.data(), odds.data() + odds.size(), e.odds);
      if (odds.empty() || ec != std::errc() || end != odds.data() + odds.size() || e.odds == 0) {
        return Status::InvalidArgument(
            absl::StrCat("kill points: entry '", ToAbsl(item), "': odds must be an integer >= 1"));
      }
    }
    e.prefix = !pattern.empty() && pattern.back() == '*';
    if (e.prefix) pattern.remove_suffix(1);
    if ((pattern.empty() && !e.prefix) || pattern.find('*') != std::string_view::npos ||
        pattern.find(':') != std::string_view::npos) {
      return Status::InvalidArgument(absl::StrCat(
          "kill points: entry '", ToAbsl(item), "': want NAME[:N] or PREFIX*[:N]"));
    }
    bool known = false;
    for (const KillPointInfo& p : kKillPoints) known = known || Matches(pattern, e.prefix, p.name);
    if (!known) {
      return Status::InvalidArgument(absl::StrCat(
          "kill points: entry '", ToAbsl(item),
          "' matches no kill point (the list is kKillPoints in util/kill_point.h)"));
    }
    e.pattern = std::string(pattern);
    entries.push_back(std::move(e));
  }
  spec->entries_ = std::move(entries);
  return Status::OK();
}

uint32_t KillPointSpec::OddsFor(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (Matches(e.pattern, e.prefix, name)) return e.odds;
  }
  return 0;
}

namespace kill_point_internal {

std::atomic<int> state{kUnread};

void Reached(const char* name) {
  const KillPointSpec& spec = LoadedSpec();
  if (state.load(std::memory_order_relaxed) != kArmed) return;
  const uint32_t odds = spec.OddsFor(name);
  if (odds == 0 || !ThreadLocalRandom()->OneIn(odds)) return;
  Die(name);
}

}  // namespace kill_point_internal
}  // namespace shale
