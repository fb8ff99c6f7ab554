// The batched scalar multiplications (group/ristretto_batch.h) against the scalar code they must
// equal (FixedBase::mul, point_mul: point_equal and identical encodings), on both paths (the
// AVX-512 IFMA code when this CPU has it, the scalar loop always), for every tail length around the
// 8-lane width, with edge-case scalars in every lane position, inputs whose limbs are not reduced,
// and libsodium's crypto_scalarmult_ristretto255 as an independent oracle.
//
// PSI_LARGE=1 adds RistrettoBatchLarge.Timing: single-threaded microseconds per operation, scalar
// versus batch (PSI_LARGE=1 psi_tests --gtest_filter='RistrettoBatchLarge*').
#include "group/ristretto_batch.h"

#include <gtest/gtest.h>
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hex.h"

using namespace psi::group;

namespace {

using Scalar = std::array<uint8_t, 32>;

Scalar hex_scalar(const char* hex) {
  const std::vector<uint8_t> v = psi::test::from_hex(hex);
  Scalar r{};
  std::memcpy(r.data(), v.data(), 32);
  return r;
}

// A uniform scalar mod l: 64 random bytes reduced by libsodium.
Scalar random_scalar(std::mt19937_64& rng) {
  uint8_t wide[64];
  for (int i = 0; i < 64; i += 8) {
    const uint64_t w = rng();
    for (int j = 0; j < 8; ++j) wide[i + j] = uint8_t(w >> (8 * j));
  }
  Scalar r;
  crypto_core_ristretto255_scalar_reduce(r.data(), wide);
  return r;
}

// In-contract edge scalars (below 2^255).
std::vector<Scalar> edge_scalars() {
  std::vector<Scalar> e;
  e.push_back(Scalar{});  // 0
  Scalar one{};
  one[0] = 1;
  e.push_back(one);
  e.push_back(
      hex_scalar("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"));  // l-1
  e.push_back(hex_scalar("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"));  // l
  Scalar top{};
  top.fill(0xff);
  top[31] = 0x7f;  // 2^255 - 1
  e.push_back(top);
  top[0] = 0xfe;  // 2^255 - 2
  e.push_back(top);
  Scalar hi{};
  hi[31] = 0x7f;  // 127 * 2^248
  e.push_back(hi);
  Scalar eights{};
  eights.fill(0x88);
  eights[31] = 0x08;  // every nibble 8: every signed digit -8 except the top one
  e.push_back(eights);
  Scalar sevens{};
  sevens.fill(0x77);  // every signed digit 7
  e.push_back(sevens);
  Scalar alt{};
  for (int i = 0; i < 32; ++i) alt[i] = uint8_t(i % 2 ? 0x80 : 0x08);
  alt[31] = 0x70;
  e.push_back(alt);
  return e;
}

// Every edge scalar, then random ones; the all-0x88 scalar (top bit set, outside the contract, the
// recoding's top digit is 9) is added too: both paths recode it the same way and must still agree.
std::vector<Scalar> make_scalars(size_t n, std::mt19937_64& rng, bool out_of_contract) {
  std::vector<Scalar> edges = edge_scalars();
  if (out_of_contract) {
    Scalar all88;
    all88.fill(0x88);
    edges.push_back(all88);
  }
  std::vector<Scalar> s(n);
  for (size_t i = 0; i < n; ++i) {
    // edge scalars land in different lane positions as n varies
    s[i] = (i % 3 == 1 && i / 3 < edges.size()) ? edges[(i / 3 + n) % edges.size()]
                                                : random_scalar(rng);
  }
  if (n > 0 && n < 3) s[0] = edges[n % edges.size()];
  return s;
}

std::vector<uint8_t> pack(const std::vector<Scalar>& s) {
  std::vector<uint8_t> out(32 * s.size() + 1);  // +1: never a zero-length vector
  for (size_t i = 0; i < s.size(); ++i) std::memcpy(out.data() + 32 * i, s[i].data(), 32);
  return out;
}

Point random_point(std::mt19937_64& rng) {
  uint8_t h[64], e[32];
  for (int i = 0; i < 64; i += 8) {
    const uint64_t w = rng();
    for (int j = 0; j < 8; ++j) h[i + j] = uint8_t(w >> (8 * j));
  }
  crypto_core_ristretto255_from_hash(e, h);
  Point p;
  EXPECT_TRUE(decode(e, &p));
  return p;
}

// Points of every shape: affine (decoded), projective (a sum, Z != 1), the identity, the generator.
std::vector<Point> make_points(size_t n, std::mt19937_64& rng) {
  std::vector<Point> p(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
      case 1:
        p[i] = random_point(rng);
        break;
      case 2:
        p[i] = point_add(random_point(rng), random_point(rng));
        break;
      case 3:
        p[i] = i % 2 ? point_generator() : point_identity();
        break;
      default:
        p[i] = point_dbl(random_point(rng));
    }
  }
  return p;
}

