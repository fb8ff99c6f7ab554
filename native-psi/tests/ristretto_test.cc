// ristretto255 (group/ristretto.h) against independent oracles: the RFC 9496 test vectors (A.1, the
// multiples 0..15 of the generator; A.2, the invalid encodings), each cross-checked against
// libsodium, and random differential tests of every operation against libsodium's
// crypto_core_ristretto255 / crypto_scalarmult_ristretto255: group law, equality, scalar
// multiplication by variable and fixed bases (edge-case scalars included), decoding, the batched
// double-and-encode (strides, identities, repeated points) and the decoding hints (honest hints
// accepted, every kind of wrong hint and every invalid encoding rejected).
#include "group/ristretto.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hex.h"
#include "rfc9496_vectors.h"

using namespace psi::group;
using psi::test::from_hex;
using psi::test::to_hex;
using psi::test::rfc9496::kInvalid;
using psi::test::rfc9496::kMultiples;
using psi::test::rfc9496::kNumInvalid;

namespace {

using B32 = std::array<uint8_t, 32>;

// The group order l = 2^252 + 27742317777372353535851937790883648493, little-endian.
const char* const kOrderHex = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010";
// The field prime p = 2^255 - 19, little-endian.
const char* const kPrimeHex = "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f";

B32 b32(const std::string& hex) {
  const std::vector<uint8_t> v = from_hex(hex);
  B32 r{};
  std::memcpy(r.data(), v.data(), 32);
  return r;
}
std::string hx(const B32& b) { return to_hex(b.data(), 32); }

B32 enc(const Point& p) {
  B32 r;
  encode(p, r.data());
  return r;
}

B32 small_scalar(uint64_t k) {
  B32 r{};
  for (int i = 0; i < 8; ++i) r[i] = uint8_t(k >> (8 * i));
  return r;
}

B32 random_bytes(std::mt19937_64& rng) {
  B32 r;
  for (int i = 0; i < 32; i += 8) {
    const uint64_t w = rng();
    for (int j = 0; j < 8; ++j) r[i + j] = uint8_t(w >> (8 * j));
  }
  return r;
}

// A uniform scalar mod l: 64 random bytes reduced by libsodium.
B32 random_scalar(std::mt19937_64& rng) {
  uint8_t wide[64];
  const B32 lo = random_bytes(rng), hi = random_bytes(rng);
  std::memcpy(wide, lo.data(), 32);
  std::memcpy(wide + 32, hi.data(), 32);
  B32 r;
  crypto_core_ristretto255_scalar_reduce(r.data(), wide);
  return r;
}

// k mod l for any 32-byte k (libsodium).
B32 reduce(const B32& k) {
  uint8_t wide[64] = {0};
  std::memcpy(wide, k.data(), 32);
  B32 r;
  crypto_core_ristretto255_scalar_reduce(r.data(), wide);
  return r;
}

// Little-endian 256-bit a - b (a >= b).
B32 sub256(const B32& a, const B32& b) {
  B32 r;
  int borrow = 0;
  for (int i = 0; i < 32; ++i) {
    const int d = int(a[i]) - int(b[i]) - borrow;
    r[i] = uint8_t(d & 0xff);
    borrow = d < 0;
  }
  return r;
}

// libsodium oracles. A zero return code is required unless the caller expects the identity.
B32 s_base(const B32& k) {
  B32 r;
  EXPECT_EQ(crypto_scalarmult_ristretto255_base(r.data(), k.data()), 0) << hx(k);
  return r;
}
B32 s_mul(const B32& k, const B32& p) {
  B32 r;
  EXPECT_EQ(crypto_scalarmult_ristretto255(r.data(), k.data(), p.data()), 0)
      << hx(k) << " " << hx(p);
  return r;
}
B32 s_add(const B32& p, const B32& q) {
  B32 r;
  EXPECT_EQ(crypto_core_ristretto255_add(r.data(), p.data(), q.data()), 0);
  return r;
}
B32 s_sub(const B32& p, const B32& q) {
  B32 r;
  EXPECT_EQ(crypto_core_ristretto255_sub(r.data(), p.data(), q.data()), 0);
  return r;
}

Point dec(const B32& e) {
  Point p = point_identity();
  EXPECT_TRUE(decode(e.data(), &p)) << hx(e);
  return p;
}

// Other representatives of the same ristretto element: + the 4-torsion point (i, 0), + the
// 2-torsion point (0, -1), and a projective rescaling by lambda.
Point torsion4() { return Point{fe_sqrt_m1(), fe_zero(), fe_one(), fe_zero()}; }
Point torsion2() { return Point{fe_zero(), fe_neg(fe_one()), fe_one(), fe_zero()}; }
Point rescale(const Point& p, const Fe& l) {
  return Point{fe_mul(p.X, l), fe_mul(p.Y, l), fe_mul(p.Z, l), fe_mul(p.T, l)};
}
Fe random_fe(std::mt19937_64& rng) {
  B32 b = random_bytes(rng);
  b[0] |= 1;  // nonzero
  return fe_from_bytes(b.data());
}

// (l + 1) / 2: the inverse of 2 mod l.
B32 half_scalar() {
  B32 two = small_scalar(2), r;
  EXPECT_EQ(crypto_core_ristretto255_scalar_invert(r.data(), two.data()), 0);
  return r;
}

// The honest hint of a valid encoding x, as a sender makes it: encode 2 * (x / 2) with a hint.
B32 honest_hint(const B32& x) {
  const Point q = point_mul(dec(x), half_scalar().data());
  B32 out, hint;
  double_encode_batch(&q, 1, out.data(), 32, hint.data(), 32);
  EXPECT_EQ(hx(out), hx(x));
  return hint;
}

// The RFC 9496 verdict on x, by libsodium: crypto_core_ristretto255_is_valid_point of libsodium
// 1.0.18 ignores the top bit of x[31] (its canonicity check masks it), while RFC 9496 rejects every
// encoding with that bit set (the string is then >= 2^255, not a canonical field element).
bool rfc_valid(const B32& x) {
  return (x[31] & 0x80) == 0 && crypto_core_ristretto255_is_valid_point(x.data()) == 1;
}

bool hinted_ok(const B32& x, const B32& h) {
  Point p;
  return decode_hinted(x.data(), h.data(), &p);
}

class RistrettoBase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

}  // namespace

