// StressDB: the DB of a stress run opened with its column families (keyspace.h), and their
// handles, released before the DB as db.h requires.
//
// With one family the DB is opened as before families (DB::Open with Options); with N it is
// opened with "default" and "cf1".."cf<N-1>", created if missing
// (create_missing_column_families), each with the run's options and the stress merge operator
// of its slots (stress_merge_operator.h: the operator of family f knows that DB key k is slot
// f * max_key + k).
//
// Thread-safety: db() and handles() may be used from any thread while the StressDB lives;
// Close and the destructor run on one thread with no other user left.
#ifndef SHALE_TOOLS_SHALE_STRESS_STRESS_DB_H_
#define SHALE_TOOLS_SHALE_STRESS_STRESS_DB_H_

#include <memory>
#include <string>
#include <vector>

#include "keyspace.h"
#include "shale/db.h"

namespace shale::stress {

class StressDB {
 public:
  // Opens the DB in `name` with `keyspace.families` families.
  [[nodiscard]] static Status Open(const Options& options, const std::string& name,
                                   const Keyspace& keyspace, std::unique_ptr<StressDB>* result);
  // Releases the handles and destroys the DB without Close (a crash in power-loss mode; else
  // the DB's destructor closes it, ignoring the status).
  ~StressDB();
  StressDB(const StressDB&) = delete;
  StressDB& operator=(const StressDB&) = delete;

  DB* db() const { return db_.get(); }
  // One handle per family, in order (the first is the default family's).
  const std::vector<ColumnFamilyHandle*>& handles() const { return handles_; }
  // Releases the handles, then closes the DB.
  [[nodiscard]] Status Close();

 private:
  StressDB() = default;
  void ReleaseHandles();

  std::unique_ptr<DB> db_;
  std::vector<ColumnFamilyHandle*> handles_;
  bool own_handles_ = false;  // handles from DB::Open with families (not DefaultColumnFamily)
};

}  // namespace shale::stress

#endif  // SHALE_TOOLS_SHALE_STRESS_STRESS_DB_H_
