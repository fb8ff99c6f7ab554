// fe25519.h — arithmetic in GF(2^255 - 19), five 51-bit limbs, for the ristretto255 group of the
// multiparty protocol (group/ristretto.h). libsodium has the same field inside, but does not export
// it: the multiparty protocol needs points in extended coordinates across calls, batched encoding
// and precomputed tables for bases other than the generator, none of which its API offers.
//
// Contract: an Fe holds any value below 2^52 per limb after add/sub/mul/sq/carry (not necessarily
// reduced); to_bytes gives the unique canonical encoding. Everything here is constant time: no
// branch and no memory index depends on a field value.
#pragma once

#include <cstdint>
#include <cstring>

namespace psi::group {

struct Fe {
  uint64_t v[5];
};

using u128 = unsigned __int128;
constexpr uint64_t kMask51 = (uint64_t(1) << 51) - 1;

inline Fe fe_zero() { return Fe{{0, 0, 0, 0, 0}}; }
inline Fe fe_one() { return Fe{{1, 0, 0, 0, 0}}; }

inline Fe fe_carry(const Fe& a) {
  Fe r = a;
  uint64_t c;
  c = r.v[0] >> 51, r.v[0] &= kMask51, r.v[1] += c;
  c = r.v[1] >> 51, r.v[1] &= kMask51, r.v[2] += c;
  c = r.v[2] >> 51, r.v[2] &= kMask51, r.v[3] += c;
  c = r.v[3] >> 51, r.v[3] &= kMask51, r.v[4] += c;
  c = r.v[4] >> 51, r.v[4] &= kMask51, r.v[0] += c * 19;
  return r;
}

inline Fe fe_add(const Fe& a, const Fe& b) {
  return fe_carry(
      Fe{{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3], a.v[4] + b.v[4]}});
}

// a - b + 4p, so that no limb goes negative for inputs below 2^53.
inline Fe fe_sub(const Fe& a, const Fe& b) {
  return fe_carry(Fe{{a.v[0] + 0x1fffffffffffb4 - b.v[0], a.v[1] + 0x1ffffffffffffc - b.v[1],
                      a.v[2] + 0x1ffffffffffffc - b.v[2], a.v[3] + 0x1ffffffffffffc - b.v[3],
                      a.v[4] + 0x1ffffffffffffc - b.v[4]}});
}

inline Fe fe_neg(const Fe& a) { return fe_sub(fe_zero(), a); }

// The 128-bit column sums of a product, carried down to limbs below 2^52.
inline Fe fe_carry_wide(u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
  Fe r;
  r1 += uint64_t(r0 >> 51), r.v[0] = uint64_t(r0) & kMask51;
  r2 += uint64_t(r1 >> 51), r.v[1] = uint64_t(r1) & kMask51;
  r3 += uint64_t(r2 >> 51), r.v[2] = uint64_t(r2) & kMask51;
  r4 += uint64_t(r3 >> 51), r.v[3] = uint64_t(r3) & kMask51;
  uint64_t c = uint64_t(r4 >> 51);
  r.v[4] = uint64_t(r4) & kMask51;
  r.v[0] += c * 19;
  c = r.v[0] >> 51, r.v[0] &= kMask51, r.v[1] += c;
  return r;
}

inline Fe fe_mul(const Fe& a, const Fe& b) {
  const uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const uint64_t b0 = b.v[0], b1 = b.v[1], b2 = b.v[2], b3 = b.v[3], b4 = b.v[4];
  const uint64_t b1_19 = b1 * 19, b2_19 = b2 * 19, b3_19 = b3 * 19, b4_19 = b4 * 19;
  u128 r0 =
      u128(a0) * b0 + u128(a1) * b4_19 + u128(a2) * b3_19 + u128(a3) * b2_19 + u128(a4) * b1_19;
  u128 r1 = u128(a0) * b1 + u128(a1) * b0 + u128(a2) * b4_19 + u128(a3) * b3_19 + u128(a4) * b2_19;
  u128 r2 = u128(a0) * b2 + u128(a1) * b1 + u128(a2) * b0 + u128(a3) * b4_19 + u128(a4) * b3_19;
  u128 r3 = u128(a0) * b3 + u128(a1) * b2 + u128(a2) * b1 + u128(a3) * b0 + u128(a4) * b4_19;
  u128 r4 = u128(a0) * b4 + u128(a1) * b3 + u128(a2) * b2 + u128(a3) * b1 + u128(a4) * b0;
  return fe_carry_wide(r0, r1, r2, r3, r4);
}

