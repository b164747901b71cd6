// VersionSet::Recover and ListColumnFamilies: CURRENT -> MANIFEST -> the state of the DB.
#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/filename.h"
#include "util/absl_compat.h"
#include "version/version_builder.h"
#include "version/version_set.h"
#include "wal/log_reader.h"

namespace shale {

namespace {

// The column-family structure of a MANIFEST as its edits are replayed: which families are live,
// which ids were ever used, the largest id. Checks each edit against it.
// Thread-safety: a plain value.
class ColumnFamilyTracker {
 public:
  ColumnFamilyTracker() {
    live_.emplace(VersionSet::kDefaultColumnFamilyId,
                  std::string(VersionSet::kDefaultColumnFamilyName));
    used_.insert(VersionSet::kDefaultColumnFamilyId);
  }

  // Checks the edit's family against the structure so far and applies its add or drop:
  // Corruption for an edit of a family never added or already dropped, an add of an id used
  // before or of a live name, a drop of the default family, an add and a drop in one edit.
  Status Apply(const VersionEdit& edit) {
    const uint32_t id = edit.column_family();
    if (edit.has_max_column_family()) max_ = std::max(max_, edit.max_column_family());
    if (edit.is_column_family_add() && edit.is_column_family_drop()) {
      return Status::Corruption(
          absl::StrCat("edit both adds and drops column family ", id));
    }
    if (edit.is_column_family_add()) {
      const std::string& name = edit.column_family_name();
      if (used_.count(id) > 0) {
        return Status::Corruption(absl::StrCat(
            "edit adds column family ", id, " (", ToAbsl(name), "), but id ", id, " is ",
            live_.count(id) > 0 ? "live" : "dropped"));
      }
      for (const auto& [other_id, other_name] : live_) {
        if (other_name == name) {
          return Status::Corruption(absl::StrCat("edit adds column family ", id, " named ",
                                                 ToAbsl(name), ", the name of live family ",
                                                 other_id));
        }
      }
      live_.emplace(id, name);
      used_.insert(id);
      max_ = std::max(max_, id);
      return Status::OK();
    }
    if (live_.count(id) == 0) {
      return Status::Corruption(absl::StrCat("edit for column family ", id, ", which ",
                                             used_.count(id) > 0 ? "was dropped"
                                                                 : "was never added"));
    }
    if (edit.is_column_family_drop()) {
      if (id == VersionSet::kDefaultColumnFamilyId) {
        return Status::Corruption("edit drops the default column family");
      }
      live_.erase(id);
    }
    return Status::OK();
  }

  // The live families by id.
  const std::map<uint32_t, std::string>& live() const { return live_; }
  // The largest id ever used.
  uint32_t max_column_family() const { return max_; }

 private:
  std::map<uint32_t, std::string> live_;
  std::set<uint32_t> used_;  // every id ever added (0 included)
  uint32_t max_ = 0;
};

// The DB-wide bookkeeping fields met so far (the last value of each wins).
struct GlobalFields {
  bool has_default_log_number = false;
  bool has_next_file = false;
  bool has_last_sequence = false;
  uint64_t prev_log_number = 0;
  uint64_t next_file = 0;
  SequenceNumber last_sequence = 0;

  void Apply(const VersionEdit& edit) {
    if (edit.has_log_number() && edit.column_family() == VersionSet::kDefaultColumnFamilyId) {
      has_default_log_number = true;
    }
    if (edit.has_prev_log_number()) prev_log_number = edit.prev_log_number();
    if (edit.has_next_file_number()) {
      has_next_file = true;
      next_file = edit.next_file_number();
    }
    if (edit.has_last_sequence()) {
      has_last_sequence = true;
      last_sequence = edit.last_sequence();
    }
  }

