#include "ggm.h"

#include <cpuid.h>

#include <atomic>
#include <vector>

#include "../core/aes.h"
#include "../core/bytes.h"

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

constexpr int kLanes = 8;  // trees expanded together

// Where a level's children go: the interleaved scratch (node-major, 8 lanes per node: the 8 trees'
// nodes of one index are one cache-line pair, so the AES kernel loads them together and no two
// streams alias at the 64 KiB tree stride), or, for the last level, the leaf array (tree-major).
struct Out {
  Block* il;           // interleaved: child c of lane k at il[c * 8 + k]
  Block* const* leaf;  // or leaf[k][c] (nullptr when writing interleaved)
  int lanes;           // lanes written to leaf (the group may have < 8 trees)
};

// One level: parents in[idx * 8 + k] for idx < w (read from the end down, so in place is safe:
// children 2idx, 2idx + 1 >= idx); children AES_k0(x) ^ x (even), AES_k1(x) ^ x (odd); s0/s1 get
// the XOR of the even/odd children of each lane.
template <bool kLeaf>
void level_aesni(const Block* in, size_t w, const Out& out, Block s0[kLanes], Block s1[kLanes]) {
  const Block* r0 = fixed_aes(0).round_keys();
  const Block* r1 = fixed_aes(1).round_keys();
  for (size_t idx = w; idx-- > 0;) {
    Block x[kLanes], a[kLanes], b[kLanes];
    for (int k = 0; k < kLanes; ++k) {
      x[k] = in[idx * kLanes + k];
      a[k] = x[k] ^ r0[0];
      b[k] = x[k] ^ r1[0];
    }
    for (int r = 1; r < 10; ++r)
      for (int k = 0; k < kLanes; ++k) {
        a[k] = _mm_aesenc_si128(a[k], r0[r]);
        b[k] = _mm_aesenc_si128(b[k], r1[r]);
      }
    for (int k = 0; k < kLanes; ++k) {
      a[k] = _mm_aesenclast_si128(a[k], r0[10]) ^ x[k];
      b[k] = _mm_aesenclast_si128(b[k], r1[10]) ^ x[k];
      s0[k] ^= a[k];
      s1[k] ^= b[k];
    }
    if (kLeaf) {
      for (int k = 0; k < out.lanes; ++k) {
        out.leaf[k][2 * idx] = a[k];
        out.leaf[k][2 * idx + 1] = b[k];
      }
    } else {
      for (int k = 0; k < kLanes; ++k) {
        out.il[2 * idx * kLanes + k] = a[k];
        out.il[(2 * idx + 1) * kLanes + k] = b[k];
      }
    }
  }
}

// The same with VAES on 256-bit registers (two lanes per instruction, twice the AES throughput on
// cores that have it); chosen at run time.
template <bool kLeaf>
__attribute__((target("vaes,avx2"))) void level_vaes(const Block* in, size_t w, const Out& out,
                                                     Block s0[kLanes], Block s1[kLanes]) {
  const Block* r0 = fixed_aes(0).round_keys();
  const Block* r1 = fixed_aes(1).round_keys();
  __m256i k0[11], k1[11];
  for (int r = 0; r < 11; ++r) {
    k0[r] = _mm256_broadcastsi128_si256(r0[r]);
    k1[r] = _mm256_broadcastsi128_si256(r1[r]);
  }
  constexpr int kV = kLanes / 2;
  __m256i t0[kV], t1[kV];
  for (int v = 0; v < kV; ++v) t0[v] = t1[v] = _mm256_setzero_si256();
  for (size_t idx = w; idx-- > 0;) {
    __m256i x[kV], a[kV], b[kV];
    for (int v = 0; v < kV; ++v) {
      x[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + idx * kLanes + 2 * v));
      a[v] = _mm256_xor_si256(x[v], k0[0]);
      b[v] = _mm256_xor_si256(x[v], k1[0]);
    }
    for (int r = 1; r < 10; ++r)
      for (int v = 0; v < kV; ++v) {
        a[v] = _mm256_aesenc_epi128(a[v], k0[r]);
        b[v] = _mm256_aesenc_epi128(b[v], k1[r]);
      }
    for (int v = 0; v < kV; ++v) {
      a[v] = _mm256_xor_si256(_mm256_aesenclast_epi128(a[v], k0[10]), x[v]);
      b[v] = _mm256_xor_si256(_mm256_aesenclast_epi128(b[v], k1[10]), x[v]);
      t0[v] = _mm256_xor_si256(t0[v], a[v]);
      t1[v] = _mm256_xor_si256(t1[v], b[v]);
    }
    if (kLeaf) {
      for (int k = 0; k < out.lanes; ++k) {
        const int v = k / 2, h = k % 2;
        out.leaf[k][2 * idx] = h ? _mm256_extracti128_si256(a[v], 1) : _mm256_castsi256_si128(a[v]);
        out.leaf[k][2 * idx + 1] =
            h ? _mm256_extracti128_si256(b[v], 1) : _mm256_castsi256_si128(b[v]);
      }
    } else {
      for (int v = 0; v < kV; ++v) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.il + 2 * idx * kLanes + 2 * v), a[v]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.il + (2 * idx + 1) * kLanes + 2 * v),
                            b[v]);
      }
    }
  }
  for (int v = 0; v < kV; ++v) {
    s0[2 * v] = _mm256_castsi256_si128(t0[v]);
    s0[2 * v + 1] = _mm256_extracti128_si256(t0[v], 1);
    s1[2 * v] = _mm256_castsi256_si128(t1[v]);
    s1[2 * v + 1] = _mm256_extracti128_si256(t1[v], 1);
  }
}

