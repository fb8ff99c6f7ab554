// ggm.h — GGM trees for the punctured PRFs of silent VOLE (internal to silent_vole.cc; exposed for
// the known-answer tests). The length-doubling PRG is fixed-key AES:
//   G(x) = (AES_k0(x) ^ x, AES_k1(x) ^ x)
// with two fixed public keys (ggm_fixed_key(0), ggm_fixed_key(1)); the left child of node k at one
// level is node 2k of the next, the right child node 2k + 1, so leaf k is reached by the bits of k
// from the most significant (level 0) down. Tree i's 2^depth leaves are leaves[i << depth ...].
// Trees are expanded eight at a time, level by level, in place (the leaf array is the only buffer),
// so sixteen AES encryptions are in flight
// (eight 256-bit VAES ones when the CPU has VAES).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/block.h"

namespace psi {

Block ggm_fixed_key(int side);

// The AES kernel: VAES (256-bit) when the CPU has it, else AES-NI; both give the same trees.
// Tests call ggm_use_vaes(false) to exercise the AES-NI path; returns whether VAES is now used.
// Meant for tests (a switch for the whole process).
bool ggm_use_vaes(bool allow);

// Sender: expands `trees` trees from their roots. sums[2 * (i * depth + l) + s] = XOR of the side-s
// children (s = 0: even index, 1: odd) created at level l + 1 of tree i, for l < depth.
void ggm_expand(const Block* roots, size_t trees, uint32_t depth, Block* leaves, Block* sums);

// Receiver of tree i punctured at leaf alpha[i] < 2^depth: known[i * depth + l] = the sender's
// sum of side !bit_l(alpha[i]) at level l + 1 (bit_l = bit depth-1-l of alpha, the path's turn
// at level l). Writes every leaf except alpha[i] (set to zero) and leaf_xor[i] = XOR of tree i's
// leaves other than alpha[i]. Addresses depend on alpha (the receiver's own secret, as in libOTe).
void ggm_expand_punctured(const uint64_t* alpha, const Block* known, size_t trees, uint32_t depth,
                          Block* leaves, Block* leaf_xor);

}  // namespace psi
