// okvs.h — an oblivious key-value store (OKVS) with binary rows and GF(2^128) values: encode()
// finds a vector P of size() Blocks with decode(P, k_i) = v_i for every key, decode(P, k) is the
// XOR of the P entries that row(k) selects. The row of a key is fixed by the key and the 128-bit
// seed only (both PSI parties build the same Okvs from the run's instance), so decoding is linear in
// P: decode(P ^ Q, k) = decode(P, k) ^ decode(Q, k), which VOLE-based PSI relies on.
//
// Failure: for any set of n distinct keys, encode() fails with probability <= 2^-40 over the seed
// (the bound, its source and the parameters are in docs/protocols.md, "OKVS"); failure is
// PSI_ERR_CAPACITY, never a wrong P. Keys are opaque 16-byte values (tokens); they are hashed under
// the seed, so adversarially chosen keys gain nothing without the seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/block.h"
#include "../core/prg.h"
#include "../core/status.h"

namespace psi {

class Okvs {
 public:
  // For up to n keys (n may be 0), rows keyed by seed.
  Okvs(uint64_t n, Block seed);
  // Number of Blocks in an encoding (public, from n alone): m <= 1.3 n + O(log n + 40).
  uint64_t size() const;
  uint64_t capacity() const;  // n
  // Writes P (size() Blocks) with decode(P, keys[i]) == values[i] for i < count (count <=
  // capacity()). Positions no equation fixes are drawn from rng. Two equal keys are
  // PSI_ERR_INPUT naming both indices; an unsolvable system PSI_ERR_CAPACITY.
  Status encode(const Block* keys, const Block* values, size_t count, Block* P, Prg& rng) const;
  // out[i] = decode(P, keys[i]) for i < count; P has size() Blocks. Any count, any keys.
  void decode(const Block* P, const Block* keys, size_t count, Block* out) const;
  // Slow reference for tests: the row of `key` as the sorted list of selected positions.
  void row(Block key, uint64_t* positions, size_t cap, size_t* count) const;

 private:
  // (the OKVS engineer's: parameters derived from n and the seed; movable, no global state)
};

}  // namespace psi
