#include "lpn_code.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "../core/prefetch.h"
#include "../core/prg.h"

namespace psi {

namespace {

constexpr uint64_t kMaxM = uint64_t{1} << 26;
constexpr uint64_t kSortedExpanderMinP = uint64_t{1} << 21;

inline uint64_t mul_shift(uint64_t r, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * bound) >> 64);
}

// The output stream of Prg(seed, stream) (AES-128 keyed by seed over the blocks (stream, counter),
// see core/prg.cc), read in batches. The tests check the code built from Prg itself.
class CtrStream {
 public:
  explicit CtrStream(Block seed, uint64_t stream = 0) : aes_(seed), stream_(stream) {}
  // The next n blocks of the stream.
  void fill(Block* out, size_t n) {
    aes_.ctr_blocks(stream_, counter_, out, n);
    counter_ += n;
  }

 private:
  Aes128 aes_;
  uint64_t stream_;
  uint64_t counter_ = 0;
};

// Sequential reader of the convolution coefficients: the uint32 values of a CtrStream.
class CoefStream {
 public:
  explicit CoefStream(Block seed) : ctr_(seed) {}
  uint32_t next() {
    if (pos_ == kWords) {
      ctr_.fill(buf_, kBlocks);
      pos_ = 0;
    }
    uint32_t c;
    std::memcpy(&c, reinterpret_cast<const uint8_t*>(buf_) + 4 * pos_++, 4);
    return c;
  }

 private:
  static constexpr size_t kBlocks = 256, kWords = kBlocks * 4;
  CtrStream ctr_;
  Block buf_[kBlocks];
  size_t pos_ = kWords;
};

constexpr uint32_t kFixed = uint32_t{1} << LpnCode::kConvWidth;  // the distance-25 coefficient

// One step of the convolution at i, any i (with the wrap): p[(i+d) mod P] ^= p[i] for the set
// bits d-1 of c (bit 24 set). Branch-free in the coefficients.
template <int K>
inline void conv_step(Block* const* v, uint64_t P, uint64_t i, uint32_t c) {
  Block y[K];
  for (int k = 0; k < K; ++k) y[k] = v[k][i];
  for (uint32_t d = 1; d <= LpnCode::kConvWidth + 1; ++d) {
    const Block mask = _mm_set1_epi32(-static_cast<int32_t>((c >> (d - 1)) & 1));
    const uint64_t j = (i + d) % P;  // only at the ends of a pass; any P >= 1
    for (int k = 0; k < K; ++k) v[k][j] = _mm_xor_si128(v[k][j], _mm_and_si128(mask, y[k]));
  }
}

// Shift counts that move the coefficient bits of the pair of targets k (blocks i+2+2k, i+3+2k)
// into bit 31 of the lanes of the low and the high 128-bit half: for the source i (distances
// 2+2k, 3+2k: bits 1+2k, 2+2k) and the source i+1 (distances 1+2k, 2+2k: bits 2k, 2k+1).
struct PairShifts {
  __m256i a[12], b[12];
  PairShifts() {
    for (int k = 0; k < 12; ++k) {
      a[k] = _mm256_setr_epi32(30 - 2 * k, 30 - 2 * k, 30 - 2 * k, 30 - 2 * k, 29 - 2 * k,
                               29 - 2 * k, 29 - 2 * k, 29 - 2 * k);
      b[k] = _mm256_setr_epi32(31 - 2 * k, 31 - 2 * k, 31 - 2 * k, 31 - 2 * k, 30 - 2 * k,
                               30 - 2 * k, 30 - 2 * k, 30 - 2 * k);
    }
  }
};

