// gf128_test.cc — GF(2^128) arithmetic against a bit-by-bit schoolbook reference (shift-and-add
// multiplication, reduction one bit at a time by X^128 = X^7 + X^2 + X + 1), plus known answers.
#include "core/gf128.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/prg.h"

namespace psi {
namespace {

struct U128 {
  uint64_t lo = 0, hi = 0;
};

U128 to_u(Block b) { return {block_lo(b), block_hi(b)}; }
Block to_b(U128 u) { return make_block(u.hi, u.lo); }
bool bit(U128 u, int k) { return ((k < 64 ? u.lo >> k : u.hi >> (k - 64)) & 1) != 0; }

// The obviously-correct reference: the 255-bit product bit by bit, then reduce from the top bit
// down, replacing X^k (k >= 128) by X^(k-128) * (X^7 + X^2 + X + 1).
U128 ref_mul(U128 a, U128 b) {
  bool p[256] = {};
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 128; ++j) p[i + j] ^= bit(a, i) && bit(b, j);
  for (int k = 255; k >= 128; --k) {
    if (!p[k]) continue;
    p[k] = false;
    for (int e : {7, 2, 1, 0}) p[k - 128 + e] ^= true;
  }
  U128 r;
  for (int k = 0; k < 128; ++k)
    if (p[k]) (k < 64 ? r.lo : r.hi) |= uint64_t(1) << (k % 64);
  return r;
}

U128 x_pow(int k) {
  U128 r;
  (k < 64 ? r.lo : r.hi) = uint64_t(1) << (k % 64);
  return r;
}

bool eq(Block a, Block b) { return block_equal(a, b); }

TEST(Gf128, MatchesSchoolbookOnRandomValues) {
  Prg rng(make_block(1, 2));
  for (int i = 0; i < 2000; ++i) {
    Block a = rng.next_block(), b = rng.next_block();
    // sparse operands too: they exercise the reduction's edge bits
    if (i % 4 == 1) a = to_b(x_pow(int(rng.uniform(128))));
    if (i % 4 == 2) b = make_block(rng.next_u64() | (uint64_t(1) << 63), 0);
    ASSERT_TRUE(eq(gf128_mul(a, b), to_b(ref_mul(to_u(a), to_u(b))))) << i;
    ASSERT_TRUE(eq(gf128_mul(a, b), gf128_mul(b, a)));
  }
}

TEST(Gf128, KnownAnswers) {
  // X^127 * X = X^128 = X^7 + X^2 + X + 1
  EXPECT_TRUE(eq(gf128_mul(to_b(x_pow(127)), to_b(x_pow(1))), make_block(0, 0x87)));
  // X^127 * X^127 = X^254 = X^126 * (X^7 + X^2 + X + 1) = X^133 + X^128 + X^127 + X^126
  //              = X^5 * 0x87 + 0x87 + X^127 + X^126
  EXPECT_TRUE(eq(gf128_mul(to_b(x_pow(127)), to_b(x_pow(127))),
                 make_block(0xC000000000000000ull, (0x87ull << 5) ^ 0x87)));
  // 1 is the identity, 0 absorbs
  Block one = make_block(0, 1), v = make_block(0x0123456789abcdefull, 0xfedcba9876543210ull);
  EXPECT_TRUE(eq(gf128_mul(v, one), v));
  EXPECT_TRUE(eq(gf128_mul(v, zero_block()), zero_block()));
}

TEST(Gf128, MulXIsMulByX) {
  Prg rng(make_block(3, 4));
  Block x = to_b(x_pow(1));
  for (int i = 0; i < 1000; ++i) {
    Block a = rng.next_block();
    if (i == 0) a = to_b(x_pow(127));
    if (i == 1) a = make_block(~0ull, ~0ull);
    ASSERT_TRUE(eq(gf128_mul_x(a), to_b(ref_mul(to_u(a), to_u(x))))) << i;
  }
}

TEST(Gf128, MulConstMatchesMulIncludingAliasing) {
  Prg rng(make_block(5, 6));
  for (size_t n : {0, 1, 7, 8, 9, 100}) {
    std::vector<Block> a(n), out(n);
    for (auto& x : a) x = rng.next_block();
    Block d = rng.next_block();
    gf128_mul_const(a.data(), d, out.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(eq(out[i], to_b(ref_mul(to_u(a[i]), to_u(d)))));
    gf128_mul_const(a.data(), d, a.data(), n);  // in place
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(eq(a[i], out[i]));
  }
}

TEST(Gf128, PackIsSumOfBitsTimesPowersOfX) {
  Prg rng(make_block(7, 8));
  for (int rep = 0; rep < 20; ++rep) {
    Block bits[128];
    for (auto& b : bits) b = rng.next_block();
    U128 want;
    for (int k = 0; k < 128; ++k) {
      U128 term = ref_mul(to_u(bits[k]), x_pow(k));
      want.lo ^= term.lo;
      want.hi ^= term.hi;
    }
    ASSERT_TRUE(eq(gf128_pack(bits), to_b(want))) << rep;
  }
  // packing 0/1 blocks gives the polynomial with those coefficients
  Block bits[128];
  for (int k = 0; k < 128; ++k) bits[k] = make_block(0, (k % 3) == 0);
  U128 want;
  for (int k = 0; k < 128; k += 3) (k < 64 ? want.lo : want.hi) |= uint64_t(1) << (k % 64);
  EXPECT_TRUE(eq(gf128_pack(bits), to_b(want)));
}

}  // namespace
}  // namespace psi
