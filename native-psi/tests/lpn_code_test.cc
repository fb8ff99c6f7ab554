// Tests for vole/lpn_code.h. The oracle is the code's definition (lpn_code.h) written out as dense
// bit matrices: the expander B and each convolution pass C = (I + U)(I + L)^-1 (L its band below
// the diagonal, U the entries that wrap around, the inverse by Gauss-Jordan elimination),
// multiplied as matrices and applied to random Block vectors. Plus dual_encode2 == two dual_encode
// calls, linearity, the shape invariants and the noise weight formula.
//
// PSI_LARGE=1 adds LpnCodeLarge.Timing: single-threaded medians of dual_encode / dual_encode2 at
// m = 2^16 .. 2^24 (about 1.1 GiB of memory at 2^24).
#include "vole/lpn_code.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/prg.h"

namespace psi {
namespace {

using Row = std::vector<uint64_t>;
struct BitMatrix {
  size_t rows, cols;
  std::vector<Row> r;
  BitMatrix(size_t n_rows, size_t n_cols)
      : rows(n_rows), cols(n_cols), r(n_rows, Row((n_cols + 63) / 64, 0)) {}
  bool get(size_t i, size_t j) const { return (r[i][j / 64] >> (j % 64)) & 1; }
  void flip(size_t i, size_t j) { r[i][j / 64] ^= uint64_t{1} << (j % 64); }
  static BitMatrix identity(size_t n) {
    BitMatrix m(n, n);
    for (size_t i = 0; i < n; ++i) m.flip(i, i);
    return m;
  }
};

void xor_row(Row& a, const Row& b) {
  for (size_t k = 0; k < a.size(); ++k) a[k] ^= b[k];
}

BitMatrix multiply(const BitMatrix& a, const BitMatrix& b) {
  BitMatrix c(a.rows, b.cols);
  for (size_t i = 0; i < a.rows; ++i)
    for (size_t k = 0; k < a.cols; ++k)
      if (a.get(i, k)) xor_row(c.r[i], b.r[k]);
  return c;
}

// Gauss-Jordan inverse over F2 (the matrix must be invertible).
BitMatrix inverse(BitMatrix a) {
  const size_t n = a.rows;
  BitMatrix inv = BitMatrix::identity(n);
  for (size_t col = 0; col < n; ++col) {
    size_t piv = col;
    while (piv < n && !a.get(piv, col)) ++piv;
    EXPECT_LT(piv, n) << "singular";
    if (piv == n) return inv;
    std::swap(a.r[piv], a.r[col]);
    std::swap(inv.r[piv], inv.r[col]);
    for (size_t i = 0; i < n; ++i)
      if (i != col && a.get(i, col)) {
        xor_row(a.r[i], a.r[col]);
        xor_row(inv.r[i], inv.r[col]);
      }
  }
  return inv;
}

uint64_t uniform_below(uint64_t r, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * bound) >> 64);
}

// One convolution pass as a P x P matrix, straight from its definition in lpn_code.h.
BitMatrix convolution_matrix(uint64_t P, Block seed) {
  std::vector<uint32_t> coef((P + 3) / 4 * 4);
  Prg prg(seed);
  prg.fill(coef.data(), coef.size() * 4);
  BitMatrix band = BitMatrix::identity(P);  // I + L: p_new[k] = p[k] + sum L[k][i] p_new[i]
  BitMatrix wrap = BitMatrix::identity(P);  // I + U
  for (uint64_t i = 0; i < P; ++i)
    for (uint64_t j = 1; j <= 25; ++j) {
      const bool on = j == 25 || ((coef[i] >> (j - 1)) & 1);
      if (!on) continue;
      if (i + j < P)
        band.flip(i + j, i);
      else
        wrap.flip(i + j - P, i);
    }
  return multiply(wrap, inverse(band));
}

