// mpsi_test.cc — the multiparty PSI through a provider ("mpsi") against a plaintext n-way
// intersection, its filter shape, its setup reuse, threshold decryption and hostile messages.
#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../src/group/ristretto.h"
#include "../src/protocols/mpsi/mpsi_psi.h"
#include "mpsi_driver.h"
#include "psi_native.h"

namespace {

using psi_test::MpsiOutcome;
using psi_test::MpsiRun;
using psi_test::run_mpsi;

struct Sets {
  std::vector<std::vector<uint8_t>> sets;
  std::vector<std::vector<uint64_t>> expect;  // per party: indices of elements all parties hold
};

// n sets: `common` elements held by all, `near` elements held by all parties but one (the worst
// case of a Bloom filter false positive), the rest private; sizes[i] elements for party i, each
// set shuffled on its own. The oracle is a plaintext intersection.
Sets make_sets(const std::vector<size_t>& sizes, size_t common, size_t near, size_t len,
               uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto fresh = [&]() {
    std::vector<uint8_t> e(len);
    for (auto& b : e) b = uint8_t(rng());
    return e;
  };
  const size_t n = sizes.size();
  std::vector<std::vector<std::vector<uint8_t>>> el(n);
  for (size_t c = 0; c < common; ++c) {
    auto e = fresh();
    for (size_t p = 0; p < n; ++p) el[p].push_back(e);
  }
  for (size_t c = 0; c < near; ++c) {
    auto e = fresh();
    const size_t missing = c % n;
    for (size_t p = 0; p < n; ++p)
      if (p != missing && el[p].size() < sizes[p]) el[p].push_back(e);
  }
  Sets s;
  s.sets.resize(n);
  s.expect.resize(n);
  std::map<std::vector<uint8_t>, size_t> holders;
  for (size_t p = 0; p < n; ++p) {
    while (el[p].size() < sizes[p]) el[p].push_back(fresh());
    el[p].resize(sizes[p]);
    std::shuffle(el[p].begin(), el[p].end(), rng);
    for (auto& e : el[p]) {
      ++holders[e];
      s.sets[p].insert(s.sets[p].end(), e.begin(), e.end());
    }
  }
  for (size_t p = 0; p < n; ++p)
    for (size_t i = 0; i < el[p].size(); ++i)
      if (holders[el[p][i]] == n) s.expect[p].push_back(i);
  return s;
}

MpsiRun make_run(const Sets& s, uint64_t set_size, const std::string& extra = "fpr=1e-9") {
  MpsiRun run;
  run.sets = s.sets;
  run.params = "set_size=" + std::to_string(set_size) + (extra.empty() ? "" : "," + extra);
  return run;
}

class Mpsi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(Mpsi, FilterShapeMeetsTheRateWithTheFewestPositions) {
  for (double fpr : {0.0065, 1e-3, 1e-9, std::ldexp(1.0, -40)}) {
    for (uint64_t w : {1ull, 100ull, 16384ull}) {
      const auto shape = psi::mpsi::filter_shape(w, fpr);
      const double k = shape.hashes, m = double(shape.bits);
      const double rate = std::pow(1 - std::exp(-k * double(w) / m), k);
      EXPECT_LE(rate, fpr * (1 + 1e-9)) << fpr << " " << w;
      // one position fewer would miss the rate for every k (the bound the search minimises)
      for (uint32_t k2 = 1; k2 <= 128; ++k2)
        EXPECT_GT(std::pow(1 - std::exp(-double(k2) * double(w) / (m - 1)), double(k2)),
                  fpr * (1 - 1e-9))
            << "k=" << k2;
    }
  }
  const auto exact = psi::mpsi::filter_shape(16384, std::ldexp(1.0, -40));
  EXPECT_NEAR(double(exact.bits) / 16384, 40 / std::log(2.0), 0.1);
  const auto paper = psi::mpsi::filter_shape(16384, 0.0065);
  EXPECT_EQ(paper.hashes, 7u);
  EXPECT_NEAR(double(paper.bits) / 16384, 10.49, 0.02);
  // a sparser filter: fill 0.1 at 2^-40 takes k = 13 and 123.4 positions per element
  const auto sparse = psi::mpsi::filter_shape(16384, std::ldexp(1.0, -40), 0.1);
  EXPECT_EQ(sparse.hashes, 13u);
  EXPECT_NEAR(double(sparse.bits) / 16384, 13 / -std::log(0.9), 0.01);
  EXPECT_LE(std::pow(1 - std::exp(-13.0 * 16384 / double(sparse.bits)), 13), std::ldexp(1.0, -40));
}

TEST_F(Mpsi, IntersectionOfThreeFourAndFivePartiesAtEveryOverlap) {
  for (size_t n : {3, 4, 5}) {
    for (double overlap : {0.0, 0.01, 0.5, 1.0}) {
      const size_t w = 50;
      const size_t common = size_t(std::lround(overlap * w));
      Sets s = make_sets(std::vector<size_t>(n, w), common, std::min(w - common, size_t(20)), 16,
                         n * 100 + common);
      MpsiRun run = make_run(s, w, "fpr=1e-4");
      run.chunk = 1000;  // not a multiple of any record
      MpsiOutcome o = run_mpsi(run);
      ASSERT_EQ(o.status, PSI_OK) << o.error;
      for (size_t p = 0; p < n; ++p)
        EXPECT_EQ(o.results[p], s.expect[p]) << "n=" << n << " overlap=" << overlap << " p=" << p;
    }
  }
}

TEST_F(Mpsi, UnequalSizesOtherElementLengthsAndTheExactDefaultRate) {
  // sizes below the public set_size, elements of 1 and 33 bytes, default fpr 2^-40
  Sets s = make_sets({40, 7, 25, 1}, 1, 6, 33, 5);
  MpsiRun exact = make_run(s, 40, "");
  exact.element_len = 33;
  MpsiOutcome o = run_mpsi(exact);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  for (size_t p = 0; p < 4; ++p) EXPECT_EQ(o.results[p], s.expect[p]);
  MpsiRun sparse = make_run(s, 40, "fill=0.1");  // the same with filters filled to 10 %
  sparse.element_len = 33;
  o = run_mpsi(sparse);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  for (size_t p = 0; p < 4; ++p) EXPECT_EQ(o.results[p], s.expect[p]);

  // 1-byte elements: all hold 0..4, all but one hold 100..111, the rest is private
  Sets one;
  one.sets.resize(3);
  one.expect.resize(3);
  for (size_t p = 0; p < 3; ++p) {
    std::vector<uint8_t> el;
    for (uint8_t b = 0; b < 5; ++b) el.push_back(b);
    for (uint8_t b = 100; b < 112; ++b)
      if (b % 3 != p) el.push_back(b);
    for (uint8_t b = 0; b < 20; ++b) el.push_back(uint8_t(10 + 20 * p + b));
    std::shuffle(el.begin(), el.end(), std::mt19937_64(p));
    for (size_t i = 0; i < el.size(); ++i)
      if (el[i] < 5) one.expect[p].push_back(i);
    one.sets[p] = el;
  }
  MpsiRun run = make_run(one, 40);
  run.element_len = 1;
  o = run_mpsi(run);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  for (size_t p = 0; p < 3; ++p) EXPECT_EQ(o.results[p], one.expect[p]);
}

TEST_F(Mpsi, EmptySetsAndOneParty) {
  Sets s = make_sets({0, 30, 30}, 0, 0, 16, 8);
  MpsiOutcome o = run_mpsi(make_run(s, 30));
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  for (auto& r : o.results) EXPECT_TRUE(r.empty());
}

TEST_F(Mpsi, SetupRunsOnceAndServesManyBins) {
  Sets first = make_sets({50, 50, 50}, 10, 10, 16, 9);
  MpsiRun run = make_run(first, 50, "fpr=1e-9,instance=1");
  run.export_setup = true;
  MpsiOutcome o = run_mpsi(run);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  for (size_t p = 0; p < 3; ++p) EXPECT_EQ(o.results[p], first.expect[p]);

  Sets second = make_sets({50, 50, 50}, 33, 10, 16, 10);
  MpsiRun bin2 = make_run(second, 50, "fpr=1e-9,instance=2");
  bin2.party_setups = o.party_setups;
  bin2.provider_setup = o.provider_setup;
  bin2.seed = 40;
  MpsiOutcome o2 = run_mpsi(bin2);
  ASSERT_EQ(o2.status, PSI_OK) << o2.error;
  for (size_t p = 0; p < 3; ++p) EXPECT_EQ(o2.results[p], second.expect[p]);

  // a party's setup in another party's session is refused
  std::swap(bin2.party_setups[0], bin2.party_setups[1]);
  o2 = run_mpsi(bin2);
  EXPECT_EQ(o2.status, PSI_ERR_ARGUMENT);
  EXPECT_NE(o2.error.find("party 1 of 3"), std::string::npos) << o2.error;
}

// The parties' shares decrypt only all together: the provider summing n - 1 of them (the last
// party's replaced by the identity, i.e. left out) makes no position decrypt, so no party finds
// anything, while the same run with every share finds the whole intersection.
TEST_F(Mpsi, FewerThanAllSharesDecryptNothing) {
  Sets s = make_sets({60, 60, 60, 60}, 60, 0, 16, 11);
  MpsiRun run = make_run(s, 60);
  MpsiOutcome full = run_mpsi(run);
  ASSERT_EQ(full.status, PSI_OK) << full.error;
  for (size_t p = 0; p < 4; ++p) ASSERT_EQ(full.results[p].size(), 60u);

  // the identity's encoding (zeros) and its one valid hint
  uint8_t zeros[32] = {}, identity_hint[32];
  {
    psi::group::Point id = psi::group::point_identity();
    uint8_t enc[64];
    psi::group::double_encode_batch(&id, 1, enc, 64, enc + 32, 64);
    std::memcpy(identity_hint, enc + 32, 32);
  }
  size_t offset = 0;
  run.tamper = [&](int phase, uint32_t round, int from, int, std::vector<uint8_t>* chunk) {
    if (phase != PSI_PHASE_ONLINE || round != 3 || from != 3) return;
    for (size_t i = 0; i < chunk->size(); ++i, ++offset) {
      const size_t at = offset % 64;
      (*chunk)[i] = at < 32 ? zeros[at] : identity_hint[at - 32];
    }
  };
  MpsiOutcome partial = run_mpsi(run);
  ASSERT_EQ(partial.status, PSI_OK) << partial.error;
  for (size_t p = 0; p < 4; ++p) EXPECT_TRUE(partial.results[p].empty()) << p;
}

// What the provider sees does not depend on the sets: a party's ciphertexts (round 0) and shares
// (round 2) for an empty set and for a full one have the same frequency of ones at every bit of
// every field of a record (within 6 standard deviations; the points are uniformly random group
// elements either way, and a set position's share and an unset position's random point alike).
TEST_F(Mpsi, TheProvidersViewIsIndependentOfTheSets) {
  const size_t w = 400;
  auto view = [&](bool full, uint32_t round, size_t record) {
    Sets s = make_sets({full ? w : 0, w, w}, 0, 0, 16, full ? 21 : 22);
    MpsiRun run = make_run(s, w, "fpr=1e-3");
    std::vector<uint8_t> seen;
    run.tamper = [&](int phase, uint32_t r, int from, int, std::vector<uint8_t>* chunk) {
      if (phase == PSI_PHASE_ONLINE && r == round && from == 0)
        seen.insert(seen.end(), chunk->begin(), chunk->end());
    };
    EXPECT_EQ(run_mpsi(run).status, PSI_OK);
    // frequency of ones per bit of a record
    std::vector<double> ones(record * 8, 0);
    const size_t records = seen.size() / record;
    for (size_t i = 0; i < records; ++i)
      for (size_t b = 0; b < record * 8; ++b) ones[b] += (seen[i * record + b / 8] >> (b % 8)) & 1;
    for (double& o : ones) o /= double(records);
    return std::make_pair(ones, records);
  };
  for (auto [round, record] : {std::pair<uint32_t, size_t>{1, 128}, {3, 64}}) {
    auto [empty, n1] = view(false, round, record);
    auto [full, n2] = view(true, round, record);
    ASSERT_EQ(n1, n2);
    ASSERT_GT(n1, 5000u);
    const double sigma = std::sqrt(0.25 / double(n1) * 2);
    for (size_t b = 0; b < empty.size(); ++b)
      EXPECT_LT(std::fabs(empty[b] - full[b]), 6 * sigma)
          << "round " << round << " bit " << b << ": " << empty[b] << " against " << full[b];
  }
}

TEST_F(Mpsi, BadInputAndMisuseAreClearErrors) {
  std::vector<uint8_t> seed(32, 1);
  char err[256];
  psi_session* s = nullptr;
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_RECEIVER, "parties=3,set_size=4", seed.data(), 32,
                               &s, err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(err).find("party and provider"), std::string::npos) << err;
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=3,set_size=4", seed.data(), 32, &s,
                               err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(err).find("index"), std::string::npos) << err;
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=3,index=3,set_size=4", seed.data(),
                               32, &s, err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=1,index=0,set_size=4", seed.data(),
                               32, &s, err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_PROVIDER, "parties=3,set_size=4,fill=0.6",
                               seed.data(), 32, &s, err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(err).find("fill"), std::string::npos) << err;
  EXPECT_EQ(psi_session_create("mpsi", PSI_ROLE_PROVIDER, "parties=3,set_size=4194303,fpr=1e-30",
                               seed.data(), 32, &s, err, sizeof err),
            PSI_ERR_ARGUMENT);
  EXPECT_NE(std::string(err).find("more bins"), std::string::npos) << err;

  ASSERT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=3,index=1,set_size=4", seed.data(),
                               32, &s, err, sizeof err),
            PSI_OK)
      << err;
  std::vector<uint8_t> dup(3 * 16, 9);
  EXPECT_EQ(psi_set_input(s, dup.data(), 3, 16), PSI_ERR_INPUT);
  EXPECT_NE(std::string(psi_session_error(s)).find("duplicate"), std::string::npos);
  psi_session_free(s);
  std::vector<uint8_t> many(5 * 16);
  for (size_t i = 0; i < many.size(); ++i) many[i] = uint8_t(i);
  ASSERT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=3,index=1,set_size=4", seed.data(),
                               32, &s, err, sizeof err),
            PSI_OK);
  EXPECT_EQ(psi_set_input(s, many.data(), 5, 16), PSI_ERR_INPUT);
  EXPECT_NE(std::string(psi_session_error(s)).find("more than set_size"), std::string::npos);
  psi_session_free(s);
  ASSERT_EQ(psi_session_create("mpsi", PSI_ROLE_PARTY, "parties=3,index=1,set_size=4", seed.data(),
                               32, &s, err, sizeof err),
            PSI_OK);
  EXPECT_EQ(psi_set_input(s, many.data(), 4, 16), PSI_OK);
  EXPECT_EQ(psi_round_feed_from(s, PSI_PHASE_SETUP, 0, 0, nullptr, 0, 1), PSI_ERR_ARGUMENT);
  psi_session_free(s);

  ASSERT_EQ(psi_session_create("mpsi", PSI_ROLE_PROVIDER, "parties=3,set_size=4", seed.data(), 32,
                               &s, err, sizeof err),
            PSI_OK);
  EXPECT_EQ(psi_set_group_secret(s, seed.data(), 32), PSI_ERR_STATE);
  psi_session_free(s);
  ASSERT_EQ(psi_session_create("mpsi", PSI_ROLE_PROVIDER, "parties=3,set_size=4", seed.data(), 32,
                               &s, err, sizeof err),
            PSI_OK);
  EXPECT_EQ(psi_round_feed(s, PSI_PHASE_SETUP, 1, nullptr, 0, 1), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_round_feed_from(s, PSI_PHASE_SETUP, 1, 3, nullptr, 0, 1), PSI_ERR_ARGUMENT);
  psi_session_free(s);

  // a party without the group secret stops at its first online round
  Sets sets = make_sets({4, 4, 4}, 1, 0, 16, 12);
  MpsiRun run = make_run(sets, 4);
  run.group_secret.clear();
  MpsiOutcome o = run_mpsi(run);
  EXPECT_EQ(o.status, PSI_ERR_ARGUMENT);
  EXPECT_NE(o.error.find("party 0"), std::string::npos) << o.error;
}

