// ristretto_batch.cc — see ristretto_batch.h.
//
// The IFMA code runs the scalar code's formulas (ristretto.cc: the same additions, doublings,
// window recoding and tables) on eight independent computations at once, one per 64-bit lane of a
// zmm register. It is compiled with function-level target attributes, so this file, like the rest
// of the library, builds for the baseline ISA, and runs only after the CPU check.
//
// Field elements (FeV): five limbs of radix 2^51 (the scalar Fe's radix, so conversion is a
// transpose), one zmm per limb. vpmadd52luq / vpmadd52huq multiply the low 52 bits of each operand,
// so every multiplication input must have limbs below 2^52; the invariant kept is:
//   - "carried" values (outputs of mul, sq, add, sub, carry) have limbs below 2^51 + 2^17 (below
//     2^51 + 2^15 out of mul/sq, 2^51 + 2^6 out of add/sub), hence also at most 2p's limbs;
//   - inputs to mul/sq are carried values or 2p - (a carried value) (neg_nc), both below 2^52.
// Multiplication: the 25 products a_i*b_j give a 104-bit value as lo (bits 0..51) and hi (bits
// 52..103); lo goes to position i+j, hi to position i+j+1 with weight 2 (2^52 = 2 * 2^51). Each of
// the ten positions z_k = 2*H_{k-1} + L_k is summed in one register (the hi sum is doubled before
// the lo terms are added to it): z_k < 15 * 2^52. Positions 5..9 fold into 0..4 with 2^255 = 19
// (mod p): r_m = z_m + 19 z_{m+5} < 300 * 2^52 < 2^61, 19 z as z + 2z + 16z (shifts). One parallel
// carry (every limb's carry at once, the top one times 19 into limb 0) leaves limbs below 2^51 +
// 2^15. Addition and subtraction (a - b + 2p) are followed by the same carry; input points are
// carried on entry.
//
// Table lookups: the digits (the scalar code's signed radix-16 recoding) are transposed so that one
// zmm holds digit i of the eight scalars; |digit| is compared with each entry index 1..8 (a k-mask
// per entry) and every entry is blended in under its mask, then a negative digit's lanes swap y+x /
// y-x and negate the third coordinate under the sign mask. Every entry is read for every lane.
// FixedBase rows are shared by the lanes (an entry's limb is broadcast); point_mul's tables are per
// lane.
//
// Lanes: n is processed eight at a time; a last group of 2..7 fills the spare lanes with scalar 0
// and drops them, a last single one runs the scalar code (one lane would cost as much as eight).
#include "ristretto_batch.h"

#include <cpuid.h>
#include <immintrin.h>

#include <cstring>

