#include "token_bins.h"

namespace psi {

namespace {

uint64_t load_le64(const uint8_t* p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = x << 8 | p[i];
  return x;
}

uint64_t load_be64(const uint8_t* p) {
  uint64_t x = 0;
  for (int i = 0; i < 8; ++i) x = x << 8 | p[i];
  return x;
}

inline uint64_t rotl(uint64_t x, int b) { return x << b | x >> (64 - b); }

struct State {
  uint64_t v0, v1, v2, v3;

  explicit State(const uint8_t key[16]) {
    uint64_t k0 = load_le64(key);
    uint64_t k1 = load_le64(key + 8);
    v0 = 0x736f6d6570736575ULL ^ k0;
    v1 = 0x646f72616e646f6dULL ^ k1;
    v2 = 0x6c7967656e657261ULL ^ k0;
    v3 = 0x7465646279746573ULL ^ k1;
  }

  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }

  void word(uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }

  uint64_t finish() {
    v2 ^= 0xff;
    for (int i = 0; i < 4; ++i) round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

}  // namespace

uint64_t siphash24(const uint8_t key[16], const uint8_t* m, size_t len) {
  State s(key);
  size_t whole = len & ~size_t{7};
  for (size_t i = 0; i < whole; i += 8) s.word(load_le64(m + i));
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t i = 0; i < (len & 7); ++i) last |= static_cast<uint64_t>(m[whole + i]) << (8 * i);
  s.word(last);
  return s.finish();
}

void token_bins(const uint8_t key[16], const uint8_t* tokens, size_t count, uint32_t bins,
                uint32_t* out) {
  const State start(key);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* t = tokens + 16 * i;
    State s = start;
    s.word(load_be64(t) & 0x7fffffffffffffffULL);
    s.word(load_be64(t + 8));
    s.word(uint64_t{16} << 56);
    out[i] = static_cast<uint32_t>(s.finish() % bins);
  }
}

}  // namespace psi
