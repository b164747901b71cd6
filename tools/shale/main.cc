// shale: the admin CLI of ShaleDB.
//   shale <command> [arguments] [options]     shale <command> --help     shale --help
// Exit status: 0 on success, 1 when the operation failed, 2 for a usage error.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"

namespace shale::cli {
namespace {

const Command kCommands[] = {
    {"get", "get DIR KEY [--hex] [--column_family=NAME]", "print the value of KEY",
     "Prints the value stored under KEY, or fails (exit 1) if there is none.\n"
     "  --hex   KEY is given, and the value printed, as hex digits\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {"hex"}}, 2, 2, GetCommand},
    {"put", "put DIR KEY VALUE [--hex] [--column_family=NAME]", "set KEY to VALUE",
     "  --hex   KEY and VALUE are given as hex digits\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {"hex"}}, 3, 3, PutCommand},
    {"delete", "delete DIR KEY [--hex] [--column_family=NAME]", "delete KEY",
     "Deleting a key that is not there is not an error.\n"
     "  --hex   KEY is given as hex digits\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {"hex"}}, 2, 2, DeleteCommand},
    {"scan", "scan DIR [--from=KEY] [--to=KEY] [--limit=N] [--hex] [--column_family=NAME]",
     "print keys and values in order",
     "Prints 'key : value' lines for the keys in [--from, --to), at most --limit of them.\n"
     "Non-printable bytes are shown as \\xNN.\n"
     "  --hex   keys are given, and keys and values printed, as hex digits\n"
     "  --column_family=NAME  the column family to work on (default: default)\n",
     {{"from", "to", "limit", "column_family"}, {"hex"}}, 1, 1, ScanCommand},
    {"list_column_families", "list_column_families DIR",
     "print the names of the database's column families",
     "Prints one name per line, \"default\" first, then in creation order, as the MANIFEST\n"
     "records them (DB::ListColumnFamilies; the database is not opened).", {}, 1, 1,
     ListColumnFamiliesCommand},
    {"create_column_family", "create_column_family DIR NAME [--options=OPTIONS]",
     "add a column family",
     "Creates the column family NAME (DB::CreateColumnFamily) with the default family's options.\n"
     "  --options=OPTIONS  column-family options to change, in the options-string syntax\n"
     "                     (\"write_buffer_size=8M;merge_operator=uint64add\")",
     {{"options"}, {}}, 2, 2, CreateColumnFamilyCommand},
    {"drop_column_family", "drop_column_family DIR NAME", "drop a column family and its data",
     "Drops the column family NAME (DB::DropColumnFamily); its table files are deleted. The\n"
     "default family cannot be dropped.", {}, 2, 2, DropColumnFamilyCommand},
    {"dump-sst", "dump-sst FILE [--blocks] [--hex]", "print a table file's properties and entries",
     "Prints the properties and every entry (user key, sequence, type, value) of one table.\n"
     "  --blocks  also list the footer, meta-index, index partitions and data blocks\n"
     "  --hex     print keys and values as hex digits", {{}, {"blocks", "hex"}}, 1, 1,
     DumpSstCommand},
    {"dump-manifest", "dump-manifest DIR [--hex]", "print the version edits of the MANIFEST",
     "Prints every edit of the MANIFEST that CURRENT names (a line for each column family it\n"
     "adds or drops), then the column families and their live files per level.",
     {{}, {"hex"}}, 1, 1, DumpManifestCommand},
    {"verify", "verify DIR", "verify every block checksum of the database",
     "Opens the database, reads every block of every table file, then every key of every\n"
     "column family. On a\n"
     "terminal, a progress line on stderr shows how far it has got and the time left.", {}, 1, 1,
     VerifyCommand},
    {"compact", "compact DIR [--column_family=NAME]", "compact the whole key range",
     "Runs a manual compaction over every key (DB::CompactRange). On a terminal, a progress\n"
     "line on stderr shows how far it has got and the time left.\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {}}, 1, 1, CompactCommand},
    {"repair", "repair DIR", "rebuild a lost or damaged MANIFEST from the files",
     "Rebuilds the MANIFEST and CURRENT from the table files and WALs in DIR (RepairDB; see\n"
     "doc/repair.md): tables that cannot be read are moved to DIR/lost, and the info LOG says\n"
     "what was found. Each column family keeps its options from the latest OPTIONS file.\n"
     "Fails while the database is open.",
     {}, 1, 1, RepairCommand},
    {"ingest",
     "ingest DIR FILE... [--move] [--ingest_behind] [--verify_checksums] "
     "[--no_allow_global_seqno] [--no_allow_blocking_flush] [--column_family=NAME]",
     "ingest table files written by SstFileWriter (or write-sst)",
     "Adds the files to the database in one atomic step (DB::IngestExternalFile): all of them\n"
     "or none. Each goes to the lowest level where it overlaps nothing; files that overlap the\n"
     "database's keys get a sequence number above every key already there, so they win.\n"
     "  --move                     hard-link the files into the database and remove the\n"
     "                             originals on success (default: copy them)\n"
     "  --ingest_behind            put the files in the bottommost level, below every key; older\n"
     "                             than the database's data (needs allow_ingest_behind=true in\n"
     "                             the database's options)\n"
     "  --verify_checksums         verify every block checksum of the files first\n"
     "  --no_allow_global_seqno    fail instead of assigning a sequence number to files that\n"
     "                             overlap the database\n"
     "  --no_allow_blocking_flush  fail instead of flushing a memtable that the files overlap\n"
     "  --column_family=NAME  the column family to work on (default: default)\n"
     "On a terminal, a progress line on stderr shows the files' bytes copied or linked.",
     {{"column_family"}, {"move", "ingest_behind", "verify_checksums", "no_allow_global_seqno",
                          "no_allow_blocking_flush"}},
     2, SIZE_MAX, IngestCommand},
    {"write-sst", "write-sst DIR FILE [--from=KEY] [--to=KEY] [--hex] [--column_family=NAME]",
     "write the database's keys to a table file for ingest",
     "Writes the keys in [--from, --to) with their values to FILE with SstFileWriter, using the\n"
     "family's table options, compression and comparator. Fails if the range is empty.\n"
     "  --hex   --from and --to are given as hex digits\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"from", "to", "column_family"}, {"hex"}}, 2, 2, WriteSstCommand},
    {"checkpoint", "checkpoint DIR DEST", "make an openable copy of the database in DEST",
     "Flushes the memtables, then builds in DEST (which must not exist; its parent must) a\n"
     "database of hard links to the table files (copies across file systems) with a fresh\n"
     "MANIFEST, CURRENT and OPTIONS file (Checkpoint::CreateCheckpoint). DEST appears only once\n"
     "complete. The copy is independent: either database may be changed or deleted. On a\n"
     "terminal, a progress line on stderr shows the files linked or copied.", {}, 2, 2,
     CheckpointCommand},
    {"stats", "stats DIR [--column_family=NAME]", "print the database's statistics and levels",
     "Prints the shale.stats and shale.levelstats properties of a column family.\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {}}, 1, 1, StatsCommand},
    {"options", "options DIR [--column_family=NAME]", "print the options of the database",
     "Prints the options of the newest OPTIONS file, one name=value per line: the DB's and\n"
     "those of a column family.\n"
     "  --column_family=NAME  the column family to work on (default: default)",
     {{"column_family"}, {}}, 1, 1, OptionsCommand},
};

void PrintUsage(std::FILE* out) {
  std::fprintf(out, "usage: shale <command> [arguments]\n\ncommands:\n");
  constexpr size_t kUsageWidth = 55;
  for (const Command& c : kCommands) {
    if (c.usage.size() > kUsageWidth) {  // the summary goes on a line of its own
      std::fprintf(out, "  %.*s\n", static_cast<int>(c.usage.size()), c.usage.data());
    }
    const std::string_view usage = c.usage.size() > kUsageWidth ? "" : c.usage;
    std::fprintf(out, "  %-55.*s %.*s\n", static_cast<int>(usage.size()), usage.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::fprintf(out, "\nshale <command> --help prints a command's help.\n");
}

void PrintCommandHelp(const Command& c) {
  std::printf("usage: shale %.*s\n\n%.*s.\n%.*s\n", static_cast<int>(c.usage.size()),
              c.usage.data(), static_cast<int>(c.summary.size()), c.summary.data(),
              static_cast<int>(c.details.size()), c.details.data());
}

int UsageError(const Command& c, const std::string& what) {
  std::fprintf(stderr, "shale %.*s: %s\nusage: shale %.*s\n", static_cast<int>(c.name.size()),
               c.name.data(), what.c_str(), static_cast<int>(c.usage.size()), c.usage.data());
  return kExitUsage;
}

int RunCommand(const Command& c, const std::vector<std::string>& words) {
  CliArgs args;
  Status s = CliArgs::Parse(words, c.spec, &args);
  if (!s.ok()) return UsageError(c, s.ToString());
  if (args.help()) {
    PrintCommandHelp(c);
    return kExitOk;
  }
  const size_t n = args.positional().size();
  if (n < c.min_positional) return UsageError(c, "missing arguments");
  if (n > c.max_positional) return UsageError(c, "too many arguments");
  return c.run(args);
}

}  // namespace
}  // namespace shale::cli

int main(int argc, char** argv) {
  using shale::cli::kCommands;
  if (argc < 2) {
    shale::cli::PrintUsage(stderr);
    return shale::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    shale::cli::PrintUsage(stdout);
    return shale::cli::kExitOk;
  }
  for (const shale::cli::Command& c : kCommands) {
    if (c.name == name) {
      return shale::cli::RunCommand(c, std::vector<std::string>(argv + 2, argv + argc));
    }
  }
  std::fprintf(stderr, "shale: unknown command '%s'\n", name.c_str());
  shale::cli::PrintUsage(stderr);
  return shale::cli::kExitUsage;
}