namespace psi::group {
namespace {

constexpr size_t kLanes = 8;

// Signed radix-16 digits e[0..63] in [-8, 8] of a scalar below 2^255 (ristretto.cc's recoding).
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

// AVX512F + AVX512IFMA, with the OS saving the opmask and zmm state (XCR0 bits 1, 2, 5, 6, 7).
bool cpu_has_ifma() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
  uint32_t xlo = 0, xhi = 0;
  __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  if ((xlo & 0xe6u) != 0xe6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b & (1u << 16)) != 0 && (b & (1u << 21)) != 0;  // AVX512F, AVX512IFMA
}

// Lane-major digits of eight scalars: dig[i][lane] = digit i of scalar lane (lanes >= count: 0).
struct Digits {
  alignas(64) int64_t d[64][kLanes];
};

void load_digits(const uint8_t* scalars, size_t count, Digits* out) {
  for (size_t lane = 0; lane < kLanes; ++lane) {
    int8_t e[64] = {};
    if (lane < count) signed_digits(scalars + 32 * lane, e);
    for (int i = 0; i < 64; ++i) out->d[i][lane] = e[i];
  }
}

// Transposed points: w[c * 5 + l][lane] = limb l of coordinate c (X, Y, Z, T) of point lane.
struct PointsT {
  alignas(64) uint64_t w[20][kLanes];
};

#define PSI_IFMA_FN __attribute__((target("avx512f,avx512ifma")))
#define PSI_IFMA_INLINE __attribute__((target("avx512f,avx512ifma"), always_inline)) inline
// Every loop over limbs or table entries is unrolled, so that limbs live in registers.
#define PSI_UNROLL _Pragma("GCC unroll 16")

struct FeV {
  __m512i v[5];
};
struct PointV {
  FeV X, Y, Z, T;
};
struct CompletedV {
  FeV X, Y, Z, T;
};
struct ProjectiveV {
  FeV X, Y, Z;
};
struct CachedV {
  FeV yplusx, yminusx, Z, T2d;
};
struct PrecompV {
  FeV yplusx, yminusx, xy2d;
};

PSI_IFMA_INLINE __m512i bc(uint64_t x) { return _mm512_set1_epi64(int64_t(x)); }

// Shifts by constants through the vector extensions (GCC 12's _mm512_s{l,r}li_epi64 trip a false
// -Wuninitialized on their _mm512_undefined_epi32 operand).
typedef uint64_t U64x8 __attribute__((vector_size(64)));
typedef int64_t I64x8 __attribute__((vector_size(64)));
template <int k>
PSI_IFMA_INLINE __m512i shr(__m512i a) {
  return __m512i(U64x8(a) >> k);
}
template <int k>
PSI_IFMA_INLINE __m512i shl(__m512i a) {
  return __m512i(U64x8(a) << k);
}

PSI_IFMA_INLINE FeV fev_const(const Fe& a) {
  return FeV{{bc(a.v[0]), bc(a.v[1]), bc(a.v[2]), bc(a.v[3]), bc(a.v[4])}};
}
PSI_IFMA_INLINE FeV fev_zero() {
  const __m512i z = _mm512_setzero_si512();
  return FeV{{z, z, z, z, z}};
}
PSI_IFMA_INLINE FeV fev_one() {
  const __m512i z = _mm512_setzero_si512();
  return FeV{{bc(1), z, z, z, z}};
}

// Every limb's carry at once; limb 4's carry enters limb 0 times 19. Limbs below 2^63 in, below
// 2^51 + 19 * 2^12 out (below 2^51 + 2^15 when the input limbs are below 2^61).
PSI_IFMA_INLINE FeV fev_carry(const __m512i r0, const __m512i r1, const __m512i r2,
                              const __m512i r3, const __m512i r4) {
  const __m512i m = bc(kMask51);
  const __m512i c0 = shr<51>(r0), c1 = shr<51>(r1), c2 = shr<51>(r2), c3 = shr<51>(r3),
                c4 = shr<51>(r4);
  FeV o;
  o.v[0] = _mm512_madd52lo_epu64(_mm512_and_si512(r0, m), c4, bc(19));
  o.v[1] = _mm512_add_epi64(_mm512_and_si512(r1, m), c0);
  o.v[2] = _mm512_add_epi64(_mm512_and_si512(r2, m), c1);
  o.v[3] = _mm512_add_epi64(_mm512_and_si512(r3, m), c2);
  o.v[4] = _mm512_add_epi64(_mm512_and_si512(r4, m), c3);
  return o;
}
PSI_IFMA_INLINE FeV fev_carry(const FeV& a) {
  return fev_carry(a.v[0], a.v[1], a.v[2], a.v[3], a.v[4]);
}

PSI_IFMA_INLINE FeV fev_add(const FeV& a, const FeV& b) {
  return fev_carry(_mm512_add_epi64(a.v[0], b.v[0]), _mm512_add_epi64(a.v[1], b.v[1]),
                   _mm512_add_epi64(a.v[2], b.v[2]), _mm512_add_epi64(a.v[3], b.v[3]),
                   _mm512_add_epi64(a.v[4], b.v[4]));
}
// a + b without the carry (for a sum that only enters another add/sub).
PSI_IFMA_INLINE FeV fev_add_nc(const FeV& a, const FeV& b) {
  FeV r;
  PSI_UNROLL
  for (int i = 0; i < 5; ++i) r.v[i] = _mm512_add_epi64(a.v[i], b.v[i]);
  return r;
}

// 2p = (2^52 - 38, 2^52 - 2, 2^52 - 2, 2^52 - 2, 2^52 - 2).
constexpr uint64_t k2p0 = 0xfffffffffffdaULL, k2p = 0xffffffffffffeULL;

// a - b + 2p, carried (b's limbs must not exceed 2p's: true of carried values).
PSI_IFMA_INLINE FeV fev_sub(const FeV& a, const FeV& b) {
  const __m512i p0 = bc(k2p0), p = bc(k2p);
  return fev_carry(_mm512_sub_epi64(_mm512_add_epi64(a.v[0], p0), b.v[0]),
                   _mm512_sub_epi64(_mm512_add_epi64(a.v[1], p), b.v[1]),
                   _mm512_sub_epi64(_mm512_add_epi64(a.v[2], p), b.v[2]),
                   _mm512_sub_epi64(_mm512_add_epi64(a.v[3], p), b.v[3]),
                   _mm512_sub_epi64(_mm512_add_epi64(a.v[4], p), b.v[4]));
}
// 2p - a without the carry, for a carried a: limbs below 2^52, a valid mul input.
PSI_IFMA_INLINE FeV fev_neg_nc(const FeV& a) {
  FeV r;
  r.v[0] = _mm512_sub_epi64(bc(k2p0), a.v[0]);
  PSI_UNROLL
  for (int i = 1; i < 5; ++i) r.v[i] = _mm512_sub_epi64(bc(k2p), a.v[i]);
  return r;
}

// r_m = z_m + 19 z_{m+5}, then the carry.
PSI_IFMA_INLINE FeV fev_reduce(const __m512i z[10]) {
  __m512i r[5];
  PSI_UNROLL
  for (int m = 0; m < 5; ++m) {
    const __m512i w = z[m + 5];
    r[m] = _mm512_add_epi64(_mm512_add_epi64(z[m], w), _mm512_add_epi64(shl<1>(w), shl<4>(w)));
  }
  return fev_carry(r[0], r[1], r[2], r[3], r[4]);
}

#define PSI_LO(acc, x, y) acc = _mm512_madd52lo_epu64(acc, x, y)
#define PSI_HI(acc, x, y) acc = _mm512_madd52hi_epu64(acc, x, y)
#define PSI_DBL(acc) acc = _mm512_add_epi64(acc, acc)

PSI_IFMA_INLINE FeV fev_mul(const FeV& a, const FeV& b) {
  const __m512i a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const __m512i b0 = b.v[0], b1 = b.v[1], b2 = b.v[2], b3 = b.v[3], b4 = b.v[4];
  const __m512i zero = _mm512_setzero_si512();
  __m512i z[10];
  // z_k = 2 * (sum of hi at i + j = k - 1) + (sum of lo at i + j = k)
  z[0] = zero;
  PSI_LO(z[0], a0, b0);

  z[1] = zero;
  PSI_HI(z[1], a0, b0);
  PSI_DBL(z[1]);
  PSI_LO(z[1], a0, b1), PSI_LO(z[1], a1, b0);

  z[2] = zero;
  PSI_HI(z[2], a0, b1), PSI_HI(z[2], a1, b0);
  PSI_DBL(z[2]);
  PSI_LO(z[2], a0, b2), PSI_LO(z[2], a1, b1), PSI_LO(z[2], a2, b0);

  z[3] = zero;
  PSI_HI(z[3], a0, b2), PSI_HI(z[3], a1, b1), PSI_HI(z[3], a2, b0);
  PSI_DBL(z[3]);
  PSI_LO(z[3], a0, b3), PSI_LO(z[3], a1, b2), PSI_LO(z[3], a2, b1), PSI_LO(z[3], a3, b0);

  z[4] = zero;
  PSI_HI(z[4], a0, b3), PSI_HI(z[4], a1, b2), PSI_HI(z[4], a2, b1), PSI_HI(z[4], a3, b0);
  PSI_DBL(z[4]);
  PSI_LO(z[4], a0, b4), PSI_LO(z[4], a1, b3), PSI_LO(z[4], a2, b2), PSI_LO(z[4], a3, b1);
  PSI_LO(z[4], a4, b0);

  z[5] = zero;
  PSI_HI(z[5], a0, b4), PSI_HI(z[5], a1, b3), PSI_HI(z[5], a2, b2), PSI_HI(z[5], a3, b1);
  PSI_HI(z[5], a4, b0);
  PSI_DBL(z[5]);
  PSI_LO(z[5], a1, b4), PSI_LO(z[5], a2, b3), PSI_LO(z[5], a3, b2), PSI_LO(z[5], a4, b1);

  z[6] = zero;
  PSI_HI(z[6], a1, b4), PSI_HI(z[6], a2, b3), PSI_HI(z[6], a3, b2), PSI_HI(z[6], a4, b1);
  PSI_DBL(z[6]);
  PSI_LO(z[6], a2, b4), PSI_LO(z[6], a3, b3), PSI_LO(z[6], a4, b2);

  z[7] = zero;
  PSI_HI(z[7], a2, b4), PSI_HI(z[7], a3, b3), PSI_HI(z[7], a4, b2);
  PSI_DBL(z[7]);
  PSI_LO(z[7], a3, b4), PSI_LO(z[7], a4, b3);

  z[8] = zero;
  PSI_HI(z[8], a3, b4), PSI_HI(z[8], a4, b3);
  PSI_DBL(z[8]);
  PSI_LO(z[8], a4, b4);

  z[9] = zero;
  PSI_HI(z[9], a4, b4);
  PSI_DBL(z[9]);
  return fev_reduce(z);
}

// a^2 with the 10 cross products computed once: z_k = 2 * (Clo_k + Dhi_{k-1} + 2 Chi_{k-1}) + Dlo_k
// (C: i < j, D: i = j).
PSI_IFMA_INLINE FeV fev_sq(const FeV& a) {
  const __m512i a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const __m512i zero = _mm512_setzero_si512();
  __m512i z[10];
  z[0] = zero;
  PSI_LO(z[0], a0, a0);

  z[1] = zero;
  PSI_HI(z[1], a0, a0);
  PSI_LO(z[1], a0, a1);
  PSI_DBL(z[1]);

  z[2] = zero;
  PSI_HI(z[2], a0, a1);
  PSI_DBL(z[2]);
  PSI_LO(z[2], a0, a2);
  PSI_DBL(z[2]);
  PSI_LO(z[2], a1, a1);

  z[3] = zero;
  PSI_HI(z[3], a0, a2);
  PSI_DBL(z[3]);
  PSI_HI(z[3], a1, a1);
  PSI_LO(z[3], a0, a3), PSI_LO(z[3], a1, a2);
  PSI_DBL(z[3]);

  z[4] = zero;
  PSI_HI(z[4], a0, a3), PSI_HI(z[4], a1, a2);
  PSI_DBL(z[4]);
  PSI_LO(z[4], a0, a4), PSI_LO(z[4], a1, a3);
  PSI_DBL(z[4]);
  PSI_LO(z[4], a2, a2);

  z[5] = zero;
  PSI_HI(z[5], a0, a4), PSI_HI(z[5], a1, a3);
  PSI_DBL(z[5]);
  PSI_HI(z[5], a2, a2);
  PSI_LO(z[5], a1, a4), PSI_LO(z[5], a2, a3);
  PSI_DBL(z[5]);

  z[6] = zero;
  PSI_HI(z[6], a1, a4), PSI_HI(z[6], a2, a3);
  PSI_DBL(z[6]);
  PSI_LO(z[6], a2, a4);
  PSI_DBL(z[6]);
  PSI_LO(z[6], a3, a3);

  z[7] = zero;
  PSI_HI(z[7], a2, a4);
  PSI_DBL(z[7]);
  PSI_HI(z[7], a3, a3);
  PSI_LO(z[7], a3, a4);
  PSI_DBL(z[7]);

  z[8] = zero;
  PSI_HI(z[8], a3, a4);
  PSI_DBL(z[8]);
  PSI_DBL(z[8]);
  PSI_LO(z[8], a4, a4);

  z[9] = zero;
  PSI_HI(z[9], a4, a4);
  PSI_DBL(z[9]);
  return fev_reduce(z);
}

#undef PSI_LO
#undef PSI_HI
#undef PSI_DBL

// b ? c : a per lane.
PSI_IFMA_INLINE FeV fev_blend(__mmask8 b, const FeV& a, const FeV& c) {
  FeV r;
  PSI_UNROLL
  for (int i = 0; i < 5; ++i) r.v[i] = _mm512_mask_blend_epi64(b, a.v[i], c.v[i]);
  return r;
}

// ---- points (the formulas of ristretto.cc) ----

PSI_IFMA_INLINE PointV to_point(const CompletedV& c) {
  return PointV{fev_mul(c.X, c.T), fev_mul(c.Y, c.Z), fev_mul(c.Z, c.T), fev_mul(c.X, c.Y)};
}
PSI_IFMA_INLINE ProjectiveV to_projective(const CompletedV& c) {
  return ProjectiveV{fev_mul(c.X, c.T), fev_mul(c.Y, c.Z), fev_mul(c.Z, c.T)};
}
PSI_IFMA_INLINE CachedV to_cached(const PointV& p) {
  return CachedV{fev_add(p.Y, p.X), fev_sub(p.Y, p.X), p.Z, fev_mul(p.T, fev_const(fe_d2()))};
}

PSI_IFMA_INLINE CompletedV dbl(const FeV& X, const FeV& Y, const FeV& Z) {
  const FeV zz = fev_sq(Z);
  const FeV xx = fev_sq(X), yy = fev_sq(Y), zz2 = fev_add_nc(zz, zz);
  const FeV s = fev_sq(fev_add(X, Y));
  CompletedV r;
  r.Y = fev_add(yy, xx);
  r.Z = fev_sub(yy, xx);
  r.X = fev_sub(s, r.Y);
  r.T = fev_sub(zz2, r.Z);
  return r;
}

PSI_IFMA_INLINE CompletedV add(const PointV& p, const CachedV& q) {
  const FeV a = fev_mul(fev_sub(p.Y, p.X), q.yminusx);
  const FeV b = fev_mul(fev_add(p.Y, p.X), q.yplusx);
  const FeV c = fev_mul(q.T2d, p.T);
  const FeV zz = fev_mul(p.Z, q.Z);
  const FeV d = fev_add_nc(zz, zz);
  return CompletedV{fev_sub(b, a), fev_add(b, a), fev_add(d, c), fev_sub(d, c)};
}

PSI_IFMA_INLINE CompletedV madd(const PointV& p, const PrecompV& q) {
  const FeV a = fev_mul(fev_sub(p.Y, p.X), q.yminusx);
  const FeV b = fev_mul(fev_add(p.Y, p.X), q.yplusx);
  const FeV c = fev_mul(q.xy2d, p.T);
  const FeV d = fev_add_nc(p.Z, p.Z);
  return CompletedV{fev_sub(b, a), fev_add(b, a), fev_add(d, c), fev_sub(d, c)};
}

// Not inlined: the four doublings are the bulk of point_mul and one copy of them is enough.
PSI_IFMA_FN __attribute__((noinline)) void times16(PointV* p) {
  ProjectiveV q = to_projective(dbl(p->X, p->Y, p->Z));
  q = to_projective(dbl(q.X, q.Y, q.Z));
  q = to_projective(dbl(q.X, q.Y, q.Z));
  *p = to_point(dbl(q.X, q.Y, q.Z));
}

PSI_IFMA_INLINE PointV point_identity_v() {
  return PointV{fev_zero(), fev_one(), fev_one(), fev_zero()};
}

// |digit| and digit < 0 per lane, constant time.
PSI_IFMA_INLINE void digit_parts(const int64_t* d, __m512i* babs, __mmask8* neg) {
  const __m512i e = _mm512_load_si512(d);
  const I64x8 sign = I64x8(e) >> 63;  // (not _mm512_abs_epi64: see shr)
  *babs = __m512i((I64x8(e) ^ sign) - sign);
  *neg = _mm512_cmplt_epi64_mask(e, _mm512_setzero_si512());
}

// FixedBase row (8 affine multiples, the same for every lane): lane gets |b| * P, negated when
// b < 0, (1, 1, 0) for b = 0. Every entry is read for every lane; a masked compare picks.
PSI_IFMA_INLINE PrecompV select_precomp(const Precomp* row, __m512i babs, __mmask8 neg) {
  PrecompV t{fev_one(), fev_one(), fev_zero()};
  PSI_UNROLL
  for (int j = 0; j < 8; ++j) {
    const __mmask8 m = _mm512_cmpeq_epi64_mask(babs, bc(uint64_t(j + 1)));
    PSI_UNROLL
    for (int l = 0; l < 5; ++l) {
      t.yplusx.v[l] = _mm512_mask_blend_epi64(m, t.yplusx.v[l], bc(row[j].yplusx.v[l]));
      t.yminusx.v[l] = _mm512_mask_blend_epi64(m, t.yminusx.v[l], bc(row[j].yminusx.v[l]));
      t.xy2d.v[l] = _mm512_mask_blend_epi64(m, t.xy2d.v[l], bc(row[j].xy2d.v[l]));
    }
  }
  const FeV yp = t.yplusx;
  t.yplusx = fev_blend(neg, t.yplusx, t.yminusx);
  t.yminusx = fev_blend(neg, t.yminusx, yp);
  t.xy2d = fev_blend(neg, t.xy2d, fev_neg_nc(t.xy2d));
  return t;
}

// Per-lane tables: table[j] lane k = (j + 1) * P_k.
PSI_IFMA_INLINE CachedV select_cached(const CachedV table[8], __m512i babs, __mmask8 neg) {
  CachedV t{fev_one(), fev_one(), fev_one(), fev_zero()};
  PSI_UNROLL
  for (int j = 0; j < 8; ++j) {
    const __mmask8 m = _mm512_cmpeq_epi64_mask(babs, bc(uint64_t(j + 1)));
    t.yplusx = fev_blend(m, t.yplusx, table[j].yplusx);
    t.yminusx = fev_blend(m, t.yminusx, table[j].yminusx);
    t.Z = fev_blend(m, t.Z, table[j].Z);
    t.T2d = fev_blend(m, t.T2d, table[j].T2d);
  }
  const FeV yp = t.yplusx;
  t.yplusx = fev_blend(neg, t.yplusx, t.yminusx);
  t.yminusx = fev_blend(neg, t.yminusx, yp);
  t.T2d = fev_blend(neg, t.T2d, fev_neg_nc(t.T2d));
  return t;
}

PSI_IFMA_INLINE FeV load_fe(const PointsT& t, int c) {
  FeV r;
  PSI_UNROLL
  for (int l = 0; l < 5; ++l) r.v[l] = _mm512_load_si512(t.w[c * 5 + l]);
  return r;
}
PSI_IFMA_INLINE void store_fe(PointsT* t, int c, const FeV& a) {
  PSI_UNROLL
  for (int l = 0; l < 5; ++l) _mm512_store_si512(t->w[c * 5 + l], a.v[l]);
}
PSI_IFMA_INLINE void store_point(PointsT* t, const PointV& p) {
  store_fe(t, 0, p.X);
  store_fe(t, 1, p.Y);
  store_fe(t, 2, p.Z);
  store_fe(t, 3, p.T);
}

void transpose_out(const PointsT& t, size_t count, Point* out) {
  for (size_t lane = 0; lane < count; ++lane) {
    Fe* c[4] = {&out[lane].X, &out[lane].Y, &out[lane].Z, &out[lane].T};
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 5; ++l) c[k]->v[l] = t.w[k * 5 + l][lane];
  }
}

