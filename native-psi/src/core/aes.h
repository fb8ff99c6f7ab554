// aes.h — AES-128 with AES-NI (batches on VAES when the CPU has it): keyed encryption for PRGs and
// fixed-key use as a correlation-robust hash. Encryption only (no decryption is needed anywhere).
// Known-answer tests: tests/aes_test.cc.
#pragma once

#include <cstddef>

#include "block.h"

namespace psi {

class Aes128 {
 public:
  Aes128() = default;
  explicit Aes128(Block key) { set_key(key); }
  void set_key(Block key);
  Block encrypt(Block in) const;
  // out[i] = AES_k(in[i]) for i < n; in and out may alias.
  void encrypt_blocks(const Block* in, Block* out, size_t n) const;
  // out[i] = AES_k(base + i) (128-bit little-endian counter add on the low 64 bits) for i < n.
  void ctr_blocks(uint64_t nonce_hi, uint64_t counter, Block* out, size_t n) const;
  // The 11 round keys, for callers that interleave encryptions under different keys.
  const Block* round_keys() const { return rk_; }

 private:
  Block rk_[11];
};

// The fixed-key permutation pi(x) = AES_0(x) used for hashing (Guo et al. "Efficient and Secure
// Multiparty Computation from Fixed-Key Block Ciphers"): H(x) = pi(sigma(x)) ^ sigma(x), with
// sigma(x) = (hi ^ lo, hi) a linear orthomorphism. Tweakable correlation-robust hash, one AES call.
class FixedKeyHash {
 public:
  FixedKeyHash();
  Block hash(Block x) const;
  // out[i] = H(in[i]) for i < n (callers fold their tweak into the input).
  void hash_blocks(const Block* in, Block* out, size_t n) const;

 private:
  Aes128 aes_;
};

inline Block sigma(Block x) {
  // (x_hi ^ x_lo, x_hi): swap halves, then xor the (former) high half into the low one.
  Block swapped = _mm_shuffle_epi32(x, 0x4E);  // (lo, hi)
  Block hi_only = _mm_and_si128(x, _mm_set_epi64x(-1, 0));
  return _mm_xor_si128(swapped, hi_only);
}

}  // namespace psi
