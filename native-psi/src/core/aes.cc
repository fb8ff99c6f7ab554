#include "aes.h"

#include <wmmintrin.h>

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

// Eight blocks at a time keep the AES units' pipelines full.
void Aes128::encrypt_blocks(const Block* in, Block* out, size_t n) const {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Block x[8];
    for (int j = 0; j < 8; ++j) x[j] = _mm_xor_si128(in[i + j], rk_[0]);
    for (int r = 1; r < 10; ++r)
      for (int j = 0; j < 8; ++j) x[j] = _mm_aesenc_si128(x[j], rk_[r]);
    for (int j = 0; j < 8; ++j) out[i + j] = _mm_aesenclast_si128(x[j], rk_[10]);
  }
  for (; i < n; ++i) out[i] = encrypt(in[i]);
}

void Aes128::ctr_blocks(uint64_t nonce_hi, uint64_t counter, Block* out, size_t n) const {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Block x[8];
    for (int j = 0; j < 8; ++j) x[j] = _mm_xor_si128(make_block(nonce_hi, counter + i + j), rk_[0]);
    for (int r = 1; r < 10; ++r)
      for (int j = 0; j < 8; ++j) x[j] = _mm_aesenc_si128(x[j], rk_[r]);
    for (int j = 0; j < 8; ++j) out[i + j] = _mm_aesenclast_si128(x[j], rk_[10]);
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
