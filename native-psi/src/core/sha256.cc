#include "sha256.h"

#include <cpuid.h>
#include <immintrin.h>

namespace psi {

namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

// CPUID leaf 7, EBX bit 29 (read directly, as cpu.cc does for VAES).
bool detect_sha_ni() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)) != 0 &&
         __builtin_cpu_supports("sse4.1");
}

}  // namespace

bool Sha256::has_sha_ni() {
  static const bool v = detect_sha_ni();
  return v;
}

void Sha256::compress(uint32_t state[8], const uint8_t* blocks, size_t n) {
  if (has_sha_ni()) {
    compress_sha_ni(state, blocks, n);
  } else {
    compress_portable(state, blocks, n);
  }
}

void Sha256::compress_portable(uint32_t state[8], const uint8_t* blocks, size_t n) {
  for (; n > 0; --n, blocks += 64) {
    uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = load_be32(blocks + 4 * t);
    for (int t = 16; t < 64; ++t) {
      const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
      const uint32_t t1 =
          h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[t] + w[t];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

// The SHA extensions keep the state as ABEF and CDGH and take the message four words at a time:
// sha256msg1/msg2 extend the schedule, sha256rnds2 does two rounds with the low two words of
// (W + K). Compiled for the extensions by attribute: the library's baseline flags lack them.
#define PSI_SHA_TARGET __attribute__((target("sha,sse4.1,ssse3"), always_inline)) inline

namespace {

struct ShaLanes {
  __m128i abef, cdgh;
};

PSI_SHA_TARGET ShaLanes sha_load(const uint32_t state[8]) {
  __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));     // DCBA
  __m128i s1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));  // HGFE
  tmp = _mm_shuffle_epi32(tmp, 0xB1);                                         // CDAB
  s1 = _mm_shuffle_epi32(s1, 0x1B);                                           // EFGH
  return {_mm_alignr_epi8(tmp, s1, 8), _mm_blend_epi16(s1, tmp, 0xF0)};       // ABEF, CDGH
}

PSI_SHA_TARGET void sha_store(const ShaLanes& s, uint32_t state[8]) {
  const __m128i tmp = _mm_shuffle_epi32(s.abef, 0x1B);   // FEBA
  const __m128i dchg = _mm_shuffle_epi32(s.cdgh, 0xB1);  // DCHG
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(tmp, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, tmp, 8));
}

// Rounds 4g..4g+3 of one chain, extending its schedule m first when g >= 4.
PSI_SHA_TARGET void sha_group(ShaLanes& s, __m128i m[4], int g, const uint8_t* block) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  if (g < 4) {
    m[g] =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * g)), bswap);
  } else {
    // W[t..t+3] from W[t-16..t-1]: msg1 adds sigma0, alignr picks W[t-7..t-4], msg2 sigma1
    const __m128i w = _mm_add_epi32(_mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]),
                                    _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
    m[g & 3] = _mm_sha256msg2_epu32(w, m[(g + 3) & 3]);
  }
  __m128i wk =
      _mm_add_epi32(m[g & 3], _mm_loadu_si128(reinterpret_cast<const __m128i*>(kRound + 4 * g)));
  s.cdgh = _mm_sha256rnds2_epu32(s.cdgh, s.abef, wk);
  wk = _mm_shuffle_epi32(wk, 0x0E);
  s.abef = _mm_sha256rnds2_epu32(s.abef, s.cdgh, wk);
}

}  // namespace

__attribute__((target("sha,sse4.1,ssse3"))) void Sha256::compress_sha_ni(uint32_t state[8],
                                                                         const uint8_t* blocks,
                                                                         size_t n) {
  ShaLanes s = sha_load(state);
  for (; n > 0; --n, blocks += 64) {
    const ShaLanes saved = s;
    __m128i m[4];
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) sha_group(s, m, g, blocks);
    s.abef = _mm_add_epi32(s.abef, saved.abef);
    s.cdgh = _mm_add_epi32(s.cdgh, saved.cdgh);
  }
  sha_store(s, state);
}

__attribute__((target("sha,sse4.1,ssse3"))) static void compress_pair_sha_ni(
    uint32_t a[8], const uint8_t* block_a, uint32_t b[8], const uint8_t* block_b) {
  ShaLanes sa = sha_load(a), sb = sha_load(b);
  const ShaLanes saved_a = sa, saved_b = sb;
  __m128i ma[4], mb[4];
#pragma GCC unroll 16
  for (int g = 0; g < 16; ++g) {
    sha_group(sa, ma, g, block_a);
    sha_group(sb, mb, g, block_b);
  }
  sa.abef = _mm_add_epi32(sa.abef, saved_a.abef);
  sa.cdgh = _mm_add_epi32(sa.cdgh, saved_a.cdgh);
  sb.abef = _mm_add_epi32(sb.abef, saved_b.abef);
  sb.cdgh = _mm_add_epi32(sb.cdgh, saved_b.cdgh);
  sha_store(sa, a);
  sha_store(sb, b);
}

void Sha256::compress_pair(uint32_t a[8], const uint8_t* block_a, uint32_t b[8],
                           const uint8_t* block_b) {
  if (has_sha_ni()) {
    compress_pair_sha_ni(a, block_a, b, block_b);
  } else {
    compress_portable(a, block_a, 1);
    compress_portable(b, block_b, 1);
  }
}

}  // namespace psi