using RistrettoVectors = RistrettoBase;
using RistrettoOps = RistrettoBase;
using RistrettoScalarMul = RistrettoBase;
using RistrettoDecode = RistrettoBase;
using RistrettoBatch = RistrettoBase;
using RistrettoHints = RistrettoBase;

// ------------------------------------------------------------------------------------------------
// RFC 9496 A.1 and A.2

TEST_F(RistrettoVectors, RfcMultiplesMatchLibsodium) {
  EXPECT_EQ(std::string(kMultiples[0]), std::string(64, '0'));
  for (uint64_t k = 1; k < 16; ++k) EXPECT_EQ(hx(s_base(small_scalar(k))), kMultiples[k]) << k;
}

TEST_F(RistrettoVectors, GeneratorMultiples) {
  const Point g = point_generator();
  const FixedBase fg(g);
  EXPECT_EQ(hx(enc(point_identity())), kMultiples[0]);
  EXPECT_EQ(hx(enc(g)), kMultiples[1]);
  Point acc = point_identity();
  for (uint64_t k = 0; k < 16; ++k) {
    const B32 want = b32(kMultiples[k]);
    const B32 s = small_scalar(k);
    EXPECT_EQ(hx(enc(point_mul(g, s.data()))), kMultiples[k]) << "point_mul " << k;
    EXPECT_EQ(hx(enc(fg.mul(s.data()))), kMultiples[k]) << "FixedBase " << k;
    EXPECT_EQ(hx(enc(acc)), kMultiples[k]) << "repeated add " << k;
    EXPECT_EQ(point_is_identity(acc), k == 0) << k;
    Point d;
    ASSERT_TRUE(decode(want.data(), &d)) << k;
    EXPECT_EQ(hx(enc(d)), kMultiples[k]) << k;
    EXPECT_TRUE(point_equal(d, acc)) << k;
    EXPECT_EQ(point_is_identity(d), k == 0) << k;
    acc = point_add(acc, g);
  }
  // and going down again with point_sub
  for (int k = 15; k >= 0; --k) {
    acc = point_sub(acc, g);
    EXPECT_EQ(hx(enc(acc)), kMultiples[k]) << "repeated sub " << k;
  }
}

