// Opening one table file outside any DB, for dump-sst and verify: the reader plus the key
// comparator it borrows (tables written with the bytewise comparator; any other comparator's
// tables are refused by TableReader::Open with InvalidArgument).
#ifndef SHALE_TOOLS_SHALE_TABLE_FILES_H_
#define SHALE_TOOLS_SHALE_TABLE_FILES_H_

#include <memory>
#include <string>

#include "base/internal_key.h"
#include "shale/status.h"
#include "table/table_reader.h"

namespace shale::cli {

struct TableFile {
  TableFile() : icmp(BytewiseComparator()) {}

  InternalKeyComparator icmp;           // borrowed by reader: declared first, destroyed last
  std::unique_ptr<TableReader> reader;
  std::unique_ptr<RandomAccessFile> raw;  // a second handle, for reading blocks directly
};

// Opens the table at `path`. NotFound/IOError when the file cannot be read, Corruption when it
// is not a well-formed table.
Status OpenTableFile(const std::string& path, std::unique_ptr<TableFile>* table);

}  // namespace shale::cli

#endif  // SHALE_TOOLS_SHALE_TABLE_FILES_H_
