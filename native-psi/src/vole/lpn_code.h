// lpn_code.h — the linear code that turns a sparse VOLE into a pseudorandom one (dual LPN with
// regular noise): an F2-linear compression H: F^N -> F^m applied to GF(2^128) vectors (Blocks), so
// that for w = v + e*Delta (e sparse, regular: one non-zero per noise block), H(w) = H(v) + H(e)*Delta
// and H(e) is pseudorandom under the LPN assumption for this code family.
//
// The code: expand-convolute ("ExConv", Raghuraman, Rindal, Tanguy, Crypto 2023) or
// expand-accumulate (Boyle et al., Crypto 2022) with a published security argument, NOT Silver.
// The choice, the parameters (expansion, expander weight, convolution/accumulator width, noise
// weight t for 128-bit security) and their sources are in docs/protocols.md, "LPN code".
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/block.h"

namespace psi {

// Public shape of one silent VOLE: m outputs from a sparse vector of N = t * 2^depth entries with t
// noise positions, one per block of 2^depth entries (regular noise), 128-bit security.
struct LpnShape {
  uint64_t m = 0;          // VOLE outputs
  uint64_t N = 0;          // code length = t << depth, >= expansion * m
  uint64_t t = 0;          // noise weight (number of GGM trees)
  uint32_t depth = 0;      // log2 of the noise block (GGM tree depth), >= 1
};

// The shape for m outputs (1 <= m <= 2^26), deterministic in m.
LpnShape lpn_shape(uint64_t m);

class LpnCode {
 public:
  // The code for `shape`, its randomness (expander positions, convolution coefficients) from seed.
  LpnCode(const LpnShape& shape, Block seed);
  const LpnShape& shape() const;
  // In place: x has shape().N Blocks; afterwards x[0 .. m) = H(x) and the rest is scratch.
  void dual_encode(Block* x) const;
  // The same map on two vectors at once (the VOLE receiver encodes its noise and its leaves).
  void dual_encode2(Block* x, Block* y) const;
  // (private members are the LPN engineer's; tests check dual_encode against a dense matrix built
  // from the code's definition at small sizes)
};

}  // namespace psi