// H as an m x N matrix: [I | B * C2 * C1].
BitMatrix dense_code(const LpnShape& s, Block seed) {
  const uint64_t m = s.m, N = s.N, P = N - m;
  Prg prg(seed);
  Block c1 = prg.next_block(), c2 = prg.next_block(), e = prg.next_block();
  BitMatrix B(m, P);
  for (uint64_t j = 0; j < 7; ++j) {
    Prg stream(e, j);
    std::vector<uint64_t> r((m + 1) / 2 * 2);
    stream.fill(r.data(), r.size() * 8);
    for (uint64_t row = 0; row < m; ++row) {
      const uint64_t col =
          j < 4 ? j * (P / 4) + uniform_below(r[row], P / 4) : uniform_below(r[row], P);
      B.flip(row, col);
    }
  }
  BitMatrix right = multiply(multiply(B, convolution_matrix(P, c2)), convolution_matrix(P, c1));
  BitMatrix H(m, N);
  for (uint64_t row = 0; row < m; ++row) {
    H.flip(row, row);
    for (uint64_t c = 0; c < P; ++c)
      if (right.get(row, c)) H.flip(row, m + c);
  }
  return H;
}

std::vector<Block> random_blocks(size_t n, uint64_t seed) {
  Prg prg(make_block(0x1234, seed));
  std::vector<Block> v(n);
  for (auto& b : v) b = prg.next_block();
  return v;
}

std::vector<Block> apply_matrix(const BitMatrix& H, const std::vector<Block>& x) {
  std::vector<Block> out(H.rows, zero_block());
  for (size_t i = 0; i < H.rows; ++i)
    for (size_t j = 0; j < H.cols; ++j)
      if (H.get(i, j)) out[i] = _mm_xor_si128(out[i], x[j]);
  return out;
}

void expect_prefix_equal(const std::vector<Block>& a, const std::vector<Block>& b, size_t m) {
  ASSERT_GE(a.size(), m);
  ASSERT_GE(b.size(), m);
  for (size_t i = 0; i < m; ++i) ASSERT_TRUE(block_equal(a[i], b[i])) << "at " << i << " of " << m;
}

// Regular noise over a large field: a linear test whose codeword has relative weight delta misses
// all t noise positions with probability (1 - delta)^t; with delta = 0.1 and 2^-128, t a multiple
// of 8. (Over F2 the bias is (1 - 2 delta)^t: libOTe's getRegNoiseWeight, 400.)
uint64_t min_noise_weight_formula() {
  const double t = std::ceil(-128.0 / std::log2(1.0 - 0.1));
  return (static_cast<uint64_t>(t) + 7) / 8 * 8;
}

uint64_t f2_noise_weight_formula() {
  const double t = std::ceil(-128.0 / std::log2(1.0 - 2 * 0.1));
  return (static_cast<uint64_t>(t) + 7) / 8 * 8;
}

TEST(LpnCodeShape, NoiseWeightFormula) {
  EXPECT_EQ(min_noise_weight_formula(), 848u);
  EXPECT_EQ(f2_noise_weight_formula(), 400u);
  EXPECT_EQ(LpnCode::kMinNoiseWeight, min_noise_weight_formula());
}

TEST(LpnCodeShape, Invariants) {
  std::vector<uint64_t> ms;
  for (uint64_t m = 1; m <= 3000; ++m) ms.push_back(m);
  for (int k = 11; k <= 26; ++k)
    for (int64_t d : {-3, -1, 0, 1, 7}) {
      int64_t m = (int64_t{1} << k) + d;
      if (m >= 1 && m <= (int64_t{1} << 26)) ms.push_back(static_cast<uint64_t>(m));
    }
  Prg prg(make_block(7, 7));
  for (int i = 0; i < 2000; ++i) ms.push_back(1 + prg.uniform(uint64_t{1} << 26));
  for (uint64_t m : ms) {
    const LpnShape s = lpn_shape(m);
    ASSERT_EQ(s.m, m);
    ASSERT_GE(s.N, 2 * m) << m;
    ASSERT_GE(s.depth, 1u) << m;
    ASSERT_EQ(s.N, s.t << s.depth) << m;
    ASSERT_GE(s.t, min_noise_weight_formula()) << m;
    if (s.t > LpnCode::kMinNoiseWeight) {
      ASSERT_LT(s.N - 2 * m, uint64_t{1} << s.depth) << m;
    }
    // a deeper tree would have fewer than the minimum noise blocks
    ASSERT_LT(2 * m, (LpnCode::kMinNoiseWeight << (s.depth + 1))) << m;
    const LpnShape again = lpn_shape(m);
    ASSERT_EQ(again.N, s.N);
    ASSERT_EQ(again.t, s.t);
    ASSERT_EQ(again.depth, s.depth);
  }
}

