#include "ff1.h"

#include <sodium.h>

#include <cstring>
#include <string>
#include <vector>

#include "../api/cpu.h"

namespace psi {
namespace {

using u128 = unsigned __int128;

constexpr int kRounds = 10;

// radix^e, or 0 if it is >= 2^64.
uint64_t checked_pow(uint64_t radix, size_t e) {
  u128 r = 1;
  for (size_t i = 0; i < e; ++i) {
    r *= radix;
    if (r >> 64) return 0;
  }
  return static_cast<uint64_t>(r);
}

// NUM_radix(X) of a string already checked to be < radix^len < 2^64.
uint64_t num(const uint32_t* x, size_t len, uint32_t radix) {
  uint64_t r = 0;
  for (size_t i = 0; i < len; ++i) r = r * radix + x[i];
  return r;
}

// STR^len_radix(x), most significant numeral first.
void str(uint64_t x, uint32_t radix, size_t len, uint32_t* out) {
  for (size_t i = len; i-- > 0;) {
    out[i] = static_cast<uint32_t>(x % radix);
    x /= radix;
  }
}

void put_be(uint8_t* p, uint64_t x, size_t len) {
  for (size_t i = len; i-- > 0;) {
    p[i] = static_cast<uint8_t>(x);
    x >>= 8;
  }
}

}  // namespace

Ff1::Ff1(const uint8_t* key) : aes_(load_block(key)) {}

Ff1::~Ff1() { sodium_memzero(&aes_, sizeof aes_); }

Status Ff1::encrypt(uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
                    size_t tweak_len, uint32_t* out) const {
  return crypt(true, radix, in, n, tweak, tweak_len, out);
}

Status Ff1::decrypt(uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
                    size_t tweak_len, uint32_t* out) const {
  return crypt(false, radix, in, n, tweak, tweak_len, out);
}

// SP 800-38G Rev. 1, Algorithm 7 (FF1.Encrypt) and 8 (FF1.Decrypt), step for step; A and B are
// carried as NUM_radix of the strings (their lengths are implied by the round number).
Status Ff1::crypt(bool enc, uint32_t radix, const uint32_t* in, size_t n, const uint8_t* tweak,
                  size_t tweak_len, uint32_t* out) const {
  if (in == nullptr || out == nullptr || (tweak == nullptr && tweak_len != 0))
    return argument_error("FF1: null input, output or tweak");
  if (radix < kMinRadix || radix > kMaxRadix)
    return argument_error("FF1: radix " + std::to_string(radix) + " outside [2, 65536]");
  if (n < 2) return argument_error("FF1: " + std::to_string(n) + " numerals, at least 2 needed");
  if (tweak_len > 0xffffffffu) return argument_error("FF1: tweak of 2^32 bytes or more");
  // 1. u = floor(n/2), v = n - u.
  const size_t u = n / 2, v = n - u;
  const uint64_t radix_v = checked_pow(radix, v);
  if (radix_v == 0)
    return argument_error("FF1: radix^ceil(n/2) >= 2^64 (radix " + std::to_string(radix) + ", " +
                          std::to_string(n) + " numerals): halves must fit in 64 bits");
  const uint64_t radix_u = checked_pow(radix, u);
  for (size_t i = 0; i < n; ++i)
    if (in[i] >= radix) return argument_error("FF1: a numeral is not below the radix");
  // 3. b = ceil(ceil(v * log2(radix)) / 8): ceil(v * log2(radix)) is the least e with 2^e >=
  // radix^v, the bit length of radix^v - 1 (radix^v >= 2). Exact, no floating point.
  const unsigned e = 64u - static_cast<unsigned>(__builtin_clzll(radix_v - 1));
  const size_t b = (e + 7) / 8;            // <= 8
  const size_t d = 4 * ((b + 3) / 4) + 4;  // <= 12 <= 16: S is the first d bytes of R
  // 5. P = [1]^1 || [2]^1 || [1]^1 || [radix]^3 || [10]^1 || [u mod 256]^1 || [n]^4 || [t]^4.
  uint8_t p[16] = {1, 2, 1};
  put_be(p + 3, radix, 3);
  p[6] = 10;
  p[7] = static_cast<uint8_t>(u % 256);
  put_be(p + 8, n, 4);
  put_be(p + 12, tweak_len, 4);
  // Q = T || [0]^((-t-b-1) mod 16) || [i]^1 || [NUM_radix(B)]^b: a multiple of 16 bytes.
  const size_t pad = (16 - (tweak_len + b + 1) % 16) % 16;
  std::vector<uint8_t> q(tweak_len + pad + 1 + b, 0);
  if (tweak_len != 0) std::memcpy(q.data(), tweak, tweak_len);

  // 2. A = X[1..u], B = X[u+1..n].
  uint64_t a = num(in, u, radix), bv = num(in + u, v, radix);
  for (int k = 0; k < kRounds; ++k) {
    const int i = enc ? k : kRounds - 1 - k;
    // 6.i: the numeral fed to the PRF is B when encrypting, A when decrypting.
    q[tweak_len + pad] = static_cast<uint8_t>(i);
    put_be(q.data() + tweak_len + pad + 1, enc ? bv : a, b);
    // 6.ii: R = PRF(P || Q), CBC-MAC with a zero IV.
    Block r = aes_.encrypt(load_block(p));
    for (size_t off = 0; off < q.size(); off += 16) r = aes_.encrypt(r ^ load_block(&q[off]));
    // 6.iii-iv: S = first d bytes of R (d <= 16), y = NUM(S).
    uint8_t s[16];
    store_block(s, r);
    u128 y = 0;
    for (size_t j = 0; j < d; ++j) y = (y << 8) | s[j];
    // 6.v-vi: m = u on even rounds, v on odd ones; c = NUM(A) + y (enc) or NUM(B) - y (dec) mod
    // radix^m.
    const u128 rm = (i % 2 == 0) ? radix_u : radix_v;
    const u128 ym = y % rm;
    if (enc) {
      const uint64_t c = static_cast<uint64_t>((a + ym) % rm);
      a = bv;  // 6.viii-ix: A = B, B = C
      bv = c;
    } else {
      const uint64_t c = static_cast<uint64_t>((bv + rm - ym) % rm);
      bv = a;  // B = A, A = C
      a = c;
    }
  }
  sodium_memzero(q.data(), q.size());
  // 7. A || B: A has u numerals and B v after an even number of rounds.
  str(a, radix, u, out);
  str(bv, radix, v, out + u);
  return Status::ok();
}

// ---------------------------------------------------------------------------------------------------
// Radix 2, empty tweak.
//
// P = 01 02 01 | 00 00 02 | 0a | u | 00 00 00 n | 00 00 00 00. With t = 0 and b = ceil(v/8) <= 4,
// Q = [0]^(15-b) || [i] || [B]^b is one block, whose last 8 bytes are the big-endian integer
// (i << 8b) | B; R = AES_K(AES_K(P) ^ Q), d = 8 and y = NUM(R[0..8)), the big-endian value of R's
// first 8 bytes. m <= 32, so (A + y) mod 2^m only needs y mod 2^64.

Ff1Binary::Ff1Binary(const uint8_t* key, uint32_t bits, Kernel kernel)
    : aes_(load_block(key)), bits_(bits), vaes_(kernel == Kernel::kAuto && cpu_has_vaes()) {
  u_ = bits / 2;
  v_ = bits - u_;
  qshift_ = 8 * ((v_ + 7) / 8);
  mask_u_ = (uint64_t{1} << u_) - 1;
  mask_v_ = (uint64_t{1} << v_) - 1;
  const uint8_t p[16] = {
      1, 2, 1, 0, 0, 2, 10, static_cast<uint8_t>(u_), 0, 0, 0, static_cast<uint8_t>(bits),
      0, 0, 0, 0};
  first_ = aes_.encrypt(load_block(p)) ^ aes_.round_keys()[0];
}

Ff1Binary::~Ff1Binary() {
  sodium_memzero(&aes_, sizeof aes_);
  sodium_memzero(&first_, sizeof first_);
}

namespace {

// The round's Q block, already xored with AES_K(P) and round key 0 (first).
inline Block round_input(Block first, uint64_t i, uint32_t qshift, uint64_t half) {
  return first ^ make_block(__builtin_bswap64((i << qshift) | half), 0);
}

inline Block aes_rest(Block x, const Block* rk) {
  for (int r = 1; r < 10; ++r) x = _mm_aesenc_si128(x, rk[r]);
  return _mm_aesenclast_si128(x, rk[10]);
}

inline uint64_t num_s(Block r) { return __builtin_bswap64(block_lo(r)); }

}  // namespace

uint64_t Ff1Binary::encrypt(uint64_t x) const {
  const Block* rk = aes_.round_keys();
  uint64_t a = (x >> v_) & mask_u_, b = x & mask_v_;
  for (uint64_t i = 0; i < kRounds; ++i) {
    const uint64_t y = num_s(aes_rest(round_input(first_, i, qshift_, b), rk));
    const uint64_t c = (a + y) & ((i % 2 == 0) ? mask_u_ : mask_v_);
    a = b;
    b = c;
  }
  return (a << v_) | b;
}

uint64_t Ff1Binary::decrypt(uint64_t x) const {
  const Block* rk = aes_.round_keys();
  uint64_t a = (x >> v_) & mask_u_, b = x & mask_v_;
  for (uint64_t i = kRounds; i-- > 0;) {
    const uint64_t y = num_s(aes_rest(round_input(first_, i, qshift_, a), rk));
    const uint64_t c = (b - y) & ((i % 2 == 0) ? mask_u_ : mask_v_);
    b = a;
    a = c;
  }
  return (a << v_) | b;
}

namespace {

// Sixteen inputs with VAES: eight 256-bit states of two blocks each. The Feistel arithmetic runs
// on AVX2 lanes of four inputs: a[g], b[g] hold inputs 4g..4g+3; their Q blocks are built as
// s[2g] = (inputs 4g, 4g+2) and s[2g+1] = (4g+1, 4g+3), so unpacklo(s[2g], s[2g+1]) gives back
// the low words of R in input order.
__attribute__((target("vaes,avx2"))) size_t encrypt16_vaes(const Block* rk, Block first, uint32_t v,
                                                           uint32_t qshift, uint64_t mask_u,
                                                           uint64_t mask_v, const uint64_t* in,
                                                           uint64_t* out, size_t count) {
  __m256i k[11];
  for (int r = 0; r < 11; ++r) k[r] = _mm256_broadcastsi128_si256(rk[r]);
  const __m256i first2 = _mm256_broadcastsi128_si256(first);
  // byte swap of each 64-bit element
  const __m256i bswap = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                         5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i mu = _mm256_set1_epi64x(static_cast<long long>(mask_u));
  const __m256i mv = _mm256_set1_epi64x(static_cast<long long>(mask_v));
  const __m128i vshift = _mm_cvtsi32_si128(static_cast<int>(v));
  size_t n = 0;
  for (; n + 16 <= count; n += 16) {
    __m256i a[4], b[4];
    for (int g = 0; g < 4; ++g) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + n + 4 * g));
      a[g] = _mm256_and_si256(_mm256_srl_epi64(x, vshift), mu);
      b[g] = _mm256_and_si256(x, mv);
    }
    for (int i = 0; i < kRounds; ++i) {
      const __m256i qi = _mm256_set1_epi64x(static_cast<long long>(uint64_t(i) << qshift));
      __m256i s0, s1, s2, s3, s4, s5, s6, s7;
      {
        const __m256i q0 = _mm256_shuffle_epi8(_mm256_or_si256(b[0], qi), bswap);
        const __m256i q1 = _mm256_shuffle_epi8(_mm256_or_si256(b[1], qi), bswap);
        const __m256i q2 = _mm256_shuffle_epi8(_mm256_or_si256(b[2], qi), bswap);
        const __m256i q3 = _mm256_shuffle_epi8(_mm256_or_si256(b[3], qi), bswap);
        s0 = _mm256_xor_si256(_mm256_unpacklo_epi64(zero, q0), first2);
        s1 = _mm256_xor_si256(_mm256_unpackhi_epi64(zero, q0), first2);
        s2 = _mm256_xor_si256(_mm256_unpacklo_epi64(zero, q1), first2);
        s3 = _mm256_xor_si256(_mm256_unpackhi_epi64(zero, q1), first2);
        s4 = _mm256_xor_si256(_mm256_unpacklo_epi64(zero, q2), first2);
        s5 = _mm256_xor_si256(_mm256_unpackhi_epi64(zero, q2), first2);
        s6 = _mm256_xor_si256(_mm256_unpacklo_epi64(zero, q3), first2);
        s7 = _mm256_xor_si256(_mm256_unpackhi_epi64(zero, q3), first2);
      }
      for (int r = 1; r < 10; ++r) {
        const __m256i kr = k[r];
        s0 = _mm256_aesenc_epi128(s0, kr);
        s1 = _mm256_aesenc_epi128(s1, kr);
        s2 = _mm256_aesenc_epi128(s2, kr);
        s3 = _mm256_aesenc_epi128(s3, kr);
        s4 = _mm256_aesenc_epi128(s4, kr);
        s5 = _mm256_aesenc_epi128(s5, kr);
        s6 = _mm256_aesenc_epi128(s6, kr);
        s7 = _mm256_aesenc_epi128(s7, kr);
      }
      s0 = _mm256_aesenclast_epi128(s0, k[10]);
      s1 = _mm256_aesenclast_epi128(s1, k[10]);
      s2 = _mm256_aesenclast_epi128(s2, k[10]);
      s3 = _mm256_aesenclast_epi128(s3, k[10]);
      s4 = _mm256_aesenclast_epi128(s4, k[10]);
      s5 = _mm256_aesenclast_epi128(s5, k[10]);
      s6 = _mm256_aesenclast_epi128(s6, k[10]);
      s7 = _mm256_aesenclast_epi128(s7, k[10]);
      const __m256i y[4] = {_mm256_shuffle_epi8(_mm256_unpacklo_epi64(s0, s1), bswap),
                            _mm256_shuffle_epi8(_mm256_unpacklo_epi64(s2, s3), bswap),
                            _mm256_shuffle_epi8(_mm256_unpacklo_epi64(s4, s5), bswap),
                            _mm256_shuffle_epi8(_mm256_unpacklo_epi64(s6, s7), bswap)};
      const __m256i m = (i % 2 == 0) ? mu : mv;
      for (int g = 0; g < 4; ++g) {
        const __m256i c = _mm256_and_si256(_mm256_add_epi64(a[g], y[g]), m);
        a[g] = b[g];
        b[g] = c;
      }
    }
    for (int g = 0; g < 4; ++g)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n + 4 * g),
                          _mm256_or_si256(_mm256_sll_epi64(a[g], vshift), b[g]));
  }
  return n;
}

}  // namespace