std::string enc_hex(const Point& p) {
  uint8_t e[32];
  encode(p, e);
  return psi::test::to_hex(e, 32);
}

void expect_same(const Point& want, const Point& got, size_t i) {
  EXPECT_TRUE(point_equal(want, got)) << "index " << i;
  EXPECT_EQ(enc_hex(want), enc_hex(got)) << "index " << i;
  // the batch output must be a valid input of the scalar code: its limbs are below 2^52
  for (const Fe* f : {&got.X, &got.Y, &got.Z, &got.T})
    for (int l = 0; l < 5; ++l) EXPECT_LT(f->v[l], uint64_t(1) << 52) << "index " << i;
}

const size_t kSizes[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 64, 513};

class RistrettoBatchMul : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(RistrettoBatchMul, ReportsPath) {
  std::printf("batch_simd_available() = %d\n", int(batch_simd_available()));
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma")) {
    EXPECT_TRUE(batch_simd_available());
  }
}

TEST_F(RistrettoBatchMul, FixedBaseMatchesScalar) {
  std::mt19937_64 rng(1);
  const FixedBase gen(point_generator());
  const FixedBase other(random_point(rng));
  for (const bool simd : {true, false}) {
    for (size_t n : kSizes) {
      for (const FixedBase* fb : {&gen, &other}) {
        const std::vector<Scalar> s = make_scalars(n, rng, true);
        const std::vector<uint8_t> packed = pack(s);
        std::vector<Point> out(n + 1);
        out[n] = point_generator();  // a sentinel past the end: must stay untouched
        batch_detail::fixed_base_mul_batch(*fb, packed.data(), n, out.data(), simd);
        for (size_t i = 0; i < n; ++i) expect_same(fb->mul(s[i].data()), out[i], i);
        const Point g = point_generator();
        EXPECT_EQ(std::memcmp(&out[n], &g, sizeof(Point)), 0) << "wrote past n = " << n;
      }
    }
  }
}

TEST_F(RistrettoBatchMul, PointMulMatchesScalar) {
  std::mt19937_64 rng(2);
  for (const bool simd : {true, false}) {
    for (size_t n : kSizes) {
      const std::vector<Scalar> s = make_scalars(n, rng, true);
      const std::vector<uint8_t> packed = pack(s);
      const std::vector<Point> p = make_points(n, rng);
      std::vector<Point> out(n + 1);
      out[n] = point_generator();
      batch_detail::point_mul_batch(p.data(), packed.data(), n, out.data(), simd);
      for (size_t i = 0; i < n; ++i) expect_same(point_mul(p[i], s[i].data()), out[i], i);
      const Point g = point_generator();
      EXPECT_EQ(std::memcmp(&out[n], &g, sizeof(Point)), 0) << "wrote past n = " << n;
    }
  }
}

