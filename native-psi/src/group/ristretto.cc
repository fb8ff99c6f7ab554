// ristretto.cc — see ristretto.h. Curve: -x^2 + y^2 = 1 + d x^2 y^2 (edwards25519, a = -1), points
// in extended coordinates (X:Y:Z:T), x = X/Z, y = Y/Z, xy = T/Z. Formulas: Hisil-Wong-Carter-Dawson
// 2008 ("add-2008-hwcd-3", "dbl-2008-hwcd"), organised as in ref10 (completed points between
// steps so that a doubling chain skips T); encoding and decoding as RFC 9496; the batched
// double-and-encode is the one of curve25519-dalek's RistrettoPoint::double_and_compress_batch.
#include "ristretto.h"

namespace psi::group {
namespace {

// Completed point ((X:Z), (Y:T)): the output of an addition or doubling before normalising.
struct Completed {
  Fe X, Y, Z, T;
};
// Projective (X:Y:Z) without T: enough to double again.
struct Projective {
  Fe X, Y, Z;
};
// A point prepared for addition: (Y+X, Y-X, Z, 2dT).
struct Cached {
  Fe yplusx, yminusx, Z, T2d;
};

inline Point to_point(const Completed& c) {
  return Point{fe_mul(c.X, c.T), fe_mul(c.Y, c.Z), fe_mul(c.Z, c.T), fe_mul(c.X, c.Y)};
}
inline Projective to_projective(const Completed& c) {
  return Projective{fe_mul(c.X, c.T), fe_mul(c.Y, c.Z), fe_mul(c.Z, c.T)};
}
inline Cached to_cached(const Point& p) {
  return Cached{fe_add(p.Y, p.X), fe_sub(p.Y, p.X), p.Z, fe_mul(p.T, fe_d2())};
}

inline Completed dbl(const Fe& X, const Fe& Y, const Fe& Z) {
  const Fe zz = fe_sq(Z);
  const Fe xx = fe_sq(X), yy = fe_sq(Y), zz2 = fe_add(zz, zz);
  const Fe s = fe_sq(fe_add(X, Y));
  Completed r;
  r.Y = fe_add(yy, xx);
  r.Z = fe_sub(yy, xx);
  r.X = fe_sub(s, r.Y);
  r.T = fe_sub(zz2, r.Z);
  return r;
}

inline Completed add(const Point& p, const Cached& q) {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.yminusx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.yplusx);
  const Fe c = fe_mul(q.T2d, p.T);
  const Fe zz = fe_mul(p.Z, q.Z);
  const Fe d = fe_add(zz, zz);
  return Completed{fe_sub(b, a), fe_add(b, a), fe_add(d, c), fe_sub(d, c)};
}

// Mixed addition with an affine precomputed point (Z = 1).
inline Completed madd(const Point& p, const Precomp& q) {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.yminusx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.yplusx);
  const Fe c = fe_mul(q.xy2d, p.T);
  const Fe d = fe_add(p.Z, p.Z);
  return Completed{fe_sub(b, a), fe_add(b, a), fe_add(d, c), fe_sub(d, c)};
}

// 16 * p (four doublings, T computed only at the end).
inline Point times16(const Point& p) {
  Projective q = to_projective(dbl(p.X, p.Y, p.Z));
  q = to_projective(dbl(q.X, q.Y, q.Z));
  q = to_projective(dbl(q.X, q.Y, q.Z));
  return to_point(dbl(q.X, q.Y, q.Z));
}

// Signed radix-16 digits e[0..63] in [-8, 8] of a scalar below 2^255.
void signed_digits(const uint8_t a[32], int8_t e[64]) {
  for (int i = 0; i < 32; ++i) {
    e[2 * i] = int8_t(a[i] & 15);
    e[2 * i + 1] = int8_t((a[i] >> 4) & 15);
  }
  int8_t carry = 0;
  for (int i = 0; i < 63; ++i) {
    e[i] = int8_t(e[i] + carry);
    carry = int8_t((e[i] + 8) >> 4);
    e[i] = int8_t(e[i] - carry * 16);
  }
  e[63] = int8_t(e[63] + carry);
}

inline uint64_t ct_eq(int32_t a, int32_t b) {
  return uint64_t((uint32_t(a ^ b) - 1) >> 31);  // 1 iff a == b (both small)
}

