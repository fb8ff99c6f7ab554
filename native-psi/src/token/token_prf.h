// token_prf.h — the token PRF of the private join (docs/private-join.md, step 2): for each
// canonical key encoding m, HMAC-SHA256_k(m) truncated to its first 16 bytes, k the session's
// 32-byte token key. Batched, so that the JVM pays one call per few thousand keys, and computed
// from the key's two precomputed HMAC states (ipad and opad), so that a key of up to 55 bytes costs
// two SHA-256 compressions (on SHA-NI where the CPU has it, sha256.h), two keys' chains
// interleaved.
//
// The same function as javax.crypto.Mac "HmacSHA256" truncated (the Java side clears the top bit
// of the result, as it always did, so tokens are unchanged). Thread-safe after construction (no
// mutable state); constant-time in the key and the messages' contents (lengths are public to the
// party computing them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "../core/status.h"

namespace psi {

class TokenPrf {
 public:
  static constexpr size_t kKeyBytes = 32;
  static constexpr size_t kOutBytes = 16;

  // PSI_ERR_ARGUMENT naming the cause for a NULL key or out, or key_len != 32.
  static Status create(const uint8_t* key, size_t key_len, std::unique_ptr<TokenPrf>* out);
  ~TokenPrf();
  TokenPrf(const TokenPrf&) = delete;
  TokenPrf& operator=(const TokenPrf&) = delete;

  // Message i is data[ends[i-1], ends[i]) (ends[-1] = 0); out[16i, 16i+16) gets its PRF value.
  // The caller checks that ends is non-decreasing and within data (the C ABI does).
  void compute(const uint8_t* data, const uint32_t* ends, size_t count, uint8_t* out) const;

 private:
  static constexpr size_t kScratchBytes = 192;
  explicit TokenPrf(const uint8_t* key);
  void one(const uint8_t* m, size_t len, uint8_t* out, uint8_t* scratch) const;
  void pair(const uint8_t* m0, size_t len0, const uint8_t* m1, size_t len1, uint8_t* out,
            uint8_t* scratch) const;
  uint32_t inner_[8];  // SHA-256 state after (k || 0^32) XOR ipad
  uint32_t outer_[8];  // ... after (k || 0^32) XOR opad
};

}  // namespace psi
