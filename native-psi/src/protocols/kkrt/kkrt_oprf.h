// kkrt_oprf.h — the batched OPRF of KKRT (BaRK-OPRF) beyond the OT-extension matrix:
//  * the pseudorandom code C(x, t): 512 bits, four AES-128 encryptions of the 128-bit element under
//    keys specific to the code index t (hash function, or the stash), so (x, t) != (x', t') give
//    independent codewords;
//  * the output hash H(j, v): v is a 512-bit row, j the OPRF instance; a chain of the fixed-key
//    correlation-robust hash (4 AES calls) so the output depends on all of v with no meet-in-the-
//    middle shortcut; its tweak also holds a 128-bit digest of the run's 256-bit instance, so
//    outputs of different runs are independent even for equal rows;
//  * the keyed element hash that drives cuckoo / simple hashing.
// Per-run keys: KkrtInstanceKeys derives, from the setup's shared seed (or a base-OT key) and the
// full 256-bit instance, every key a run uses (BLAKE2b-256 keyed by the secret, over a domain label
// and the instance), so two instances share no PRG key, code key or hash tweak.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../core/aes.h"
#include "../../core/block.h"
#include "../../cuckoo/cuckoo.h"

namespace psi {

constexpr uint32_t kMaxCodeIndex = 5;  // up to 4 hash functions + the stash

// inst_key = BLAKE2b-256(key = shared seed, "psi-flink kkrt v2 instance" || 0x00 || instance).
void kkrt_instance_key(const uint8_t shared_seed[32], const uint8_t instance[32], uint8_t out[32]);
// The column PRG key of one base-OT key for this run: BLAKE2b-256(key = ot_key,
// "psi-flink kkrt v2 column" || 0x00 || instance), truncated to 128 bits.
Block kkrt_column_key(Block ot_key, const uint8_t instance[32]);
// The output-hash tweak of this run: BLAKE2b(key = inst_key, "psi-flink kkrt v2 output tweak").
Block kkrt_output_tweak(const uint8_t inst_key[32]);

class KkrtCode {
 public:
  // Keys derived from the run's instance key (kkrt_instance_key).
  void init(const uint8_t inst_key[32]);
  // out[4i .. 4i+3] = C(xs[i], ts[i]) for i < n, ts[i] < kMaxCodeIndex. 16 AES in flight.
  void encode(const Block* xs, const uint8_t* ts, size_t n, Block* out) const;
  // Batched: hashes[i] for xs[i], i < n.
  void item_hashes(const Block* xs, size_t n, ItemHash* hashes) const;

 private:
  Aes128 code_[kMaxCodeIndex][4];
  Aes128 hash_[2];
};

// out[i] = H(tweak, js[i], v[4*i .. 4*i+3]) for i < n: the match tag (the masks compare its first
// mask_bytes). With proofs != nullptr also proofs[i], a second, independent hash of the same OPRF
// value: the chain state a before the last step gives tag = H(a) and proof = H(a ^ kProofTweak)
// (two tweaks of the tweakable correlation-robust hash), so the tag (which the receiver sees for
// every sender element) says nothing about the proof of an element the receiver does not hold.
// proofs[i] is the proof's first 8 bytes (little-endian), the claim proof of output=both.
void kkrt_output_hash(const FixedKeyHash& h, Block tweak, const uint64_t* js, const Block* v,
                      size_t n, Block* out, uint64_t* proofs = nullptr);

}  // namespace psi
