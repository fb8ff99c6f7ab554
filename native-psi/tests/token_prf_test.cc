// The token PRF (token/token_prf.h) and SHA-256 (core/sha256.h): FIPS 180-4's and a Python-computed
// known answer, both compression kernels against each other, the PRF against OpenSSL's HMAC for
// every message length across the one- and two-block tails, batches equal to single calls, and the
// C ABI's argument checks.
#include "token/token_prf.h"

#include <gtest/gtest.h>
#include <openssl/hmac.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "hex.h"
#include "psi_native.h"

using namespace psi;

namespace {

using test::to_hex;

// The PRF of one message, as a batch of one.
void prf_one(const TokenPrf& prf, const uint8_t* m, size_t len, uint8_t out[16]) {
  const uint32_t end = static_cast<uint32_t>(len);
  prf.compute(m, &end, 1, out);
}

// SHA-256 of a message of at most 55 bytes with the given kernel (one padded block).
std::string sha256_short(const std::string& m, bool sha_ni) {
  uint8_t block[64] = {0};
  std::memcpy(block, m.data(), m.size());
  block[m.size()] = 0x80;
  const uint64_t bits = m.size() * 8;
  for (int i = 0; i < 8; ++i) block[56 + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  uint32_t st[8];
  std::memcpy(st, Sha256::kInit, sizeof st);
  if (sha_ni) {
    Sha256::compress_sha_ni(st, block, 1);
  } else {
    Sha256::compress_portable(st, block, 1);
  }
  uint8_t out[32];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(st[i] >> (24 - 8 * j));
  return to_hex(out, 32);
}

std::vector<uint8_t> openssl_hmac16(const uint8_t* key, const uint8_t* m, size_t len) {
  uint8_t full[32];
  unsigned n = 0;
  EXPECT_NE(HMAC(EVP_sha256(), key, 32, m, len, full, &n), nullptr);
  return std::vector<uint8_t>(full, full + 16);
}

}  // namespace

TEST(Sha256, FipsShortMessageKnownAnswers) {
  for (bool ni : {false, true}) {
    if (ni && !Sha256::has_sha_ni()) continue;
    EXPECT_EQ(sha256_short("abc", ni),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_short("", ni),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }
}

TEST(Sha256, KernelsAgreeOnRandomBlocks) {
  if (!Sha256::has_sha_ni()) GTEST_SKIP() << "no SHA extensions on this CPU";
  std::mt19937_64 rng(7);
  std::vector<uint8_t> data(64 * 9);
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    uint32_t a[8], b[8];
    for (int i = 0; i < 8; ++i) a[i] = b[i] = static_cast<uint32_t>(rng());
    const size_t n = 1 + trial % 9;
    Sha256::compress_portable(a, data.data(), n);
    Sha256::compress_sha_ni(b, data.data(), n);
    ASSERT_EQ(0, std::memcmp(a, b, sizeof a)) << "trial " << trial;
  }
}

// RFC 4231's vectors use keys of other lengths; the PRF takes 32 bytes. A vector computed
// independently with Python's hmac module:
// hmac.new(bytes(range(32)), b"psi-flink token", "sha256").hexdigest()[:32]
TEST(TokenPrf, KnownAnswer) {
  uint8_t key[32];
  for (int i = 0; i < 32; ++i) key[i] = static_cast<uint8_t>(i);
  std::unique_ptr<TokenPrf> prf;
  ASSERT_TRUE(TokenPrf::create(key, 32, &prf).is_ok());
  const std::string m = "psi-flink token";
  uint8_t out[16];
  prf_one(*prf, reinterpret_cast<const uint8_t*>(m.data()), m.size(), out);
  EXPECT_EQ(to_hex(out, 16), "e6579e6266e7d7879b0411d5a3ef7079");
}

TEST(TokenPrf, EqualsOpenSslHmacForEveryLengthUpTo300) {
  std::mt19937_64 rng(11);
  uint8_t key[32];
  for (auto& b : key) b = static_cast<uint8_t>(rng());
  std::unique_ptr<TokenPrf> prf;
  ASSERT_TRUE(TokenPrf::create(key, 32, &prf).is_ok());
  std::vector<uint8_t> m(300);
  for (auto& b : m) b = static_cast<uint8_t>(rng());
  for (size_t len = 0; len <= m.size(); ++len) {
    uint8_t out[16];
    prf_one(*prf, m.data(), len, out);
    EXPECT_EQ(to_hex(out, 16), to_hex(openssl_hmac16(key, m.data(), len).data(), 16))
        << "len " << len;
  }
}

TEST(TokenPrf, ABatchEqualsSingleCallsThroughTheCAbi) {
  std::mt19937_64 rng(13);
  uint8_t key[32];
  for (auto& b : key) b = static_cast<uint8_t>(rng());
  psi_token_prf* t = nullptr;
  char err[128];
  ASSERT_EQ(psi_token_prf_create(key, 32, &t, err, sizeof err), PSI_OK) << err;
  std::vector<uint8_t> data;
  std::vector<uint32_t> ends;
  for (int i = 0; i < 1000; ++i) {
    const size_t len = rng() % 130;  // empty messages too
    for (size_t j = 0; j < len; ++j) data.push_back(static_cast<uint8_t>(rng()));
    ends.push_back(static_cast<uint32_t>(data.size()));
  }
  std::vector<uint8_t> out(16 * ends.size());
  ASSERT_EQ(psi_token_prf_compute(t, data.data(), data.size(), ends.data(), ends.size(), out.data(),
                                  out.size()),
            PSI_OK)
      << psi_token_prf_error(t);
  size_t start = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    EXPECT_EQ(to_hex(out.data() + 16 * i, 16),
              to_hex(openssl_hmac16(key, data.data() + start, ends[i] - start).data(), 16));
    start = ends[i];
  }
  psi_token_prf_free(t);
}