// The public entry points (dispatching) give the same as the explicit paths.
TEST_F(RistrettoBatchMul, DispatchMatchesBothPaths) {
  std::mt19937_64 rng(3);
  const size_t n = 21;
  const std::vector<Scalar> s = make_scalars(n, rng, false);
  const std::vector<uint8_t> packed = pack(s);
  const std::vector<Point> p = make_points(n, rng);
  const FixedBase fb(p[0]);
  std::vector<Point> a(n), b(n), c(n), d(n);
  fixed_base_mul_batch(fb, packed.data(), n, a.data());
  batch_detail::fixed_base_mul_batch(fb, packed.data(), n, b.data(), false);
  point_mul_batch(p.data(), packed.data(), n, c.data());
  batch_detail::point_mul_batch(p.data(), packed.data(), n, d.data(), false);
  for (size_t i = 0; i < n; ++i) {
    expect_same(b[i], a[i], i);
    expect_same(d[i], c[i], i);
    expect_same(a[i], point_mul(p[0], s[i].data()), i);
  }
}

// out == points (in place), on both paths.
TEST_F(RistrettoBatchMul, PointMulInPlace) {
  std::mt19937_64 rng(8);
  for (const bool simd : {true, false}) {
    for (size_t n : {size_t(9), size_t(23)}) {
      const std::vector<Scalar> s = make_scalars(n, rng, false);
      const std::vector<uint8_t> packed = pack(s);
      const std::vector<Point> p = make_points(n, rng);
      std::vector<Point> io = p;
      batch_detail::point_mul_batch(io.data(), packed.data(), n, io.data(), simd);
      for (size_t i = 0; i < n; ++i) expect_same(point_mul(p[i], s[i].data()), io[i], i);
    }
  }
}

// Independent oracle: libsodium's scalar multiplications (it rejects a result equal to the
// identity, so scalars 0 mod l are skipped).
TEST_F(RistrettoBatchMul, AgreesWithLibsodium) {
  std::mt19937_64 rng(4);
  const size_t n = 40;
  std::vector<Scalar> s = make_scalars(n, rng, false);
  std::vector<Point> p(n);
  std::vector<std::array<uint8_t, 32>> penc(n);
  for (size_t i = 0; i < n; ++i) {
    p[i] = random_point(rng);
    encode(p[i], penc[i].data());
  }
  const std::vector<uint8_t> packed = pack(s);
  const FixedBase gen(point_generator());
  std::vector<Point> fbo(n), pmo(n);
  fixed_base_mul_batch(gen, packed.data(), n, fbo.data());
  point_mul_batch(p.data(), packed.data(), n, pmo.data());
  size_t checked = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t want[32];
    if (crypto_scalarmult_ristretto255_base(want, s[i].data()) != 0) continue;
    ++checked;
    EXPECT_EQ(psi::test::to_hex(want, 32), enc_hex(fbo[i])) << i;
    ASSERT_EQ(crypto_scalarmult_ristretto255(want, s[i].data(), penc[i].data()), 0) << i;
    EXPECT_EQ(psi::test::to_hex(want, 32), enc_hex(pmo[i])) << i;
  }
  EXPECT_GE(checked, n - 4);
}

// Inputs whose limbs are not reduced (value + p, limbs up to 2^52 - 1, as the Fe contract allows).
TEST_F(RistrettoBatchMul, UnreducedInputLimbs) {
  std::mt19937_64 rng(5);
  const size_t n = 11;
  const std::vector<Scalar> s = make_scalars(n, rng, false);
  const std::vector<uint8_t> packed = pack(s);
  std::vector<Point> p = make_points(n, rng);
  const Fe pl{{kMask51 - 18, kMask51, kMask51, kMask51, kMask51}};  // p in limbs
  for (Point& q : p) {
    for (Fe* f : {&q.X, &q.Y, &q.Z, &q.T}) {
      uint8_t b[32];
      fe_to_bytes(b, *f);
      *f = fe_from_bytes(b);                           // canonical limbs (< 2^51) ...
      for (int l = 0; l < 5; ++l) f->v[l] += pl.v[l];  // ... plus p: < 2^52
    }
  }
  std::vector<Point> out(n);
  point_mul_batch(p.data(), packed.data(), n, out.data());
  for (size_t i = 0; i < n; ++i) expect_same(point_mul(p[i], s[i].data()), out[i], i);
}