// CPUID leaf 7: VAES is ECX bit 9 (read directly: clang 14's __builtin_cpu_supports has no "vaes").
// AVX2, and the OS's saving of the YMM state, are checked at session creation (api/cpu.cc).
bool have_vaes() {
  static const bool v = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 9)) != 0 &&
           __builtin_cpu_supports("avx2");
  }();
  return v;
}
std::atomic<bool> g_allow_vaes{true};  // atomic: expansions may run on several threads

template <bool kLeaf>
void level(const Block* in, size_t w, const Out& out, Block s0[kLanes], Block s1[kLanes]) {
  for (int k = 0; k < kLanes; ++k) s0[k] = s1[k] = zero_block();
  if (g_allow_vaes.load(std::memory_order_relaxed) && have_vaes())
    level_vaes<kLeaf>(in, w, out, s0, s1);
  else
    level_aesni<kLeaf>(in, w, out, s0, s1);
}

// Groups of 8 trees (the last group padded with lanes whose output is dropped). With kPunct, after
// each level the path node's sibling is corrected from the sender's sum and the path node is
// zeroed: the sum of the sibling's side, computed with the garbage sibling, is exact once that
// garbage is XORed out.
template <bool kPunct>
void expand_all(const Block* roots, const uint64_t* alpha, const Block* known, size_t trees,
                uint32_t depth, Block* leaves, Block* sums, Block* leaf_xor) {
  std::vector<Block> il(size_t(kLanes) << (depth - 1));
  for (size_t g = 0; g < trees; g += kLanes) {
    const int n = trees - g < size_t(kLanes) ? int(trees - g) : kLanes;
    Block* p[kLanes];
    for (int k = 0; k < n; ++k) p[k] = leaves + ((g + k) << depth);
    for (int k = 0; k < kLanes; ++k) il[k] = (!kPunct && k < n) ? roots[g + k] : zero_block();
    for (uint32_t l = 0; l < depth; ++l) {
      const bool last = l + 1 == depth;
      Block s0[kLanes], s1[kLanes];
      Out out{il.data(), p, n};
      if (last)
        level<true>(il.data(), size_t(1) << l, out, s0, s1);
      else
        level<false>(il.data(), size_t(1) << l, out, s0, s1);
      for (int k = 0; k < n; ++k) {
        const size_t tree = g + k;
        if (!kPunct) {
          sums[2 * (tree * depth + l)] = s0[k];
          sums[2 * (tree * depth + l) + 1] = s1[k];
          continue;
        }
        const uint64_t prefix = alpha[tree] >> (depth - l);
        const uint64_t bit = (alpha[tree] >> (depth - 1 - l)) & 1;
        const Block m = _mm_set1_epi64x(-static_cast<long long>(bit));
        const size_t path_c = 2 * prefix + bit, sib_c = 2 * prefix + (bit ^ 1);
        Block* path = last ? &p[k][path_c] : &il[path_c * kLanes + k];
        Block* sib = last ? &p[k][sib_c] : &il[sib_c * kLanes + k];
        const Block k_sum = known[tree * depth + l];
        *sib = k_sum ^ select(m, s0[k], s1[k]) ^ *sib;
        if (last) leaf_xor[tree] = k_sum ^ select(m, s1[k], s0[k]) ^ *path;
        *path = zero_block();
      }
    }
  }
  secure_wipe(il.data(), il.size() * sizeof(Block));  // inner nodes determine the leaves
}

}  // namespace

Block ggm_fixed_key(int side) { return fixed_aes(side).round_keys()[0]; }

bool ggm_use_vaes(bool allow) {
  g_allow_vaes.store(allow, std::memory_order_relaxed);
  return allow && have_vaes();
}

void ggm_expand(const Block* roots, size_t trees, uint32_t depth, Block* leaves, Block* sums) {
  expand_all<false>(roots, nullptr, nullptr, trees, depth, leaves, sums, nullptr);
}

void ggm_expand_punctured(const uint64_t* alpha, const Block* known, size_t trees, uint32_t depth,
                          Block* leaves, Block* leaf_xor) {
  expand_all<true>(nullptr, alpha, known, trees, depth, leaves, nullptr, leaf_xor);
}

}  // namespace psi