TEST_F(RistrettoVectors, RfcInvalidEncodingsRejected) {
  std::mt19937_64 rng(1);
  // honest hints of a few valid encodings, to try on the invalid ones
  std::vector<B32> hints;
  for (int k = 0; k < 4; ++k) hints.push_back(honest_hint(b32(kMultiples[k])));
  B32 zeros{}, ones;
  ones.fill(0xff);
  hints.push_back(zeros);
  hints.push_back(ones);
  for (int i = 0; i < 8; ++i) hints.push_back(random_bytes(rng));
  for (size_t i = 0; i < kNumInvalid; ++i) {
    const B32 x = b32(kInvalid[i]);
    EXPECT_EQ(crypto_core_ristretto255_is_valid_point(x.data()), 0) << kInvalid[i];
    Point p;
    EXPECT_FALSE(decode(x.data(), &p)) << kInvalid[i];
    for (const B32& h : hints) EXPECT_FALSE(hinted_ok(x, h)) << kInvalid[i] << " hint " << hx(h);
  }
}

// ------------------------------------------------------------------------------------------------
// Group law and equality against libsodium

TEST_F(RistrettoOps, AddSubDblNegMatchLibsodium) {
  std::mt19937_64 rng(2);
  const Point g = point_generator();
  const B32 zero{};
  for (int it = 0; it < 300; ++it) {
    const B32 a = random_scalar(rng), b = random_scalar(rng);
    const Point p = point_mul(g, a.data()), q = point_mul(g, b.data());
    const B32 ep = enc(p), eq = enc(q);
    ASSERT_EQ(hx(ep), hx(s_base(a)));
    ASSERT_EQ(hx(eq), hx(s_base(b)));
    const Point sum = point_add(p, q), diff = point_sub(p, q), dbl = point_dbl(p),
                neg = point_neg(p);
    EXPECT_EQ(hx(enc(sum)), hx(s_add(ep, eq)));
    EXPECT_EQ(hx(enc(diff)), hx(s_sub(ep, eq)));
    EXPECT_EQ(hx(enc(dbl)), hx(s_add(ep, ep)));
    EXPECT_EQ(hx(enc(neg)), hx(s_sub(zero, ep)));
    // chained on unnormalised outputs: c1 = 2(p+q) - (p-q) = p + 3q, c2 = c1 - 2(2p) = 3q - 3p
    const Point c1 = point_add(point_dbl(sum), point_neg(diff));
    const B32 e1 = s_sub(s_add(s_add(ep, eq), s_add(ep, eq)), s_sub(ep, eq));
    EXPECT_EQ(hx(enc(c1)), hx(e1));
    const Point c2 = point_sub(c1, point_dbl(dbl));
    EXPECT_EQ(hx(enc(c2)), hx(s_sub(e1, s_add(s_add(ep, ep), s_add(ep, ep)))));
    // with the identity and inverses
    EXPECT_TRUE(point_equal(point_add(p, point_identity()), p));
    EXPECT_TRUE(point_equal(point_add(point_identity(), p), p));
    EXPECT_TRUE(point_equal(point_sub(p, point_identity()), p));
    EXPECT_TRUE(point_is_identity(point_add(p, neg)));
    EXPECT_TRUE(point_is_identity(point_sub(p, p)));
    EXPECT_TRUE(point_equal(point_sub(point_identity(), p), neg));
    EXPECT_EQ(hx(enc(point_add(p, neg))), hx(zero));
  }
  EXPECT_TRUE(point_is_identity(point_dbl(point_identity())));
  EXPECT_TRUE(point_is_identity(point_neg(point_identity())));
  EXPECT_EQ(hx(enc(point_dbl(point_identity()))), hx(zero));
}

