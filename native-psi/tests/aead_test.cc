// psi_aead_seal/open against OpenSSL's ChaCha20-Poly1305 as an independent oracle, and the ways a
// sealed frame can be hostile: altered, truncated, wrongly keyed.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <vector>

#include "psi_native.h"

namespace {

std::vector<uint8_t> bytes(size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(r());
  return v;
}

std::vector<uint8_t> openssl_seal(const std::vector<uint8_t>& key,
                                  const std::vector<uint8_t>& nonce,
                                  const std::vector<uint8_t>& plain) {
  std::vector<uint8_t> out(plain.size() + 16);
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int n = 0, m = 0;
  EXPECT_EQ(EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), nullptr, key.data(), nonce.data()), 1);
  EXPECT_EQ(EVP_EncryptUpdate(c, out.data(), &n, plain.data(), int(plain.size())), 1);
  EXPECT_EQ(EVP_EncryptFinal_ex(c, out.data() + n, &m), 1);
  EXPECT_EQ(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out.data() + plain.size()), 1);
  EVP_CIPHER_CTX_free(c);
  return out;
}

}  // namespace

TEST(Aead, SealMatchesOpenSslAndOpens) {
  auto key = bytes(32, 1);
  auto nonce = bytes(12, 2);
  for (size_t len : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(1000), size_t(262144)}) {
    auto plain = bytes(len, 3 + len);
    std::vector<uint8_t> sealed(len + PSI_AEAD_TAG_BYTES);
    size_t w = 0;
    ASSERT_EQ(psi_aead_seal(key.data(), 32, nonce.data(), 12, plain.data(), len, sealed.data(),
                            sealed.size(), &w),
              PSI_OK);
    ASSERT_EQ(w, len + 16);
    EXPECT_EQ(sealed, openssl_seal(key, nonce, plain)) << "len " << len;
    std::vector<uint8_t> back(len + 1);
    ASSERT_EQ(psi_aead_open(key.data(), 32, nonce.data(), 12, sealed.data(), w, back.data(),
                            back.size(), &w),
              PSI_OK);
    back.resize(w);
    EXPECT_EQ(back, plain);
  }
}

TEST(Aead, HostileFramesAreRejected) {
  auto key = bytes(32, 4);
  auto nonce = bytes(12, 5);
  auto plain = bytes(100, 6);
  std::vector<uint8_t> sealed(116), out(116);
  size_t w = 0;
  ASSERT_EQ(
      psi_aead_seal(key.data(), 32, nonce.data(), 12, plain.data(), 100, sealed.data(), 116, &w),
      PSI_OK);
  for (size_t i = 0; i < sealed.size(); i += 7) {  // any flipped bit, in text or tag
    auto bad = sealed;
    bad[i] ^= 0x20;
    EXPECT_EQ(psi_aead_open(key.data(), 32, nonce.data(), 12, bad.data(), bad.size(), out.data(),
                            out.size(), &w),
              PSI_ERR_PEER_MESSAGE);
  }
  for (size_t len : {size_t(0), size_t(15), size_t(16), size_t(115)}) {
    EXPECT_EQ(psi_aead_open(key.data(), 32, nonce.data(), 12, sealed.data(), len, out.data(),
                            out.size(), &w),
              PSI_ERR_PEER_MESSAGE)
        << "truncated to " << len;
  }
  auto other_nonce = bytes(12, 7);  // a replayed or reordered frame decrypts under another nonce
  EXPECT_EQ(psi_aead_open(key.data(), 32, other_nonce.data(), 12, sealed.data(), 116, out.data(),
                          out.size(), &w),
            PSI_ERR_PEER_MESSAGE);
}

TEST(Aead, BadArgumentsAreArgumentErrors) {
  auto key = bytes(32, 8);
  auto nonce = bytes(12, 9);
  uint8_t in[8] = {0}, out[64];
  size_t w = 0;
  EXPECT_EQ(psi_aead_seal(key.data(), 16, nonce.data(), 12, in, 8, out, 64, &w), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_aead_seal(key.data(), 32, nonce.data(), 8, in, 8, out, 64, &w), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_aead_seal(key.data(), 32, nonce.data(), 12, in, 8, out, 23, &w), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_aead_seal(nullptr, 32, nonce.data(), 12, in, 8, out, 64, &w), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_aead_seal(key.data(), 32, nonce.data(), 12, nullptr, 8, out, 64, &w),
            PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_aead_open(key.data(), 32, nonce.data(), 12, in, 8, nullptr, 64, &w),
            PSI_ERR_ARGUMENT);
}