// Eight FixedBase::mul at once; lanes >= count are computed with scalar 0 and dropped.
PSI_IFMA_FN void fixed_base_mul8(const Precomp* table, const uint8_t* scalars, size_t count,
                                 Point* out) {
  Digits dig;
  load_digits(scalars, count, &dig);
  PointV h = point_identity_v();
  __m512i babs;
  __mmask8 neg;
  for (int i = 1; i < 64; i += 2) {
    digit_parts(dig.d[i], &babs, &neg);
    h = to_point(madd(h, select_precomp(table + (i / 2) * 8, babs, neg)));
  }
  times16(&h);
  for (int i = 0; i < 64; i += 2) {
    digit_parts(dig.d[i], &babs, &neg);
    h = to_point(madd(h, select_precomp(table + (i / 2) * 8, babs, neg)));
  }
  PointsT t;
  store_point(&t, h);
  transpose_out(t, count, out);
}

// Eight point_mul at once; lanes >= count repeat point 0 with scalar 0 and are dropped.
PSI_IFMA_FN void point_mul8(const Point* points, const uint8_t* scalars, size_t count, Point* out) {
  Digits dig;
  load_digits(scalars, count, &dig);
  PointsT in;
  for (size_t lane = 0; lane < kLanes; ++lane) {
    const Point& p = points[lane < count ? lane : 0];
    const Fe* c[4] = {&p.X, &p.Y, &p.Z, &p.T};
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 5; ++l) in.w[k * 5 + l][lane] = c[k]->v[l];
  }
  // Carried on entry: the Fe contract allows limbs up to 2^52 - 1, above 2p's (fev_sub's bound).
  PointV p{fev_carry(load_fe(in, 0)), fev_carry(load_fe(in, 1)), fev_carry(load_fe(in, 2)),
           fev_carry(load_fe(in, 3))};
  CachedV table[8];
  table[0] = to_cached(p);
  PointV acc = p;
  for (int j = 1; j < 8; ++j) {
    acc = to_point(add(acc, table[0]));
    table[j] = to_cached(acc);
  }
  __m512i babs;
  __mmask8 neg;
  digit_parts(dig.d[63], &babs, &neg);
  PointV h = to_point(add(point_identity_v(), select_cached(table, babs, neg)));
  for (int i = 62; i >= 0; --i) {
    times16(&h);
    digit_parts(dig.d[i], &babs, &neg);
    h = to_point(add(h, select_cached(table, babs, neg)));
  }
  PointsT t;
  store_point(&t, h);
  transpose_out(t, count, out);
}

}  // namespace

