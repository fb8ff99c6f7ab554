#include "aes.h"

#include <immintrin.h>
#include <wmmintrin.h>

#include "../api/cpu.h"

namespace psi {
namespace {

template <int rcon>
inline Block expand_step(Block key) {
  Block t = _mm_aeskeygenassist_si128(key, rcon);
  t = _mm_shuffle_epi32(t, 0xFF);
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  return _mm_xor_si128(key, t);
}

}  // namespace

void Aes128::set_key(Block key) {
  rk_[0] = key;
  rk_[1] = expand_step<0x01>(rk_[0]);
  rk_[2] = expand_step<0x02>(rk_[1]);
  rk_[3] = expand_step<0x04>(rk_[2]);
  rk_[4] = expand_step<0x08>(rk_[3]);
  rk_[5] = expand_step<0x10>(rk_[4]);
  rk_[6] = expand_step<0x20>(rk_[5]);
  rk_[7] = expand_step<0x40>(rk_[6]);
  rk_[8] = expand_step<0x80>(rk_[7]);
  rk_[9] = expand_step<0x1B>(rk_[8]);
  rk_[10] = expand_step<0x36>(rk_[9]);
}

Block Aes128::encrypt(Block in) const {
  Block x = _mm_xor_si128(in, rk_[0]);
  for (int r = 1; r < 10; ++r) x = _mm_aesenc_si128(x, rk_[r]);
  return _mm_aesenclast_si128(x, rk_[10]);
}

// Eight blocks at a time keep the AES units' pipelines full. The eight states are named variables
// (GCC kept an array of them on the stack at -O2, which made this ~5x slower).

namespace {
// out[0..8) = AES(x0..x7) given states already xored with round key 0.
inline void aes8_finish(Block x0, Block x1, Block x2, Block x3, Block x4, Block x5, Block x6,
                        Block x7, const Block* rk, Block* out) {
  for (int r = 1; r < 10; ++r) {
    const Block k = rk[r];
    x0 = _mm_aesenc_si128(x0, k);
    x1 = _mm_aesenc_si128(x1, k);
    x2 = _mm_aesenc_si128(x2, k);
    x3 = _mm_aesenc_si128(x3, k);
    x4 = _mm_aesenc_si128(x4, k);
    x5 = _mm_aesenc_si128(x5, k);
    x6 = _mm_aesenc_si128(x6, k);
    x7 = _mm_aesenc_si128(x7, k);
  }
  const Block k = rk[10];
  store_block(out + 0, _mm_aesenclast_si128(x0, k));
  store_block(out + 1, _mm_aesenclast_si128(x1, k));
  store_block(out + 2, _mm_aesenclast_si128(x2, k));
  store_block(out + 3, _mm_aesenclast_si128(x3, k));
  store_block(out + 4, _mm_aesenclast_si128(x4, k));
  store_block(out + 5, _mm_aesenclast_si128(x5, k));
  store_block(out + 6, _mm_aesenclast_si128(x6, k));
  store_block(out + 7, _mm_aesenclast_si128(x7, k));
}
}  // namespace

// VAES on 256-bit registers: sixteen blocks in eight registers per step, twice the AES-NI
// throughput on cores that have it (the GGM kernel's reasoning, vole/ggm.cc). Each returns the
// number of blocks done (a multiple of 16); the caller finishes the rest with AES-NI. The counter
// form adds to the low 64 bits only, as make_block(nonce, counter + i) does.
namespace {
// out[0..16) = AES(x0..x7) (two blocks per register) given states already xored with round key 0;
// named registers, not an array, for the reason above.
__attribute__((target("vaes,avx2"), always_inline)) inline void aes16_vaes_finish(
    __m256i x0, __m256i x1, __m256i x2, __m256i x3, __m256i x4, __m256i x5, __m256i x6, __m256i x7,
    const Block* rk, Block* out) {
  for (int r = 1; r < 10; ++r) {
    const __m256i k = _mm256_broadcastsi128_si256(rk[r]);
    x0 = _mm256_aesenc_epi128(x0, k);
    x1 = _mm256_aesenc_epi128(x1, k);
    x2 = _mm256_aesenc_epi128(x2, k);
    x3 = _mm256_aesenc_epi128(x3, k);
    x4 = _mm256_aesenc_epi128(x4, k);
    x5 = _mm256_aesenc_epi128(x5, k);
    x6 = _mm256_aesenc_epi128(x6, k);
    x7 = _mm256_aesenc_epi128(x7, k);
  }
  const __m256i k = _mm256_broadcastsi128_si256(rk[10]);
  __m256i* o = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(o + 0, _mm256_aesenclast_epi128(x0, k));
  _mm256_storeu_si256(o + 1, _mm256_aesenclast_epi128(x1, k));
  _mm256_storeu_si256(o + 2, _mm256_aesenclast_epi128(x2, k));
  _mm256_storeu_si256(o + 3, _mm256_aesenclast_epi128(x3, k));
  _mm256_storeu_si256(o + 4, _mm256_aesenclast_epi128(x4, k));
  _mm256_storeu_si256(o + 5, _mm256_aesenclast_epi128(x5, k));
  _mm256_storeu_si256(o + 6, _mm256_aesenclast_epi128(x6, k));
  _mm256_storeu_si256(o + 7, _mm256_aesenclast_epi128(x7, k));
}

__attribute__((target("vaes,avx2"))) size_t encrypt_vaes(const Block* rk, const Block* in,
                                                         Block* out, size_t n) {
  const __m256i k0 = _mm256_broadcastsi128_si256(rk[0]);
  auto ld = [&](size_t i) {
    return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)), k0);
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    aes16_vaes_finish(ld(i), ld(i + 2), ld(i + 4), ld(i + 6), ld(i + 8), ld(i + 10), ld(i + 12),
                      ld(i + 14), rk, out + i);
  return i;
}