inline Fe fe_sq(const Fe& a) {
  const uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const uint64_t d0 = a0 * 2, d1 = a1 * 2, d2 = a2 * 2 * 19, d4 = a4 * 19, d419 = d4 * 2;
  const uint64_t a3_19 = a3 * 19;
  u128 r0 = u128(a0) * a0 + u128(d419) * a1 + u128(d2) * a3;
  u128 r1 = u128(d0) * a1 + u128(d419) * a2 + u128(a3) * a3_19;
  u128 r2 = u128(d0) * a2 + u128(a1) * a1 + u128(d419) * a3;
  u128 r3 = u128(d0) * a3 + u128(d1) * a2 + u128(a4) * d4;
  u128 r4 = u128(d0) * a4 + u128(d1) * a3 + u128(a2) * a2;
  return fe_carry_wide(r0, r1, r2, r3, r4);
}

inline Fe fe_sqn(Fe a, int n) {
  for (int i = 0; i < n; ++i) a = fe_sq(a);
  return a;
}

// b ? a := c : a, without a branch on b (b is 0 or 1).
inline void fe_cmov(Fe* a, const Fe& c, uint64_t b) {
  const uint64_t m = 0 - b;
  for (int i = 0; i < 5; ++i) a->v[i] ^= m & (a->v[i] ^ c.v[i]);
}

// The 32 little-endian bytes of the canonical representative (< p).
inline void fe_to_bytes(uint8_t out[32], const Fe& a) {
  Fe t = fe_carry(fe_carry(a));
  // t < 2^255 + small; subtract p when t >= p: q = 1 iff t + 19 >= 2^255.
  uint64_t q = (t.v[0] + 19) >> 51;
  q = (t.v[1] + q) >> 51;
  q = (t.v[2] + q) >> 51;
  q = (t.v[3] + q) >> 51;
  q = (t.v[4] + q) >> 51;
  t.v[0] += 19 * q;
  uint64_t c;
  c = t.v[0] >> 51, t.v[0] &= kMask51, t.v[1] += c;
  c = t.v[1] >> 51, t.v[1] &= kMask51, t.v[2] += c;
  c = t.v[2] >> 51, t.v[2] &= kMask51, t.v[3] += c;
  c = t.v[3] >> 51, t.v[3] &= kMask51, t.v[4] += c;
  t.v[4] &= kMask51;
  const uint64_t w0 = t.v[0] | t.v[1] << 51, w1 = t.v[1] >> 13 | t.v[2] << 38,
                 w2 = t.v[2] >> 26 | t.v[3] << 25, w3 = t.v[3] >> 39 | t.v[4] << 12;
  const uint64_t w[4] = {w0, w1, w2, w3};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) out[8 * i + j] = uint8_t(w[i] >> (8 * j));
}

// Reads 255 bits (the top bit of in[31] is ignored: callers that need canonical input check it
// themselves, see fe_from_bytes_canonical).
inline Fe fe_from_bytes(const uint8_t in[32]) {
  uint64_t w[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = 0;
    for (int j = 0; j < 8; ++j) w[i] |= uint64_t(in[8 * i + j]) << (8 * j);
  }
  return Fe{{w[0] & kMask51, (w[0] >> 51 | w[1] << 13) & kMask51,
             (w[1] >> 38 | w[2] << 26) & kMask51, (w[2] >> 25 | w[3] << 39) & kMask51,
             (w[3] >> 12) & kMask51}};
}

// false when in is not the canonical encoding of a field element (>= p, or the top bit set).
inline bool fe_from_bytes_canonical(const uint8_t in[32], Fe* out) {
  *out = fe_from_bytes(in);
  uint8_t back[32];
  fe_to_bytes(back, *out);
  uint8_t diff = 0;
  for (int i = 0; i < 32; ++i) diff |= uint8_t(back[i] ^ in[i]);
  return diff == 0;
}

inline bool fe_is_zero(const Fe& a) {
  uint8_t b[32];
  fe_to_bytes(b, a);
  uint8_t acc = 0;
  for (int i = 0; i < 32; ++i) acc |= b[i];
  return acc == 0;
}

