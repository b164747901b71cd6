// GlobalSeqnoIterator (see the header).
#include "table/global_seqno_iterator.h"

#include "util/coding.h"

namespace shale {

void RewriteSequence(std::string_view stored_key, SequenceNumber global_seqno, std::string* out) {
  const std::string_view user_key = ExtractUserKey(stored_key);
  out->assign(user_key.data(), user_key.size());
  PutFixed64(out, PackSequenceAndType(global_seqno, ExtractValueType(stored_key)));
}

GlobalSeqnoIterator::GlobalSeqnoIterator(std::unique_ptr<InternalIterator> input,
                                         const InternalKeyComparator* icmp,
                                         SequenceNumber global_seqno)
    : input_(std::move(input)), icmp_(icmp), global_seqno_(global_seqno) {}

void GlobalSeqnoIterator::Update() {
  if (input_->Valid()) RewriteSequence(input_->key(), global_seqno_, &key_);
}

void GlobalSeqnoIterator::SeekToFirst() {
  input_->SeekToFirst();
  Update();
}

void GlobalSeqnoIterator::SeekToLast() {
  input_->SeekToLast();
  Update();
}

void GlobalSeqnoIterator::Seek(std::string_view target) {
  // Stored entries of target's user key all carry sequence 0, so they are >= target in the
  // stored order: the input lands on the first of them (or past the user key). In the
  // rewritten order they are < target when the global sequence is newer than the target's,
  // and then the user key has to be skipped.
  input_->Seek(target);
  Update();
  while (input_->Valid() && icmp_->Compare(key_, target) < 0) {
    input_->Next();
    Update();
  }
}

void GlobalSeqnoIterator::SeekForPrev(std::string_view target) {
  // The first entry >= target, then past those equal to it; the entry before is the last <= it.
  Seek(target);
  while (input_->Valid() && icmp_->Compare(key_, target) == 0) {
    input_->Next();
    Update();
  }
  if (input_->Valid()) {
    input_->Prev();
  } else if (input_->status().ok()) {
    input_->SeekToLast();
  }
  Update();
}

void GlobalSeqnoIterator::Next() {
  input_->Next();
  Update();
}

void GlobalSeqnoIterator::Prev() {
  input_->Prev();
  Update();
}

}  // namespace shale
