// libFuzzer entry point for the block reader (table/block.h). The first input byte picks a mode:
//   - raw (bit 1 clear): the rest of the input is a block's contents. Block::Create parses it and,
//     if it accepts it, iterators walk it forward and backward and seek to the keys they saw and
//     to neighbours of those keys; under the internal key comparator SeekForGet runs too, which
//     reaches the data block hash index. Errors are fine; a crash, hang or sanitizer report is a
//     bug.
//   - built (bit 1 set): the rest of the input is decoded into sorted entries, which BlockBuilder
//     turns into a block (with a hash index when bit 2 is set); the block must parse and every
//     read must agree with a std::map of the same entries.
// Bit 0 picks the comparator: an InternalKeyComparator over bytewise (set) or bytewise alone.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/internal_key.h"
#include "shale/comparator.h"
#include "table/block.h"
#include "table/block_builder.h"

namespace {

using shale::Block;
using shale::BlockIter;
using shale::Comparator;

// Caps the work one input can cause (a damaged block can hold many tiny entries).
constexpr size_t kMaxSteps = 20000;

const Comparator* ComparatorFor(bool internal) {
  static const shale::InternalKeyComparator* const kInternal =
      new shale::InternalKeyComparator(shale::BytewiseComparator());
  return internal ? static_cast<const Comparator*>(kInternal) : shale::BytewiseComparator();
}

// Aborts with a message: the fuzzer reports it as a crash with this input.
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "block_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

void ExerciseRaw(std::string_view contents, bool internal) {
  const Comparator* cmp = ComparatorFor(internal);
  std::unique_ptr<Block> block;
  if (!Block::Create(std::string(contents), &block).ok()) return;
  block->ApproximateMemoryUsage();
  std::unique_ptr<BlockIter> it = block->NewIterator(cmp);
  std::vector<std::string> targets = {"", std::string(8, '\0'), std::string(12, '\xff')};
  size_t steps = 0;
  for (it->SeekToFirst(); it->Valid() && steps < kMaxSteps; it->Next(), steps++) {
    if (targets.size() >= 64) continue;
    std::string key(it->key());
    targets.push_back(key);
    if (!key.empty()) key.back()++;  // between this key and the next
    targets.push_back(key);
  }
  for (it->SeekToLast(); it->Valid() && steps < 2 * kMaxSteps; it->Prev(), steps++) {
  }
  for (const std::string& t : targets) {
    std::unique_ptr<BlockIter> seeker = block->NewIterator(cmp);
    seeker->Seek(t);
    if (seeker->Valid()) seeker->Next();
    seeker->SeekForPrev(t);
    if (seeker->Valid()) seeker->Prev();
    if (internal) {
      std::unique_ptr<BlockIter> getter = block->NewIterator(cmp);
      bool maybe = getter->SeekForGet(t);
      Check(maybe || (!getter->Valid() && getter->status().ok()),
            "SeekForGet false but the iterator is valid or failed");
    }
  }
}

// A std::map ordered by a shale::Comparator: the model of a built block.
struct Less {
  const Comparator* cmp;
  bool operator()(const std::string& a, const std::string& b) const {
    return cmp->Compare(a, b) < 0;
  }
};
using Model = std::map<std::string, std::string, Less>;

std::string NextKey(FuzzedDataProvider* in, bool internal) {
  std::string user_key = in->ConsumeRandomLengthString(12);
  if (!internal) return user_key;
  shale::SequenceNumber seq = in->ConsumeIntegralInRange<uint32_t>(0, 1000);
  shale::ValueType type = in->ConsumeBool() ? shale::kTypeValue : shale::kTypeDeletion;
  return shale::MakeInternalKey(user_key, seq, type);
}

// Where the model says an iterator should be: the entry, or end().
void ExpectAt(const BlockIter& it, const Model& model, Model::const_iterator want,
              const char* what) {
  Check(it.status().ok(), what);
  Check(it.Valid() == (want != model.end()), what);
  if (want != model.end()) Check(it.key() == want->first && it.value() == want->second, what);
}

void ExerciseBuilt(FuzzedDataProvider* in, bool internal, bool hash_index) {
  const Comparator* cmp = ComparatorFor(internal);
  Model model(Less{cmp});
  const int restart_interval = in->ConsumeIntegralInRange<int>(1, 16);
  const size_t n = in->ConsumeIntegralInRange<size_t>(0, 300);
  for (size_t i = 0; i < n && in->remaining_bytes() > 0; i++) {
    std::string key = NextKey(in, internal);
    model[key] = in->ConsumeRandomLengthString(40);
  }
  shale::BlockBuilder builder(restart_interval, hash_index && internal);
  for (const auto& [k, v] : model) builder.Add(k, v);
  std::unique_ptr<Block> block;
  Check(Block::Create(std::string(builder.Finish()), &block).ok(), "a built block must parse");

  std::unique_ptr<BlockIter> it = block->NewIterator(cmp);
  auto want = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) ExpectAt(*it, model, want, "forward");
  ExpectAt(*it, model, want, "forward end");
  auto back = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++back) {
    Check(back != model.rend() && it->key() == back->first, "backward");
  }
  Check(back == model.rend() && it->status().ok(), "backward end");

  while (in->remaining_bytes() > 0) {
    std::string target = NextKey(in, internal);
    it->Seek(target);
    ExpectAt(*it, model, model.lower_bound(target), "Seek");
    it->SeekForPrev(target);
    auto prev = model.upper_bound(target);
    ExpectAt(*it, model, prev == model.begin() ? model.end() : std::prev(prev), "SeekForPrev");
    if (!internal) continue;
    std::unique_ptr<BlockIter> getter = block->NewIterator(cmp);
    if (getter->SeekForGet(target)) {
      ExpectAt(*getter, model, model.lower_bound(target), "SeekForGet");
    } else {
      Check(!getter->Valid() && getter->status().ok(), "SeekForGet false: invalid, OK");
      std::string_view user_key = shale::ExtractUserKey(target);
      for (const auto& entry : model) {
        Check(shale::ExtractUserKey(entry.first) != user_key, "SeekForGet missed a user key");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const bool internal = (mode & 1) != 0;
  if ((mode & 2) == 0) {
    ExerciseRaw(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), internal);
  } else {
    FuzzedDataProvider in(data + 1, size - 1);
    ExerciseBuilt(&in, internal, (mode & 4) != 0);
  }
  return 0;
}
