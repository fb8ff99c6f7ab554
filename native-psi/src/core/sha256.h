// sha256.h — the SHA-256 compression function (FIPS 180-4), on the CPU's SHA extensions where it
// has them (SHA-NI, chosen once at run time) and in portable C++ elsewhere. Only what HMAC with
// precomputed key states needs (token/token_prf.h): no streaming context, no padding here.
//
// state: the eight 32-bit chaining words H0..H7 in native order. blocks: n 64-byte blocks, any
// alignment. Both kernels give identical results (tests/token_prf_test.cc checks them against each
// other and against OpenSSL). Constant-time: no branch or index depends on the data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace psi {

struct Sha256 {
  static constexpr uint32_t kInit[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  // The kernel chosen for this CPU.
  static void compress(uint32_t state[8], const uint8_t* blocks, size_t n);
  static void compress_portable(uint32_t state[8], const uint8_t* blocks, size_t n);
  // Requires has_sha_ni().
  static void compress_sha_ni(uint32_t state[8], const uint8_t* blocks, size_t n);
  // One block into each of two independent states at once: the SHA instructions' latency, not
  // their throughput, bounds one chain, so two interleaved chains take little more than one.
  static void compress_pair(uint32_t a[8], const uint8_t* block_a, uint32_t b[8],
                            const uint8_t* block_b);
  static bool has_sha_ni();
};

}  // namespace psi
