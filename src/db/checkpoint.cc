// Checkpoint (shale/checkpoint.h): a thin handle over DBImpl::CreateCheckpoint
// (db_impl_checkpoint.cc), which runs a CheckpointJob (checkpoint_job.h).
#include "shale/checkpoint.h"

#include "db/db_impl.h"

namespace shale {
namespace {

// The Checkpoint of one DBImpl. Borrows the DB. Thread-safety: as DBImpl::CreateCheckpoint.
class CheckpointImpl final : public Checkpoint {
 public:
  explicit CheckpointImpl(DBImpl* db) : db_(db) {}

  Status CreateCheckpoint(const std::string& checkpoint_dir,
                          uint64_t log_size_for_flush) override {
    CheckpointOptions options;
    options.log_size_for_flush = log_size_for_flush;
    return db_->CreateCheckpoint(checkpoint_dir, options);
  }

  Status CreateCheckpoint(const std::string& checkpoint_dir,
                          const CheckpointOptions& options) override {
    return db_->CreateCheckpoint(checkpoint_dir, options);
  }

 private:
  DBImpl* const db_;
};

}  // namespace

Checkpoint::~Checkpoint() = default;

Status Checkpoint::Create(DB* db, std::unique_ptr<Checkpoint>* checkpoint) {
  checkpoint->reset();
  if (db == nullptr) return Status::InvalidArgument("Checkpoint::Create: the DB is null");
  auto* impl = dynamic_cast<DBImpl*>(db);
  if (impl == nullptr) {
    return Status::NotSupported("Checkpoint::Create: the DB is not one opened by DB::Open");
  }
  *checkpoint = std::make_unique<CheckpointImpl>(impl);
  return Status::OK();
}

}  // namespace shale
