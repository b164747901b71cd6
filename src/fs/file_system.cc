#include "shale/file_system.h"

#include "absl/strings/str_cat.h"

namespace shale {

SequentialFile::~SequentialFile() = default;
RandomAccessFile::~RandomAccessFile() = default;
WritableFile::~WritableFile() = default;
FileLock::~FileLock() = default;
FileSystem::~FileSystem() = default;

Status FileSystem::NewWalFile(const std::string& path, std::unique_ptr<WritableFile>* result) {
  return NewWritableFile(path, result);
}

Status WriteStringToFile(FileSystem* fs, std::string_view data, const std::string& path,
                         bool sync) {
  std::unique_ptr<WritableFile> file;
  Status s = fs->NewWritableFile(path, &file);
  if (!s.ok()) return s;
  s = file->Append(data);
  if (s.ok() && sync) s = file->Sync();
  if (s.ok()) {
    s = file->Close();
  } else {
    file->Close().PermitUncheckedError();  // the first error is the one to report
  }
  if (!s.ok()) fs->DeleteFile(path).PermitUncheckedError();
  return s;
}

Status ReadFileToString(FileSystem* fs, const std::string& path, std::string* data) {
  data->clear();
  std::unique_ptr<SequentialFile> file;
  Status s = fs->NewSequentialFile(path, &file);
  if (!s.ok()) return s;
  constexpr size_t kChunk = 64 * 1024;
  std::unique_ptr<char[]> scratch(new char[kChunk]);
  while (true) {
    std::string_view fragment;
    s = file->Read(kChunk, &fragment, scratch.get());
    if (!s.ok()) return s;
    if (fragment.empty()) return Status::OK();
    data->append(fragment.data(), fragment.size());
  }
}

}  // namespace shale
