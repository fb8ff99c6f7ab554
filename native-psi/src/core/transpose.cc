#include "transpose.h"

#include <immintrin.h>

#include <cstring>

namespace psi {

// Gathers one byte from each of 32 rows, then peels the 8 bit-planes with movemask: 8 output rows
// get 32 bits each per step.
void transpose_bits(const uint8_t* in, size_t in_rows, size_t in_row_bytes, uint8_t* out) {
  const size_t out_row_bytes = in_rows / 8;
  alignas(32) uint8_t g[32];
  for (size_t r = 0; r < in_rows; r += 32) {
    const uint8_t* base = in + r * in_row_bytes;
    for (size_t b = 0; b < in_row_bytes; ++b) {
      for (int q = 0; q < 32; ++q) g[q] = base[q * in_row_bytes + b];
      __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(g));
      uint8_t* o = out + (8 * b) * out_row_bytes + r / 8;
      for (int k = 7; k >= 0; --k) {
        uint32_t m = static_cast<uint32_t>(_mm256_movemask_epi8(v));
        std::memcpy(o + size_t(k) * out_row_bytes, &m, 4);
        v = _mm256_slli_epi64(v, 1);
      }
    }
  }
}

}  // namespace psi