inline bool fe_equal(const Fe& a, const Fe& b) { return fe_is_zero(fe_sub(a, b)); }

// The low bit of the canonical encoding (RFC 9496 IS_NEGATIVE).
inline uint64_t fe_is_negative(const Fe& a) {
  uint8_t b[32];
  fe_to_bytes(b, a);
  return b[0] & 1;
}

inline void fe_cneg(Fe* a, uint64_t b) { fe_cmov(a, fe_neg(*a), b); }

inline Fe fe_abs(const Fe& a) {
  Fe r = a;
  fe_cneg(&r, fe_is_negative(a));
  return r;
}

// a^(2^250 - 1), shared by inversion and the square root.
inline Fe fe_pow2_250_1(const Fe& a, Fe* a11) {
  Fe t0 = fe_sq(a);                    // 2
  Fe t1 = fe_mul(a, fe_sqn(t0, 2));    // 9
  *a11 = fe_mul(t0, t1);               // 11
  Fe t2 = fe_mul(t1, fe_sq(*a11));     // 2^5 - 1
  t2 = fe_mul(fe_sqn(t2, 5), t2);      // 2^10 - 1
  Fe t3 = fe_mul(fe_sqn(t2, 10), t2);  // 2^20 - 1
  t3 = fe_mul(fe_sqn(t3, 20), t3);     // 2^40 - 1
  t3 = fe_mul(fe_sqn(t3, 10), t2);     // 2^50 - 1
  Fe t4 = fe_mul(fe_sqn(t3, 50), t3);  // 2^100 - 1
  t4 = fe_mul(fe_sqn(t4, 100), t4);    // 2^200 - 1
  return fe_mul(fe_sqn(t4, 50), t3);   // 2^250 - 1
}

// 1/a (0 for 0): a^(p-2) = a^(2^255 - 21).
inline Fe fe_invert(const Fe& a) {
  Fe a11;
  Fe t = fe_pow2_250_1(a, &a11);
  return fe_mul(fe_sqn(t, 5), a11);
}

// a^((p-5)/8) = a^(2^252 - 3).
inline Fe fe_pow22523(const Fe& a) {
  Fe a11;
  Fe t = fe_pow2_250_1(a, &a11);
  return fe_mul(fe_sqn(t, 2), a);
}

// Constants (limbs of the canonical values).
inline const Fe& fe_d() {
  static const Fe k{{0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL, 0x739c663a03cbbULL,
                     0x52036cee2b6ffULL}};
  return k;
}
inline const Fe& fe_d2() {
  static const Fe k{{0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL, 0x6738cc7407977ULL,
                     0x2406d9dc56dffULL}};
  return k;
}
inline const Fe& fe_sqrt_m1() {
  static const Fe k{{0x61b274a0ea0b0ULL, 0x0d5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL, 0x78595a6804c9eULL,
                     0x2b8324804fc1dULL}};
  return k;
}
inline const Fe& fe_invsqrt_a_minus_d() {
  static const Fe k{{0x0fdaa805d40eaULL, 0x2eb482e57d339ULL, 0x007610274bc58ULL, 0x6510b613dc8ffULL,
                     0x786c8905cfaffULL}};
  return k;
}

// RFC 9496 SQRT_RATIO_M1(u, v): (true, +sqrt(u/v)) if u/v is a square, (false, +sqrt(i*u/v))
// otherwise; (true, 0) for u = 0; (false, 0) for v = 0 and u != 0. The root returned is
// non-negative.
inline bool fe_sqrt_ratio_m1(const Fe& u, const Fe& v, Fe* out) {
  const Fe v3 = fe_mul(fe_sq(v), v);
  const Fe v7 = fe_mul(fe_sq(v3), v);
  Fe r = fe_mul(fe_mul(u, v3), fe_pow22523(fe_mul(u, v7)));
  const Fe check = fe_mul(v, fe_sq(r));
  const Fe u_neg = fe_neg(u);
  const bool correct = fe_equal(check, u);
  const bool flipped = fe_equal(check, u_neg);
  const bool flipped_i = fe_equal(check, fe_mul(u_neg, fe_sqrt_m1()));
  fe_cmov(&r, fe_mul(r, fe_sqrt_m1()), uint64_t(flipped | flipped_i));
  *out = fe_abs(r);
  return correct | flipped;
}

}  // namespace psi::group
