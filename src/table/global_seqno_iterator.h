// GlobalSeqnoIterator: shows the entries of an ingested table file with the sequence number
// ingestion assigned to the file (its "global sequence number") instead of the 0 that
// SstFileWriter stored in every entry. Each entry's key keeps its user key and value type; only
// the sequence changes.
//
// Ordering: the wrapped iterator is ordered by the stored keys. Rewriting every sequence to the
// same value keeps that order (the user keys decide it), but a target key of the same user key
// compares differently against the stored key and the rewritten one, so Seek and SeekForPrev
// re-check the landing entry against the target in the rewritten order.
//
// Thread-safety: one thread at a time, as every InternalIterator.
#ifndef SHALE_TABLE_GLOBAL_SEQNO_ITERATOR_H_
#define SHALE_TABLE_GLOBAL_SEQNO_ITERATOR_H_

#include <memory>
#include <string>
#include <string_view>

#include "base/internal_iterator.h"
#include "base/internal_key.h"

namespace shale {

class GlobalSeqnoIterator final : public InternalIterator {
 public:
  // `icmp` must outlive the iterator. REQUIRES: global_seqno <= kMaxSequenceNumber.
  GlobalSeqnoIterator(std::unique_ptr<InternalIterator> input,
                      const InternalKeyComparator* icmp, SequenceNumber global_seqno);

  bool Valid() const override { return input_->Valid(); }
  void SeekToFirst() override;
  void SeekToLast() override;
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void Next() override;
  void Prev() override;
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return input_->value(); }
  Status status() const override { return input_->status(); }

 private:
  // Rebuilds key_ from the input's current entry (when valid).
  void Update();

  const std::unique_ptr<InternalIterator> input_;
  const InternalKeyComparator* const icmp_;
  const SequenceNumber global_seqno_;
  std::string key_;  // the current entry's key with the global sequence
};

// Rewrites the sequence of `stored_key` (an internal key) to `global_seqno` into *out.
void RewriteSequence(std::string_view stored_key, SequenceNumber global_seqno, std::string* out);

}  // namespace shale

#endif  // SHALE_TABLE_GLOBAL_SEQNO_ITERATOR_H_
