// See workload.h. The thread loop and operation dispatch; the operations are in write_ops.cc
// and read_ops.cc.
#include "workload.h"

#include <chrono>

namespace shale::stress {

Workload::Workload(const StressConfig& config, DB* db, ExpectedState* state,
                   DurabilityTracker* tracker, std::vector<ColumnFamilyHandle*> families)
    : config_(config),
      keyspace_(config.keyspace()),
      db_(db),
      families_(families.empty() ? std::vector<ColumnFamilyHandle*>{db->DefaultColumnFamily()}
                                 : std::move(families)),
      state_(state),
      tracker_(tracker),
      locks_(std::min<uint32_t>(config.keyspace().slots(), 4096)) {
  for (uint32_t w : config_.weights) total_weight_ += w;
}

Workload::~Workload() {
  Stop();
  Join();
}

void Workload::Start() {
  if (families_.size() != keyspace_.families) {
    Fail(std::to_string(families_.size()) + " family handles for --column_families=" +
         std::to_string(keyspace_.families));
    return;
  }
  running_.store(config_.threads);
  for (uint32_t i = 0; i < config_.threads; ++i) {
    threads_.emplace_back([this, i] { ThreadMain(i); });
  }
}

void Workload::Join() {
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

bool Workload::Running() const { return running_.load() > 0; }

std::vector<std::string> Workload::failures() const {
  MutexLock l(&mu_);
  return failures_;
}

std::array<uint64_t, kNumOpTypes> Workload::op_counts() const {
  std::array<uint64_t, kNumOpTypes> counts{};
  for (int i = 0; i < kNumOpTypes; ++i) counts[i] = op_counts_[i].load();
  return counts;
}

void Workload::Fail(const std::string& what) {
  {
    MutexLock l(&mu_);
    failures_.push_back(what);
  }
  Stop();
}

OpType Workload::PickOp(Random* rnd) const {
  uint64_t r = rnd->Uniform(total_weight_);
  for (int i = 0; i < kNumOpTypes; ++i) {
    if (r < config_.weights[i]) return static_cast<OpType>(i);
    r -= config_.weights[i];
  }
  return OpType::kGet;  // not reached: the weights sum to total_weight_
}

void Workload::ThreadMain(uint32_t index) {
  Random rnd(config_.seed * 1000003 + index + 1);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(config_.duration_seconds);
  for (uint64_t n = 0; !stop_.load(); ++n) {
    if (config_.ops_per_thread > 0 ? n >= config_.ops_per_thread
                                   : std::chrono::steady_clock::now() >= deadline) {
      break;
    }
    const OpType op = PickOp(&rnd);
    const Status s = RunOp(op, index, &rnd);
    if (!s.ok()) {
      if (!power_cut_.load()) Fail(std::string(OpName(op)) + " failed: " + s.ToString());
      break;
    }
    op_counts_[static_cast<int>(op)].fetch_add(1);
    ops_done_.fetch_add(1);
  }
  running_.fetch_sub(1);
}

Status Workload::RunOp(OpType op, uint32_t thread, Random* rnd) {
  switch (op) {
    case OpType::kPut: return DoWrite(rnd, WriteKind::kPut);
    case OpType::kDelete: return DoWrite(rnd, WriteKind::kDelete);
    case OpType::kMerge: return DoWrite(rnd, WriteKind::kMerge);
    case OpType::kDeleteRange: return DoDeleteRange(rnd);
    case OpType::kBatch: return DoBatch(rnd);
    case OpType::kIngest: return DoIngest(thread, rnd);
    case OpType::kGet: return DoGet(rnd);
    case OpType::kSnapshot: return DoSnapshot(rnd);
    case OpType::kIterate: return DoIterate(rnd);
    case OpType::kFlush: return DoFlush(rnd);
    case OpType::kCompactRange: return DoCompactRange(rnd);
  }
  return Status::InvalidArgument("unknown operation");
}

}  // namespace shale::stress
