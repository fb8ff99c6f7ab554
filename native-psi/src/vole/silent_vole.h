// silent_vole.h — one silent VOLE over GF(2^128) (semi-honest), from correlated OTs:
//   receiver gets a, c (m Blocks each), sender gets b (m Blocks) with c[i] = b[i] ^ a[i] * Delta,
//   where Delta is the sender's IKNP Delta and a is pseudorandom (the receiver's OKVS mask in PSI).
// Construction (Boyle et al. CCS 2019 / Weng et al. "Wolverine" S&P 2021, as in libOTe's
// SilentVole):
//   * base VOLEs: for each of the t noise blocks, 128 correlated OTs packed (gf128_pack) give the
//     receiver beta_i, c_i and the sender b_i with c_i = b_i ^ beta_i * Delta (beta_i = the packed
//     random choice bits);
//   * punctured PRFs: the sender expands one GGM tree per noise block (2^depth leaves, fixed-key
//     AES length-doubling PRG, vole/ggm.h); for each level it sends the XORs of all left and of all
//     right children, each masked with H(q_j) / H(q_j ^ Delta) of one correlated OT whose choice
//     bit is the negated bit of the receiver's noise position alpha_i at that level; and
//     d_i = XOR of all leaves ^ b_i, from which the receiver completes its leaf at alpha_i to
//     v[alpha_i] ^ beta_i * Delta;
//   * the LPN code (lpn_code.h) compresses the sparse correlation w = v + e*Delta to length m.
// Messages: the correlated OTs come from the caller (IKNP, one run for all pieces); the sender's
// message per piece is message_bytes() long. Every piece of a run has its own tweak (piece index),
// hashed into every H call, so pieces and runs are independent.
// As built:
//   * OT layout of a piece: GGM OT of tree i, level l (l = 0 at the root) is OT i * depth + l; base
//     VOLE i uses OTs t * depth + 128 * i + k, k < 128. alpha's bit depth-1-l is the path's turn at
//     level l (leaf index = the turns read from the most significant bit).
//   * message: per tree i, for l < depth: 16 bytes left sum ^ H(q_j, tw_j), 16 bytes right sum ^
//     H(q_j ^ Delta, tw_j); then 16 bytes d_i. t * (32 * depth + 16) bytes in all.
//   * H is Guo et al.'s TCCR H(x, i) = pi(pi(x) ^ i) ^ pi(x), pi fixed-key AES; the tweak of OT j
//     is tw_j = pi(tweak) ^ j (j in the low 64 bits).
//   * each object is one-shot: run() / finish() wipe the GGM roots / noise positions after use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../core/block.h"
#include "../core/bytes.h"
#include "../core/prg.h"
#include "../core/status.h"
#include "lpn_code.h"

namespace psi {

class SilentVoleReceiver {
 public:
  // shape = lpn_shape(m); code_seed is public (both parties derive it from the instance); tweak
  // separates pieces and runs; the noise positions alpha_i are drawn from rng.
  SilentVoleReceiver(const LpnShape& shape, Block code_seed, Block tweak, Prg& rng);
  // Correlated OTs this piece needs: t * depth (GGM) + t * 128 (base VOLEs).
  size_t cot_count() const;
  // The choice bits to request from IKNP for this piece's OTs, packed (bit j%8 of byte j/8):
  // negated alpha bits for the GGM OTs, random bits for the base VOLEs. ceil(cot_count()/8) bytes.
  void choices(uint8_t* out) const;
  // Bytes of the sender's message for this piece.
  size_t message_bytes() const;
  // t: the cot_count() IKNP outputs for choices(); msg: the sender's message (exactly
  // message_bytes(), else PSI_ERR_PEER_MESSAGE). Writes a and c (shape.m Blocks each).
  Status finish(const Block* t, ByteView msg, Block* a, Block* c);
  // finish() fused with the PSI receiver's use of it, in one pass and without a and c buffers:
  // masked[i] = x[i] ^ a[i], then x[i] = c[i] (shape.m Blocks each; x is the OKVS, masked the
  // message P + a).
  Status finish_masked(const Block* t, ByteView msg, Block* x, Block* masked);

 private:
  LpnShape shape_;
  LpnCode code_;
  Block piece_key_;              // pi(tweak): the base of this piece's TCCR tweaks
  std::vector<uint64_t> alpha_;  // noise position of each tree, < 2^depth
  std::vector<Block> beta_;      // choice bits of each base VOLE's 128 OTs = its packed value
};

class SilentVoleSender {
 public:
  SilentVoleSender(const LpnShape& shape, Block code_seed, Block tweak, Prg& rng);
  size_t cot_count() const;
  size_t message_bytes() const;
  // q: the cot_count() IKNP sender outputs (q_j = t_j ^ r_j * delta). Writes the message
  // (message_bytes()) and b (shape.m Blocks): send() then encode().
  void run(const Block* q, Block delta, uint8_t* msg, Block* b);
  // The two halves of run(): send() expands the trees and writes the message, keeping the N leaves;
  // encode() compresses them into b. A caller sends the message in between, so that the LPN
  // encoding overlaps the receiver's work.
  void send(const Block* q, Block delta, uint8_t* msg);
  void encode(Block* b);

 private:
  LpnShape shape_;
  LpnCode code_;
  Block piece_key_;
  std::vector<Block> roots_;       // GGM root of each tree
  std::shared_ptr<Block> leaves_;  // the N leaves between send() and encode()
};

}  // namespace psi
