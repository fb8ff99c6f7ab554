#include "positions.h"

#include <sodium.h>

#include <cstring>
#include <string>

namespace psi {

Status FilterPositions::create(const uint8_t* key, size_t key_len, uint32_t bits, uint32_t hashes,
                               std::unique_ptr<FilterPositions>* out) {
  if (out == nullptr) return argument_error("filter positions: out must not be NULL");
  out->reset();
  if (key == nullptr) return argument_error("filter positions: key must not be NULL");
  if (key_len != kKeyBytes)
    return argument_error("filter positions: key must be " + std::to_string(kKeyBytes) +
                          " bytes (K1 for FF1, K2 for the hash), got " + std::to_string(key_len));
  if (bits < kMinBits || bits > kMaxBits)
    return argument_error("filter positions: filter_bits " + std::to_string(bits) + " outside [" +
                          std::to_string(kMinBits) + ", " + std::to_string(kMaxBits) + "]");
  if (hashes < kMinHashes || hashes > kMaxHashes)
    return argument_error("filter positions: hashes " + std::to_string(hashes) + " outside [" +
                          std::to_string(kMinHashes) + ", " + std::to_string(kMaxHashes) + "]");
  out->reset(new FilterPositions(key, bits, hashes));
  return Status::ok();
}

FilterPositions::FilterPositions(const uint8_t* key, uint32_t bits, uint32_t hashes)
    : ff1_(key, bits), bits_(bits), hashes_(hashes) {
  blocks_ = (size_t{hashes} * bits + 127) / 128;
  const Aes128 k2(load_block(key + 16));
  for (size_t i = 0; i < blocks_; ++i) {
    // K2_i = AES_K2(i), i as a 16-byte big-endian integer: the last byte carries it (i < 5).
    uint8_t index[16] = {0};
    index[15] = static_cast<uint8_t>(i);
    hash_[i].set_key(k2.encrypt(load_block(index)));
  }
}

FilterPositions::~FilterPositions() { sodium_memzero(hash_, sizeof hash_); }

void FilterPositions::positions(const uint8_t* tokens, size_t count, uint64_t* out) const {
  // Chunks of tokens: the hash blocks of a chunk stay in L1, and each AES batch (encrypt_blocks,
  // encrypt_batch) is long enough to pipeline.
  constexpr size_t kChunk = 64;
  Block in[kChunk];
  Block h[kMaxBlocks][kChunk];
  // H of one token, little-endian, with 8 spare bytes so every 8-byte read stays inside.
  uint8_t hbytes[16 * kMaxBlocks + 8] = {0};
  const uint64_t mask = (uint64_t{1} << bits_) - 1;
  for (size_t base = 0; base < count; base += kChunk) {
    const size_t m = count - base < kChunk ? count - base : kChunk;
    // tokens are bytes at any alignment: copy them into aligned blocks first
    std::memcpy(in, tokens + base * kTokenBytes, m * kTokenBytes);
    for (size_t i = 0; i < blocks_; ++i) hash_[i].encrypt_blocks(in, h[i], m);
    uint64_t* o = out + base * hashes_;
    for (size_t r = 0; r < m; ++r) {
      for (size_t i = 0; i < blocks_; ++i) store_block(hbytes + 16 * i, h[i][r]);
      for (uint32_t j = 0; j < hashes_; ++j) {
        const size_t bit = size_t{j} * bits_;
        uint64_t w;
        std::memcpy(&w, hbytes + bit / 8, 8);  // little-endian (x86-64)
        o[r * hashes_ + j] = (w >> (bit % 8)) & mask;
      }
    }
    ff1_.encrypt_batch(o, o, m * hashes_);
  }
  sodium_memzero(hbytes, sizeof hbytes);
}

}  // namespace psi