TEST(LpnCodeShape, OutOfRangeIsEmpty) {
  EXPECT_EQ(lpn_shape(0).N, 0u);
  EXPECT_EQ(lpn_shape((uint64_t{1} << 26) + 1).N, 0u);
}

TEST(LpnCodeShape, Table) {
  for (int k : {10, 16, 20, 22, 24, 26}) {
    const LpnShape s = lpn_shape(uint64_t{1} << k);
    std::printf("m = 2^%d: t = %llu, depth = %u, N = %llu\n", k,
                static_cast<unsigned long long>(s.t), s.depth,
                static_cast<unsigned long long>(s.N));
  }
}

TEST(LpnCode, MatchesDenseMatrix) {
  // m around the depth-1 boundary (2m = 2 * 848) and up to the first depth-2 shapes
  for (uint64_t m : {1, 2, 3, 7, 64, 255, 256, 511, 512, 847, 848, 849, 1000}) {
    for (uint64_t seed = 0; seed < 2; ++seed) {
      const LpnShape s = lpn_shape(m);
      const Block code_seed = make_block(seed * 977 + 1, m);
      const BitMatrix H = dense_code(s, code_seed);
      const LpnCode code(s, code_seed);
      std::vector<Block> x = random_blocks(s.N, m * 10 + seed * 3);
      std::vector<Block> y = random_blocks(s.N, m * 10 + seed * 3 + 1);
      const std::vector<Block> want_x = apply_matrix(H, x), want_y = apply_matrix(H, y);
      std::vector<Block> x2 = x;
      code.dual_encode(x.data());
      expect_prefix_equal(x, want_x, m);
      code.dual_encode2(x2.data(), y.data());
      expect_prefix_equal(x2, want_x, m);
      expect_prefix_equal(y, want_y, m);
    }
  }
}

TEST(LpnCode, SparseInputMatchesDenseMatrix) {
  // Regular-noise-like input (one non-zero per block), as the VOLE feeds it.
  const LpnShape s = lpn_shape(300);
  const Block code_seed = make_block(42, 43);
  const BitMatrix H = dense_code(s, code_seed);
  const LpnCode code(s, code_seed);
  Prg prg(make_block(5, 6));
  std::vector<Block> x(s.N, zero_block());
  const uint64_t block = uint64_t{1} << s.depth;
  for (uint64_t i = 0; i < s.t; ++i) x[i * block + prg.uniform(block)] = prg.next_block();
  const std::vector<Block> want = apply_matrix(H, x);
  code.dual_encode(x.data());
  expect_prefix_equal(x, want, s.m);
}

TEST(LpnCode, DualEncode2EqualsTwoCalls) {
  for (uint64_t m : {1, 7, 512, 4099, 65536, 100003}) {
    const LpnShape s = lpn_shape(m);
    const LpnCode code(s, make_block(m, 99));
    std::vector<Block> x = random_blocks(s.N, m), y = random_blocks(s.N, m + 1);
    std::vector<Block> x1 = x, y1 = y;
    code.dual_encode(x1.data());
    code.dual_encode(y1.data());
    code.dual_encode2(x.data(), y.data());
    expect_prefix_equal(x, x1, m);
    expect_prefix_equal(y, y1, m);
  }
}

TEST(LpnCode, Linear) {
  for (uint64_t m : {1, 1000, 16384, 70001}) {
    const LpnShape s = lpn_shape(m);
    const LpnCode code(s, make_block(3, m));
    std::vector<Block> x = random_blocks(s.N, 2 * m), y = random_blocks(s.N, 2 * m + 1);
    std::vector<Block> z(s.N);
    for (size_t i = 0; i < s.N; ++i) z[i] = _mm_xor_si128(x[i], y[i]);
    code.dual_encode(x.data());
    code.dual_encode(y.data());
    code.dual_encode(z.data());
    for (size_t i = 0; i < m; ++i) ASSERT_TRUE(block_equal(z[i], _mm_xor_si128(x[i], y[i])));
  }
}