TEST_F(RistrettoOps, EqualityAcrossRepresentatives) {
  std::mt19937_64 rng(3);
  const Point g = point_generator();
  const Point t4 = torsion4(), t2 = torsion2();
  // the torsion points are representatives of the identity
  for (const Point& t : {t4, t2, point_add(t4, t2), point_dbl(t4), point_neg(t4)}) {
    EXPECT_TRUE(point_is_identity(t));
    EXPECT_TRUE(point_equal(t, point_identity()));
    EXPECT_EQ(hx(enc(t)), std::string(64, '0'));
  }
  for (int it = 0; it < 100; ++it) {
    const B32 a = random_scalar(rng), b = random_scalar(rng);
    const Point p = point_mul(g, a.data()), q = point_mul(g, b.data());
    const B32 ep = enc(p);
    const Point reps[] = {dec(ep),
                          point_add(p, t4),
                          point_add(p, t2),
                          point_sub(p, t4),
                          point_add(point_add(p, t4), t2),
                          rescale(p, random_fe(rng)),
                          rescale(point_add(p, t4), random_fe(rng))};
    for (const Point& r : reps) {
      EXPECT_TRUE(point_equal(p, r));
      EXPECT_TRUE(point_equal(r, p));
      EXPECT_FALSE(point_is_identity(r));
      EXPECT_EQ(hx(enc(r)), hx(ep));
      EXPECT_FALSE(point_equal(r, q));
      EXPECT_FALSE(point_equal(r, point_neg(p)));
      EXPECT_FALSE(point_equal(r, point_dbl(p)));
      // operations on other representatives give the same elements
      EXPECT_EQ(hx(enc(point_add(r, q))), hx(enc(point_add(p, q))));
      EXPECT_EQ(hx(enc(point_dbl(r))), hx(enc(point_dbl(p))));
      EXPECT_EQ(hx(enc(point_mul(r, b.data()))), hx(enc(point_mul(p, b.data()))));
    }
    EXPECT_FALSE(point_equal(p, q));
    EXPECT_FALSE(point_equal(p, point_identity()));
    EXPECT_FALSE(point_is_identity(p));
  }
}

// ------------------------------------------------------------------------------------------------
// Scalar multiplication against libsodium

TEST_F(RistrettoScalarMul, VariableBaseMatchesLibsodium) {
  std::mt19937_64 rng(4);
  const Point g = point_generator();
  for (int it = 0; it < 300; ++it) {
    const B32 a = random_scalar(rng), b = random_scalar(rng);
    const Point p = point_mul(g, a.data());
    const B32 ep = enc(p);
    ASSERT_EQ(hx(ep), hx(s_base(a))) << hx(a);
    EXPECT_EQ(hx(enc(point_mul(p, b.data()))), hx(s_mul(b, ep))) << hx(a) << " " << hx(b);
  }
  // unreduced scalars (any value below 2^255): the same as the reduced scalar
  for (int it = 0; it < 100; ++it) {
    B32 k = random_bytes(rng);
    k[31] &= 0x7f;
    const Point p = point_mul(g, random_scalar(rng).data());
    const B32 ep = enc(p);
    EXPECT_EQ(hx(enc(point_mul(p, k.data()))), hx(s_mul(reduce(k), ep))) << hx(k);
    EXPECT_EQ(hx(enc(point_mul(g, k.data()))), hx(s_base(reduce(k)))) << hx(k);
  }
}

TEST_F(RistrettoScalarMul, FixedBaseMatchesLibsodium) {
  std::mt19937_64 rng(5);
  const Point g = point_generator();
  const FixedBase fg(g);
  for (int it = 0; it < 300; ++it) {
    const B32 a = random_scalar(rng);
    EXPECT_EQ(hx(enc(fg.mul(a.data()))), hx(s_base(a))) << hx(a);
  }
  for (int it = 0; it < 100; ++it) {
    B32 k = random_bytes(rng);
    k[31] &= 0x7f;
    EXPECT_EQ(hx(enc(fg.mul(k.data()))), hx(s_base(reduce(k)))) << hx(k);
  }
  for (int it = 0; it < 16; ++it) {
    const B32 a = random_scalar(rng);
    // bases given by several representatives: normalised or not, with torsion added
    Point p = point_mul(g, a.data());
    if (it % 4 == 1) p = dec(enc(p));
    if (it % 4 == 2) p = point_add(p, torsion4());
    if (it % 4 == 3) p = rescale(point_add(p, torsion2()), random_fe(rng));
    const B32 ep = enc(p);
    const FixedBase fp(p);
    for (int j = 0; j < 12; ++j) {
      const B32 b = random_scalar(rng);
      EXPECT_EQ(hx(enc(fp.mul(b.data()))), hx(s_mul(b, ep))) << hx(ep) << " " << hx(b);
    }
    B32 k = random_bytes(rng);
    k[31] &= 0x7f;
    EXPECT_EQ(hx(enc(fp.mul(k.data()))), hx(s_mul(reduce(k), ep))) << hx(k);
  }
}

