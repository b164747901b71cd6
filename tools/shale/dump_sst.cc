// dump-sst FILE [--blocks] [--hex]: a table's properties, its entries, and with --blocks the
// layout of its blocks (footer, meta-index, index partitions, data blocks).
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "db_files.h"
#include "table/block.h"
#include "table/format.h"
#include "table/meta_blocks.h"
#include "table_files.h"

namespace shale::cli {

namespace {

// Reads and parses the block at `handle` of the table.
Status LoadBlock(const TableFile& t, const BlockHandle& handle, std::unique_ptr<Block>* block) {
  BlockReadLimits limits;
  // Blocks end before the footer (TableReader opened the file, so it is longer than that).
  limits.file_size = t.reader->file_size() - Footer::kEncodedLength;
  std::string contents;
  Status s = ReadBlock(t.raw.get(), t.reader->path(), handle, limits, /*verify_checksums=*/true,
                       ThreadLocalDecompressor(), &contents);
  if (!s.ok()) return s;
  return Block::Create(std::move(contents), block);
}

Status ReadFooter(const TableFile& t, Footer* footer) {
  const uint64_t size = t.reader->file_size();
  if (size < Footer::kEncodedLength) return Status::Corruption(t.reader->path(), "too short");
  char buf[Footer::kEncodedLength];
  std::string_view raw;
  const uint64_t offset = size - Footer::kEncodedLength;
  Status s = t.raw->Read(offset, Footer::kEncodedLength, &raw, buf);
  if (!s.ok()) return s;
  return footer->DecodeFrom(raw, t.reader->path(), offset);
}

void PrintHandle(const char* what, const BlockHandle& h) {
  std::printf("  %-28s offset %10" PRIu64 "  size %8" PRIu64 "\n", what, h.offset(), h.size());
}

// Prints the data blocks an index block (or index partition) lists.
Status PrintIndexEntries(const TableFile& t, const Block& index, bool hex, uint64_t* n) {
  std::unique_ptr<BlockIter> it = index.NewIterator(&t.icmp);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view value = it->value();
    BlockHandle h;
    if (!h.DecodeFrom(&value)) return Status::Corruption(t.reader->path(), "bad index entry");
    char what[48];
    std::snprintf(what, sizeof(what), "data block %" PRIu64, (*n)++);
    PrintHandle(what, h);
    std::printf("    last key <= %s\n", Printable(ExtractUserKey(it->key()), hex).c_str());
  }
  return it->status();
}

Status PrintBlocks(const TableFile& t, bool hex) {
  Footer footer;
  Status s = ReadFooter(t, &footer);
  if (!s.ok()) return s;
  std::printf("Blocks:\n");
  PrintHandle("meta-index", footer.metaindex_handle);
  PrintHandle("index", footer.index_handle);
  std::unique_ptr<Block> meta;
  MetaIndex entries;
  s = LoadBlock(t, footer.metaindex_handle, &meta);
  if (s.ok()) s = ParseMetaIndexBlock(*meta, &entries);
  if (!s.ok()) return s;
  for (const auto& [name, handle] : entries) PrintHandle(name.c_str(), handle);
  std::unique_ptr<Block> index;
  s = LoadBlock(t, footer.index_handle, &index);
  if (!s.ok()) return s;
  uint64_t n = 0;
  if (t.reader->properties().index_type != TableOptions::kTwoLevelIndexSearch) {
    return PrintIndexEntries(t, *index, hex, &n);
  }
  std::unique_ptr<BlockIter> top = index->NewIterator(&t.icmp);
  uint64_t partition = 0;
  for (top->SeekToFirst(); s.ok() && top->Valid(); top->Next()) {
    std::string_view value = top->value();
    BlockHandle h;
    if (!h.DecodeFrom(&value)) return Status::Corruption(t.reader->path(), "bad top-level entry");
    char what[48];
    std::snprintf(what, sizeof(what), "index partition %" PRIu64, partition++);
    PrintHandle(what, h);
    std::unique_ptr<Block> part;
    s = LoadBlock(t, h, &part);
    if (s.ok()) s = PrintIndexEntries(t, *part, hex, &n);
  }
  return s.ok() ? top->status() : s;
}

Status PrintEntries(const TableFile& t, bool hex) {
  std::printf("Entries:\n");
  std::unique_ptr<InternalIterator> it = t.reader->NewIterator(TableReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey k;
    Status s = ParseInternalKey(it->key(), &k);
    if (!s.ok()) return s;
    std::printf("  '%s' seq:%" PRIu64 ", type:%d => '%s'\n", Printable(k.user_key, hex).c_str(),
                static_cast<uint64_t>(k.sequence), static_cast<int>(k.type),
                Printable(it->value(), hex).c_str());
  }
  return it->status();
}

}  // namespace

int DumpSstCommand(const CliArgs& args) {
  const std::string& path = args.positional()[0];
  const bool hex = args.Has("hex");
  std::unique_ptr<TableFile> table;
  Status s = OpenTableFile(path, &table);
  if (!s.ok()) return ReportError("dump-sst", s);
  std::printf("Table %s (%" PRIu64 " bytes)\nProperties:\n%s", path.c_str(),
              table->reader->file_size(), table->reader->properties().ToString().c_str());
  if (args.Has("blocks")) s = PrintBlocks(*table, hex);
  if (s.ok()) s = PrintEntries(*table, hex);
  return s.ok() ? kExitOk : ReportError("dump-sst", s);
}

}  // namespace shale::cli