TEST(LpnCode, HandMadeTinyShapesStayInBoundsAndLinear) {
  // Not secure shapes (lpn_shape never makes them), but the encoder must not read out of bounds.
  for (uint64_t m : {1, 2, 3, 5}) {
    for (uint64_t N : {m + 1, m + 2, 2 * m + 3, m + 30}) {
      LpnShape s;
      s.m = m;
      s.N = N;
      s.t = N;
      s.depth = 0;
      const LpnCode code(s, make_block(m, N));
      std::vector<Block> x = random_blocks(N, N), y = random_blocks(N, N + 1), z(N);
      for (size_t i = 0; i < N; ++i) z[i] = _mm_xor_si128(x[i], y[i]);
      std::vector<Block> x2 = x, y2 = y;
      code.dual_encode(x.data());
      code.dual_encode(y.data());
      code.dual_encode(z.data());
      code.dual_encode2(x2.data(), y2.data());
      for (size_t i = 0; i < m; ++i) {
        ASSERT_TRUE(block_equal(z[i], _mm_xor_si128(x[i], y[i])));
        ASSERT_TRUE(block_equal(x2[i], x[i]));
        ASSERT_TRUE(block_equal(y2[i], y[i]));
      }
    }
  }
}

TEST(LpnCode, DeterministicInSeedAndSeedMatters) {
  const LpnShape s = lpn_shape(5000);
  const std::vector<Block> x = random_blocks(s.N, 1);
  std::vector<Block> a = x, b = x, c = x;
  LpnCode(s, make_block(1, 2)).dual_encode(a.data());
  LpnCode(s, make_block(1, 2)).dual_encode(b.data());
  LpnCode(s, make_block(1, 3)).dual_encode(c.data());
  expect_prefix_equal(a, b, s.m);
  size_t same = 0;
  for (size_t i = 0; i < s.m; ++i) same += block_equal(a[i], c[i]);
  EXPECT_LT(same, 3u);
}

TEST(LpnCode, OutputLooksUniformForSparseInput) {
  // A weak sanity check of the mixing: with one non-zero bit-vector per noise block, each output
  // bit is about balanced.
  const LpnShape s = lpn_shape(1 << 14);
  const LpnCode code(s, make_block(8, 9));
  Prg prg(make_block(10, 11));
  std::vector<Block> x(s.N, zero_block());
  const uint64_t block = uint64_t{1} << s.depth;
  for (uint64_t i = 0; i < s.t; ++i) x[i * block + prg.uniform(block)] = make_block(~0ull, ~0ull);
  code.dual_encode(x.data());
  size_t ones = 0;
  for (size_t i = 0; i < s.m; ++i) ones += block_lo(x[i]) & 1;
  EXPECT_GT(ones, s.m / 2 - s.m / 20);
  EXPECT_LT(ones, s.m / 2 + s.m / 20);
}

// The definition in lpn_code.h executed literally (one block at a time, Prg for the randomness):
// the reference at sizes too large for the dense matrix, where the encoder takes its other paths.
void reference_encode(const LpnShape& s, Block seed, Block* x) {
  const uint64_t m = s.m, P = s.N - m;
  Block* p = x + m;
  Prg prg(seed);
  Block conv_seed[2];
  conv_seed[0] = prg.next_block();
  conv_seed[1] = prg.next_block();
  const Block expander_seed = prg.next_block();
  for (const Block& cs : conv_seed) {
    std::vector<uint32_t> coef((P + 3) / 4 * 4);
    Prg(cs).fill(coef.data(), coef.size() * 4);
    for (uint64_t i = 0; i < P; ++i)
      for (uint64_t d = 1; d <= 25; ++d)
        if (d == 25 || ((coef[i] >> (d - 1)) & 1)) {
          Block& target = p[(i + d) % P];
          target = _mm_xor_si128(target, p[i]);
        }
  }
  for (uint64_t j = 0; j < 7; ++j) {
    std::vector<uint64_t> r((m + 1) / 2 * 2);
    Prg(expander_seed, j).fill(r.data(), r.size() * 8);
    for (uint64_t row = 0; row < m; ++row) {
      const uint64_t col =
          j < 4 ? j * (P / 4) + uniform_below(r[row], P / 4) : uniform_below(r[row], P);
      x[row] = _mm_xor_si128(x[row], p[col]);
    }
  }
}

