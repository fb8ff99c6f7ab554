// bytes.h — bounds-checked views for parsing peer messages. Every read states its length; a read
// past the end returns false instead of touching memory outside the view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace psi {

struct ByteView {
  const uint8_t* data = nullptr;
  size_t size = 0;
  ByteView() = default;
  ByteView(const uint8_t* d, size_t n) : data(d), size(n) {}
  explicit ByteView(const std::vector<uint8_t>& v) : data(v.data()), size(v.size()) {}
};

class ByteReader {
 public:
  explicit ByteReader(ByteView v) : v_(v) {}
  size_t remaining() const { return v_.size - pos_; }
  bool read(void* out, size_t n) {
    if (n > remaining()) return false;
    if (n) std::memcpy(out, v_.data + pos_, n);
    pos_ += n;
    return true;
  }
  bool read_u32(uint32_t* out) {
    uint8_t b[4];
    if (!read(b, 4)) return false;
    *out = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    return true;
  }
  bool read_u64(uint64_t* out) {
    uint32_t lo, hi;
    if (!read_u32(&lo) || !read_u32(&hi)) return false;
    *out = uint64_t(hi) << 32 | lo;
    return true;
  }
  // A view of the next n bytes, or false.
  bool take(size_t n, ByteView* out) {
    if (n > remaining()) return false;
    *out = ByteView(v_.data + pos_, n);
    pos_ += n;
    return true;
  }

 private:
  ByteView v_;
  size_t pos_ = 0;
};

inline void put_u32(std::vector<uint8_t>* out, uint32_t x) {
  for (int i = 0; i < 4; ++i) out->push_back(uint8_t(x >> (8 * i)));
}
inline void put_u64(std::vector<uint8_t>* out, uint64_t x) {
  put_u32(out, uint32_t(x));
  put_u32(out, uint32_t(x >> 32));
}
inline void put_bytes(std::vector<uint8_t>* out, const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  out->insert(out->end(), b, b + n);
}

// Wipes secrets in a way the optimiser keeps.
void secure_wipe(void* p, size_t n);

}  // namespace psi
