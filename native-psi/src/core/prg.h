// prg.h — deterministic randomness. Every random choice of a session comes from a Prg seeded from
// the session's 32-byte seed through derive_key(), so runs are reproducible from the seed and tests
// can use known seeds. AES-128 in counter mode keyed by the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aes.h"
#include "block.h"

namespace psi {

class Prg {
 public:
  Prg() : Prg(zero_block()) {}
  explicit Prg(Block seed, uint64_t stream = 0) { reseed(seed, stream); }
  void reseed(Block seed, uint64_t stream = 0);
  // Each call consumes whole 16-byte blocks (a partly used block's rest is dropped), so the output
  // is reproducible for the same seed and the same sequence of calls.
  void fill(void* out, size_t n);
  Block next_block();
  uint64_t next_u64();
  // Uniform in [0, bound) by rejection, bound > 0.
  uint64_t uniform(uint64_t bound);

 private:
  void refill();
  Aes128 aes_;
  uint64_t stream_ = 0;
  uint64_t counter_ = 0;
  static constexpr size_t kBuf = 64;
  Block buf_[kBuf];
  size_t pos_ = kBuf;
};

// Domain-separated key derivation: BLAKE2b-256 keyed by `key` (16..64 bytes) over `label`,
// truncated to out_len (1..64) bytes. Used to split the session seed into independent purpose keys.
void derive_key(const uint8_t* key, size_t key_len, const std::string& label, uint8_t* out,
                size_t out_len);
Block derive_block(const uint8_t* key, size_t key_len, const std::string& label);
// The label of a per-run key: domain || 0x00 || the 32 instance bytes (the 0x00 makes the domain a
// prefix-free part of the label).
std::string instance_label(const std::string& domain, const uint8_t instance[32]);
// derive_block keyed by a 128-bit key (e.g. a base-OT key) over instance_label(domain, instance).
Block derive_instance_block(Block key, const std::string& domain, const uint8_t instance[32]);

// Constant-time comparison for secret-dependent equality (returns true iff equal).
bool ct_equal(const void* a, const void* b, size_t n);

}  // namespace psi