// table[j] = (j+1) * P; returns |b| * P negated when b < 0, identity for 0; constant time.
Cached select_cached(const Cached table[8], int8_t b) {
  const uint64_t neg = uint64_t(uint8_t(b) >> 7);
  const int32_t babs = b - 2 * (-int32_t(neg) & b);  // |b|, without shifting a negative
  Cached t{fe_one(), fe_one(), fe_one(), fe_zero()};
  for (int j = 0; j < 8; ++j) {
    const uint64_t m = ct_eq(babs, j + 1);
    fe_cmov(&t.yplusx, table[j].yplusx, m);
    fe_cmov(&t.yminusx, table[j].yminusx, m);
    fe_cmov(&t.Z, table[j].Z, m);
    fe_cmov(&t.T2d, table[j].T2d, m);
  }
  const Fe yp = t.yplusx;
  fe_cmov(&t.yplusx, t.yminusx, neg);
  fe_cmov(&t.yminusx, yp, neg);
  fe_cneg(&t.T2d, neg);
  return t;
}

Precomp select_precomp(const Precomp* row, int8_t b) {
  const uint64_t neg = uint64_t(uint8_t(b) >> 7);
  const int32_t babs = b - 2 * (-int32_t(neg) & b);  // |b|, without shifting a negative
  Precomp t{fe_one(), fe_one(), fe_zero()};
  for (int j = 0; j < 8; ++j) {
    const uint64_t m = ct_eq(babs, j + 1);
    fe_cmov(&t.yplusx, row[j].yplusx, m);
    fe_cmov(&t.yminusx, row[j].yminusx, m);
    fe_cmov(&t.xy2d, row[j].xy2d, m);
  }
  const Fe yp = t.yplusx;
  fe_cmov(&t.yplusx, t.yminusx, neg);
  fe_cmov(&t.yminusx, yp, neg);
  fe_cneg(&t.xy2d, neg);
  return t;
}

// Montgomery's batch inversion; zeros stay zero (replaced by one inside the product).
void batch_invert(Fe* v, size_t n) {
  if (n == 0) return;
  std::vector<Fe> prefix(n);
  std::vector<uint64_t> zero(n);
  Fe acc = fe_one();
  for (size_t i = 0; i < n; ++i) {
    zero[i] = fe_is_zero(v[i]);
    fe_cmov(&v[i], fe_one(), zero[i]);
    prefix[i] = acc;
    acc = fe_mul(acc, v[i]);
  }
  acc = fe_invert(acc);
  for (size_t i = n; i-- > 0;) {
    const Fe inv = fe_mul(acc, prefix[i]);
    acc = fe_mul(acc, v[i]);
    v[i] = inv;
    fe_cmov(&v[i], fe_zero(), zero[i]);
  }
}

// u1 = 1 - s^2, u2 = 1 + s^2, v = -d u1^2 - u2^2 and v u2^2 of RFC 9496 DECODE (decoding needs the
// inverse square root of v u2^2).
struct DecodeTerms {
  Fe u1, u2, v, vu2;
};
inline DecodeTerms decode_terms(const Fe& s) {
  const Fe ss = fe_sq(s);
  DecodeTerms t;
  t.u1 = fe_sub(fe_one(), ss);
  t.u2 = fe_add(fe_one(), ss);
  const Fe u2_sqr = fe_sq(t.u2);
  t.v = fe_sub(fe_neg(fe_mul(fe_d(), fe_sq(t.u1))), u2_sqr);
  t.vu2 = fe_mul(t.v, u2_sqr);
  return t;
}

// The rest of DECODE once the inverse square root is known.
bool decode_finish(const Fe& s, const DecodeTerms& t, const Fe& invsqrt, Point* out) {
  const Fe den_x = fe_mul(invsqrt, t.u2);
  const Fe den_y = fe_mul(fe_mul(invsqrt, den_x), t.v);
  const Fe x = fe_abs(fe_mul(fe_add(s, s), den_x));
  const Fe y = fe_mul(t.u1, den_y);
  const Fe tt = fe_mul(x, y);
  if (fe_is_negative(tt) | fe_is_zero(y)) return false;
  *out = Point{x, y, fe_one(), tt};
  return true;
}

// Reads s: canonical and non-negative.
bool read_s(const uint8_t in[32], Fe* s) { return fe_from_bytes_canonical(in, s) && !(in[0] & 1); }

}  // namespace

Point point_identity() { return Point{fe_zero(), fe_one(), fe_one(), fe_zero()}; }

Point point_generator() {
  static const Fe kBx{{0x62d608f25d51aULL, 0x412a4b4f6592aULL, 0x75b7171a4b31dULL,
                       0x1ff60527118feULL, 0x216936d3cd6e5ULL}};
  static const Fe kBy{{0x6666666666658ULL, 0x4ccccccccccccULL, 0x1999999999999ULL,
                       0x3333333333333ULL, 0x6666666666666ULL}};
  static const Fe kBt{{0x68ab3a5b7dda3ULL, 0x00eea2a5eadbbULL, 0x2af8df483c27eULL,
                       0x332b375274732ULL, 0x67875f0fd78b7ULL}};
  return Point{kBx, kBy, fe_one(), kBt};
}

