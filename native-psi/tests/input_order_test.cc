// The sender's input order stays secret. The Flink job feeds each bin's elements in token order
// (BinTable), and both parties can compute tokens, so a protocol whose outputs followed the input
// order would tell the receiver the rank of every match among the sender's elements. Checked on the
// wire: with output=both the receiver's claims name the positions it matched in the sender's
// outputs; the sender's input is sorted and the receiver holds its first half, so in input order
// every claimed position would fall in the first half of its table.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "psi_driver.h"

namespace {

constexpr size_t kN = 256;

std::vector<uint8_t> sorted_elements(size_t n, uint8_t tag) {
  std::vector<uint8_t> e(16 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    e[16 * i] = tag;
    e[16 * i + 14] = uint8_t(i >> 8);
    e[16 * i + 15] = uint8_t(i);
  }
  return e;
}

class InputOrder : public ::testing::TestWithParam<std::string> {};

TEST_P(InputOrder, ClaimedPositionsDoNotFollowTheSendersInputOrder) {
  const std::vector<uint8_t> b = sorted_elements(kN, 1);  // ascending, as BinTable gives them
  std::vector<uint8_t> a(b.begin(), b.begin() + 16 * (kN / 2));
  const std::vector<uint8_t> other = sorted_elements(kN / 2, 2);
  a.insert(a.end(), other.begin(), other.end());
  // the claims: the receiver's last message, u32 count | count x (u32 position | u64 proof)
  const uint32_t claims_round = GetParam() == "kkrt" ? 2 : 4;
  std::vector<uint8_t> claims;
  auto watch = [&](int phase, uint32_t round, bool from_receiver, std::vector<uint8_t>* chunk) {
    if (phase == PSI_PHASE_ONLINE && round == claims_round && from_receiver)
      claims.insert(claims.end(), chunk->begin(), chunk->end());
  };
  const std::string p = psi_test::sizes(kN, kN, "output=both");
  const psi_test::Outcome o =
      psi_test::run_psi(GetParam(), psi_test::party(PSI_ROLE_RECEIVER, a, p, 1),
                        psi_test::party(PSI_ROLE_SENDER, b, p, 2), 1 << 16, watch);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  std::vector<uint64_t> half;
  for (uint64_t i = 0; i < kN / 2; ++i) half.push_back(i);
  ASSERT_EQ(o.sender, half);  // the oracle: the sender's first half
  ASSERT_EQ(o.receiver, half);

  ASSERT_GE(claims.size(), 4u);
  uint32_t count = 0;
  std::memcpy(&count, claims.data(), 4);  // little-endian, as this machine
  ASSERT_EQ(claims.size(), 4 + 12 * size_t(count));
  ASSERT_GE(count, kN / 2);
  size_t in_second_half = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t pos = 0;
    std::memcpy(&pos, claims.data() + 4 + 12 * size_t(k), 4);
    in_second_half += pos % kN >= kN / 2;  // KKRT: kN outputs per table, one table after another
  }
  // a secret random order puts about half there; the input order none (chance 2^-250)
  EXPECT_GT(in_second_half, 0u);
}

INSTANTIATE_TEST_SUITE_P(Psi, InputOrder, ::testing::Values("kkrt", "rr22"));

}  // namespace