bool batch_simd_available() {
  static const bool ok = cpu_has_ifma();
  return ok;
}

namespace batch_detail {

void fixed_base_mul_batch(const FixedBase& base, const uint8_t* scalars, size_t n, Point* out,
                          bool use_simd) {
  if (use_simd && batch_simd_available()) {
    const Precomp* table = base.table().data();
    for (size_t i = 0; i < n; i += kLanes) {
      const size_t count = n - i < kLanes ? n - i : kLanes;
      if (count == 1) {  // one lane costs as much as eight: the scalar code is as fast
        out[i] = base.mul(scalars + 32 * i);
        break;
      }
      fixed_base_mul8(table, scalars + 32 * i, count, out + i);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) out[i] = base.mul(scalars + 32 * i);
}

void point_mul_batch(const Point* points, const uint8_t* scalars, size_t n, Point* out,
                     bool use_simd) {
  if (use_simd && batch_simd_available()) {
    for (size_t i = 0; i < n; i += kLanes) {
      const size_t count = n - i < kLanes ? n - i : kLanes;
      if (count == 1) {  // one lane costs more than one scalar point_mul
        out[i] = point_mul(points[i], scalars + 32 * i);
        break;
      }
      point_mul8(points + i, scalars + 32 * i, count, out + i);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) out[i] = point_mul(points[i], scalars + 32 * i);
}

}  // namespace batch_detail

void fixed_base_mul_batch(const FixedBase& base, const uint8_t* scalars, size_t n, Point* out) {
  batch_detail::fixed_base_mul_batch(base, scalars, n, out, true);
}

void point_mul_batch(const Point* points, const uint8_t* scalars, size_t n, Point* out) {
  batch_detail::point_mul_batch(points, scalars, n, out, true);
}

}  // namespace psi::group