// Batch outputs fed back into the scalar code and into another batch.
TEST_F(RistrettoBatchMul, OutputsChain) {
  std::mt19937_64 rng(6);
  const size_t n = 17;
  const std::vector<Scalar> s1 = make_scalars(n, rng, false), s2 = make_scalars(n, rng, false);
  const std::vector<uint8_t> k1 = pack(s1), k2 = pack(s2);
  const FixedBase fb(random_point(rng));
  std::vector<Point> a(n), b(n);
  fixed_base_mul_batch(fb, k1.data(), n, a.data());
  point_mul_batch(a.data(), k2.data(), n, b.data());
  std::vector<uint8_t> e1(32 * n), e2(32 * n);
  std::vector<Point> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = point_mul(fb.mul(s1[i].data()), s2[i].data());
  double_encode_batch(b.data(), n, e1.data(), 32, nullptr, 0);
  double_encode_batch(want.data(), n, e2.data(), 32, nullptr, 0);
  EXPECT_EQ(e1, e2);
  for (size_t i = 0; i < n; ++i) {
    expect_same(want[i], b[i], i);
    expect_same(point_add(want[i], a[i]), point_add(b[i], a[i]), i);
  }
}

double thread_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Single-threaded thread CPU time per operation, median of 5 runs of n = 1024; PSI_LARGE=1 to run.
TEST(RistrettoBatchLarge, Timing) {
  if (!std::getenv("PSI_LARGE")) GTEST_SKIP() << "set PSI_LARGE=1";
  std::mt19937_64 rng(7);
  const size_t n = 1024;
  std::vector<Scalar> s(n);
  for (Scalar& x : s) x = random_scalar(rng);
  const std::vector<uint8_t> packed = pack(s);
  std::vector<Point> p(n);
  for (Point& q : p) q = random_point(rng);
  const FixedBase fb(p[0]);
  std::vector<Point> out(n), ref(n);
  std::vector<double> fs, fv, ps, pv;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = thread_us();
    batch_detail::fixed_base_mul_batch(fb, packed.data(), n, ref.data(), false);
    double t1 = thread_us();
    batch_detail::fixed_base_mul_batch(fb, packed.data(), n, out.data(), true);
    double t2 = thread_us();
    fs.push_back((t1 - t0) / n);
    fv.push_back((t2 - t1) / n);
    EXPECT_TRUE(point_equal(ref[n - 1], out[n - 1]));
    t0 = thread_us();
    batch_detail::point_mul_batch(p.data(), packed.data(), n, ref.data(), false);
    t1 = thread_us();
    batch_detail::point_mul_batch(p.data(), packed.data(), n, out.data(), true);
    t2 = thread_us();
    ps.push_back((t1 - t0) / n);
    pv.push_back((t2 - t1) / n);
    EXPECT_TRUE(point_equal(ref[n - 1], out[n - 1]));
  }
  std::printf("ristretto255, n = %zu, thread CPU time per operation, median of 5 (simd: %d)\n", n,
              int(batch_simd_available()));
  std::printf("  FixedBase::mul   scalar %7.2f us   batch %7.2f us   x%.2f\n", median(fs),
              median(fv), median(fs) / median(fv));
  std::printf("  point_mul        scalar %7.2f us   batch %7.2f us   x%.2f\n", median(ps),
              median(pv), median(ps) / median(pv));
}

}  // namespace