TEST_F(RistrettoScalarMul, EdgeCaseScalars) {
  std::mt19937_64 rng(6);
  const Point g = point_generator();
  const B32 l = b32(kOrderHex);
  const B32 one = small_scalar(1), zero{};
  const B32 l_minus_1 = sub256(l, one);
  B32 l_plus_1 = l;
  l_plus_1[0]++;  // no carry: l[0] = 0xed
  const B32 zero_enc{};

  // scalars below 2^255 with carry-heavy signed-digit recodings
  std::vector<B32> specials;
  auto filled = [](uint8_t v, uint8_t top) {
    B32 k;
    k.fill(v);
    k[31] = top;
    return k;
  };
  specials.push_back(filled(0xff, 0x7f));  // 2^255 - 1
  specials.push_back(filled(0x88, 0x08));
  specials.push_back(filled(0x88, 0x78));
  specials.push_back(filled(0x77, 0x77));
  specials.push_back(filled(0x08, 0x08));
  specials.push_back(filled(0x80, 0x7f));
  specials.push_back(filled(0xf8, 0x7f));
  specials.push_back(filled(0x00, 0x7f));
  specials.push_back(filled(0x00, 0x40));  // 2^254
  specials.push_back(filled(0x00, 0x10));  // 2^252
  specials.push_back(small_scalar(8));
  specials.push_back(small_scalar(0x88));
  specials.push_back(small_scalar(2));
  specials.push_back(sub256(l, small_scalar(2)));
  specials.push_back(sub256(l, small_scalar(8)));
  for (int i = 0; i < 4; ++i) {
    B32 k = random_bytes(rng);
    k[31] = 0x7f;
    specials.push_back(k);
  }
  for (int i = 0; i < 2; ++i) {  // l + small, and l * 2 + small, still below 2^255
    B32 k = l;
    k[0] = uint8_t(k[0] + 1 + i);
    specials.push_back(k);
  }
  B32 l2 = l;  // 2l
  {
    int c = 0;
    for (int i = 0; i < 32; ++i) {
      const int s = 2 * l[i] + c;
      l2[i] = uint8_t(s);
      c = s >> 8;
    }
  }
  specials.push_back(l2);  // 2l == 0 mod l
  specials.push_back(sub256(l2, one));

  const FixedBase fg(g);
  for (int it = 0; it < 4; ++it) {
    const Point p = it == 0 ? g : point_mul(g, random_scalar(rng).data());
    const B32 ep = enc(p);
    const FixedBase fp(p);
    for (const Point& r : {point_mul(p, zero.data()), fp.mul(zero.data()), point_mul(p, l.data()),
                           fp.mul(l.data()), point_mul(p, l2.data()), fp.mul(l2.data())}) {
      EXPECT_TRUE(point_is_identity(r)) << it;
      EXPECT_EQ(hx(enc(r)), hx(zero_enc)) << it;
    }
    for (const Point& r : {point_mul(p, one.data()), fp.mul(one.data()),
                           point_mul(p, l_plus_1.data()), fp.mul(l_plus_1.data())}) {
      EXPECT_TRUE(point_equal(r, p)) << it;
      EXPECT_EQ(hx(enc(r)), hx(ep)) << it;
    }
    const B32 neg = s_sub(zero_enc, ep);
    EXPECT_EQ(hx(enc(point_neg(p))), hx(neg));
    for (const Point& r : {point_mul(p, l_minus_1.data()), fp.mul(l_minus_1.data())}) {
      EXPECT_TRUE(point_equal(r, point_neg(p))) << it;
      EXPECT_EQ(hx(enc(r)), hx(neg)) << it;
    }
    for (const B32& k : specials) {
      const B32 kr = reduce(k);
      if (kr == zero) continue;  // covered above (libsodium refuses the identity)
      const std::string want = hx(s_mul(kr, ep));
      EXPECT_EQ(hx(enc(point_mul(p, k.data()))), want) << "point_mul " << hx(k);
      EXPECT_EQ(hx(enc(fp.mul(k.data()))), want) << "FixedBase " << hx(k);
      if (it == 0) {
        EXPECT_EQ(hx(enc(fg.mul(k.data()))), hx(s_base(kr))) << hx(k);
      }
    }
  }
  // the identity as a base
  const Point id = point_identity();
  const FixedBase fid(id);
  for (const B32& k : specials) {
    EXPECT_TRUE(point_is_identity(point_mul(id, k.data())));
    EXPECT_TRUE(point_is_identity(fid.mul(k.data())));
    EXPECT_TRUE(point_is_identity(point_mul(torsion4(), k.data())));
  }
}

// ------------------------------------------------------------------------------------------------
// Decoding

