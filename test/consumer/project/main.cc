// Uses only the installed public headers: writes a file through the library's file system,
// reads it back, and checks the Status API. Exits non-zero on any failure.
#include <cstdio>
#include <string>

#include "shale/comparator.h"
#include "shale/file_system.h"
#include "shale/status.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::string dir = argv[1];
  auto fs = shale::FileSystem::Default();
  shale::Status s = fs->CreateDirIfMissing(dir);
  if (s.ok()) s = shale::WriteStringToFile(fs.get(), "hello", dir + "/greeting", true);
  std::string back;
  if (s.ok()) s = shale::ReadFileToString(fs.get(), dir + "/greeting", &back);
  if (!s.ok() || back != "hello") {
    std::fprintf(stderr, "consumer failed: %s\n", s.ToString().c_str());
    return 1;
  }
  if (shale::BytewiseComparator()->Compare("a", "b") >= 0) return 1;
  std::printf("consumer: ok (%s)\n", shale::Status::NotFound("x").ToString().c_str());
  return 0;
}
