// message_buffer.h — collects one peer message whose length is bounded in advance, refusing the
// first byte past the bound (a peer cannot make a party buffer more than it expects).
#pragma once

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

}  // namespace psi
