// AES-128-GCM (core/aes_gcm.h) against OpenSSL's EVP_aes_128_gcm as an independent oracle, with a
// published known-answer vector, every length from 0 to 300 bytes, and tampering.
#include "core/aes_gcm.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

std::vector<uint8_t> openssl_seal(const uint8_t key[16], const std::vector<uint8_t>& plain) {
  std::vector<uint8_t> out(plain.size() + 16);
  const uint8_t nonce[12] = {0};
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int n = 0;
  EXPECT_EQ(EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), nullptr, key, nonce), 1);
  if (!plain.empty()) {
    EXPECT_EQ(EVP_EncryptUpdate(c, out.data(), &n, plain.data(), int(plain.size())), 1);
  }
  EXPECT_EQ(EVP_EncryptFinal_ex(c, out.data() + n, &n), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, out.data() + plain.size()), 1);
  EVP_CIPHER_CTX_free(c);
  return out;
}

TEST(AesGcm, KnownAnswerTestCase2) {
  // McGrew-Viega "The Galois/Counter Mode of Operation", test case 2: zero key, zero IV, one zero
  // block: C = 0388dace60b6a392f328c2b971b2fe78, T = ab6e47d42cec13bdf53a67b21257bddf.
  const uint8_t key[16] = {0}, plain[16] = {0};
  uint8_t out[32];
  psi::aes128gcm_seal(key, plain, 16, out);
  const uint8_t want[32] = {0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92, 0xf3, 0x28, 0xc2,
                            0xb9, 0x71, 0xb2, 0xfe, 0x78, 0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec,
                            0x13, 0xbd, 0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};
  EXPECT_EQ(0, std::memcmp(out, want, 32));
  // test case 1: empty message, T = 58e2fccefa7e3061367f1d57a4e7455a
  psi::aes128gcm_seal(key, nullptr, 0, out);
  const uint8_t want1[16] = {0x58, 0xe2, 0xfc, 0xce, 0xfa, 0x7e, 0x30, 0x61,
                             0x36, 0x7f, 0x1d, 0x57, 0xa4, 0xe7, 0x45, 0x5a};
  EXPECT_EQ(0, std::memcmp(out, want1, 16));
}

TEST(AesGcm, AgreesWithOpenSslAtEveryLengthAndOpens) {
  std::mt19937_64 rng(3);
  for (size_t len = 0; len <= 300; ++len) {
    uint8_t key[16];
    for (auto& b : key) b = uint8_t(rng());
    std::vector<uint8_t> plain(len);
    for (auto& b : plain) b = uint8_t(rng());
    std::vector<uint8_t> mine(len + 16);
    psi::aes128gcm_seal(key, plain.data(), len, mine.data());
    ASSERT_EQ(mine, openssl_seal(key, plain)) << len;
    std::vector<uint8_t> back(len, 0xAA);
    ASSERT_TRUE(psi::aes128gcm_open(key, mine.data(), len, back.data()));
    EXPECT_EQ(back, plain);
  }
}

TEST(AesGcm, EveryFlippedBitAndAWrongKeyAreRefused) {
  uint8_t key[16] = {9};
  std::vector<uint8_t> plain(40, 0x5a), sealed(56);
  psi::aes128gcm_seal(key, plain.data(), 40, sealed.data());
  std::vector<uint8_t> out(40, 0xEE);
  for (size_t bit = 0; bit < 56 * 8; ++bit) {
    std::vector<uint8_t> t = sealed;
    t[bit / 8] ^= uint8_t(1 << (bit % 8));
    EXPECT_FALSE(psi::aes128gcm_open(key, t.data(), 40, out.data())) << bit;
  }
  EXPECT_EQ(out, std::vector<uint8_t>(40, 0xEE));  // untouched on failure
  key[15] ^= 1;
  EXPECT_FALSE(psi::aes128gcm_open(key, sealed.data(), 40, out.data()));
}

}  // namespace