// One cyclic convolution pass over p[0 .. P) (see the header), on K vectors at once. The steps i
// and i+1 are done together so that every 32-byte access of the band is at the same (32-aligned
// when the vector is) pair of blocks as the previous steps' stores: no store-forwarding stalls.
template <int K>
void convolute(Block* const* v, uint64_t P, Block seed) {
  static const PairShifts shifts;
  CoefStream coef(seed);
  uint64_t i = 0;
  if ((reinterpret_cast<uintptr_t>(v[0]) & 31) != 0) {
    conv_step<K>(v, P, 0, coef.next() | kFixed);
    i = 1;
  }
  for (; i + 27 < P; i += 2) {
    const uint32_t ca = coef.next() | kFixed;
    const uint32_t cb = coef.next();
    const __m256i CA = _mm256_set1_epi32(static_cast<int32_t>(ca));
    const __m256i CB = _mm256_set1_epi32(static_cast<int32_t>(cb));
    const Block m1 = _mm_set1_epi32(-static_cast<int32_t>(ca & 1));
    __m256i Y0[K], Y1[K];
    for (int k = 0; k < K; ++k) {
      const Block y0 = v[k][i];
      const Block y1 = _mm_xor_si128(v[k][i + 1], _mm_and_si128(m1, y0));
      v[k][i + 1] = y1;
      v[k][i + 26] = _mm_xor_si128(v[k][i + 26], y1);  // distance 25 from i+1
      Y0[k] = _mm256_broadcastsi128_si256(y0);
      Y1[k] = _mm256_broadcastsi128_si256(y1);
    }
    for (int p = 0; p < 12; ++p) {
      const __m256i MA = _mm256_srai_epi32(_mm256_sllv_epi32(CA, shifts.a[p]), 31);
      const __m256i MB = _mm256_srai_epi32(_mm256_sllv_epi32(CB, shifts.b[p]), 31);
      for (int k = 0; k < K; ++k) {
        __m256i* t = reinterpret_cast<__m256i*>(v[k] + i + 2 + 2 * p);
        __m256i T = _mm256_loadu_si256(t);
        T = _mm256_xor_si256(T, _mm256_and_si256(MA, Y0[k]));
        T = _mm256_xor_si256(T, _mm256_and_si256(MB, Y1[k]));
        _mm256_storeu_si256(t, T);
      }
    }
  }
  for (; i < P; ++i) conv_step<K>(v, P, i, coef.next() | kFixed);
}

// The expander's view of one vector: x[r] ^= XOR of p at the 7 columns of row r.
struct OneVector {
  Block* x;
  const Block* p;
  PSI_PREFETCHER void prefetch(const uint32_t* c) const {
    for (uint32_t j = 0; j < LpnCode::kExpanderWeight; ++j)
      _mm_prefetch(reinterpret_cast<const char*>(p + c[j]), _MM_HINT_T0);
  }
  void row(uint64_t r, const uint32_t* c) const {
    Block a = _mm_xor_si128(x[r], p[c[0]]);
    Block b = _mm_xor_si128(p[c[1]], p[c[2]]);
    a = _mm_xor_si128(a, _mm_xor_si128(p[c[3]], p[c[4]]));
    b = _mm_xor_si128(b, _mm_xor_si128(p[c[5]], p[c[6]]));
    x[r] = _mm_xor_si128(a, b);
  }
  const void* addr(uint32_t c) const { return p + c; }
  void add(uint64_t r, uint32_t c) const { x[r] = _mm_xor_si128(x[r], p[c]); }
};

// Two vectors whose parity parts were interleaved by interleave(): column c < h is the pair at
// X + 2c, column h <= c < 2h the pair at Y + 2(c - h), and for odd P the last column is X[2h] and
// Y[2h]. One cache line then serves both vectors.
struct TwoVectors {
  Block* x;
  Block* y;
  const Block* X;
  const Block* Y;
  uint64_t h;
  // Branch-free (c < h is a coin flip: a branch mispredicted half of the time, 7 times a row).
  const Block* pair(uint32_t c) const {
    const uintptr_t hi = uintptr_t{0} - uintptr_t{c >= h};  // all ones when c is in Y's half
    const uintptr_t base = reinterpret_cast<uintptr_t>(X) ^
                           ((reinterpret_cast<uintptr_t>(X) ^ reinterpret_cast<uintptr_t>(Y)) & hi);
    return reinterpret_cast<const Block*>(base) + 2 * (uint64_t{c} - (h & hi));
  }
  PSI_PREFETCHER void prefetch(const uint32_t* c) const {
    for (uint32_t j = 0; j < LpnCode::kExpanderWeight; ++j)
      _mm_prefetch(reinterpret_cast<const char*>(pair(c[j])), _MM_HINT_T0);
  }
  void row(uint64_t r, const uint32_t* c) const {
    Block a = x[r], b = y[r];
    for (uint32_t j = 0; j < LpnCode::kExpanderWeight; ++j) {
      if (__builtin_expect(c[j] == 2 * h, 0)) {  // odd P: the unpaired last column
        a = _mm_xor_si128(a, X[2 * h]);
        b = _mm_xor_si128(b, Y[2 * h]);
        continue;
      }
      const Block* e = pair(c[j]);
      a = _mm_xor_si128(a, e[0]);
      b = _mm_xor_si128(b, e[1]);
    }
    x[r] = a;
    y[r] = b;
  }
  const void* addr(uint32_t c) const { return pair(c); }
  void add(uint64_t r, uint32_t c) const {
    if (__builtin_expect(c == 2 * h, 0)) {
      x[r] = _mm_xor_si128(x[r], X[2 * h]);
      y[r] = _mm_xor_si128(y[r], Y[2 * h]);
      return;
    }
    const Block* e = pair(c);
    x[r] = _mm_xor_si128(x[r], e[0]);
    y[r] = _mm_xor_si128(y[r], e[1]);
  }
};

