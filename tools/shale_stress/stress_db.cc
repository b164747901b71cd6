// See stress_db.h.
#include "stress_db.h"

#include "stress_merge_operator.h"

namespace shale::stress {

Status StressDB::Open(const Options& options, const std::string& name, const Keyspace& keyspace,
                      std::unique_ptr<StressDB>* result) {
  std::unique_ptr<StressDB> sdb(new StressDB());
  if (keyspace.families == 1) {
    Status s = DB::Open(options, name, &sdb->db_);
    if (!s.ok()) return s;
    sdb->handles_ = {sdb->db_->DefaultColumnFamily()};
    *result = std::move(sdb);
    return Status::OK();
  }
  DBOptions db_options = options;
  // Always: a run killed after the DB was created but before its families were would leave a
  // DB that even --verify_only must open (creating a family changes no key).
  db_options.create_missing_column_families = true;
  std::vector<ColumnFamilyDescriptor> families;
  for (uint32_t f = 0; f < keyspace.families; ++f) {
    ColumnFamilyOptions cf_options = options;
    cf_options.merge_operator = NewStressMergeOperator(keyspace.Slot(f, 0));
    families.emplace_back(Keyspace::FamilyName(f), cf_options);
  }
  Status s = DB::Open(db_options, name, families, &sdb->handles_, &sdb->db_);
  if (!s.ok()) return s;
  sdb->own_handles_ = true;
  *result = std::move(sdb);
  return Status::OK();
}

StressDB::~StressDB() {
  ReleaseHandles();
  db_.reset();
}

void StressDB::ReleaseHandles() {
  if (own_handles_ && db_ != nullptr) {
    for (ColumnFamilyHandle* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  handles_.clear();
  own_handles_ = false;
}

Status StressDB::Close() {
  ReleaseHandles();
  return db_->Close();
}

}  // namespace shale::stress
