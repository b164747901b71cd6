// WriteQueue: the DB's write queue, and WriteQueue::Front, the one way to take its front.
//
// Every call that writes (DB::Write) or must keep writes out while it works (Flush and Resume
// switching the memtable or the WAL, IngestExternalFile placing its files, a checkpoint
// capturing the WAL's length, Close flushing the memtables) joins the queue with a Front and
// waits, in order of arrival, until it is at the front. The request at the front owns the WAL
// writer and the active memtable's contents: only it appends to the WAL, inserts into the
// active memtable or switches either (DESIGN.md "Write path").
//
// Groups: a writer at the front (the leader) takes the writers queued behind it into one group
// (BuildGroup), writes the group, and hands every writer of the group its outcome when it
// releases the front (Release). Those writers never reach the front: their Front returns with
// held() false and status() set. A request that writes nothing (a barrier: Flush, Resume, ...)
// ends a group, so it is never done by another.
//
// Thread-safety: the queue is not synchronised itself. Its owner guards it with one mutex
// (DBImpl: write_queue_ is ABSL_GUARDED_BY(mu_)) and gives that mutex to each Front, which
// waits on it (releasing it) and requires it held at construction, at Release and at
// destruction. The batch BuildGroup returns is the leader's alone until it releases the front,
// with or without the mutex.
#ifndef SHALE_DB_WRITE_QUEUE_H_
#define SHALE_DB_WRITE_QUEUE_H_

#include <cstddef>
#include <deque>

#include "shale/options.h"
#include "shale/status.h"
#include "shale/write_batch.h"
#include "util/mutex.h"

namespace shale {

class WriteQueue {
 public:
  class Front;

  WriteQueue() = default;
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // Requests in the queue, the front included.
  size_t size() const { return writers_.size(); }
  bool empty() const { return writers_.empty(); }

 private:
  // A request waiting in the queue (owned by its Front).
  struct Writer {
    Writer(WriteBatch* b, const WriteOptions& o)
        : batch(b), sync(o.sync), disable_wal(o.disableWAL) {}
    WriteBatch* const batch;  // null: a barrier, which writes nothing
    const bool sync;
    const bool disable_wal;
    bool done = false;  // a leader wrote it in its group (never a barrier)
    Status status;      // the outcome once done
    CondVar cv;         // signalled when done, or when this request reaches the front
  };

  std::deque<Writer*> writers_;  // the front is the leader
  WriteBatch group_batch_;       // the leader's scratch for merged groups
};

// Holds the front of a WriteQueue for its scope (or until Release).
class WriteQueue::Front {
 public:
  // Joins `queue` with a barrier (batch null) or with `batch` to write with `options`, and
  // waits until the request is at the front or, for a batch, a leader wrote it in its group
  // (held() then tells which). REQUIRES: *mu held, and *mu is the mutex that guards `queue`;
  // it is released while waiting and held again on return.
  Front(WriteQueue* queue, Mutex* mu, WriteBatch* batch = nullptr,
        const WriteOptions& options = WriteOptions()) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // Releases the front if still held. REQUIRES: the mutex held. A leader that built a group
  // must Release it with the group's outcome first (the writers would otherwise get Aborted).
  ~Front();
  Front(const Front&) = delete;
  Front& operator=(const Front&) = delete;

  // True from construction, when the request reached the front, until Release. False from
  // the start when a leader wrote this batch in its group: status() is then the outcome.
  bool held() const { return held_; }
  const Status& status() const { return self_.status; }

  // The leader's group: its own batch, or the batches of the writers queued behind it that
  // may go with it merged into one (a sync write does not join a group that will not be
  // synced; WAL and no-WAL writes do not mix; a barrier ends the group; about 1 MiB at most,
  // less when the leader's own batch is small). REQUIRES: held(), with a batch; the mutex held;
  // called once.
  WriteBatch* BuildGroup();

  // Gives up the front: the leader and the writers of its group leave the queue, each of
  // those writers gets `group_status` as its outcome and is woken, and so is the new front.
  // REQUIRES: held(); the mutex held.
  void Release(const Status& group_status = Status::OK());

 private:
  WriteQueue* const queue_;
  Mutex* const mu_;
  WriteQueue::Writer self_;
  WriteQueue::Writer* last_;  // the group's last writer (self_ until BuildGroup)
  bool held_ = false;
};

}  // namespace shale

#endif  // SHALE_DB_WRITE_QUEUE_H_
