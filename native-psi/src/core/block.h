// block.h — the 128-bit value every primitive works on (an SSE register), and small helpers.
// Requires x86-64 with SSE4.1 and AES-NI (checked at session creation, see cpu.h).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace psi {

using Block = __m128i;

inline Block zero_block() { return _mm_setzero_si128(); }
inline Block make_block(uint64_t hi, uint64_t lo) {
  return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
}
inline Block load_block(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void store_block(void* p, Block b) { _mm_storeu_si128(static_cast<__m128i*>(p), b); }
inline uint64_t block_lo(Block b) { return static_cast<uint64_t>(_mm_cvtsi128_si64(b)); }
inline uint64_t block_hi(Block b) { return static_cast<uint64_t>(_mm_extract_epi64(b, 1)); }
// ^, & and ^= on Block are GCC/Clang vector-extension operators (bitwise on all 128 bits).
// Not constant-time in the branch sense; use ct_equal() where secrets are compared.
inline bool block_equal(Block a, Block b) {
  return _mm_testz_si128(_mm_xor_si128(a, b), _mm_xor_si128(a, b)) != 0;
}

}  // namespace psi