  // Corruption naming the MANIFEST if a required field was never set.
  Status Check(const std::string& path) const {
    if (!has_next_file) return Status::Corruption(path, "no next-file-number entry");
    if (!has_default_log_number) return Status::Corruption(path, "no log-number entry");
    if (!has_last_sequence) return Status::Corruption(path, "no last-sequence entry");
    return Status::OK();
  }
};

// `s` with the file (and where in it) put in front of its message.
Status InFile(const Status& s, std::string_view where) {
  return Status(s.code(), s.subcode(), where, s.message());
}

// Escapes the start of a file's contents for an error message.
std::string Quote(std::string_view contents) {
  return absl::StrCat("'", absl::CEscape(ToAbsl(contents.substr(0, 64))),
                      contents.size() > 64 ? "...'" : "'");
}

// Reads CURRENT: the MANIFEST's path and number.
Status ReadCurrentFile(FileSystem* fs, const std::string& dbname, std::string* manifest_path,
                       uint64_t* manifest_number) {
  const std::string path = CurrentFileName(dbname);
  std::string contents;
  Status s = ReadFileToString(fs, path, &contents);
  if (s.IsPathNotFound() || s.IsNotFound()) {
    return Status::Corruption(path, "missing: no MANIFEST is named");
  }
  if (!s.ok()) return s;
  if (contents.empty() || contents.back() != '\n') {
    return Status::Corruption(path, absl::StrCat("empty or not ending in a newline: ",
                                                 Quote(contents)));
  }
  contents.pop_back();
  FileType type;
  if (!ParseFileName(contents, manifest_number, &type) || type != FileType::kDescriptorFile) {
    return Status::Corruption(path, absl::StrCat("does not name a MANIFEST: ", Quote(contents)));
  }
  *manifest_path = absl::StrCat(ToAbsl(dbname), "/", ToAbsl(contents));
  return Status::OK();
}

Status OpenManifest(FileSystem* fs, const std::string& path,
                    std::unique_ptr<SequentialFile>* file) {
  Status s = fs->NewSequentialFile(path, file);
  if (s.IsPathNotFound() || s.IsNotFound()) {
    return Status::Corruption(path, "named by CURRENT but missing");
  }
  return s;
}

// Reads every record of the MANIFEST in order, decodes it, and passes each edit of each
// complete atomic group (an edit outside a group is a group of one) to apply(), in order, once
// the whole group has been read. A group cut short by the end of the MANIFEST (a crash while
// it was written) is dropped; a group interrupted by another record, or whose counts do not
// follow each other, is Corruption. An error of apply() or of decoding gets the MANIFEST and
// the record's offset put in front.
Status ReadManifestEdits(SequentialFile* file, const std::string& path,
                         const std::function<Status(const VersionEdit&)>& apply) {
  // A torn last record (a crash during a MANIFEST write) is dropped; anything else fails.
  log::Reader reader(file, nullptr, /*checksum=*/true, /*initial_offset=*/0,
                     log::WalRecoveryMode::kTolerateCorruptedTailRecords, path);
  std::string_view record;
  std::string scratch;
  // The edits of the atomic group being read, with their offsets.
  std::vector<std::pair<VersionEdit, uint64_t>> group;
  while (reader.ReadRecord(&record, &scratch)) {
    const uint64_t offset = reader.LastRecordOffset();
    auto in_record = [&](const Status& s) {
      return InFile(s, absl::StrCat(path, ": record at offset ", offset));
    };
    VersionEdit edit;
    Status s = edit.DecodeFrom(record);
    if (!s.ok()) return in_record(s);
    if (!group.empty()) {
      const uint32_t expected = group.back().first.remaining_entries() - 1;
      if (!edit.is_in_atomic_group() || edit.remaining_entries() != expected) {
        return in_record(Status::Corruption(absl::StrCat(
            "atomic group interrupted: expected its edit with ", expected,
            " more to follow, found ",
            edit.is_in_atomic_group()
                ? absl::StrCat("one with ", edit.remaining_entries(), " more to follow")
                : std::string("an edit outside any group"))));
      }
    }
    const bool complete = !edit.is_in_atomic_group() || edit.remaining_entries() == 0;
    group.emplace_back(std::move(edit), offset);
    if (!complete) continue;
    for (const auto& [e, e_offset] : group) {
      s = apply(e);
      if (!s.ok()) return InFile(s, absl::StrCat(path, ": record at offset ", e_offset));
    }
    group.clear();
  }
  // A group still open here was cut short by a crash: none of it happened.
  return reader.status();  // names the MANIFEST and the offset
}

}  // namespace

// What Recover gathers from the MANIFEST: the structure, the DB-wide fields, and per live
// family the files (in a builder), log number and compaction pointers.
struct VersionSet::RecoveredState {
  struct Family {
    std::string name;
    bool opened = false;  // named in the families Recover was given
    int num_levels = 0;   // as opened, or kMaxNumLevels
    uint64_t log_number = 0;
    std::vector<std::string> compact_pointers;  // per level
    std::unique_ptr<VersionBuilder> builder;    // over an empty base of num_levels levels
    Version* version = nullptr;                 // the result, referenced, once built
  };

