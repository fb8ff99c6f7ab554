#include "prg.h"

#include <sodium.h>

#include <cstring>

#include "bytes.h"

namespace psi {

void Prg::reseed(Block seed, uint64_t stream) {
  aes_.set_key(seed);
  stream_ = stream;
  counter_ = 0;
  pos_ = kBuf;
}

void Prg::refill() {
  aes_.ctr_blocks(stream_, counter_, buf_, kBuf);
  counter_ += kBuf;
  pos_ = 0;
}

Block Prg::next_block() {
  if (pos_ == kBuf) refill();
  return buf_[pos_++];
}

uint64_t Prg::next_u64() { return block_lo(next_block()); }

uint64_t Prg::uniform(uint64_t bound) {
  // Rejection sampling on the top of the range keeps the result exactly uniform.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    uint64_t x = next_u64();
    if (x < limit) return x % bound;
  }
}

void Prg::fill(void* out, size_t n) {
  uint8_t* p = static_cast<uint8_t*>(out);
  // Whole blocks straight from counter mode, bypassing the buffer.
  while (n >= 16 && pos_ == kBuf) {
    size_t blocks = n / 16;
    if (blocks > 4096) blocks = 4096;
    Block tmp[256];
    size_t done = 0;
    while (done < blocks) {
      size_t m = blocks - done < 256 ? blocks - done : 256;
      aes_.ctr_blocks(stream_, counter_, tmp, m);
      counter_ += m;
      std::memcpy(p, tmp, m * 16);
      p += m * 16;
      n -= m * 16;
      done += m;
    }
  }
  while (n > 0) {
    Block b = next_block();
    size_t m = n < 16 ? n : 16;
    std::memcpy(p, &b, m);
    p += m;
    n -= m;
  }
}

void derive_key(const uint8_t* key, size_t key_len, const std::string& label, uint8_t* out,
                size_t out_len) {
  crypto_generichash(out, out_len, reinterpret_cast<const uint8_t*>(label.data()), label.size(),
                     key, key_len);
}

Block derive_block(const uint8_t* key, size_t key_len, const std::string& label) {
  uint8_t b[16];
  derive_key(key, key_len, label, b, 16);
  Block r = load_block(b);
  sodium_memzero(b, sizeof b);
  return r;
}

bool ct_equal(const void* a, const void* b, size_t n) {
  const volatile uint8_t* x = static_cast<const volatile uint8_t*>(a);
  const volatile uint8_t* y = static_cast<const volatile uint8_t*>(b);
  uint8_t d = 0;
  for (size_t i = 0; i < n; ++i) d |= uint8_t(x[i] ^ y[i]);
  return d == 0;
}

std::string instance_label(const std::string& domain, const uint8_t instance[32]) {
  std::string label(domain);
  label.push_back('\0');
  label.append(reinterpret_cast<const char*>(instance), 32);
  return label;
}

Block derive_instance_block(Block key, const std::string& domain, const uint8_t instance[32]) {
  uint8_t k[16];
  store_block(k, key);
  Block r = derive_block(k, 16, instance_label(domain, instance));
  secure_wipe(k, sizeof k);
  return r;
}

}  // namespace psi
