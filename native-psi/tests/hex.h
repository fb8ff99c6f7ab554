// hex.h — hexadecimal text of bytes and back, for the tests' known-answer vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace psi::test {

inline std::vector<uint8_t> from_hex(const std::string& h) {
  std::vector<uint8_t> out(h.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint8_t(std::stoul(h.substr(2 * i, 2), nullptr, 16));
  return out;
}

inline std::string to_hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

}  // namespace psi::test