// In place: X = (p, P Blocks), Y = (q, P Blocks) become X = (p_0, q_0, .., p_{h-1}, q_{h-1}),
// Y = (p_h, q_h, .., p_{2h-1}, q_{2h-1}), h = floor(P/2), with an odd last element left in place.
// Uses h Blocks of scratch.
void interleave(Block* X, Block* Y, uint64_t P) {
  const uint64_t h = P / 2;
  std::unique_ptr<Block[]> tmp(new Block[h > 0 ? h : 1]);
  std::memcpy(tmp.get(), Y, h * sizeof(Block));
  // Forward: the write at 2i+1 <= h+i never passes the unread q_{h+k}, k > i.
  for (uint64_t i = 0; i < h; ++i) {
    const Block b = X[h + i], d = Y[h + i];
    Y[2 * i] = b;
    Y[2 * i + 1] = d;
  }
  // Backward: the writes at 2i, 2i+1 >= i never reach the unread p_k, k < i.
  for (uint64_t i = h; i-- > 0;) {
    const Block a = X[i];
    X[2 * i] = a;
    X[2 * i + 1] = tmp[i];
  }
}

// Applies the expander rows 0 .. m-1 through `v` (OneVector or TwoVectors). The columns are drawn
// a batch of rows ahead into a ring of two batches, so that the gathers of the row D ahead can be
// prefetched while the AES work for the next batch runs.
template <typename View>
void expand(const View& v, uint64_t m, uint64_t P, Block seed) {
  constexpr uint32_t W = LpnCode::kExpanderWeight;
  constexpr uint64_t kBatch = 64;  // rows per batch (a multiple of 16: whole blocks of uint64s)
  constexpr uint64_t D = 16;       // prefetch distance in rows, <= kBatch
  const uint64_t quarter = P / LpnCode::kRegularWeight;
  uint64_t base[W], bound[W];
  for (uint32_t j = 0; j < W; ++j) {
    base[j] = j < LpnCode::kRegularWeight ? j * quarter : 0;
    bound[j] = j < LpnCode::kRegularWeight ? quarter : P;
  }
  CtrStream streams[W] = {CtrStream(seed, 0), CtrStream(seed, 1), CtrStream(seed, 2),
                          CtrStream(seed, 3), CtrStream(seed, 4), CtrStream(seed, 5),
                          CtrStream(seed, 6)};
  uint32_t cols[2 * kBatch * W];     // ring of two batches, row-major
  alignas(16) uint64_t rnd[kBatch];  // written through _mm_storeu_si128 (may alias anything)
  auto generate = [&](uint64_t batch) {
    uint32_t* c = cols + (batch % 2) * kBatch * W;
    for (uint32_t j = 0; j < W; ++j) {
      streams[j].fill(reinterpret_cast<Block*>(rnd), kBatch / 2);
      for (uint64_t i = 0; i < kBatch; ++i)
        c[i * W + j] = static_cast<uint32_t>(base[j] + mul_shift(rnd[i], bound[j]));
    }
  };
  generate(0);
  if (m > kBatch) generate(1);
  for (uint64_t r = 0; r < m; ++r) {
    if (r % kBatch == 0 && r > 0 && r + kBatch < m) generate(r / kBatch + 1);
    if (r + D < m) v.prefetch(cols + ((r + D) % (2 * kBatch)) * W);
    v.row(r, cols + (r % (2 * kBatch)) * W);
  }
}

