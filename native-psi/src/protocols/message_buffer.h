// message_buffer.h — peer messages of known length: MessageBuffer collects one whose length is
// bounded in advance, RecordStream cuts one of fixed-size records into whole records as it streams;
// both refuse the first byte past the bound (a peer cannot make a party buffer more than it
// expects).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/bytes.h"
#include "../core/status.h"

namespace psi {

class MessageBuffer {
 public:
  MessageBuffer() = default;
  explicit MessageBuffer(size_t max) : max_(max) {}
  // Empties the buffer and sets the bound for the next message.
  void reset(size_t max) {
    max_ = max;
    data_.clear();
  }
  // Appends a chunk; PSI_ERR_PEER_MESSAGE naming `what` when the message outgrows the bound.
  Status append(ByteView c, const std::string& what) {
    if (c.size > max_ - data_.size())
      return peer_error(what + ": message longer than the expected " + std::to_string(max_) +
                        " bytes");
    data_.insert(data_.end(), c.data, c.data + c.size);
    return Status::ok();
  }
  const std::vector<uint8_t>& data() const { return data_; }
  // Frees the memory.
  void release() { std::vector<uint8_t>().swap(data_); }

 private:
  size_t max_ = 0;
  std::vector<uint8_t> data_;
};

// A message of `total` fixed-size records (masks, field elements) arriving in chunks of any size:
// absorb() hands each run of whole records to on_records(first_index, data, count), carrying a
// record cut by a chunk boundary over to the next chunk, and refuses the first byte past the end;
// finish() refuses a message that ended early.
class RecordStream {
 public:
  void reset(uint32_t record_bytes, uint64_t total) {
    size_ = record_bytes;
    total_ = total;
    seen_ = 0;
    carry_len_ = 0;
  }
  template <typename OnRecords>
  Status absorb(ByteView chunk, const std::string& what, OnRecords on_records) {
    if (chunk.size > (total_ - seen_) * size_ - carry_len_)
      return peer_error(what + ": message longer than the expected " +
                        std::to_string(total_ * size_) + " bytes");
    ByteReader rd(chunk);
    if (carry_len_) {
      const size_t n = std::min<size_t>(size_ - carry_len_, rd.remaining());
      rd.read(carry_ + carry_len_, n);
      carry_len_ += n;
      if (carry_len_ < size_) return Status::ok();
      on_records(seen_++, carry_, size_t(1));
      carry_len_ = 0;
    }
    ByteView body;
    const size_t whole = rd.remaining() / size_;
    rd.take(whole * size_, &body);
    if (whole) on_records(seen_, body.data, whole);
    seen_ += whole;
    carry_len_ = rd.remaining();
    rd.read(carry_, carry_len_);
    return Status::ok();
  }
  Status finish(const std::string& what) const {
    if (seen_ != total_ || carry_len_ != 0)
      return peer_error(what + ": message ended after " +
                        std::to_string(seen_ * size_ + carry_len_) + " of " +
                        std::to_string(total_ * size_) + " bytes");
    return Status::ok();
  }

 private:
  uint32_t size_ = 1;
  uint64_t total_ = 0, seen_ = 0;
  uint8_t carry_[16];  // records are at most 16 bytes
  size_t carry_len_ = 0;
};

}  // namespace psi
