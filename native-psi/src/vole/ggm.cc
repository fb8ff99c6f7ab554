#include "ggm.h"

#include "../core/aes.h"

namespace psi {
namespace {

// Nothing-up-my-sleeve keys: the first hexadecimal digits of pi's fractional part.
const Aes128& fixed_aes(int side) {
  static const Aes128 k0(make_block(0x243f6a8885a308d3ull, 0x13198a2e03707344ull));
  static const Aes128 k1(make_block(0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull));
  return side ? k1 : k0;
}

inline Block select(Block mask, Block if_one, Block if_zero) {
  return _mm_or_si128(_mm_and_si128(mask, if_one), _mm_andnot_si128(mask, if_zero));
}

// K trees (bases p[k]) at once. Per level, parents are read from the end down so the children
// (2k, 2k + 1 >= k) overwrite only parents already expanded. With kPunct, after each level the
// path node's sibling is corrected from the sender's sum and the path node is zeroed; the sum of
// the side computed from a zero (or garbage) parent is exact once that garbage is XORed out.
template <int K, bool kPunct>
void expand_group(Block* const* p, uint32_t depth, Block* sums, const uint64_t* alpha,
                  const Block* known, Block* leaf_xor) {
  const Block* r0 = fixed_aes(0).round_keys();
  const Block* r1 = fixed_aes(1).round_keys();
  for (uint32_t l = 0; l < depth; ++l) {
    Block s0[K], s1[K];
    for (int k = 0; k < K; ++k) s0[k] = s1[k] = zero_block();
    for (size_t idx = size_t(1) << l; idx-- > 0;) {
      Block x[K], a[K], b[K];
      for (int k = 0; k < K; ++k) {
        x[k] = p[k][idx];
        a[k] = x[k] ^ r0[0];
        b[k] = x[k] ^ r1[0];
      }
      for (int r = 1; r < 10; ++r)
        for (int k = 0; k < K; ++k) {
          a[k] = _mm_aesenc_si128(a[k], r0[r]);
          b[k] = _mm_aesenc_si128(b[k], r1[r]);
        }
      for (int k = 0; k < K; ++k) {
        a[k] = _mm_aesenclast_si128(a[k], r0[10]) ^ x[k];
        b[k] = _mm_aesenclast_si128(b[k], r1[10]) ^ x[k];
        p[k][2 * idx] = a[k];
        p[k][2 * idx + 1] = b[k];
        s0[k] ^= a[k];
        s1[k] ^= b[k];
      }
    }
    for (int k = 0; k < K; ++k) {
      if (!kPunct) {
        sums[2 * (size_t(k) * depth + l)] = s0[k];
        sums[2 * (size_t(k) * depth + l) + 1] = s1[k];
        continue;
      }
      const uint64_t prefix = alpha[k] >> (depth - l);
      const uint64_t bit = (alpha[k] >> (depth - 1 - l)) & 1;
      const Block m = _mm_set1_epi64x(-static_cast<long long>(bit));
      Block* path = &p[k][2 * prefix + bit];
      Block* sib = &p[k][2 * prefix + (bit ^ 1)];
      const Block k_sum = known[size_t(k) * depth + l];
      // the sibling's side sum includes the sibling computed from garbage: swap it for the truth
      *sib = k_sum ^ select(m, s0[k], s1[k]) ^ *sib;
      if (l + 1 == depth) leaf_xor[k] = k_sum ^ select(m, s1[k], s0[k]) ^ *path;
      *path = zero_block();
    }
  }
}

template <bool kPunct>
void expand_all(const Block* roots, const uint64_t* alpha, const Block* known, size_t trees,
                uint32_t depth, Block* leaves, Block* sums, Block* leaf_xor) {
  for (size_t g = 0; g < trees; g += 8) {
    const int n = trees - g < 8 ? int(trees - g) : 8;
    Block* p[8];
    for (int k = 0; k < n; ++k) {
      p[k] = leaves + ((g + k) << depth);
      p[k][0] = kPunct ? zero_block() : roots[g + k];
    }
    Block* s = kPunct ? nullptr : sums + 2 * g * depth;
    const uint64_t* a = kPunct ? alpha + g : nullptr;
    const Block* kn = kPunct ? known + g * depth : nullptr;
    Block* lx = kPunct ? leaf_xor + g : nullptr;
    switch (n) {
#define PSI_GGM_CASE(K)                              \
  case K:                                            \
    expand_group<K, kPunct>(p, depth, s, a, kn, lx); \
    break;
      PSI_GGM_CASE(1)
      PSI_GGM_CASE(2)
      PSI_GGM_CASE(3)
      PSI_GGM_CASE(4)
      PSI_GGM_CASE(5)
      PSI_GGM_CASE(6)
      PSI_GGM_CASE(7)
      PSI_GGM_CASE(8)
#undef PSI_GGM_CASE
    }
  }
}

}  // namespace

Block ggm_fixed_key(int side) { return fixed_aes(side).round_keys()[0]; }

void ggm_expand(const Block* roots, size_t trees, uint32_t depth, Block* leaves, Block* sums) {
  expand_all<false>(roots, nullptr, nullptr, trees, depth, leaves, sums, nullptr);
}

void ggm_expand_punctured(const uint64_t* alpha, const Block* known, size_t trees, uint32_t depth,
                          Block* leaves, Block* leaf_xor) {
  expand_all<true>(nullptr, alpha, known, trees, depth, leaves, nullptr, leaf_xor);
}

}  // namespace psi
