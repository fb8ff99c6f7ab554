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

void Aes128::encrypt_blocks(const Block* in, Block* out, size_t n) const {
  size_t i = 0;
  const Block k0 = rk_[0];
  for (; i + 8 <= n; i += 8)
    aes8_finish(load_block(in + i) ^ k0, load_block(in + i + 1) ^ k0, load_block(in + i + 2) ^ k0,
                load_block(in + i + 3) ^ k0, load_block(in + i + 4) ^ k0,
                load_block(in + i + 5) ^ k0, load_block(in + i + 6) ^ k0,
                load_block(in + i + 7) ^ k0, rk_, out + i);
  for (; i < n; ++i) out[i] = encrypt(in[i]);
}

void Aes128::ctr_blocks(uint64_t nonce_hi, uint64_t counter, Block* out, size_t n) const {
  size_t i = 0;
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
