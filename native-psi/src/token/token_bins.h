// token_bins.h — the bins of tokens (docs/private-join.md, step 3): a token's bin is
// SipHash-2-4_s(le64(hi) || le64(lo)) mod m, s the session's 16-byte bin key, hi and lo the token's
// big-endian halves as the token PRF writes them, hi with its top bit cleared (the Java side's
// token). SipHash-2-4 with 64-bit output, as in Aumasson and Bernstein's reference implementation
// (the key as little-endian k0 || k1). Batched beside the token PRF: the JVM's client compiler
// spent about 50 ns a token on it. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace psi {

// SipHash-2-4 of len bytes at m under the 16-byte key.
uint64_t siphash24(const uint8_t key[16], const uint8_t* m, size_t len);

// out[i] = the bin of tokens[16i, 16i+16) among bins (> 0), for i < count.
void token_bins(const uint8_t key[16], const uint8_t* tokens, size_t count, uint32_t bins,
                uint32_t* out);

}  // namespace psi
