// WriteQueue::Front (see write_queue.h).
#include "db/write_queue.h"

#include <cassert>

#include "db/write_batch_internal.h"

namespace shale {
namespace {

// The largest group a leader builds: about 1 MiB, but less when the leader's own batch is
// small, so a small write is not slowed down much by a big group.
size_t MaxGroupBytes(size_t first) {
  constexpr size_t kMax = 1 << 20;
  return first <= (128 << 10) ? first + (128 << 10) : kMax;
}

}  // namespace

WriteQueue::Front::Front(WriteQueue* queue, Mutex* mu, WriteBatch* batch,
                         const WriteOptions& options)
    : queue_(queue), mu_(mu), self_(batch, options), last_(&self_) {
  mu_->AssertHeld();
  queue_->writers_.push_back(&self_);
  while (!self_.done && &self_ != queue_->writers_.front()) self_.cv.Wait(mu_);
  held_ = !self_.done;
}

WriteQueue::Front::~Front() {
  if (!held_) return;
  Release(Status::Aborted("write queue: the group's leader released the front without an "
                          "outcome"));
}

WriteBatch* WriteQueue::Front::BuildGroup() {
  mu_->AssertHeld();
  assert(held_ && self_.batch != nullptr && last_ == &self_);
  std::deque<Writer*>& writers = queue_->writers_;
  WriteBatch& group_batch = queue_->group_batch_;
  WriteBatch* result = self_.batch;
  size_t size = WriteBatchInternal::ByteSize(*self_.batch);
  const size_t max_size = MaxGroupBytes(size);
  for (size_t i = 1; i < writers.size(); i++) {
    Writer* w = writers[i];
    // A sync write does not join a group that will not be synced; WAL and no-WAL writes do
    // not mix; a barrier (null batch) ends the group.
    if (w->batch == nullptr || (w->sync && !self_.sync) || w->disable_wal != self_.disable_wal) {
      break;
    }
    size += WriteBatchInternal::ByteSize(*w->batch);
    if (size > max_size) break;
    if (result == self_.batch) {
      result = &group_batch;
      group_batch.Clear();
      WriteBatchInternal::Append(result, *self_.batch).PermitUncheckedError();
    }
    // Both batches were validated, so appending cannot fail.
    WriteBatchInternal::Append(result, *w->batch).PermitUncheckedError();
    last_ = w;
  }
  return result;
}

void WriteQueue::Front::Release(const Status& group_status) {
  mu_->AssertHeld();
  assert(held_);
  std::deque<Writer*>& writers = queue_->writers_;
  assert(writers.front() == &self_);
  if (last_ != &self_) queue_->group_batch_.Clear();  // the group was merged into it
  while (true) {
    Writer* ready = writers.front();
    writers.pop_front();
    if (ready != &self_) {
      ready->status = group_status;
      ready->done = true;
      ready->cv.Signal();
    }
    if (ready == last_) break;
  }
  held_ = false;
  if (!writers.empty()) writers.front()->cv.Signal();
}

}  // namespace shale
