// Every acknowledged write survives the death of the process (SIGKILL), without sync, on the
// POSIX file system, whose WAL is written through a shared mapping (PosixMappedWalFile): a Put
// that returned is in the page cache and comes back at the next Open; WALs a memtable switch
// closed (trimmed) and the one being written (ending in allocated zeros) replay alike.
//
// Model-based over several kills: a child process writes (overwriting a small key space, so
// later rounds replay on top of flushed tables) and reports each acknowledged Put through a
// pipe; the parent kills it at a random moment, then a second child opens the DB and compares
// it with the model of the acknowledged writes. The one Put in flight at the kill may or may not
// be there. The parent itself never opens a DB (no threads of its own when it forks).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "shale/db.h"

namespace shale {
namespace {

constexpr int kKeySpace = 3000;

std::string Key(uint64_t j) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06llu", static_cast<unsigned long long>(j % kKeySpace));
  return buf;
}
// Odd rounds write values of 1-3 KiB: records long enough that a copy of one takes many
// stores, so a kill lands inside one now and then.
std::string Value(int round, uint64_t j) {
  const size_t filler = round % 2 == 0 ? 60 : 1000 + (j * 37) % 2000;
  return "r" + std::to_string(round) + "-" + std::to_string(j) + std::string(filler, 'v');
}

Options TestOptions() {
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 128 << 10;  // memtable switches: closed WALs and new ones
  // The strictest mode that still accepts what a crash leaves (a torn last record): damage
  // anywhere else, such as zeros followed by data, fails the Open.
  options.wal_recovery_mode = WALRecoveryMode::kTolerateCorruptedTailRecords;
  return options;
}

// The writer child: puts until killed, reporting each acknowledged j on `fd`.
[[noreturn]] void WriterChild(const std::string& dir, int round, int fd) {
  ::alarm(120);  // killed by the parent long before, unless something hangs
  std::unique_ptr<DB> db;
  if (!DB::Open(TestOptions(), dir, &db).ok()) ::_exit(2);
  for (uint64_t j = 0;; j++) {
    if (!db->Put(WriteOptions(), Key(j), Value(round, j)).ok()) ::_exit(3);
    if (::write(fd, &j, sizeof(j)) != static_cast<ssize_t>(sizeof(j))) ::_exit(4);
  }
}

// The checking child: exit 0 when the DB matches the model, where `in_flight` may hold either
// its model value (absent if the model has none) or `in_flight_value`; it writes what that key
// held ("" for absent) to `fd`, so that the parent's model follows the DB from then on.
[[noreturn]] void CheckerChild(const std::string& dir,
                               const std::map<std::string, std::string>& model,
                               const std::string& in_flight, const std::string& in_flight_value,
                               int fd) {
  ::alarm(120);
  std::unique_ptr<DB> db;
  Status s = DB::Open(TestOptions(), dir, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    ::_exit(2);
  }
  for (int k = 0; k < kKeySpace; k++) {
    const std::string key = Key(k);
    std::string value;
    s = db->Get(ReadOptions(), key, &value);
    if (!s.ok() && !s.IsNotFound()) {
      std::fprintf(stderr, "%s: %s\n", key.c_str(), s.ToString().c_str());
      ::_exit(1);
    }
    const std::string found = s.ok() ? value : "";
    if (key == in_flight) {
      const ssize_t n = ::write(fd, found.data(), found.size());
      if (n != static_cast<ssize_t>(found.size())) ::_exit(6);
      if (found == in_flight_value) continue;
    }
    auto it = model.find(key);
    const std::string expected = it == model.end() ? "" : it->second;
    if (found != expected) {
      std::fprintf(stderr, "%s: expected '%s', found '%s' (an acknowledged write was lost)\n",
                   key.c_str(), expected.substr(0, 12).c_str(), found.substr(0, 12).c_str());
      ::_exit(1);
    }
  }
  ::_exit(db->Close().ok() ? 0 : 5);
}

TEST(DBWalProcessKillTest, AcknowledgedWritesSurviveSigkillWithoutSync) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("shale_wal_kill_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  std::map<std::string, std::string> model;
  std::mt19937 rng(20261126);
  for (int round = 0; round < 5; round++) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t writer = ::fork();
    if (writer == 0) {
      ::close(fds[0]);
      WriterChild(dir, round, fds[1]);
    }
    ::close(fds[1]);
    // Kill after a random number of acknowledged writes (some rounds inside the first WAL,
    // some after several memtable switches).
    const uint64_t kill_after = 200 + rng() % 12000;
    uint64_t acked = 0;  // writes acknowledged: j < acked
    uint64_t j = 0;
    bool killed = false;
    while (::read(fds[0], &j, sizeof(j)) == static_cast<ssize_t>(sizeof(j))) {
      acked = j + 1;
      if (!killed && acked >= kill_after) {
        ::kill(writer, SIGKILL);
        killed = true;  // what the pipe still holds was acknowledged before the kill
      }
    }
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(writer, &status, 0), writer);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the writer ended with status " << status;
    for (uint64_t w = 0; w < acked; w++) model[Key(w)] = Value(round, w);

    int check_fds[2];
    ASSERT_EQ(::pipe(check_fds), 0);
    const pid_t checker = ::fork();
    if (checker == 0) {
      ::close(check_fds[0]);
      CheckerChild(dir, model, Key(acked), Value(round, acked), check_fds[1]);
    }
    ::close(check_fds[1]);
    std::string found;
    char buf[256];
    for (ssize_t n; (n = ::read(check_fds[0], buf, sizeof(buf))) > 0;) found.append(buf, n);
    ::close(check_fds[0]);
    ASSERT_EQ(::waitpid(checker, &status, 0), checker);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "round " << round << " (killed after " << acked << " acknowledged writes): status "
        << status;
    // The write in flight at the kill either came back or did not; the DB now holds it for
    // good one way or the other (the checker's Open replayed the WAL).
    if (found.empty()) {
      model.erase(Key(acked));
    } else {
      model[Key(acked)] = found;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shale
