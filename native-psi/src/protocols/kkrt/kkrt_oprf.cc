#include "kkrt_oprf.h"

#include <string>

#include "../../core/bytes.h"
#include "../../core/prg.h"

namespace psi {

void kkrt_instance_key(const uint8_t shared_seed[32], const uint8_t instance[32], uint8_t out[32]) {
  derive_key(shared_seed, 32, instance_label("psi-flink kkrt v2 instance", instance), out, 32);
}

Block kkrt_column_key(Block ot_key, const uint8_t instance[32]) {
  return derive_instance_block(ot_key, "psi-flink kkrt v2 column", instance);
}

Block kkrt_output_tweak(const uint8_t inst_key[32]) {
  return derive_block(inst_key, 32, "psi-flink kkrt v2 output tweak");
}

void KkrtCode::init(const uint8_t inst_key[32]) {
  const std::string base = "psi-flink kkrt v2";
  for (uint32_t t = 0; t < kMaxCodeIndex; ++t)
    for (int l = 0; l < 4; ++l)
      code_[t][l].set_key(derive_block(
          inst_key, 32, base + " code " + std::to_string(t) + "." + std::to_string(l)));
  hash_[0].set_key(derive_block(inst_key, 32, base + " bins 0"));
  hash_[1].set_key(derive_block(inst_key, 32, base + " bins 1"));
}

void KkrtCode::encode(const Block* xs, const uint8_t* ts, size_t n, Block* out) const {
  for (size_t i = 0; i < n; i += 4) {
    const size_t m = 4 * (n - i < 4 ? n - i : 4);
    const Block* rk[16];
    Block st[16];
    for (size_t q = 0; q < m; ++q) {
      rk[q] = code_[ts[i + q / 4]][q % 4].round_keys();
      st[q] = xs[i + q / 4] ^ rk[q][0];
    }
    for (int r = 1; r < 10; ++r)
      for (size_t q = 0; q < m; ++q) st[q] = _mm_aesenc_si128(st[q], rk[q][r]);
    for (size_t q = 0; q < m; ++q) out[4 * i + q] = _mm_aesenclast_si128(st[q], rk[q][10]);
  }
}

void KkrtCode::item_hashes(const Block* xs, size_t n, ItemHash* hashes) const {
  constexpr size_t kStep = 64;
  Block a[kStep], b[kStep];
  for (size_t i = 0; i < n; i += kStep) {
    size_t m = n - i < kStep ? n - i : kStep;
    hash_[0].encrypt_blocks(xs + i, a, m);
    hash_[1].encrypt_blocks(xs + i, b, m);
    for (size_t j = 0; j < m; ++j) {
      Block x = a[j] ^ xs[i + j], y = b[j] ^ xs[i + j];
      hashes[i + j] = ItemHash{{block_lo(x), block_hi(x), block_lo(y), block_hi(y)}};
    }
  }
}

void kkrt_output_hash(const FixedKeyHash& h, Block tweak, const uint64_t* js, const Block* v,
                      size_t n, Block* out, uint64_t* proofs) {
  constexpr size_t kStep = 32;
  // "kkrtproof" tweak of the second hash; the chain's own tweaks hold the instance j in the low
  // half
  const Block kProofTweak = make_block(0x6b6b727470726f6full, 0x6f66000000000000ull);
  Block acc[kStep], tmp[kStep];
  for (size_t i = 0; i < n; i += kStep) {
    size_t m = n - i < kStep ? n - i : kStep;
    for (size_t k = 0; k < m; ++k)
      acc[k] = v[4 * (i + k)] ^ tweak ^ make_block(0x6b6b7274u, js[i + k]);
    for (int l = 1; l < 4; ++l) {
      h.hash_blocks(acc, tmp, m);
      for (size_t k = 0; k < m; ++k) acc[k] = tmp[k] ^ v[4 * (i + k) + l];
    }
    h.hash_blocks(acc, out + i, m);
    if (proofs) {
      for (size_t k = 0; k < m; ++k) acc[k] = acc[k] ^ kProofTweak;
      h.hash_blocks(acc, tmp, m);
      for (size_t k = 0; k < m; ++k) proofs[i + k] = block_lo(tmp[k]);
    }
  }
}

}  // namespace psi
