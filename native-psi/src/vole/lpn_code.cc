#include "lpn_code.h"

#include <vector>

#include "../core/prg.h"

namespace psi {

namespace {

constexpr uint64_t kMaxM = uint64_t{1} << 26;
// Randomness is drawn in chunks of this many entries; every Prg::fill is a whole number of blocks,
// so the streams are the plain concatenation of the Prg's output whatever the chunking.
constexpr uint64_t kChunk = 4096;

inline uint64_t mul_shift(uint64_t r, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * bound) >> 64);
}

// One cyclic convolution pass over p[0 .. P) (see the header), on kVectors vectors at once.
template <int kVectors>
void convolute(Block* p, Block* q, uint64_t P, Block seed) {
  Prg prg(seed);
  std::vector<uint32_t> coef(kChunk);
  for (uint64_t i = 0; i < P; ++i) {
    if (i % kChunk == 0) prg.fill(coef.data(), kChunk * sizeof(uint32_t));
    uint32_t c = coef[i % kChunk];
    const Block v = p[i];
    Block w = zero_block();
    if (kVectors == 2) w = q[i];
    for (uint32_t j = 1; j <= LpnCode::kConvWidth + 1; ++j) {
      // the bit for distance 25 is forced to 1
      const bool on = j == LpnCode::kConvWidth + 1 || ((c >> (j - 1)) & 1);
      if (!on) continue;
      uint64_t k = i + j;
      if (k >= P) k -= P;
      p[k] = _mm_xor_si128(p[k], v);
      if (kVectors == 2) q[k] = _mm_xor_si128(q[k], w);
    }
  }
}

}  // namespace

LpnShape lpn_shape(uint64_t m) {
  LpnShape s;
  if (m == 0 || m > kMaxM) return s;  // outside the contract: an empty shape, N = 0
  const uint64_t target = 2 * m;      // expansion 2 (rate 1/2)
  // the deepest tree whose block count still reaches the minimum noise weight
  uint32_t depth = 1;
  while ((LpnCode::kMinNoiseWeight << (depth + 1)) <= target) ++depth;
  uint64_t t = (target + (uint64_t{1} << depth) - 1) >> depth;
  if (t < LpnCode::kMinNoiseWeight) t = LpnCode::kMinNoiseWeight;
  s.m = m;
  s.t = t;
  s.depth = depth;
  s.N = t << depth;
  return s;
}

LpnCode::LpnCode(const LpnShape& shape, Block seed) : shape_(shape) {
  Prg prg(seed);
  conv_seed_[0] = prg.next_block();
  conv_seed_[1] = prg.next_block();
  expander_seed_ = prg.next_block();
}

const LpnShape& LpnCode::shape() const { return shape_; }

template <int kVectors>
void LpnCode::encode(Block* x, Block* y) const {
  const uint64_t m = shape_.m;
  if (m == 0 || shape_.N <= m) return;
  const uint64_t P = shape_.N - m;
  Block* p = x + m;
  Block* q = kVectors == 2 ? y + m : nullptr;
  convolute<kVectors>(p, q, P, conv_seed_[0]);
  convolute<kVectors>(p, q, P, conv_seed_[1]);

  // Expander: x[r] ^= XOR of p at the 7 columns of row r.
  const uint64_t quarter = P / kRegularWeight;
  Prg streams[kExpanderWeight];
  for (uint32_t j = 0; j < kExpanderWeight; ++j) streams[j].reseed(expander_seed_, j);
  std::vector<uint64_t> rnd(kChunk * kExpanderWeight);
  for (uint64_t r0 = 0; r0 < m; r0 += kChunk) {
    for (uint32_t j = 0; j < kExpanderWeight; ++j)
      streams[j].fill(&rnd[j * kChunk], kChunk * sizeof(uint64_t));
    const uint64_t end = m - r0 < kChunk ? m - r0 : kChunk;
    for (uint64_t r = 0; r < end; ++r) {
      Block a = x[r0 + r];
      Block b = zero_block();
      if (kVectors == 2) b = y[r0 + r];
      for (uint32_t j = 0; j < kExpanderWeight; ++j) {
        const uint64_t col = j < kRegularWeight
                                 ? j * quarter + mul_shift(rnd[j * kChunk + r], quarter)
                                 : mul_shift(rnd[j * kChunk + r], P);
        a = _mm_xor_si128(a, p[col]);
        if (kVectors == 2) b = _mm_xor_si128(b, q[col]);
      }
      x[r0 + r] = a;
      if (kVectors == 2) y[r0 + r] = b;
    }
  }
}

void LpnCode::dual_encode(Block* x) const { encode<1>(x, nullptr); }

void LpnCode::dual_encode2(Block* x, Block* y) const { encode<2>(x, y); }

}  // namespace psi