Point point_add(const Point& a, const Point& b) { return to_point(add(a, to_cached(b))); }
Point point_sub(const Point& a, const Point& b) { return point_add(a, point_neg(b)); }
Point point_dbl(const Point& a) { return to_point(dbl(a.X, a.Y, a.Z)); }
Point point_neg(const Point& a) { return Point{fe_neg(a.X), a.Y, a.Z, fe_neg(a.T)}; }

bool point_equal(const Point& a, const Point& b) {
  const bool e1 = fe_equal(fe_mul(a.X, b.Y), fe_mul(a.Y, b.X));
  const bool e2 = fe_equal(fe_mul(a.Y, b.Y), fe_mul(a.X, b.X));
  return e1 | e2;
}

bool point_is_identity(const Point& a) { return point_equal(a, point_identity()); }

Point point_mul(const Point& p, const uint8_t scalar[kScalarBytes]) {
  Cached table[8];
  table[0] = to_cached(p);
  Point acc = p;
  for (int j = 1; j < 8; ++j) {
    acc = to_point(add(acc, table[0]));
    table[j] = to_cached(acc);
  }
  int8_t e[64];
  signed_digits(scalar, e);
  Point h = to_point(add(point_identity(), select_cached(table, e[63])));
  for (int i = 62; i >= 0; --i) h = to_point(add(times16(h), select_cached(table, e[i])));
  return h;
}

FixedBase::FixedBase(const Point& base) : table_(256) {
  std::vector<Point> pts(256);
  Point row = base;
  for (int i = 0; i < 32; ++i) {
    Point acc = row;
    const Cached rc = to_cached(row);
    for (int j = 0; j < 8; ++j) {
      pts[size_t(i) * 8 + j] = acc;
      acc = to_point(add(acc, rc));
    }
    for (int k = 0; k < 8; ++k) row = point_dbl(row);  // 256 * row
  }
  std::vector<Fe> zinv(256);
  for (size_t k = 0; k < 256; ++k) zinv[k] = pts[k].Z;
  batch_invert(zinv.data(), zinv.size());
  for (size_t k = 0; k < 256; ++k) {
    const Fe x = fe_mul(pts[k].X, zinv[k]), y = fe_mul(pts[k].Y, zinv[k]);
    table_[k] = Precomp{fe_add(y, x), fe_sub(y, x), fe_mul(fe_mul(x, y), fe_d2())};
  }
}

Point FixedBase::mul(const uint8_t scalar[kScalarBytes]) const {
  const Precomp* t = table_.data();
  int8_t e[64];
  signed_digits(scalar, e);
  Point h = point_identity();
  for (int i = 1; i < 64; i += 2) h = to_point(madd(h, select_precomp(t + (i / 2) * 8, e[i])));
  h = times16(h);
  for (int i = 0; i < 64; i += 2) h = to_point(madd(h, select_precomp(t + (i / 2) * 8, e[i])));
  return h;
}

void encode(const Point& p, uint8_t out[kPointBytes]) {
  Fe X = p.X, Y = p.Y;
  const Fe u1 = fe_mul(fe_add(p.Z, p.Y), fe_sub(p.Z, p.Y));
  const Fe u2 = fe_mul(p.X, p.Y);
  Fe invsqrt;
  fe_sqrt_ratio_m1(fe_one(), fe_mul(u1, fe_sq(u2)), &invsqrt);  // always a square
  const Fe i1 = fe_mul(invsqrt, u1), i2 = fe_mul(invsqrt, u2);
  const Fe z_inv = fe_mul(i1, fe_mul(i2, p.T));
  Fe den_inv = i2;
  const Fe iX = fe_mul(X, fe_sqrt_m1()), iY = fe_mul(Y, fe_sqrt_m1());
  const Fe enchanted = fe_mul(i1, fe_invsqrt_a_minus_d());
  const uint64_t rotate = fe_is_negative(fe_mul(p.T, z_inv));
  fe_cmov(&X, iY, rotate);
  fe_cmov(&Y, iX, rotate);
  fe_cmov(&den_inv, enchanted, rotate);
  fe_cneg(&Y, fe_is_negative(fe_mul(X, z_inv)));
  fe_to_bytes(out, fe_abs(fe_mul(den_inv, fe_sub(p.Z, Y))));
}

