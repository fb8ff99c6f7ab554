// psi_random_bytes: arguments, and that its output is not constant, repeated or visibly biased
// (a statistical smoke test: the generator itself is libsodium's, over getrandom(2)).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "psi_native.h"

TEST(RandomBytes, ArgumentsAreChecked) {
  EXPECT_EQ(psi_random_bytes(nullptr, 1), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_random_bytes(nullptr, 0), PSI_OK);
  uint8_t b = 7;
  EXPECT_EQ(psi_random_bytes(&b, 0), PSI_OK);
  EXPECT_EQ(b, 7) << "len 0 writes nothing";
}

TEST(RandomBytes, FillsWithFreshUnbiasedBytes) {
  const size_t n = 1 << 20;
  std::vector<uint8_t> a(n + 1, 0), b(n, 0);
  ASSERT_EQ(psi_random_bytes(a.data(), n), PSI_OK);
  ASSERT_EQ(psi_random_bytes(b.data(), n), PSI_OK);
  EXPECT_EQ(a[n], 0) << "wrote past len";
  a.resize(n);
  EXPECT_NE(a, b) << "two calls, one output";
  std::array<size_t, 256> count{};
  size_t ones = 0;
  for (uint8_t x : a) {
    count[x]++;
    ones += __builtin_popcount(x);
  }
  // 2^23 bits: the number of ones is within 10 standard deviations (1448) of half
  EXPECT_NEAR(double(ones), double(n) * 4, 14480.0);
  // every byte value about n / 256 = 4096 times (standard deviation 64)
  for (int v = 0; v < 256; v++) EXPECT_NEAR(double(count[v]), 4096.0, 640.0) << "byte " << v;
}
