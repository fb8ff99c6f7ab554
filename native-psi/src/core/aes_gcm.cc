#include "aes_gcm.h"

#include <tmmintrin.h>

#include <algorithm>
#include <cstring>

#include "aes.h"
#include "bytes.h"
#include "gf128.h"
#include "prg.h"

namespace psi {
namespace {

// GCM numbers the bits of a block from the most significant bit of byte 0 (the coefficient of
// X^0); gf128.h from the least significant: reversing the bits of every byte maps one onto the
// other (the field polynomial is the same).
inline Block reflect(Block x) {
  const Block lo_mask = _mm_set1_epi8(0x0f);
  const Block rev =
      _mm_setr_epi8(0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe, 0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf);
  const Block lo = _mm_and_si128(x, lo_mask);
  const Block hi = _mm_and_si128(_mm_srli_epi16(x, 4), lo_mask);
  return _mm_or_si128(_mm_slli_epi16(_mm_shuffle_epi8(rev, lo), 4), _mm_shuffle_epi8(rev, hi));
}

// The counter block with 32-bit big-endian counter i after the zero nonce.
inline Block counter(uint32_t i) { return _mm_set_epi32(int(__builtin_bswap32(i)), 0, 0, 0); }

// XORs n <= 128 bytes of keystream ks into in, writing out: whole blocks as blocks.
inline void xor_keystream(const uint8_t* in, const Block* ks, size_t n, uint8_t* out) {
  size_t j = 0;
  for (; j + 16 <= n; j += 16) store_block(out + j, load_block(in + j) ^ ks[j / 16]);
  const uint8_t* k = reinterpret_cast<const uint8_t*>(ks);
  for (; j < n; ++j) out[j] = in[j] ^ k[j];
}

// One message's key: its hash key, E(J0) and (for short messages, in the same AES batch) the
// first six keystream blocks.
struct Gcm {
  Aes128 aes;
  Block h, ej0;  // the hash key in gf128.h's bit order; E(J0)
  Block ks[6];   // E(counter 2 .. 7)
  explicit Gcm(const uint8_t key[16]) : aes(load_block(key)) {
    Block in[8] = {zero_block(), counter(1), counter(2), counter(3),
                   counter(4),   counter(5), counter(6), counter(7)},
          o[8];
    aes.encrypt_blocks(in, o, 8);
    h = reflect(o[0]);
    ej0 = o[1];
    for (int b = 0; b < 6; ++b) ks[b] = o[2 + b];
    secure_wipe(o, sizeof o);
  }
  ~Gcm() {
    secure_wipe(&h, sizeof h);
    secure_wipe(&ej0, sizeof ej0);
    secure_wipe(ks, sizeof ks);
  }

  // Xors the keystream (counters 2, 3, ...) into in, writing out.
  void ctr(const uint8_t* in, size_t len, uint8_t* out) const {
    const size_t first = std::min<size_t>(len, 96);
    xor_keystream(in, ks, first, out);
    Block more[8], cb[8];
    for (size_t off = 96, i = 8; off < len; off += 128) {
      const size_t blocks = std::min<size_t>(8, (len - off + 15) / 16);
      for (size_t b = 0; b < blocks; ++b) cb[b] = counter(uint32_t(i++));
      aes.encrypt_blocks(cb, more, blocks);
      xor_keystream(in + off, more, std::min<size_t>(128, len - off), out + off);
    }
    secure_wipe(more, sizeof more);
  }

  // The tag of ciphertext c: E(J0) ^ GHASH(c | 0-pad | len(A) = 0 | len(c) in bits).
  void tag(const uint8_t* c, size_t len, uint8_t out[16]) const {
    Block x = zero_block();
    size_t off = 0;
    for (; off + 16 <= len; off += 16) x = gf128_mul(x ^ reflect(load_block(c + off)), h);
    if (off < len) {
      uint8_t last[16] = {0};
      std::memcpy(last, c + off, len - off);
      x = gf128_mul(x ^ reflect(load_block(last)), h);
    }
    const uint64_t bits = uint64_t(len) * 8;
    uint8_t lb[16] = {0};
    for (int b = 0; b < 8; ++b) lb[15 - b] = uint8_t(bits >> (8 * b));
    x = gf128_mul(x ^ reflect(load_block(lb)), h);
    store_block(out, reflect(x) ^ ej0);
  }
};

}  // namespace

void aes128gcm_seal(const uint8_t key[16], const uint8_t* plain, size_t len, uint8_t* out) {
  Gcm g(key);
  g.ctr(plain, len, out);
  g.tag(out, len, out + len);
}

bool aes128gcm_open(const uint8_t key[16], const uint8_t* sealed, size_t len, uint8_t* out) {
  Gcm g(key);
  uint8_t t[16];
  g.tag(sealed, len, t);
  const bool ok = ct_equal(t, sealed + len, 16);
  if (ok) g.ctr(sealed, len, out);
  return ok;
}

}  // namespace psi
