#include "workload_context.h"

#include <cstdio>

namespace shale::bench {

namespace {
constexpr int64_t kDurationCheckOps = 1000;
}  // namespace

std::string ColumnFamilyName(int i) {
  if (i == 0) return kDefaultColumnFamilyName;
  char name[64];
  std::snprintf(name, sizeof(name), "column_family_name_%06d", i);
  return name;
}

void SharedState::Arrive() {
  absl::MutexLock l(&mu_);
  arrived_++;
  cv_.SignalAll();
}

void SharedState::WaitForStart() {
  absl::MutexLock l(&mu_);
  while (!start_) cv_.Wait(&mu_);
}

void SharedState::WaitAllArrived() {
  absl::MutexLock l(&mu_);
  while (arrived_ < total_) cv_.Wait(&mu_);
}

void SharedState::Go() {
  absl::MutexLock l(&mu_);
  start_ = true;
  cv_.SignalAll();
}

void SharedState::Done() {
  absl::MutexLock l(&mu_);
  done_++;
  cv_.SignalAll();
}

void SharedState::WaitAllDone() {
  absl::MutexLock l(&mu_);
  while (done_ < total_) cv_.Wait(&mu_);
}

void SharedState::Fail(const Status& s, std::string_view what) {
  absl::MutexLock l(&mu_);
  if (error_.ok()) {
    error_ = s;
    error_context_.assign(what);
  }
  failed_.store(true, std::memory_order_relaxed);
}

Status SharedState::error() const {
  absl::MutexLock l(&mu_);
  return error_;
}

std::string SharedState::error_context() const {
  absl::MutexLock l(&mu_);
  return error_context_;
}

Duration::Duration(int max_seconds, int64_t max_ops, const SharedState* shared)
    : max_seconds_(max_seconds), max_ops_(max_ops), shared_(shared), start_micros_(NowMicros()) {}

bool Duration::Done(int64_t n) {
  if (n <= 0) n = 1;
  const int64_t before = ops_;
  ops_ += n;
  if (shared_->failed()) return true;
  if (max_seconds_ <= 0) return ops_ > max_ops_;
  if (ops_ / kDurationCheckOps == before / kDurationCheckOps) return false;
  return (NowMicros() - start_micros_) / 1000000 >= static_cast<uint64_t>(max_seconds_);
}

}  // namespace shale::bench