TEST_F(RistrettoDecode, RoundTripsAndAgreesWithLibsodiumOnRandomStrings) {
  std::mt19937_64 rng(7);
  const Point g = point_generator();
  for (int it = 0; it < 200; ++it) {
    const Point p = point_mul(g, random_scalar(rng).data());
    const B32 e = enc(p);
    Point d;
    ASSERT_TRUE(decode(e.data(), &d)) << hx(e);
    EXPECT_TRUE(point_equal(d, p));
    EXPECT_EQ(hx(enc(d)), hx(e));
    // the high bit set, or the negated s, is rejected
    B32 hi = e;
    hi[31] |= 0x80;
    EXPECT_FALSE(decode(hi.data(), &d));
    if (e != B32{}) {
      const B32 negs = sub256(b32(kPrimeHex), e);
      EXPECT_FALSE(decode(negs.data(), &d)) << hx(negs);
    }
  }
  int valid = 0;
  for (int it = 0; it < 4000; ++it) {
    B32 x = random_bytes(rng);
    if (it % 2) x[31] &= 0x7f, x[0] &= 0xfe;  // make acceptance likely
    Point d;
    const bool ok = decode(x.data(), &d);
    EXPECT_EQ(ok, rfc_valid(x)) << hx(x);
    if (ok) {
      ++valid;
      EXPECT_EQ(hx(enc(d)), hx(x));
      // and it is the element libsodium decodes: compare through an addition
      EXPECT_EQ(hx(enc(point_add(d, g))), hx(s_add(x, b32(kMultiples[1]))));
    }
  }
  EXPECT_GT(valid, 200);
}