__attribute__((target("vaes,avx2"))) size_t ctr_vaes(const Block* rk, uint64_t nonce_hi,
                                                     uint64_t counter, Block* out, size_t n) {
  const __m256i k0 = _mm256_broadcastsi128_si256(rk[0]);
  const __m256i nonce = _mm256_set1_epi64x(static_cast<long long>(nonce_hi));
  // the blocks (nonce, c + j) and (nonce, c + j + 1), xored with round key 0
  auto ctr = [&](uint64_t c) {
    const __m256i lo =
        _mm256_setr_epi64x(static_cast<long long>(c), 0, static_cast<long long>(c + 1), 0);
    return _mm256_xor_si256(_mm256_blend_epi32(lo, nonce, 0xCC), k0);
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const uint64_t c = counter + i;
    aes16_vaes_finish(ctr(c), ctr(c + 2), ctr(c + 4), ctr(c + 6), ctr(c + 8), ctr(c + 10),
                      ctr(c + 12), ctr(c + 14), rk, out + i);
  }
  return i;
}

}  // namespace

void Aes128::encrypt_blocks(const Block* in, Block* out, size_t n) const {
  size_t i = n >= 16 && cpu_has_vaes() ? encrypt_vaes(rk_, in, out, n) : 0;
  const Block k0 = rk_[0];
  for (; i + 8 <= n; i += 8)
    aes8_finish(load_block(in + i) ^ k0, load_block(in + i + 1) ^ k0, load_block(in + i + 2) ^ k0,
                load_block(in + i + 3) ^ k0, load_block(in + i + 4) ^ k0,
                load_block(in + i + 5) ^ k0, load_block(in + i + 6) ^ k0,
                load_block(in + i + 7) ^ k0, rk_, out + i);
  for (; i < n; ++i) out[i] = encrypt(in[i]);
}

void Aes128::ctr_blocks(uint64_t nonce_hi, uint64_t counter, Block* out, size_t n) const {
  size_t i = n >= 16 && cpu_has_vaes() ? ctr_vaes(rk_, nonce_hi, counter, out, n) : 0;
  const Block k0 = rk_[0];
  for (; i + 8 <= n; i += 8) {
    const uint64_t c = counter + i;
    aes8_finish(make_block(nonce_hi, c) ^ k0, make_block(nonce_hi, c + 1) ^ k0,
                make_block(nonce_hi, c + 2) ^ k0, make_block(nonce_hi, c + 3) ^ k0,
                make_block(nonce_hi, c + 4) ^ k0, make_block(nonce_hi, c + 5) ^ k0,
                make_block(nonce_hi, c + 6) ^ k0, make_block(nonce_hi, c + 7) ^ k0, rk_, out + i);
  }
  for (; i < n; ++i) out[i] = encrypt(make_block(nonce_hi, counter + i));
}

FixedKeyHash::FixedKeyHash() : aes_(zero_block()) {}

Block FixedKeyHash::hash(Block x) const {
  Block s = sigma(x);
  return aes_.encrypt(s) ^ s;
}

void FixedKeyHash::hash_blocks(const Block* in, Block* out, size_t n) const {
  constexpr size_t kStep = 64;
  Block s[kStep];
  for (size_t i = 0; i < n; i += kStep) {
    size_t m = n - i < kStep ? n - i : kStep;
    for (size_t j = 0; j < m; ++j) s[j] = sigma(in[i + j]);
    aes_.encrypt_blocks(s, out + i, m);
    for (size_t j = 0; j < m; ++j) out[i + j] ^= s[j];
  }
}

}  // namespace psi