TEST(TokenPrf, CAbiRefusesBadArgumentsNamingThem) {
  uint8_t key[32] = {1};
  psi_token_prf* t = nullptr;
  char err[128] = {0};
  EXPECT_EQ(psi_token_prf_create(key, 31, &t, err, sizeof err), PSI_ERR_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(std::string(err).find("32 bytes"), std::string::npos) << err;
  EXPECT_EQ(psi_token_prf_create(nullptr, 32, &t, err, sizeof err), PSI_ERR_ARGUMENT);
  ASSERT_EQ(psi_token_prf_create(key, 32, &t, err, sizeof err), PSI_OK);
  uint8_t data[10] = {0};
  uint8_t out[32];
  uint32_t decreasing[2] = {5, 3};
  EXPECT_EQ(psi_token_prf_compute(t, data, 10, decreasing, 2, out, 32), PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(psi_token_prf_error(t)).find("ends[1] = 3"), std::string::npos);
  uint32_t beyond[1] = {11};
  EXPECT_EQ(psi_token_prf_compute(t, data, 10, beyond, 1, out, 16), PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(psi_token_prf_error(t)).find("beyond data_len 10"), std::string::npos);
  uint32_t ok[1] = {10};
  EXPECT_EQ(psi_token_prf_compute(t, data, 10, ok, 1, out, 32), PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(psi_token_prf_error(t)).find("out_len"), std::string::npos);
  EXPECT_EQ(psi_token_prf_compute(t, data, 10, ok, 1, out, 16), PSI_OK);
  EXPECT_STREQ(psi_token_prf_error(t), "");
  EXPECT_EQ(psi_token_prf_compute(t, nullptr, 0, nullptr, 0, nullptr, 0), PSI_OK);
  EXPECT_EQ(psi_token_prf_compute(nullptr, data, 10, ok, 1, out, 16), PSI_ERR_ARGUMENT);
  psi_token_prf_free(t);
  psi_token_prf_free(nullptr);
}
