// The bins of tokens (token/token_bins.h): SipHash-2-4 against the reference implementation's
// vectors, each bin against SipHash of the token's halves as the Java side forms them (hi's top bit
// cleared, both halves little-endian), and the C ABI's argument checks.
#include "token/token_bins.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "psi_native.h"

using namespace psi;

namespace {

std::vector<uint8_t> counting(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i);
  return v;
}

}  // namespace

TEST(TokenBins, SipHashMatchesReferenceVectors) {
  // key 00..0f, message 00..len-1 (the SipHash paper's code)
  auto key = counting(16);
  auto m = counting(15);
  EXPECT_EQ(siphash24(key.data(), m.data(), 0), 0x726fdb47dd0e0e31ULL);
  EXPECT_EQ(siphash24(key.data(), m.data(), 1), 0x74f839c593dc67fdULL);
  EXPECT_EQ(siphash24(key.data(), m.data(), 8), 0x93f5f5799a932462ULL);
  EXPECT_EQ(siphash24(key.data(), m.data(), 15), 0xa129ca6149be45e5ULL);
}

TEST(TokenBins, EachBinIsSipHashOfTheTokensHalvesModBins) {
  std::mt19937_64 r(11);
  std::vector<uint8_t> key(16);
  for (auto& b : key) b = static_cast<uint8_t>(r());
  const size_t n = 5000;
  std::vector<uint8_t> tokens(16 * n);
  for (auto& b : tokens) b = static_cast<uint8_t>(r());
  for (uint32_t bins : {1u, 4u, 37u, 1000003u, 0xffffffffu}) {
    std::vector<uint32_t> out(n, 0xdeadbeef);
    ASSERT_EQ(psi_token_bins(key.data(), 16, tokens.data(), n, bins, out.data(), n), PSI_OK);
    for (size_t i = 0; i < n; ++i) {
      // the message: le64(hi & 2^63-1) || le64(lo), hi and lo big-endian in the token
      uint8_t m[16];
      for (int j = 0; j < 8; ++j) {
        m[j] = tokens[16 * i + 7 - j];
        m[8 + j] = tokens[16 * i + 15 - j];
      }
      m[7] &= 0x7f;
      ASSERT_EQ(out[i], siphash24(key.data(), m, 16) % bins) << "token " << i << ", bins " << bins;
    }
  }
}

TEST(TokenBins, ArgumentsAreChecked) {
  std::vector<uint8_t> key(16, 1), tokens(32, 2);
  uint32_t out[2];
  EXPECT_EQ(psi_token_bins(nullptr, 16, tokens.data(), 2, 4, out, 2), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 15, tokens.data(), 2, 4, out, 2), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 16, tokens.data(), 2, 0, out, 2), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 16, tokens.data(), 2, 4, out, 1), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 16, nullptr, 2, 4, out, 2), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 16, tokens.data(), 2, 4, nullptr, 2), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_token_bins(key.data(), 16, nullptr, 0, 4, nullptr, 0), PSI_OK);
}