// The expander for large P, where the 7m random reads of p miss the caches and the TLB: rows are
// taken kRows at a time (their outputs stay in L2), the chunk's 7 * kRows (column, row) entries are
// counting-sorted by the 2^kRegionBits-block region of the column, and p is then read region by
// region (reads 2-4x cheaper in a microbenchmark at 2^24 Blocks). The sum is the same: F2 addition
// commutes. Scratch: 7 * kRows * 12 bytes (1.3 MiB).
template <typename View>
void expand_sorted(const View& v, uint64_t m, uint64_t P, Block seed) {
  constexpr uint32_t W = LpnCode::kExpanderWeight;
  constexpr uint64_t kRows = uint64_t{1} << 14;  // a multiple of 16: whole blocks of uint64s
  constexpr uint32_t kRegionBits = 14;
  constexpr uint64_t D = 16;  // prefetch distance in entries
  const uint64_t quarter = P / LpnCode::kRegularWeight;
  const uint64_t regions = (P >> kRegionBits) + 1;
  CtrStream streams[W] = {CtrStream(seed, 0), CtrStream(seed, 1), CtrStream(seed, 2),
                          CtrStream(seed, 3), CtrStream(seed, 4), CtrStream(seed, 5),
                          CtrStream(seed, 6)};
  std::vector<uint64_t> rnd(kRows);
  std::vector<uint32_t> cols(W * kRows);
  std::vector<uint64_t> sorted(W * kRows);  // (column << 32) | row in chunk
  std::vector<uint32_t> start(regions + 1);
  for (uint64_t r0 = 0; r0 < m; r0 += kRows) {
    const uint64_t n = m - r0 < kRows ? m - r0 : kRows;
    for (uint32_t j = 0; j < W; ++j) {
      streams[j].fill(reinterpret_cast<Block*>(rnd.data()), kRows / 2);
      const uint64_t base = j < LpnCode::kRegularWeight ? j * quarter : 0;
      const uint64_t bound = j < LpnCode::kRegularWeight ? quarter : P;
      for (uint64_t r = 0; r < n; ++r)
        cols[j * kRows + r] = static_cast<uint32_t>(base + mul_shift(rnd[r], bound));
    }
    std::fill(start.begin(), start.end(), 0);
    for (uint32_t j = 0; j < W; ++j)
      for (uint64_t r = 0; r < n; ++r) ++start[(cols[j * kRows + r] >> kRegionBits) + 1];
    for (uint64_t g = 0; g < regions; ++g) start[g + 1] += start[g];
    for (uint32_t j = 0; j < W; ++j)
      for (uint64_t r = 0; r < n; ++r) {
        const uint32_t c = cols[j * kRows + r];
        sorted[start[c >> kRegionBits]++] = (uint64_t{c} << 32) | r;
      }
    const uint64_t total = W * n;
    for (uint64_t e = 0; e < total; ++e) {
      if (e + D < total)
        _mm_prefetch(static_cast<const char*>(v.addr(static_cast<uint32_t>(sorted[e + D] >> 32))),
                     _MM_HINT_T0);
      v.add(r0 + static_cast<uint32_t>(sorted[e]), static_cast<uint32_t>(sorted[e] >> 32));
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
  Block* const ps[2] = {x + m, kVectors == 2 ? y + m : nullptr};
  convolute<kVectors>(ps, P, conv_seed_[0]);
  convolute<kVectors>(ps, P, conv_seed_[1]);
  // Below 2^21 Blocks (32 MiB) of p the row-order expander measured as fast or faster.
  const bool sorted = P >= kSortedExpanderMinP;
  if (kVectors == 1) {
    const OneVector view{x, x + m};
    sorted ? expand_sorted(view, m, P, expander_seed_) : expand(view, m, P, expander_seed_);
  } else {
    interleave(x + m, y + m, P);
    const TwoVectors view{x, y, x + m, y + m, P / 2};
    sorted ? expand_sorted(view, m, P, expander_seed_) : expand(view, m, P, expander_seed_);
  }
}

void LpnCode::dual_encode(Block* x) const { encode<1>(x, nullptr); }

void LpnCode::dual_encode2(Block* x, Block* y) const { encode<2>(x, y); }

}  // namespace psi