TEST_F(RistrettoDecode, NonCanonicalSmallValuesRejected) {
  // s + p for every s < 19 (all below 2^255): never accepted, whether or not s itself is valid
  const B32 p = b32(kPrimeHex);
  for (int s = 0; s < 19; ++s) {
    B32 x = p;
    x[0] = uint8_t(x[0] + s);
    B32 canon = small_scalar(uint64_t(s));
    Point d;
    EXPECT_FALSE(decode(x.data(), &d)) << hx(x);
    EXPECT_EQ(crypto_core_ristretto255_is_valid_point(x.data()), 0) << hx(x);
    const bool valid = decode(canon.data(), &d);
    EXPECT_EQ(valid, crypto_core_ristretto255_is_valid_point(canon.data()) == 1) << s;
    if (valid) {
      const B32 h = honest_hint(canon);
      EXPECT_TRUE(hinted_ok(canon, h)) << s;
      EXPECT_FALSE(hinted_ok(x, h)) << "non-canonical " << hx(x) << " with the hint of " << s;
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Batched double-and-encode

namespace {

// n inputs: random points, with representatives of the identity and repeated elements mixed in.
std::vector<Point> batch_inputs(size_t n, std::mt19937_64& rng) {
  const Point g = point_generator();
  std::vector<Point> in(n);
  for (size_t i = 0; i < n; ++i) {
    switch (i % 9) {
      case 3:
        in[i] = point_identity();
        break;
      case 5:
        in[i] = in[i - 1];  // the same point twice in a row
        break;
      case 6:
        in[i] = point_add(in[i - 2], torsion4());  // the same element, another representative
        break;
      case 7:
        in[i] = (i / 9) % 2 ? torsion4() : torsion2();  // identity, odd representatives
        break;
      case 8:
        in[i] = rescale(in[0], random_fe(rng));  // repeats the first element
        break;
      default:
        in[i] = point_mul(g, random_scalar(rng).data());
    }
  }
  if (n == 2) in[1] = point_identity();
  return in;
}

struct Layout {
  size_t out_stride;
  ptrdiff_t hint_offset;  // from out; -1: a separate hint array; -2: no hints
  size_t hint_stride;
};

void check_batch(const std::vector<Point>& in, const Layout& lay, const std::string& what) {
  const size_t n = in.size();
  const uint8_t kSentinel = 0xa5;
  const size_t slack = 64;
  std::vector<uint8_t> buf(n * lay.out_stride + slack, kSentinel);
  std::vector<uint8_t> sep(lay.hint_offset == -1 ? n * lay.hint_stride + slack : 0, kSentinel);
  uint8_t* hints = nullptr;
  if (lay.hint_offset >= 0) hints = buf.data() + lay.hint_offset;
  if (lay.hint_offset == -1) hints = sep.data();
  double_encode_batch(n ? in.data() : nullptr, n, n ? buf.data() : nullptr, lay.out_stride, hints,
                      lay.hint_stride);
  std::vector<bool> written(buf.size(), false);
  for (size_t i = 0; i < n; ++i) {
    B32 got, want_libsodium, hint;
    std::memcpy(got.data(), buf.data() + i * lay.out_stride, 32);
    for (size_t j = 0; j < 32; ++j) written[i * lay.out_stride + j] = true;
    const B32 ein = enc(in[i]);
    want_libsodium = s_add(ein, ein);
    EXPECT_EQ(hx(got), hx(enc(point_dbl(in[i])))) << what << " i=" << i;
    EXPECT_EQ(hx(got), hx(want_libsodium)) << what << " i=" << i;
    if (!hints) continue;
    std::memcpy(hint.data(), hints + i * lay.hint_stride, 32);
    if (lay.hint_offset >= 0)
      for (size_t j = 0; j < 32; ++j)
        written[size_t(lay.hint_offset) + i * lay.hint_stride + j] = true;
    Point a, b;
    ASSERT_TRUE(decode(got.data(), &a)) << what << " i=" << i;
    EXPECT_TRUE(decode_hinted(got.data(), hint.data(), &b))
        << what << " i=" << i << " enc " << hx(got) << " hint " << hx(hint);
    EXPECT_TRUE(point_equal(a, b)) << what << " i=" << i;
    EXPECT_EQ(hx(enc(b)), hx(got)) << what << " i=" << i;
    EXPECT_TRUE(point_equal(b, point_dbl(in[i]))) << what << " i=" << i;
  }
  // nothing written outside the encodings and hints
  for (size_t j = 0; j < buf.size(); ++j)
    if (!written[j]) {
      ASSERT_EQ(buf[j], kSentinel) << what << " byte " << j << " of out";
    }
  for (size_t j = 0; j < sep.size(); ++j) {
    const bool in_hint = j < n * lay.hint_stride && j % lay.hint_stride < 32;
    if (!in_hint) {
      ASSERT_EQ(sep[j], kSentinel) << what << " byte " << j << " of hints";
    }
  }
}

}  // namespace

TEST_F(RistrettoBatch, DoubleEncodeMatchesLibsodium) {
  std::mt19937_64 rng(8);
  const Layout layouts[] = {
      {32, -1, 32},  // packed, separate hints
      {32, -2, 0},   // no hints
      {64, 32, 64},  // interleaved encoding, hint
      {96, 40, 96},  // interleaved with gaps
      {48, -2, 0},   // gaps, no hints
      {32, -1, 80},  // separate hints with gaps
  };
  for (size_t n : {0, 1, 2, 3, 7, 9, 64}) {
    const std::vector<Point> in = batch_inputs(n, rng);
    for (const Layout& lay : layouts)
      check_batch(in, lay,
                  "n=" + std::to_string(n) + " stride=" + std::to_string(lay.out_stride) +
                      " hint_offset=" + std::to_string(lay.hint_offset));
  }
  // all identities (every representative), and one point repeated
  std::vector<Point> ids = {point_identity(), torsion2(), torsion4(), point_neg(torsion4()),
                            point_identity()};
  check_batch(ids, {32, -1, 32}, "identities");
  check_batch({ids[2]}, {32, -1, 32}, "single 4-torsion");
  const Point p = point_mul(point_generator(), random_scalar(rng).data());
  check_batch(std::vector<Point>(7, p), {64, 32, 64}, "repeated");
}

TEST_F(RistrettoBatch, HalfThenDoubleEncodesThePoint) {
  // the callers' pattern: encode P on the wire as double_encode_batch(P / 2)
  std::mt19937_64 rng(9);
  const B32 half = half_scalar();
  std::vector<Point> in;
  std::vector<B32> want;
  for (int i = 0; i < 33; ++i) {
    const B32 a = random_scalar(rng);
    want.push_back(i == 10 ? B32{} : s_base(a));
    const Point p = i == 10 ? point_identity() : point_mul(point_generator(), a.data());
    in.push_back(point_mul(p, half.data()));
  }
  std::vector<uint8_t> out(in.size() * 32), hints(in.size() * 32);
  double_encode_batch(in.data(), in.size(), out.data(), 32, hints.data(), 32);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(to_hex(out.data() + 32 * i, 32), hx(want[i])) << i;
    Point d;
    EXPECT_TRUE(decode_hinted(out.data() + 32 * i, hints.data() + 32 * i, &d)) << i;
  }
}

// ------------------------------------------------------------------------------------------------
// Decoding hints

TEST_F(RistrettoHints, WrongHintsRejected) {
  std::mt19937_64 rng(10);
  std::vector<B32> encs = {B32{}, b32(kMultiples[1]), b32(kMultiples[2])};
  for (int i = 0; i < 12; ++i) encs.push_back(s_base(random_scalar(rng)));
  std::vector<B32> hs;
  for (const B32& e : encs) hs.push_back(honest_hint(e));
  for (size_t i = 0; i < encs.size(); ++i) {
    const B32& e = encs[i];
    const B32& h = hs[i];
    Point a, b;
    ASSERT_TRUE(decode(e.data(), &a));
    ASSERT_TRUE(decode_hinted(e.data(), h.data(), &b)) << hx(e) << " " << hx(h);
    EXPECT_TRUE(point_equal(a, b));
    EXPECT_EQ(hx(enc(b)), hx(e));
    // every single-bit flip
    for (int bit = 0; bit < 256; ++bit) {
      B32 f = h;
      f[bit / 8] ^= uint8_t(1u << (bit % 8));
      EXPECT_FALSE(hinted_ok(e, f)) << hx(e) << " hint bit " << bit;
    }
    // all zeros, all ones, random
    EXPECT_FALSE(hinted_ok(e, B32{})) << hx(e);
    B32 ones;
    ones.fill(0xff);
    EXPECT_FALSE(hinted_ok(e, ones)) << hx(e);
    for (int r = 0; r < 20; ++r) EXPECT_FALSE(hinted_ok(e, random_bytes(rng))) << hx(e);
    // the honest hint of another element
    for (size_t j = 0; j < encs.size(); ++j) {
      if (j != i) {
        EXPECT_FALSE(hinted_ok(e, hs[j])) << hx(e) << " with the hint of " << hx(encs[j]);
      }
    }
    // the honest hint on the element's negation (another encoding), and on invalid relatives of e
    if (i != 0) {
      const B32 neg = s_sub(B32{}, e);
      EXPECT_FALSE(hinted_ok(neg, h)) << hx(e);
      const B32 negs = sub256(b32(kPrimeHex), e);  // -s: negative, invalid
      EXPECT_FALSE(hinted_ok(negs, h)) << hx(negs);
    }
    B32 hi = e;
    hi[31] |= 0x80;
    EXPECT_FALSE(hinted_ok(hi, h)) << hx(hi);
  }
}

// The contract ("rejects an encoding with a wrong hint"): exactly one hint is accepted per
// encoding, so the negation of the honest hint (another canonical field element, with the same
// square) must be rejected as well.
TEST_F(RistrettoHints, NegatedHintRejected) {
  std::mt19937_64 rng(11);
  std::vector<B32> encs = {B32{}, b32(kMultiples[1])};
  for (int i = 0; i < 6; ++i) encs.push_back(s_base(random_scalar(rng)));
  for (const B32& e : encs) {
    const B32 h = honest_hint(e);
    const B32 neg = sub256(b32(kPrimeHex), h);
    EXPECT_FALSE(hinted_ok(e, neg))
        << "encoding " << hx(e) << " honest hint " << hx(h) << " negated hint " << hx(neg);
  }
}

TEST_F(RistrettoHints, RandomStrings) {
  std::mt19937_64 rng(12);
  int valid = 0;
  for (int it = 0; it < 3000; ++it) {
    B32 x = random_bytes(rng);
    if (it % 2) x[31] &= 0x7f, x[0] &= 0xfe;
    const B32 h = random_bytes(rng);
    Point d, dh;
    const bool ok = decode(x.data(), &d);
    EXPECT_EQ(ok, rfc_valid(x)) << hx(x);
    EXPECT_FALSE(decode_hinted(x.data(), h.data(), &dh)) << hx(x) << " random hint " << hx(h);
    if (ok && valid < 150) {
      ++valid;
      const B32 hh = honest_hint(x);
      ASSERT_TRUE(decode_hinted(x.data(), hh.data(), &dh)) << hx(x) << " " << hx(hh);
      EXPECT_TRUE(point_equal(d, dh));
      EXPECT_EQ(hx(enc(dh)), hx(x));
    }
  }
  EXPECT_GT(valid, 100);
}
