// lpn_code.h — the linear code that turns a sparse VOLE into a pseudorandom one (dual LPN with
// regular noise): an F2-linear compression H: F^N -> F^m applied to GF(2^128) vectors (Blocks), so
// that for w = v + e*Delta (e sparse, regular: one non-zero per noise block), H(w) = H(v) +
// H(e)*Delta and H(e) is pseudorandom under the LPN assumption for this code family.
//
// The code: expand-convolute ("ExConv", Raghuraman, Rindal, Tanguy, Crypto 2023) or
// expand-accumulate (Boyle et al., Crypto 2022) with a published security argument, NOT Silver.
// The choice, the parameters (expansion, expander weight, convolution/accumulator width, noise
// weight t for 128-bit security) and their sources are in docs/protocols.md, "LPN code".
//
// Implemented: ExConv7x24, systematic, rate 1/2 (Raghuraman-Rindal-Tanguy 2023, as libOTe's
// ExConv7x24). With P = N - m and x = (s, p), s = x[0 .. m), p = x[m .. N):
//   H(x) = s + B * C2 * C1 * p
// * C_c (c = 1, 2) is one in-place pass of a recursive convolution of width 24 over p, cyclic:
//     for i = 0 .. P-1 in order: for j = 1 .. 24: if bit j-1 of r_c[i]: p[(i+j) mod P] ^= p[i];
//                                then p[(i+25) mod P] ^= p[i]
//   r_c[i] = i-th little-endian uint32 of Prg(conv_seed_c) (bits 24..31 unused). Up to the wrap
//   this is the accumulator generalised (p := (I + R)^-1 p with R strictly lower triangular, band
//   25).
// * B (m x P) has row weight 7: for row r, columns j*(P/4) + U(r_j, P/4) for j = 0 .. 3 (one per
//   quarter: the "regular" part) and U(r_j, P) for j = 4 .. 6, where r_j is the r-th uint64 of
//   Prg(expander_seed, stream j) and U(r, b) = (r * b) >> 64 (128-bit product). Repeated columns
//   cancel (entries are summed in F2).
// * conv_seed_1, conv_seed_2, expander_seed are the first three blocks of Prg(seed).
// The noise weight: t >= 848 = -128 / log2(1 - 0.1) rounded up to a multiple of 8: a linear test
// whose codeword has relative weight >= delta = 0.1 (ExConv7x24's minimum distance as published)
// misses all t regular noise positions with probability <= (1 - delta)^t <= 2^-128, and over
// GF(2^128) a test that hits one is unbiased. (libOTe's (1 - 2 delta)^t, t >= 400, is the F2 bias.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/block.h"

namespace psi {

// Public shape of one silent VOLE: m outputs from a sparse vector of N = t * 2^depth entries with t
// noise positions, one per block of 2^depth entries (regular noise), 128-bit security.
struct LpnShape {
  uint64_t m = 0;      // VOLE outputs
  uint64_t N = 0;      // code length = t << depth, >= expansion * m
  uint64_t t = 0;      // noise weight (number of GGM trees)
  uint32_t depth = 0;  // log2 of the noise block (GGM tree depth), >= 1
};

// The shape for m outputs (1 <= m <= 2^26), deterministic in m.
LpnShape lpn_shape(uint64_t m);

class LpnCode {
 public:
  // The code for `shape`, its randomness (expander positions, convolution coefficients) from seed.
  // Any shape with N > m encodes by the definition; only lpn_shape's are the secure ones.
  LpnCode(const LpnShape& shape, Block seed);
  const LpnShape& shape() const;
  // In place: x has shape().N Blocks; afterwards x[0 .. m) = H(x) and the rest is scratch.
  // Cost: two streaming passes over x[m .. N) and 7m random reads of it, which dominate at large m:
  // allocate x with transparent huge pages (madvise(MADV_HUGEPAGE) before the first touch), 2.4x
  // faster at m = 2^24 on the reference machine.
  void dual_encode(Block* x) const;
  // The same map on two vectors at once (the VOLE receiver encodes its noise and its leaves).
  // Allocates floor((N - m) / 2) Blocks of scratch (N/4 when m is a power of two).
  void dual_encode2(Block* x, Block* y) const;
  // (tests check dual_encode against a dense matrix built from the code's definition above)

  // Code parameters (public so that tests and docs can cite them).
  static constexpr uint32_t kExpanderWeight = 7;
  static constexpr uint32_t kRegularWeight = 4;  // of the 7: one per quarter of p
  static constexpr uint32_t kConvWidth = 24;     // random band; plus a fixed 1 at distance 25
  static constexpr uint64_t kMinNoiseWeight = 848;

 private:
  template <int kVectors>
  void encode(Block* x, Block* y) const;

  LpnShape shape_;
  Block conv_seed_[2];
  Block expander_seed_;
};

}  // namespace psi
