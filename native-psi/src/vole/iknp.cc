#include "iknp.h"

#include <string>

#include "../core/bytes.h"
#include "../core/prg.h"
#include "../core/transpose.h"

namespace psi {
namespace {

// Rows per chunk: 128 columns of kChunk/8 bytes = 64 KiB of columns, which stay in L2 through the
// transpose. A multiple of 128 so chunks start on whole CTR blocks.
constexpr size_t kChunk = 4096;

// BLAKE2b(base-OT key, "psi-flink rr22 v1 iknp column" || 0x00 || instance): per-run column keys,
// as kkrt_column_key does for KKRT (the 0x00 makes the domain a prefix-free part of the label).
Block column_key(Block ot_key, const uint8_t instance[32]) {
  return derive_instance_block(ot_key, "psi-flink rr22 v1 iknp column", instance);
}

}  // namespace

IknpReceiver::IknpReceiver(const std::array<Block, 2>* keys, const uint8_t instance[32]) {
  for (size_t i = 0; i < kIknpBaseOts; ++i) {
    g0_[i].set_key(column_key(keys[i][0], instance));
    g1_[i].set_key(column_key(keys[i][1], instance));
  }
}

// Column i of T is G0_i over the chunk's CTR blocks; u_i = G0_i ^ G1_i ^ r. T's rows are t_j.
void IknpReceiver::extend(uint64_t first, size_t count, const uint8_t* choices, uint8_t* u,
                          Block* t) {
  const size_t col_bytes = count / 8;
  for (size_t s = 0; s < count; s += kChunk) {
    const size_t rows = count - s < kChunk ? count - s : kChunk;
    const size_t nb = rows / 128;  // Blocks per column in this chunk
    cols_.resize(kIknpBaseOts * nb);
    tmp_.resize(nb);
    const uint64_t ctr = (first + s) / 128;
    for (size_t i = 0; i < kIknpBaseOts; ++i) {
      Block* c = cols_.data() + i * nb;
      g0_[i].ctr_blocks(0, ctr, c, nb);
      g1_[i].ctr_blocks(0, ctr, tmp_.data(), nb);
      uint8_t* ui = u + i * col_bytes + s / 8;
      for (size_t b = 0; b < nb; ++b)
        store_block(ui + 16 * b, c[b] ^ tmp_[b] ^ load_block(choices + s / 8 + 16 * b));
    }
    transpose_bits(reinterpret_cast<const uint8_t*>(cols_.data()), kIknpBaseOts, rows / 8,
                   reinterpret_cast<uint8_t*>(t + s));
  }
}

IknpSender::IknpSender(const Block* keys, Block delta, const uint8_t instance[32]) : delta_(delta) {
  for (size_t i = 0; i < kIknpBaseOts; ++i) g_[i].set_key(column_key(keys[i], instance));
}

Block IknpSender::delta() const { return delta_; }

// Column i of Q is G_{s_i} ^ s_i * u_i = G0_i ^ s_i * r, so row j is q_j = t_j ^ r_j * Delta. The
// selection by s_i is a mask, not a branch (s = Delta is the sender's secret).
void IknpSender::extend(uint64_t first, size_t count, const uint8_t* u, Block* q) {
  const size_t col_bytes = count / 8;
  uint64_t s_bits[2] = {block_lo(delta_), block_hi(delta_)};
  for (size_t s = 0; s < count; s += kChunk) {
    const size_t rows = count - s < kChunk ? count - s : kChunk;
    const size_t nb = rows / 128;
    cols_.resize(kIknpBaseOts * nb);
    const uint64_t ctr = (first + s) / 128;
    for (size_t i = 0; i < kIknpBaseOts; ++i) {
      Block* c = cols_.data() + i * nb;
      g_[i].ctr_blocks(0, ctr, c, nb);
      const long long m = -static_cast<long long>((s_bits[i / 64] >> (i % 64)) & 1);
      const Block mask = _mm_set1_epi64x(m);
      const uint8_t* ui = u + i * col_bytes + s / 8;
      for (size_t b = 0; b < nb; ++b) c[b] ^= _mm_and_si128(mask, load_block(ui + 16 * b));
    }
    transpose_bits(reinterpret_cast<const uint8_t*>(cols_.data()), kIknpBaseOts, rows / 8,
                   reinterpret_cast<uint8_t*>(q + s));
  }
  secure_wipe(s_bits, sizeof s_bits);
}

}  // namespace psi
