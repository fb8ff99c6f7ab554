// ff1.h — FF1 format-preserving encryption (NIST SP 800-38G Rev. 1, Algorithms 7 and 8) with
// AES-128: a keyed permutation of the numeral strings of one length and radix.
//
// Two implementations of the same function:
//   Ff1        the algorithm as specified: radix in [2, 2^16], n numerals with radix^ceil(n/2) <
//              2^64 (each Feistel half fits in 64 bits; then b <= 8, d <= 12 and NUM(S) < 2^96,
//              handled in unsigned __int128), any tweak length below 2^32. The reference.
//   Ff1Binary  radix 2, n bits in [kMinBits, kMaxBits], empty tweak, on integers: x in [0, 2^n)
//              stands for the numeral string STR^n_2(x) (most significant bit first) and the
//              result is NUM_2 of the output string. With t = 0 and b <= 4 the PRF input P || Q is
//              two blocks and d = 8, so each round is R = AES_K(AES_K(P) ^ Q_i): AES_K(P) is a
//              constant of (key, n) and a round costs one AES call; batches run 8 inputs side by
//              side so their AES calls pipeline (16, two per VAES instruction, when the CPU has
//              VAES; the Feistel arithmetic then runs in AVX2 lanes too).
// Both compute the same function (tests/ff1_test.cc, every n in [16, 36] and more); known answers
// from NIST's FF1samples (AES-128 samples 1-3).
//
// The caller owns SP 800-38G Rev. 1's domain-size requirement radix^minlen >= 10^6 (for radix 2:
// n >= 20); smaller domains work but are outside the standard's security claim.
// Ff1Binary is constant-time (no branch, memory index or division depends on the key or the input);
// Ff1 divides by radix^m and is meant for tests and small cold paths, not secrets under timing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aes.h"
#include "block.h"
#include "status.h"

namespace psi {

class Ff1 {
 public:
  static constexpr size_t kKeyBytes = 16;
  static constexpr uint32_t kMinRadix = 2;
  static constexpr uint32_t kMaxRadix = 1u << 16;

  // key: 16 bytes (AES-128).
  explicit Ff1(const uint8_t* key);
  ~Ff1();
  Ff1(const Ff1&) = delete;
  Ff1& operator=(const Ff1&) = delete;

  // in: n numerals, each < radix; out: n numerals (may alias in). tweak: tweak_len bytes (NULL
  // allowed when tweak_len is 0). PSI_ERR_ARGUMENT, out untouched, when radix is outside
  // [kMinRadix, kMaxRadix], n < 2, radix^ceil(n/2) >= 2^64, a numeral is >= radix, a pointer is
  // NULL or tweak_len >= 2^32.
  Status encrypt(uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
                 size_t tweak_len, uint32_t* out) const;
  Status decrypt(uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
                 size_t tweak_len, uint32_t* out) const;

 private:
  Status crypt(bool encrypt, uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
               size_t tweak_len, uint32_t* out) const;
  Aes128 aes_;
};

class Ff1Binary {
 public:
  static constexpr uint32_t kMinBits = 2;
  // b = ceil(ceil(n/2) / 8) <= 4 keeps Q in one block with d = 8 (NUM(S) is one 64-bit word).
  static constexpr uint32_t kMaxBits = 64;

  // The batch kernel: kAuto takes VAES when the CPU has it, kAesNi never (tests compare both).
  enum class Kernel { kAuto, kAesNi };

  // key: 16 bytes (AES-128). Precondition: bits in [kMinBits, kMaxBits]; callers validate it
  // (FilterPositions::create turns a bad value into PSI_ERR_ARGUMENT before getting here).
  Ff1Binary(const uint8_t* key, uint32_t bits, Kernel kernel = Kernel::kAuto);
  ~Ff1Binary();
  Ff1Binary(const Ff1Binary&) = delete;
  Ff1Binary& operator=(const Ff1Binary&) = delete;

  uint32_t bits() const { return bits_; }
  bool uses_vaes() const { return vaes_; }
  // x < 2^bits (higher bits are ignored). The result is < 2^bits.
  uint64_t encrypt(uint64_t x) const;
  uint64_t decrypt(uint64_t y) const;
  // out[i] = encrypt(in[i]) for i < count; in and out may alias.
  void encrypt_batch(const uint64_t* in, uint64_t* out, size_t count) const;

 private:
  Aes128 aes_;
  Block first_;  // AES_K(P) ^ round key 0: the CBC-MAC's first block, ready for the second
  uint32_t bits_, u_, v_, qshift_;
  uint64_t mask_u_, mask_v_;
  bool vaes_;
};

}  // namespace psi
