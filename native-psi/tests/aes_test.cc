// Known answers for the primitives under KKRT: AES-128 (FIPS-197, and OpenSSL as an independent
// oracle for the batched and counter-mode paths), the fixed-key hash, the PRG and the transpose.
#include "core/aes.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <vector>

#include "core/prg.h"
#include "core/transpose.h"

using namespace psi;

namespace {

std::vector<uint8_t> openssl_ecb(const uint8_t key[16], const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(in.size() + 16);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int n = 0, m = 0;
  EXPECT_EQ(EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), nullptr, key, nullptr), 1);
  EVP_CIPHER_CTX_set_padding(c, 0);
  EXPECT_EQ(EVP_EncryptUpdate(c, out.data(), &n, in.data(), int(in.size())), 1);
  EXPECT_EQ(EVP_EncryptFinal_ex(c, out.data() + n, &m), 1);
  EVP_CIPHER_CTX_free(c);
  out.resize(size_t(n + m));
  return out;
}

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(r());
  return v;
}

}  // namespace

TEST(Aes, Fips197AppendixC1) {
  const uint8_t key[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                           0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};
  const uint8_t pt[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                          0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  const uint8_t ct[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                          0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  Aes128 aes(load_block(key));
  uint8_t out[16];
  store_block(out, aes.encrypt(load_block(pt)));
  EXPECT_EQ(0, memcmp(out, ct, 16));
}

TEST(Aes, BatchedEncryptionMatchesOpenSsl) {
  // sizes around the AES-NI kernel's 8 blocks and the VAES kernel's 16 (used when the CPU has it)
  for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(15), size_t(16), size_t(17),
                   size_t(31), size_t(33), size_t(100)}) {
    auto key = random_bytes(16, n), in = random_bytes(16 * n, n + 1);
    Aes128 aes(load_block(key.data()));
    std::vector<Block> blocks(n);
    for (size_t i = 0; i < n; ++i) blocks[i] = load_block(&in[16 * i]);
    aes.encrypt_blocks(blocks.data(), blocks.data(), n);
    std::vector<uint8_t> got(16 * n);
    for (size_t i = 0; i < n; ++i) store_block(&got[16 * i], blocks[i]);
    EXPECT_EQ(got, openssl_ecb(key.data(), in)) << n;
  }
}

class AesCounter : public ::testing::TestWithParam<uint64_t> {};

// The counter adds on the low 64 bits only; the last start wraps them inside a 16-block step.
INSTANTIATE_TEST_SUITE_P(Starts, AesCounter, ::testing::Values(1000, ~uint64_t(0) - 20));

TEST_P(AesCounter, CounterModeIsEcbOfNonceAndCounter) {
  auto key = random_bytes(16, 3);
  Aes128 aes(load_block(key.data()));
  const uint64_t nonce = 0x0123456789abcdefull, start = GetParam();
  std::vector<Block> out(53);
  aes.ctr_blocks(nonce, start, out.data(), out.size());
  std::vector<uint8_t> counters;
  for (size_t i = 0; i < out.size(); ++i) {
    uint8_t b[16];
    store_block(b, make_block(nonce, start + i));  // low 64 bits: counter, high: nonce
    counters.insert(counters.end(), b, b + 16);
  }
  auto want = openssl_ecb(key.data(), counters);
  for (size_t i = 0; i < out.size(); ++i) {
    uint8_t b[16];
    store_block(b, out[i]);
    EXPECT_EQ(0, memcmp(b, &want[16 * i], 16)) << i;
  }
}

TEST(FixedKeyHash, IsAesUnderZeroKeyOfSigmaXorSigma) {
  const uint8_t zero[16] = {0};
  FixedKeyHash h;
  auto in = random_bytes(16 * 70, 5);
  std::vector<Block> xs(70), batch(70);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = load_block(&in[16 * i]);
  h.hash_blocks(xs.data(), batch.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    // sigma(hi, lo) = (hi ^ lo, hi), computed here on bytes, not with the library's sigma().
    uint8_t s[16];
    for (int k = 0; k < 8; ++k) {
      s[k] = in[16 * i + 8 + k];                                // new low half = old high half
      s[8 + k] = uint8_t(in[16 * i + 8 + k] ^ in[16 * i + k]);  // new high half = hi ^ lo
    }
    auto e = openssl_ecb(zero, std::vector<uint8_t>(s, s + 16));
    uint8_t want[16], got[16];
    for (int k = 0; k < 16; ++k) want[k] = uint8_t(e[k] ^ s[k]);
    store_block(got, batch[i]);
    EXPECT_EQ(0, memcmp(got, want, 16)) << i;
    store_block(got, h.hash(xs[i]));
    EXPECT_EQ(0, memcmp(got, want, 16)) << i;
  }
}

TEST(Prg, DeterministicPerSeedAndStream) {
  Prg a(make_block(1, 2)), b(make_block(1, 2)), c(make_block(1, 3)), d(make_block(1, 2), 1);
  std::vector<uint8_t> x(1000), y(1000), z(1000), w(1000);
  a.fill(x.data(), 13);  // same seed, same sequence of calls -> same bytes
  a.fill(x.data() + 13, x.size() - 13);
  b.fill(y.data(), 13);
  b.fill(y.data() + 13, y.size() - 13);
  c.fill(z.data(), z.size());
  d.fill(w.data(), w.size());
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  EXPECT_NE(x, w);
  for (uint64_t bound : {uint64_t(1), uint64_t(3), uint64_t(1) << 40})
    for (int i = 0; i < 1000; ++i) EXPECT_LT(a.uniform(bound), bound);
}

TEST(Transpose, MatchesBitByBitOracle) {
  for (size_t rows : {size_t(32), size_t(512)})
    for (size_t row_bytes : {size_t(1), size_t(16), size_t(128)}) {
      auto in = random_bytes(rows * row_bytes, rows + row_bytes);
      std::vector<uint8_t> out(row_bytes * 8 * rows / 8);
      transpose_bits(in.data(), rows, row_bytes, out.data());
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < row_bytes * 8; ++c) {
          int in_bit = (in[r * row_bytes + c / 8] >> (c % 8)) & 1;
          int out_bit = (out[c * (rows / 8) + r / 8] >> (r % 8)) & 1;
          ASSERT_EQ(in_bit, out_bit) << rows << "x" << row_bytes << " at " << r << "," << c;
        }
    }
}
