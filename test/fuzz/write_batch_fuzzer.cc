// libFuzzer entry point for write-batch decoding: the input is a batch's serialized contents, as
// a WAL record hands them to recovery. Three readers must agree on it:
//   1. the DB's own check before a write (db_impl_write.cc's ValidateBatch, replicated here over
//      ReadWriteBatchRecord: every record decodes, the count matches the header);
//   2. WriteBatch::Iterate, which must succeed exactly when every record decodes, names the
//      default column family and the header's count is right;
//   3. a batch rebuilt through the public API from what Iterate handed out, which must iterate
//      to the same records, with the same Count() and the same Has*() flags.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "db/write_batch_internal.h"
#include "shale/status.h"
#include "shale/write_batch.h"

namespace {

using shale::Status;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "write_batch_fuzzer: check failed: %s\n", what);
    std::abort();
  }
}

// One record as a handler sees it: (kind, key, value).
using Record = std::tuple<char, std::string, std::string>;

// Collects the records and replays them into a new batch.
class Collector final : public shale::WriteBatch::Handler {
 public:
  Status Put(std::string_view key, std::string_view value) override {
    return Add('p', key, value, rebuilt.Put(key, value));
  }
  Status Delete(std::string_view key) override { return Add('d', key, {}, rebuilt.Delete(key)); }
  Status SingleDelete(std::string_view key) override {
    return Add('s', key, {}, rebuilt.SingleDelete(key));
  }
  Status DeleteRange(std::string_view begin, std::string_view end) override {
    return Add('r', begin, end, rebuilt.DeleteRange(begin, end));
  }
  Status Merge(std::string_view key, std::string_view value) override {
    return Add('m', key, value, rebuilt.Merge(key, value));
  }

  std::vector<Record> records;
  shale::WriteBatch rebuilt;

 private:
  Status Add(char kind, std::string_view key, std::string_view value, Status added) {
    Check(added.ok(), "a decoded record can be added to a new batch");
    records.emplace_back(kind, std::string(key), std::string(value));
    return Status::OK();
  }
};

// What the DB's pre-write check decides, minus the merge rule (a policy, not decoding).
struct Verdict {
  bool decodes = true;        // every record decodes
  bool default_family = true;  // every record names column family 0
  uint32_t records = 0;
};

Verdict Replicate(std::string_view contents) {
  Verdict v;
  if (contents.size() < shale::WriteBatchInternal::kHeader) {
    v.decodes = false;
    return v;
  }
  contents.remove_prefix(shale::WriteBatchInternal::kHeader);
  while (!contents.empty()) {
    shale::WriteBatchRecord record;
    if (!shale::ReadWriteBatchRecord(&contents, &record).ok()) {
      v.decodes = false;
      return v;
    }
    if (record.column_family != 0) v.default_family = false;
    v.records++;
  }
  return v;
}

void CheckFlags(const shale::WriteBatch& batch, const std::vector<Record>& records) {
  auto has = [&](char kind) {
    for (const Record& r : records) {
      if (std::get<0>(r) == kind) return true;
    }
    return false;
  };
  Check(batch.HasPut() == has('p'), "HasPut");
  Check(batch.HasDelete() == has('d'), "HasDelete");
  Check(batch.HasSingleDelete() == has('s'), "HasSingleDelete");
  Check(batch.HasDeleteRange() == has('r'), "HasDeleteRange");
  Check(batch.HasMerge() == has('m'), "HasMerge");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string contents(reinterpret_cast<const char*>(data), size);
  const Verdict verdict = Replicate(contents);
  shale::WriteBatch batch(contents);
  Collector collector;
  Status s = batch.Iterate(&collector);
  const bool valid = verdict.decodes && verdict.default_family &&
                     verdict.records == shale::WriteBatchInternal::Count(batch);
  Check(s.ok() == valid, "Iterate accepts exactly the batches the DB's check accepts");
  if (!s.ok()) {
    // A record of another column family is refused by this default-family handler (the
    // Handler's *CF defaults) with InvalidArgument.
    Check(s.IsCorruption() || s.IsInvalidArgument(),
          "a bad batch is Corruption, or InvalidArgument for another family's record");
    return 0;
  }
  CheckFlags(batch, collector.records);
  Check(batch.Count() == collector.records.size(), "Count matches the records");
  shale::WriteBatchInternal::SetSequence(&collector.rebuilt,
                                         shale::WriteBatchInternal::Sequence(batch));
  Collector again;
  Check(collector.rebuilt.Iterate(&again).ok(), "a rebuilt batch iterates");
  Check(again.records == collector.records, "a rebuilt batch holds the same records");
  Check(collector.rebuilt.Count() == batch.Count(), "a rebuilt batch has the same count");
  CheckFlags(collector.rebuilt, again.records);
  return 0;
}
