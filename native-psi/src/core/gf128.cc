#include "gf128.h"

#include <wmmintrin.h>

namespace psi {
namespace {

// X^128 = X^7 + X^2 + X + 1 (mod the field polynomial): 0x87 in the low 64-bit word.
inline Block poly() { return _mm_set_epi64x(0, 0x87); }

// The 256-bit carry-less product (lo, hi) of a and b: four PCLMULQDQ (schoolbook; Karatsuba saves
// one multiply for three extra XORs, no gain on cores with one PCLMUL per cycle).
inline void clmul256(Block a, Block b, Block* lo, Block* hi) {
  Block l = _mm_clmulepi64_si128(a, b, 0x00);
  Block h = _mm_clmulepi64_si128(a, b, 0x11);
  Block m = _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x01), _mm_clmulepi64_si128(a, b, 0x10));
  *lo = _mm_xor_si128(l, _mm_slli_si128(m, 8));
  *hi = _mm_xor_si128(h, _mm_srli_si128(m, 8));
}

// Reduces lo + hi * X^128 with words (x0, x1, x2, x3): x3 * X^192 = x3 * X^64 * 0x87 folds into
// (x1, x2), then x2 * X^128 = x2 * 0x87 folds into (x0, x1). Each fold product has < 72 bits, so
// two folds leave a 128-bit value.
inline Block reduce(Block lo, Block hi) {
  Block t = _mm_clmulepi64_si128(hi, poly(), 0x01);  // x3 * 0x87
  lo = _mm_xor_si128(lo, _mm_slli_si128(t, 8));
  hi = _mm_xor_si128(hi, _mm_srli_si128(t, 8));
  t = _mm_clmulepi64_si128(hi, poly(), 0x00);  // x2 * 0x87
  return _mm_xor_si128(lo, t);
}

}  // namespace

Block gf128_mul(Block a, Block b) {
  Block lo, hi;
  clmul256(a, b, &lo, &hi);
  return reduce(lo, hi);
}

// Eight products in flight: the PCLMUL latency (5-7 cycles) is hidden behind independent work.
void gf128_mul_const(const Block* a, Block b, Block* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Block lo[8], hi[8];
    for (int j = 0; j < 8; ++j) clmul256(a[i + j], b, &lo[j], &hi[j]);
    for (int j = 0; j < 8; ++j) out[i + j] = reduce(lo[j], hi[j]);
  }
  for (; i < n; ++i) out[i] = gf128_mul(a[i], b);
}

Block gf128_mul_x(Block a) {
  // Shift each 64-bit word left by one and carry bit 63 into bit 64; the bit shifted out at 127
  // selects the reduction by an arithmetic mask (no branch: the value may be secret).
  Block carry = _mm_srli_epi64(a, 63);  // (bit 63, bit 127)
  Block shifted = _mm_or_si128(_mm_slli_epi64(a, 1), _mm_slli_si128(carry, 8));
  Block top = _mm_shuffle_epi32(_mm_sub_epi64(_mm_setzero_si128(), carry), 0xEE);  // -bit127, both
  return _mm_xor_si128(shifted, _mm_and_si128(top, poly()));
}

Block gf128_pack(const Block bits[128]) {
  Block acc = bits[127];
  for (int k = 126; k >= 0; --k) acc = _mm_xor_si128(gf128_mul_x(acc), bits[k]);
  return acc;
}

}  // namespace psi
