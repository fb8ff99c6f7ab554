#include "token_prf.h"

#include <sodium.h>

#include <cstring>
#include <string>

#include "../core/sha256.h"

namespace psi {

namespace {

void store_be32(uint8_t* p, uint32_t x) {
  p[0] = static_cast<uint8_t>(x >> 24);
  p[1] = static_cast<uint8_t>(x >> 16);
  p[2] = static_cast<uint8_t>(x >> 8);
  p[3] = static_cast<uint8_t>(x);
}

void store_be64(uint8_t* p, uint64_t x) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(x >> (56 - 8 * i));
}

// The inner hash's last blocks into tail (128 bytes): the message's last rest bytes, 0x80, zeros
// and the bit length of the ipad block and the len-byte message. Returns the blocks (1 or 2).
size_t inner_tail(uint8_t* tail, const uint8_t* rest, size_t rest_len, size_t len) {
  std::memset(tail, 0, 128);
  std::memcpy(tail, rest, rest_len);
  tail[rest_len] = 0x80;
  const size_t blocks = rest_len < 56 ? 1 : 2;
  store_be64(tail + 64 * blocks - 8, (uint64_t{64} + len) * 8);
  return blocks;
}

// The outer hash's one block into block (64 bytes): the inner digest, 0x80, zeros and 768 bits
// (the opad block and 32 bytes).
void outer_block(uint8_t* block, const uint32_t inner_digest[8]) {
  std::memset(block, 0, 64);
  for (int i = 0; i < 8; ++i) store_be32(block + 4 * i, inner_digest[i]);
  block[32] = 0x80;
  store_be64(block + 56, (64 + 32) * 8);
}

// The first 16 bytes of the digest in state.
void store_prefix(uint8_t* out, const uint32_t state[8]) {
  for (int i = 0; i < 4; ++i) store_be32(out + 4 * i, state[i]);
}

}  // namespace

Status TokenPrf::create(const uint8_t* key, size_t key_len, std::unique_ptr<TokenPrf>* out) {
  if (out == nullptr) return argument_error("token PRF: out must not be NULL");
  out->reset();
  if (key == nullptr) return argument_error("token PRF: key must not be NULL");
  if (key_len != kKeyBytes)
    return argument_error("token PRF: key must be " + std::to_string(kKeyBytes) + " bytes, got " +
                          std::to_string(key_len));
  out->reset(new TokenPrf(key));
  return Status::ok();
}

TokenPrf::TokenPrf(const uint8_t* key) {
  uint8_t block[64];
  for (int pass = 0; pass < 2; ++pass) {
    const uint8_t pad = pass == 0 ? 0x36 : 0x5c;
    std::memset(block, pad, sizeof block);
    for (size_t i = 0; i < kKeyBytes; ++i) block[i] ^= key[i];
    uint32_t* st = pass == 0 ? inner_ : outer_;
    std::memcpy(st, Sha256::kInit, sizeof inner_);
    Sha256::compress(st, block, 1);
  }
  sodium_memzero(block, sizeof block);
}

TokenPrf::~TokenPrf() {
  sodium_memzero(inner_, sizeof inner_);
  sodium_memzero(outer_, sizeof outer_);
}

// scratch: 128 + 64 bytes, key-derived afterwards (compute wipes it once per batch)
void TokenPrf::one(const uint8_t* m, size_t len, uint8_t* out, uint8_t* scratch) const {
  uint32_t st[8];
  std::memcpy(st, inner_, sizeof st);
  const size_t full = len / 64;
  Sha256::compress(st, m, full);
  Sha256::compress(st, scratch, inner_tail(scratch, m + 64 * full, len - 64 * full, len));
  outer_block(scratch + 128, st);
  std::memcpy(st, outer_, sizeof st);
  Sha256::compress(st, scratch + 128, 1);
  store_prefix(out, st);
}

// Two messages of at most 55 bytes each (one padded block): both chains interleaved.
// scratch: 192 bytes, key-derived afterwards.
void TokenPrf::pair(const uint8_t* m0, size_t len0, const uint8_t* m1, size_t len1, uint8_t* out,
                    uint8_t* scratch) const {
  uint8_t* b0 = scratch;
  uint8_t* b1 = scratch + 64;
  uint32_t s0[8], s1[8];
  // each tail is one block: b1's (128 bytes written) covers only the unused half of b0's
  inner_tail(b0, m0, len0, len0);
  inner_tail(b1, m1, len1, len1);
  std::memcpy(s0, inner_, sizeof s0);
  std::memcpy(s1, inner_, sizeof s1);
  Sha256::compress_pair(s0, b0, s1, b1);
  outer_block(b0, s0);
  outer_block(b1, s1);
  std::memcpy(s0, outer_, sizeof s0);
  std::memcpy(s1, outer_, sizeof s1);
  Sha256::compress_pair(s0, b0, s1, b1);
  store_prefix(out, s0);
  store_prefix(out + kOutBytes, s1);
}

void TokenPrf::compute(const uint8_t* data, const uint32_t* ends, size_t count,
                       uint8_t* out) const {
  uint8_t scratch[kScratchBytes];
  size_t start = 0;
  size_t i = 0;
  for (; i + 1 < count; i += 2) {
    const size_t len0 = ends[i] - start;
    const size_t len1 = ends[i + 1] - ends[i];
    if (len0 < 56 && len1 < 56) {
      pair(data + start, len0, data + ends[i], len1, out + kOutBytes * i, scratch);
    } else {
      one(data + start, len0, out + kOutBytes * i, scratch);
      one(data + ends[i], len1, out + kOutBytes * (i + 1), scratch);
    }
    start = ends[i + 1];
  }
  if (i < count) one(data + start, ends[i] - start, out + kOutBytes * i, scratch);
  sodium_memzero(scratch, sizeof scratch);
}

}  // namespace psi
