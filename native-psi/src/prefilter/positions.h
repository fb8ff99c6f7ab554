// positions.h — where a token's bits go in the server-aided prefilter's Bloom filter (issue 14,
// docs/protocols.md "Prefilter positions (FF1)").
//
// A filter has 2^L bits (L = filter_bits in [16, 36]) and k hash positions (k = hashes in
// [1, 16]). The k positions of a 16-byte token t are
//     p_j(t) = FF1_K1(h_j(t)),  j < k,
// FF1 on L-bit strings (radix 2, empty tweak; Ff1Binary), so each party sets (and tests) the bits
// of the PERMUTED filter directly. Key: 32 bytes, K1 = key[0..16) (FF1), K2 = key[16..32) (hash).
//
// h(t), exactly: nb = ceil(k*L / 128) blocks H_i = AES_{K2_i}(t), i < nb, under the subkeys
// K2_i = AES_K2(i) (i as a 16-byte big-endian integer). H = H_0 || H_1 || ... read as one
// little-endian integer (byte 0 of H_0 least significant) and h_j(t) = (H >> (j*L)) mod 2^L.
// Why subkeys rather than one key and a tweak (AES_K2(t ^ c_i)): a tweak xored into t relates
// tokens (t' = t ^ c_i ^ c_j gives H_j(t') = H_i(t)); independent keys relate nothing, each block
// is its own PRP of t. nb is 1 for every k*L <= 128 (k = 3 up to L = 42), so the usual cost is one
// AES call per token plus ten per position (FF1's rounds).
//
// Output: token-major, out[i*k + j] = p_j(token i), each < 2^L. Deterministic in (key, L, k, t).
// Thread-safe after construction (no mutable state); constant-time in the tokens and the key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "../core/aes.h"
#include "../core/ff1.h"
#include "../core/status.h"

namespace psi {

class FilterPositions {
 public:
  static constexpr size_t kKeyBytes = 32;
  static constexpr size_t kTokenBytes = 16;
  static constexpr uint32_t kMinBits = 16;
  static constexpr uint32_t kMaxBits = 36;
  static constexpr uint32_t kMinHashes = 1;
  static constexpr uint32_t kMaxHashes = 16;
  // ceil(kMaxHashes * kMaxBits / 128)
  static constexpr size_t kMaxBlocks = (kMaxHashes * kMaxBits + 127) / 128;

  // PSI_ERR_ARGUMENT naming the cause for a NULL key or out, key_len != 32, bits or hashes out of
  // range.
  static Status create(const uint8_t* key, size_t key_len, uint32_t bits, uint32_t hashes,
                       std::unique_ptr<FilterPositions>* out);
  ~FilterPositions();
  FilterPositions(const FilterPositions&) = delete;
  FilterPositions& operator=(const FilterPositions&) = delete;

  uint32_t bits() const { return bits_; }
  uint32_t hashes() const { return hashes_; }
  // Whether FF1 runs on the VAES kernel (Ff1Binary::Kernel::kAuto on a CPU with VAES).
  bool uses_vaes() const { return ff1_.uses_vaes(); }

  // tokens: count * 16 bytes; out: count * hashes() positions (see above). Lengths are the
  // caller's (the C ABI checks them).
  void positions(const uint8_t* tokens, size_t count, uint64_t* out) const;

 private:
  FilterPositions(const uint8_t* key, uint32_t bits, uint32_t hashes);
  Ff1Binary ff1_;
  Aes128 hash_[kMaxBlocks];
  uint32_t bits_, hashes_;
  size_t blocks_;
};

}  // namespace psi