  ~RecoveredState() {
    for (auto& [id, family] : families) {
      if (family.version != nullptr) family.version->Unref();
    }
  }

  ColumnFamilyTracker tracker;
  GlobalFields globals;
  std::map<uint32_t, Family> families;  // the live ones
};

Status VersionSet::Recover(bool* save_manifest) {
  return Recover({{std::string(kDefaultColumnFamilyName), num_levels_}}, save_manifest);
}

Status VersionSet::Recover(const std::vector<ColumnFamilyConfig>& families,
                           bool* save_manifest, bool allow_unopened_families) {
  *save_manifest = false;
  assert(manifest_file_number_ == 0 && descriptor_log_ == nullptr);
  bool has_default = false;
  for (size_t i = 0; i < families.size(); ++i) {
    const ColumnFamilyConfig& config = families[i];
    if (config.num_levels < 1 || config.num_levels > kMaxNumLevels) {
      return Status::InvalidArgument(absl::StrCat(
          "Recover: num_levels ", config.num_levels, " for column family ", config.name,
          " is outside [1, ", kMaxNumLevels, "]"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (families[j].name == config.name) {
        return Status::InvalidArgument(
            absl::StrCat("Recover: column family ", config.name, " named twice"));
      }
    }
    if (config.name == kDefaultColumnFamilyName) {
      has_default = true;
      if (config.num_levels != num_levels_) {
        return Status::InvalidArgument(absl::StrCat(
            "Recover: num_levels ", config.num_levels, " for the default column family, but ",
            num_levels_, " given to the VersionSet"));
      }
    }
  }
  if (!has_default) {
    return Status::InvalidArgument("Recover: the default column family must be opened");
  }
  std::string path;
  uint64_t number = 0;
  Status s = ReadCurrentFile(fs_, dbname_, &path, &number);
  if (!s.ok()) return s;
  s = ReplayManifest(path, number, families, allow_unopened_families);
  if (s.ok()) *save_manifest = true;
  return s;
}

Status VersionSet::ReplayManifest(const std::string& path, uint64_t manifest_number,
                                  const std::vector<ColumnFamilyConfig>& families,
                                  bool allow_unopened_families) {
  std::unique_ptr<SequentialFile> file;
  Status s = OpenManifest(fs_, path, &file);
  if (!s.ok()) return s;
  RecoveredState state;
  // A family the DB does not open is still replayed (with the most levels an edit may name),
  // so that damage in it is found; Recover then fails naming it.
  auto add_family = [&](uint32_t id, const std::string& name) {
    int levels = kMaxNumLevels;
    bool opened = false;
    for (const ColumnFamilyConfig& config : families) {
      if (config.name == name) {
        levels = config.num_levels;
        opened = true;
      }
    }
    RecoveredState::Family& family = state.families[id];
    family.name = name;
    family.opened = opened;
    family.num_levels = levels;
    family.compact_pointers.resize(static_cast<size_t>(levels));
    // The builder takes the only reference to its empty base.
    family.builder = std::make_unique<VersionBuilder>(&icmp_, new Version(&icmp_, levels));
  };
  add_family(kDefaultColumnFamilyId, std::string(kDefaultColumnFamilyName));
  const Comparator* ucmp = icmp_.user_comparator();
  auto apply = [&](const VersionEdit& edit) -> Status {
    if (edit.has_comparator() && edit.comparator() != ucmp->Name()) {
      return Status::InvalidArgument(absl::StrCat("comparator mismatch: the DB was created with ",
                                                  ToAbsl(edit.comparator()),
                                                  ", opened with ", ucmp->Name()));
    }
    Status st = state.tracker.Apply(edit);
    if (!st.ok()) return st;
    state.globals.Apply(edit);
    const uint32_t id = edit.column_family();
    if (edit.is_column_family_drop()) {
      state.families.erase(id);  // the builder drops its files
      return Status::OK();
    }
    if (edit.is_column_family_add()) add_family(id, edit.column_family_name());
    RecoveredState::Family& family = state.families.at(id);
    st = family.builder->Apply(edit);  // checks the levels of the pointers and files too
    if (!st.ok()) return st;
    if (edit.has_log_number()) family.log_number = edit.log_number();
    for (const auto& [level, key] : edit.compact_pointers()) {
      family.compact_pointers[level] = key;
    }
    return Status::OK();
  };
  s = ReadManifestEdits(file.get(), path, apply);
  if (s.ok()) s = state.globals.Check(path);
  if (!s.ok()) return s;

  std::vector<std::string> not_opened;
  for (const auto& [id, family] : state.families) {
    if (!family.opened) not_opened.push_back(family.name);
  }
  if (allow_unopened_families) {
    // Read-only: the unopened families were checked by the replay; they are left out.
    std::erase_if(state.families, [](const auto& entry) { return !entry.second.opened; });
    not_opened.clear();
  }
  if (!not_opened.empty()) {
    return Status::InvalidArgument(
        absl::StrCat("Column families not opened: ", absl::StrJoin(not_opened, ", ")));
  }
  for (auto& [id, family] : state.families) {
    family.version = new Version(&icmp_, family.num_levels);  // refcounted
    family.version->Ref();
    s = family.builder->SaveTo(family.version);
    if (!s.ok()) return InFile(s, path);
    family.builder.reset();
  }
  InstallRecovered(&state, manifest_number);
  return Status::OK();
}

void VersionSet::InstallRecovered(RecoveredState* state, uint64_t manifest_number) {
  const GlobalFields& globals = state->globals;
  // No number in use may be handed out again.
  if (globals.next_file > 0) MarkFileNumberUsed(globals.next_file - 1);
  MarkFileNumberUsed(manifest_number);
  MarkFileNumberUsed(globals.prev_log_number);
  SetLastSequence(globals.last_sequence);
  prev_log_number_ = globals.prev_log_number;
  max_column_family_ = state->tracker.max_column_family();
  manifest_file_number_ = manifest_number;
  for (auto& [id, family] : state->families) {
    MarkFileNumberUsed(family.log_number);
    for (int level = 0; level < family.num_levels; ++level) {
      for (const FileMetaData* f : family.version->files(level)) MarkFileNumberUsed(f->number);
    }
    ColumnFamilyData* cfd;
    if (id == kDefaultColumnFamilyId) {
      cfd = Family(id);
    } else {
      auto created = std::make_unique<ColumnFamilyData>(id, family.name, family.num_levels,
                                                        &icmp_);
      cfd = created.get();
      column_families_.emplace(id, std::move(created));
    }
    cfd->log_number = family.log_number;
    cfd->compact_pointers = std::move(family.compact_pointers);
    AppendVersion(cfd, family.version);  // takes its own reference
  }
}

Status VersionSet::ListColumnFamilies(FileSystem* fs, const std::string& dbname,
                                      std::vector<std::string>* names) {
  names->clear();
  std::string path;
  uint64_t number = 0;
  std::unique_ptr<SequentialFile> file;
  Status s;
  // The DB may be open (ListColumnFamilies takes no LOCK): between reading CURRENT and opening
  // the MANIFEST it names, the DB may start a new MANIFEST, switch CURRENT and delete the old
  // one. Then CURRENT names another MANIFEST: read that one instead (a few times at most).
  for (int attempt = 0;; attempt++) {
    s = ReadCurrentFile(fs, dbname, &path, &number);
    if (!s.ok()) return s;
    s = OpenManifest(fs, path, &file);
    if (s.ok() || attempt == 9) break;
    std::string again;
    uint64_t again_number = 0;
    if (!ReadCurrentFile(fs, dbname, &again, &again_number).ok() || again_number == number) {
      break;
    }
  }
  if (!s.ok()) return s;
  ColumnFamilyTracker tracker;
  GlobalFields globals;
  s = ReadManifestEdits(file.get(), path, [&](const VersionEdit& edit) {
    Status st = tracker.Apply(edit);
    if (st.ok()) globals.Apply(edit);
    return st;
  });
  if (s.ok()) s = globals.Check(path);
  if (!s.ok()) return s;
  // The default family has id 0, so it comes first.
  for (const auto& [id, name] : tracker.live()) names->push_back(name);
  return Status::OK();
}

}  // namespace shale