// Every message of every round, truncated, extended or with one bit flipped, is an error naming
// the sender (or, for the provider's last message, whose bytes are only compared, at worst fewer
// matches): never a crash, never a wrong match.
TEST_F(Mpsi, HostileMessagesAreRejected) {
  Sets s = make_sets({24, 24, 24}, 8, 8, 16, 14);
  for (int phase : {PSI_PHASE_SETUP, PSI_PHASE_ONLINE}) {
    for (uint32_t round = 1; round < (phase == PSI_PHASE_SETUP ? 3u : 5u); ++round) {
      for (int kind = 0; kind < 4; ++kind) {
        MpsiRun run = make_run(s, 24, "fpr=1e-4");
        run.chunk = 1 << 20;  // one chunk per message
        bool hit = false;
        run.tamper = [&](int ph, uint32_t r, int from, int to, std::vector<uint8_t>* chunk) {
          if (ph != phase || r != round || hit || chunk->empty()) return;
          if (from != 1 && to != 1) return;  // party 1's message, or the provider's to party 1
          hit = true;
          if (kind == 0) chunk->pop_back();
          if (kind == 1) chunk->push_back(0);
          if (kind == 2) (*chunk)[chunk->size() / 2] ^= 0x10;
          if (kind == 3) (*chunk)[chunk->size() - 40] ^= 0x01;  // inside a hint, or a point
        };
        MpsiOutcome o = run_mpsi(run);
        ASSERT_TRUE(hit);
        const bool last_message = phase == PSI_PHASE_ONLINE && round == 4;
        if (last_message && kind >= 2) {
          // a changed Q_j only fails the positions it holds
          if (o.status == PSI_OK) {
            for (uint64_t i : o.results[1])
              EXPECT_TRUE(std::binary_search(s.expect[1].begin(), s.expect[1].end(), i));
          } else {
            EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
          }
          continue;
        }
        EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE)
            << "phase " << phase << " round " << round << " kind " << kind << ": " << o.error;
      }
    }
  }
}

}  // namespace