TEST(LpnCode, MatchesReferenceAtLargeSizes) {
  // 100003: the row-order expander; 2^21 + 3 (odd N - m): the region-sorted one.
  for (uint64_t m : {uint64_t{100003}, (uint64_t{1} << 21) + 3}) {
    const LpnShape s = lpn_shape(m);
    const Block seed = make_block(m, 5);
    const LpnCode code(s, seed);
    std::vector<Block> x = random_blocks(s.N, 3), y = random_blocks(s.N, 4);
    std::vector<Block> want_x = x, want_y = y, x1 = x;
    reference_encode(s, seed, want_x.data());
    reference_encode(s, seed, want_y.data());
    code.dual_encode(x1.data());
    expect_prefix_equal(x1, want_x, m);
    code.dual_encode2(x.data(), y.data());
    expect_prefix_equal(x, want_x, m);
    expect_prefix_equal(y, want_y, m);
  }
}

// The security estimate rests on the code generated by H's rows having relative distance >= 0.1.
// Not provable by test, but the low-weight messages (one or two rows) are where structured codes
// fail (Silver's weakness): check that every such codeword is heavy. H is read off dual_encode,
// 128 columns at a time in the 128 bit lanes of the Blocks.
TEST(LpnCode, SumsOfOneOrTwoRowsAreHeavy) {
  const LpnShape s = lpn_shape(1024);
  ASSERT_EQ(s.N, 2048u);
  const LpnCode code(s, make_block(77, 78));
  const size_t words = s.N / 64;
  std::vector<Row> rows(s.m, Row(words, 0));
  for (uint64_t g = 0; g < s.N; g += 128) {
    std::vector<Block> x(s.N, zero_block());
    for (uint64_t b = 0; b < 128; ++b)
      x[g + b] = b < 64 ? make_block(0, uint64_t{1} << b) : make_block(uint64_t{1} << (b - 64), 0);
    code.dual_encode(x.data());
    for (uint64_t r = 0; r < s.m; ++r) {
      rows[r][g / 64] = block_lo(x[r]);
      rows[r][g / 64 + 1] = block_hi(x[r]);
    }
  }
  size_t min_weight = s.N;
  for (uint64_t i = 0; i < s.m; ++i) {
    size_t w = 0;
    for (uint64_t k = 0; k < words; ++k) w += __builtin_popcountll(rows[i][k]);
    min_weight = std::min(min_weight, w);
    for (uint64_t j = i + 1; j < s.m; ++j) {
      size_t wij = 0;
      for (uint64_t k = 0; k < words; ++k) wij += __builtin_popcountll(rows[i][k] ^ rows[j][k]);
      min_weight = std::min(min_weight, wij);
    }
  }
  std::printf("m = 1024, N = 2048: minimum weight of one or two rows %zu (%.3f N)\n", min_weight,
              static_cast<double>(min_weight) / s.N);
  EXPECT_GE(min_weight, s.N / 10);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double thread_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double wall_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Single-threaded timings, thread CPU time (the figure that matters on a shared machine) and wall
// time, medians of 5 runs.
TEST(LpnCodeLarge, Timing) {
  if (std::getenv("PSI_LARGE") == nullptr) GTEST_SKIP() << "set PSI_LARGE=1";
  for (int k : {16, 18, 20, 22, 24}) {
    const LpnShape s = lpn_shape(uint64_t{1} << k);
    const LpnCode code(s, make_block(1, k));
    std::vector<Block> x = random_blocks(s.N, 1), y = random_blocks(s.N, 2);
    std::vector<double> one, two, one_wall, two_wall;
    for (int run = 0; run < 5; ++run) {
      const double c0 = thread_cpu_ms(), w0 = wall_ms();
      code.dual_encode(x.data());
      const double c1 = thread_cpu_ms(), w1 = wall_ms();
      code.dual_encode2(x.data(), y.data());
      const double c2 = thread_cpu_ms(), w2 = wall_ms();
      one.push_back(c1 - c0);
      two.push_back(c2 - c1);
      one_wall.push_back(w1 - w0);
      two_wall.push_back(w2 - w1);
    }
    std::printf(
        "m = 2^%d (N = %llu): dual_encode %.1f ms cpu (%.1f wall), dual_encode2 %.1f ms cpu "
        "(%.1f wall), medians of 5\n",
        k, static_cast<unsigned long long>(s.N), median(one), median(one_wall), median(two),
        median(two_wall));
  }
}

}  // namespace
}  // namespace psi