// Eight inputs side by side: eight independent AES chains per Feistel round keep the AES unit
// busy (its latency is several cycles, its throughput one or two rounds per cycle). The states are
// named variables: GCC keeps an array of __m128i on the stack (see aes.cc).
void Ff1Binary::encrypt_batch(const uint64_t* in, uint64_t* out, size_t count) const {
  const Block* rk = aes_.round_keys();
  // first_ carries round key 0 already: the VAES kernel xors it in once, as the AES-NI one does
  size_t n = vaes_ ? encrypt16_vaes(rk, first_, v_, qshift_, mask_u_, mask_v_, in, out, count) : 0;
  for (; n + 8 <= count; n += 8) {
    uint64_t a[8], b[8];
    for (int j = 0; j < 8; ++j) {
      a[j] = (in[n + j] >> v_) & mask_u_;
      b[j] = in[n + j] & mask_v_;
    }
    for (uint64_t i = 0; i < kRounds; ++i) {
      Block x0 = round_input(first_, i, qshift_, b[0]);
      Block x1 = round_input(first_, i, qshift_, b[1]);
      Block x2 = round_input(first_, i, qshift_, b[2]);
      Block x3 = round_input(first_, i, qshift_, b[3]);
      Block x4 = round_input(first_, i, qshift_, b[4]);
      Block x5 = round_input(first_, i, qshift_, b[5]);
      Block x6 = round_input(first_, i, qshift_, b[6]);
      Block x7 = round_input(first_, i, qshift_, b[7]);
      for (int r = 1; r < 10; ++r) {
        const Block k = rk[r];
        x0 = _mm_aesenc_si128(x0, k);
        x1 = _mm_aesenc_si128(x1, k);
        x2 = _mm_aesenc_si128(x2, k);
        x3 = _mm_aesenc_si128(x3, k);
        x4 = _mm_aesenc_si128(x4, k);
        x5 = _mm_aesenc_si128(x5, k);
        x6 = _mm_aesenc_si128(x6, k);
        x7 = _mm_aesenc_si128(x7, k);
      }
      const Block k = rk[10];
      const uint64_t y[8] = {
          num_s(_mm_aesenclast_si128(x0, k)), num_s(_mm_aesenclast_si128(x1, k)),
          num_s(_mm_aesenclast_si128(x2, k)), num_s(_mm_aesenclast_si128(x3, k)),
          num_s(_mm_aesenclast_si128(x4, k)), num_s(_mm_aesenclast_si128(x5, k)),
          num_s(_mm_aesenclast_si128(x6, k)), num_s(_mm_aesenclast_si128(x7, k))};
      const uint64_t mask = (i % 2 == 0) ? mask_u_ : mask_v_;
      for (int j = 0; j < 8; ++j) {
        const uint64_t c = (a[j] + y[j]) & mask;
        a[j] = b[j];
        b[j] = c;
      }
    }
    for (int j = 0; j < 8; ++j) out[n + j] = (a[j] << v_) | b[j];
  }
  for (; n < count; ++n) out[n] = encrypt(in[n]);
}

}  // namespace psi
