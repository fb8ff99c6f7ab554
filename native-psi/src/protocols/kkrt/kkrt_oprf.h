// kkrt_oprf.h — the batched OPRF of KKRT (BaRK-OPRF) beyond the OT-extension matrix:
//  * the pseudorandom code C(x, t): 512 bits, four AES-128 encryptions of the 128-bit element under
//    keys specific to the code index t (hash function, or the stash), so (x, t) != (x', t') give
//    independent codewords;
//  * the output hash H(j, v): v is a 512-bit row, j the OPRF instance; a chain of the fixed-key
//    correlation-robust hash (4 AES calls) so the output depends on all of v with no meet-in-the-
//    middle shortcut;
//  * the keyed element hash that drives cuckoo / simple hashing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../core/aes.h"
#include "../../core/block.h"
#include "../../cuckoo/cuckoo.h"

namespace psi {

constexpr uint32_t kMaxCodeIndex = 5;  // up to 4 hash functions + the stash

class KkrtCode {
 public:
  // Keys derived from the setup's shared seed and the run's instance.
  void init(const uint8_t shared_seed[32], uint64_t instance);
  // out[4i .. 4i+3] = C(xs[i], ts[i]) for i < n, ts[i] < kMaxCodeIndex. 16 AES in flight.
  void encode(const Block* xs, const uint8_t* ts, size_t n, Block* out) const;
  // Batched: hashes[i] for xs[i], i < n.
  void item_hashes(const Block* xs, size_t n, ItemHash* hashes) const;

 private:
  Aes128 code_[kMaxCodeIndex][4];
  Aes128 hash_[2];
};

// out[i] = H(js[i], v[4*i .. 4*i+3]) for i < n.
void kkrt_output_hash(const FixedKeyHash& h, const uint64_t* js, const Block* v, size_t n,
                      Block* out);

}  // namespace psi