bool decode(const uint8_t in[kPointBytes], Point* out) {
  Fe s;
  if (!read_s(in, &s)) return false;
  const DecodeTerms t = decode_terms(s);
  Fe invsqrt;
  if (!fe_sqrt_ratio_m1(fe_one(), t.vu2, &invsqrt)) return false;
  return decode_finish(s, t, invsqrt, out);
}

bool decode_hinted(const uint8_t in[kPointBytes], const uint8_t hint[kHintBytes], Point* out) {
  Fe s, h;
  // The hint is read like s: canonical and non-negative, so each encoding has exactly one.
  if (!read_s(in, &s) || !read_s(hint, &h)) return false;
  const DecodeTerms t = decode_terms(s);
  // h^2 * v * u2^2 == 1 holds for a non-negative h exactly when SQRT_RATIO_M1(1, v * u2^2)
  // succeeds, and h is then its root.
  if (!fe_equal(fe_mul(fe_sq(h), t.vu2), fe_one())) return false;
  return decode_finish(s, t, h, out);
}

void double_encode_batch(const Point* in, size_t n, uint8_t* out, size_t out_stride, uint8_t* hints,
                         size_t hint_stride) {
  struct State {
    Fe e, f, g, h, eg, fh;
  };
  std::vector<State> st(n);
  std::vector<Fe> inv(n);
  for (size_t i = 0; i < n; ++i) {
    const Point& p = in[i];
    const Fe xx = fe_sq(p.X), yy = fe_sq(p.Y), zz = fe_sq(p.Z);
    const Fe dtt = fe_mul(fe_sq(p.T), fe_d());
    State& s = st[i];
    s.e = fe_mul(p.X, fe_add(p.Y, p.Y));
    s.f = fe_add(zz, dtt);
    s.g = fe_add(yy, xx);
    s.h = fe_sub(zz, dtt);
    s.eg = fe_mul(s.e, s.g);
    s.fh = fe_mul(s.f, s.h);
    inv[i] = fe_mul(s.eg, s.fh);
  }
  batch_invert(inv.data(), n);
  std::vector<Fe> svals(hints ? n : 0);
  for (size_t i = 0; i < n; ++i) {
    const State& s = st[i];
    const Fe z_inv = fe_mul(s.eg, inv[i]);
    const Fe t_inv = fe_mul(s.fh, inv[i]);
    Fe magic = fe_invsqrt_a_minus_d();
    const uint64_t neg1 = fe_is_negative(fe_mul(s.eg, z_inv));
    Fe e = s.e, g = s.g, h = s.h;
    fe_cmov(&e, s.g, neg1);
    fe_cmov(&g, fe_neg(s.e), neg1);
    fe_cmov(&h, fe_mul(s.f, fe_sqrt_m1()), neg1);
    fe_cmov(&magic, fe_sqrt_m1(), neg1);
    fe_cneg(&g, fe_is_negative(fe_mul(fe_mul(h, e), z_inv)));
    const Fe sv = fe_abs(fe_mul(fe_sub(h, g), fe_mul(magic, fe_mul(g, t_inv))));
    fe_to_bytes(out + i * out_stride, sv);
    if (hints) svals[i] = sv;
  }
  if (!hints) return;
  // The decoder's x is |2 s invsqrt u2| for a representative (x, y) of the element; the
  // representatives of 2P are (x, y), (-x, -y), (iy, ix), (-iy, -ix), so invsqrt is x / (2 s u2)
  // or i y / (2 s u2) up to sign, whichever squares to 1 / (v u2^2).
  std::vector<Point> dbl_pts(n);
  std::vector<DecodeTerms> terms(n);
  std::vector<Fe> den(n);
  for (size_t i = 0; i < n; ++i) {
    dbl_pts[i] = point_dbl(in[i]);
    terms[i] = decode_terms(svals[i]);
    den[i] = fe_mul(dbl_pts[i].Z, fe_mul(fe_add(svals[i], svals[i]), terms[i].u2));
  }
  batch_invert(den.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const Fe h1 = fe_mul(dbl_pts[i].X, den[i]);
    const Fe h2 = fe_mul(fe_mul(dbl_pts[i].Y, fe_sqrt_m1()), den[i]);
    Fe h;
    if (fe_equal(fe_mul(fe_sq(h1), terms[i].vu2), fe_one())) {
      h = h1;
    } else if (fe_equal(fe_mul(fe_sq(h2), terms[i].vu2), fe_one())) {
      h = h2;
    } else {
      fe_sqrt_ratio_m1(fe_one(), terms[i].vu2, &h);  // s = 0 (the identity): no quotient to use
    }
    fe_to_bytes(hints + i * hint_stride, fe_abs(h));
  }
}

}  // namespace psi::group
