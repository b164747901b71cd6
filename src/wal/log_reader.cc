#include "wal/log_reader.h"

#include <cassert>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/absl_compat.h"
#include "util/coding.h"

namespace shale::log {

namespace {

bool AllZero(std::string_view data) { return data.find_first_not_of('\0') == data.npos; }

}  // namespace

Reader::Reporter::~Reporter() = default;

void Reader::Reporter::TornTail(size_t bytes, const Status& reason) {}

Reader::Reader(SequentialFile* file, Reporter* reporter, bool checksum, uint64_t initial_offset,
               WalRecoveryMode mode, std::string log_name)
    : file_(file),
      reporter_(reporter),
      checksum_(checksum),
      initial_offset_(initial_offset),
      mode_(mode),
      log_name_(log_name.empty() ? std::string("log") : std::move(log_name)),
      backing_(new char[kBlockSize]),
      resyncing_(initial_offset > 0) {}

Reader::~Reader() = default;

bool Reader::ReadRecord(std::string_view* record, std::string* scratch) {
  scratch->clear();
  *record = {};
  if (done_) return false;
  if (!started_) {
    started_ = true;
    if (!SkipToInitialBlock()) {
      done_ = true;
      return false;
    }
  }
  in_fragmented_ = false;
  Fragment fragment;
  Damage damage;
  while (true) {
    switch (ReadFragment(&fragment, &damage)) {
      case Outcome::kFragment:
        switch (AddFragment(fragment, record, scratch)) {
          case Step::kNeedMore:
            continue;
          case Step::kHaveRecord:
            return true;
          case Step::kStop:
            return false;
        }
        break;
      case Outcome::kEnd:
        // The writer may have died between two fragments of a record.
        if (in_fragmented_) OnTornTail(record_offset_, "a record ends before its last fragment");
        done_ = true;
        return false;
      case Outcome::kTornTail:
        OnTornTail(in_fragmented_ ? record_offset_ : damage.drop_start, damage.what);
        return false;
      case Outcome::kCorruption:
        if (in_fragmented_) damage.drop_start = record_offset_;
        in_fragmented_ = false;
        scratch->clear();
        if (!OnCorruption(damage)) return false;
        continue;
      case Outcome::kReadError:
        done_ = true;
        return false;
    }
  }
}

Reader::Step Reader::AddFragment(const Fragment& fragment, std::string_view* record,
                                 std::string* scratch) {
  const bool starts_record = fragment.type == kFullType || fragment.type == kFirstType;
  if (starts_record) {
    if (in_fragmented_) {
      in_fragmented_ = false;
      scratch->clear();
      if (!OnCorruption({record_offset_, record_offset_, fragment.offset,
                         "first fragment without a last fragment"})) {
        return Step::kStop;
      }
    }
    resyncing_ = false;
    record_offset_ = fragment.offset;
  } else if (!in_fragmented_) {
    // A middle or last fragment whose record did not start here: either the record began
    // before initial_offset_, or its start was lost.
    if (resyncing_) return Step::kNeedMore;
    return OnCorruption({fragment.offset, fragment.offset, CurrentOffset(),
                         "middle or last fragment without a first fragment"})
               ? Step::kNeedMore
               : Step::kStop;
  }

  if (fragment.type == kFullType) {
    *record = fragment.payload;
  } else {
    if (fragment.type == kFirstType) {
      scratch->assign(fragment.payload);
    } else {
      scratch->append(fragment.payload);
    }
    in_fragmented_ = fragment.type != kLastType;
    if (in_fragmented_) return Step::kNeedMore;
    *record = *scratch;
  }
  last_record_offset_ = record_offset_;
  last_record_end_ = CurrentOffset();
  return Step::kHaveRecord;
}

Reader::Outcome Reader::ReadFragment(Fragment* fragment, Damage* damage) {
  while (true) {
    if (buffer_.size() < kHeaderSize) {
      if (eof_) return ReadShortRemainder(damage);
      // A block trailer (or the rest of a dropped block): go on with the next block.
      buffer_ = {};
      if (!ReadBlock()) return Outcome::kReadError;
      continue;
    }
    const Outcome outcome = ParseFragment(fragment, damage);
    // Records, and damage, wholly before initial_offset_ are none of the caller's business.
    if (outcome == Outcome::kFragment && fragment->offset < initial_offset_) continue;
    if (outcome == Outcome::kCorruption && damage->drop_end <= initial_offset_) continue;
    return outcome;
  }
}

Reader::Outcome Reader::ParseFragment(Fragment* fragment, Damage* damage) {
  const uint64_t offset = CurrentOffset();
  const char* header = buffer_.data();
  const uint32_t stored_checksum = DecodeFixed32(header);
  const size_t length = DecodeFixed16(header + 4);
  const auto type = static_cast<uint8_t>(header[6]);
  const uint64_t claimed_end = offset + kHeaderSize + length;

  if (offset % kBlockSize + kHeaderSize + length > kBlockSize) {
    // No writer makes this, and neither does a crash: a damaged header.
    *damage = {offset, offset, DropBlock(), "record length runs past its block"};
    return Outcome::kCorruption;
  }
  if (kHeaderSize + length > buffer_.size()) {
    // Inside the block but past the end of the file (so eof_): cut short by a crash.
    buffer_ = {};
    *damage = {offset, offset, end_of_buffer_offset_, "record cut short by the end of the file"};
    return Outcome::kTornTail;
  }
  if (stored_checksum == 0 && length == 0 && type == kZeroType) {
    // Zero-filled space: the end of the log if nothing but zeros follows.
    switch (ScanZerosToEnd(offset)) {
      case ZeroScan::kZerosToEnd:
        return Outcome::kEnd;
      case ZeroScan::kDataFollows:
        *damage = {offset, offset, DropBlock(), "zero-filled space followed by data"};
        return Outcome::kCorruption;
      case ZeroScan::kReadError:
        break;
    }
    return Outcome::kReadError;
  }
  if (type == kZeroType || type > kMaxRecordType) {
    return Classify(offset, claimed_end, "unknown record type", damage);
  }
  const std::string_view payload = buffer_.substr(kHeaderSize, length);
  if (checksum_ && stored_checksum != RecordChecksum(static_cast<RecordType>(type), payload)) {
    return Classify(offset, claimed_end, "checksum mismatch", damage);
  }
  *fragment = {static_cast<RecordType>(type), payload, offset};
  buffer_.remove_prefix(kHeaderSize + length);
  return Outcome::kFragment;
}

Reader::Outcome Reader::Classify(uint64_t offset, uint64_t claimed_end, const char* what,
                                 Damage* damage) {
  // A crash leaves a record cut short or ending in zeros, with only zeros after it; so the
  // damage is a torn tail when everything from the record's last byte on is zero.
  switch (ScanZerosToEnd(claimed_end - 1)) {
    case ZeroScan::kZerosToEnd:
      *damage = {offset, offset, end_of_buffer_offset_, what};
      return Outcome::kTornTail;
    case ZeroScan::kDataFollows:
      *damage = {offset, offset, DropBlock(), what};
      return Outcome::kCorruption;
    case ZeroScan::kReadError:
      break;
  }
  return Outcome::kReadError;
}

Reader::Outcome Reader::ReadShortRemainder(Damage* damage) {
  assert(eof_ && buffer_.size() < kHeaderSize);
  if (buffer_.empty()) return Outcome::kEnd;
  const uint64_t offset = CurrentOffset();
  const bool in_trailer = offset % kBlockSize + kHeaderSize > kBlockSize;
  const bool zeros = AllZero(buffer_);
  buffer_ = {};
  if (in_trailer || zeros) return Outcome::kEnd;
  *damage = {offset, offset, end_of_buffer_offset_, "header cut short by the end of the file"};
  return Outcome::kTornTail;
}

bool Reader::ReadBlock() {
  assert(buffer_.empty());
  if (has_pending_) {
    // pending_ may point into lookahead_: swapping keeps it valid and makes it the current block.
    std::swap(backing_, lookahead_);
    buffer_ = pending_;
    end_of_buffer_offset_ = pending_offset_ + pending_.size();
    eof_ = pending_eof_;
    has_pending_ = false;
    pending_ = {};
    return true;
  }
  std::string_view data;
  Status s = file_->Read(kBlockSize, &data, backing_.get());
  if (!s.ok()) {
    status_ = std::move(s);
    eof_ = true;
    return false;
  }
  buffer_ = data;
  end_of_buffer_offset_ += data.size();
  eof_ = data.size() < kBlockSize;
  return true;
}

Reader::ZeroScan Reader::ScanZerosToEnd(uint64_t from) {
  const uint64_t start = CurrentOffset();
  assert(from >= start && !has_pending_);
  if (from - start < buffer_.size() && !AllZero(buffer_.substr(from - start))) {
    return ZeroScan::kDataFollows;
  }
  // The current buffer may point into the file's memory, which the reads below invalidate;
  // callers drop it after this scan.
  uint64_t position = end_of_buffer_offset_;
  bool at_eof = eof_;
  while (!at_eof) {
    if (!lookahead_) lookahead_.reset(new char[kBlockSize]);
    std::string_view data;
    Status s = file_->Read(kBlockSize, &data, lookahead_.get());
    if (!s.ok()) {
      status_ = std::move(s);
      buffer_ = {};
      eof_ = true;
      return ZeroScan::kReadError;
    }
    at_eof = data.size() < kBlockSize;
    if (!AllZero(data)) {
      pending_ = data;
      pending_offset_ = position;
      pending_eof_ = at_eof;
      has_pending_ = true;
      return ZeroScan::kDataFollows;
    }
    position += data.size();
  }
  buffer_ = {};
  end_of_buffer_offset_ = position;
  eof_ = true;
  return ZeroScan::kZerosToEnd;
}

uint64_t Reader::DropBlock() {
  buffer_ = {};
  return has_pending_ ? pending_offset_ : end_of_buffer_offset_;
}

bool Reader::SkipToInitialBlock() {
  const uint64_t offset_in_block = initial_offset_ % kBlockSize;
  uint64_t block_start = initial_offset_ - offset_in_block;
  // An offset inside a block trailer belongs to the next block.
  if (offset_in_block + kHeaderSize > kBlockSize) block_start += kBlockSize;
  end_of_buffer_offset_ = block_start;
  if (block_start == 0) return true;
  Status s = file_->Skip(block_start);
  if (!s.ok()) status_ = std::move(s);
  return status_.ok();
}

bool Reader::OnCorruption(const Damage& damage) {
  const uint64_t bytes = damage.drop_end - damage.drop_start;
  Status reason = Status::Corruption(
      absl::StrCat(ToAbsl(log_name_), ": ", damage.what, " at offset ", damage.offset),
      absl::StrCat("dropped ", bytes, " bytes from offset ", damage.drop_start));
  ++corruption_count_;
  corrupted_bytes_ += bytes;
  if (reporter_ != nullptr) reporter_->Corruption(static_cast<size_t>(bytes), reason);
  switch (mode_) {
    case WalRecoveryMode::kSkipAnyCorruptedRecords:
      return true;
    case WalRecoveryMode::kPointInTimeRecovery:
      stopped_at_corruption_ = true;
      break;
    case WalRecoveryMode::kTolerateCorruptedTailRecords:
    case WalRecoveryMode::kAbsoluteConsistency:
      status_ = std::move(reason);
      break;
  }
  done_ = true;
  return false;
}

void Reader::OnTornTail(uint64_t tail_start, const char* what) {
  assert(tail_start <= end_of_buffer_offset_);
  torn_tail_ = true;
  torn_tail_bytes_ = end_of_buffer_offset_ - tail_start;
  done_ = true;
  if (reporter_ != nullptr) {
    reporter_->TornTail(
        static_cast<size_t>(torn_tail_bytes_),
        Status::Incomplete(absl::StrCat(ToAbsl(log_name_), ": torn tail at offset ", tail_start),
                           absl::StrCat(what, "; dropped ", torn_tail_bytes_, " bytes")));
  }
}

}  // namespace shale::log
