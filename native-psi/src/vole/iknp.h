// iknp.h — correlated OT extension (Ishai, Kilian, Nissim, Petrank, Crypto 2003), semi-honest, from
// 128 base OTs: the OT receiver, with choice bits r_j, gets t_j; the OT sender gets
// q_j = t_j ^ (r_j * Delta) for a Delta fixed by its base-OT choices. One message, receiver ->
// sender: the matrix U, 16 bytes per extended OT. Extensions are keyed per run: each column PRG key
// is BLAKE2b(base-OT key, label || instance), so runs of different instances under one set of base
// OTs share no PRG stream (as kkrt_column_key does for KKRT).
// U is column-major over one extend() call: bytes [i * count/8, (i+1) * count/8) are column i, bit
// j of that column (bit j%8 of byte j/8) is u_i for OT first + j. The column PRGs are AES-CTR with
// the counter = OT index / 128, so any range [first, first + count) can be extended on its own.
// Roles: the IKNP receiver is the base-OT *sender* (holds both keys of each base OT), the IKNP
// sender is the base-OT receiver (holds k_{s_i} and the choice bits s = Delta).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../core/aes.h"
#include "../core/block.h"

namespace psi {

constexpr size_t kIknpBaseOts = 128;

class IknpReceiver {
 public:
  // keys: the 128 base-OT key pairs; instance: the run's 256-bit instance.
  IknpReceiver(const std::array<Block, 2>* keys, const uint8_t instance[32]);
  // OTs [first, first + count) of this run (first and count multiples of 128): choices packed
  // (bit j%8 of byte j/8 is r_{first+j}), writes U (16*count bytes) and t (count Blocks).
  void extend(uint64_t first, size_t count, const uint8_t* choices, uint8_t* u, Block* t);

 private:
  std::array<Aes128, kIknpBaseOts> g0_, g1_;  // column PRGs of k0_i and k1_i, keyed per instance
  std::vector<Block> cols_, tmp_;             // one chunk of the 128 columns; one column of G1
};

class IknpSender {
 public:
  // keys: k_{s_i} of the 128 base OTs; delta: the base-OT choice bits s (bit i = s_i).
  IknpSender(const Block* keys, Block delta, const uint8_t instance[32]);
  Block delta() const;
  // Consumes U for OTs [first, first + count) (16*count bytes), writes q (count Blocks).
  void extend(uint64_t first, size_t count, const uint8_t* u, Block* q);

 private:
  std::array<Aes128, kIknpBaseOts> g_;  // column PRGs of k_{s_i}, keyed per instance
  Block delta_;
  std::vector<Block> cols_;  // one chunk of the 128 columns
};

}  // namespace psi
