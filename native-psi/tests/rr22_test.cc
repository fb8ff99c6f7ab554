// End-to-end RR22 through the C ABI against a plaintext intersection computed independently, and
// the same hostile-input guarantees as KKRT at every round.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>

#include "okvs/okvs.h"
#include "psi_driver.h"
#include "vole/lpn_code.h"

using psi_test::make_sets;
using psi_test::Outcome;
using psi_test::Party;
using psi_test::party;
using psi_test::run_psi;
using psi_test::Sets;
using psi_test::sizes;

namespace {

Outcome run(const Sets& s, size_t na, size_t nb, const std::string& extra, size_t chunk = 1 << 16,
            const psi_test::Tamper& tamper = nullptr) {
  return run_psi("rr22", party(PSI_ROLE_RECEIVER, s.a, sizes(na, nb, extra), 1),
                 party(PSI_ROLE_SENDER, s.b, sizes(na, nb, extra), 2), chunk, tamper);
}

bool subset(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

struct Case {
  size_t na, nb, common;
};

class Rr22Sizes : public ::testing::TestWithParam<Case> {};

TEST_P(Rr22Sizes, MatchesPlaintextIntersection) {
  const Case c = GetParam();
  Sets s = make_sets(c.na, c.nb, c.common, c.na * 31 + c.nb * 7 + c.common + 1);
  Outcome o = run(s, c.na, c.nb, "output=both");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_EQ(o.sender, s.expect_b);
}

// Sizes 0 to 2^18, overlaps none, some, half, all; unequal sizes both ways.
INSTANTIATE_TEST_SUITE_P(
    SizesAndOverlaps, Rr22Sizes,
    ::testing::Values(Case{0, 0, 0}, Case{0, 5, 0}, Case{5, 0, 0}, Case{1, 1, 1}, Case{1, 1, 0},
                      Case{2, 3, 1}, Case{17, 17, 17}, Case{100, 100, 0}, Case{100, 100, 50},
                      Case{1000, 10, 10}, Case{10, 1000, 10}, Case{1000, 1000, 1000},
                      Case{4096, 3000, 1500}, Case{20000, 20000, 200}, Case{65536, 65536, 32768},
                      Case{1 << 17, 1000, 999}, Case{1000, 1 << 17, 1000},
                      Case{1 << 18, 1 << 18, 1 << 17}, Case{1 << 18, 1 << 18, 0},
                      Case{1 << 18, 1 << 18, 1 << 18}));

// The receiver's table keys each mask by its first 36 bits and confirms a hit against the whole
// mask: masks of 13 bytes (sigma 80 at these sizes) and of fewer than 8 (sigma 16, tiny sets).
TEST(Rr22, MasksOfEveryLengthMatchExactly) {
  for (const Case c : {Case{3000, 2500, 1200}, Case{7, 5, 3}, Case{40, 40, 40}}) {
    for (const char* sigma : {"sigma=80", "sigma=16"}) {
      Sets s = make_sets(c.na, c.nb, c.common, c.na + c.nb + 11);
      Outcome o = run(s, c.na, c.nb, std::string("output=both,") + sigma);
      ASSERT_EQ(o.status, PSI_OK) << o.error;
      EXPECT_EQ(o.receiver, s.expect_a) << sigma << " " << c.na;
      EXPECT_EQ(o.sender, s.expect_b) << sigma << " " << c.na;
    }
  }
}

TEST(Rr22, ReceiverOnlyOutputLeavesSenderEmpty) {
  Sets s = make_sets(500, 700, 123, 5);
  Outcome o = run(s, 500, 700, "output=receiver");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_TRUE(o.sender.empty());
}

TEST(Rr22, TinyChunksGiveTheSameAnswer) {
  Sets s = make_sets(700, 900, 350, 11);
  for (size_t chunk : {size_t(1), size_t(7), size_t(64), size_t(1000)}) {
    Outcome o = run(s, 700, 900, "output=both", chunk);
    ASSERT_EQ(o.status, PSI_OK) << o.error;
    EXPECT_EQ(o.receiver, s.expect_a) << chunk;
    EXPECT_EQ(o.sender, s.expect_b) << chunk;
  }
}

TEST(Rr22, SetupExportedOnceServesManyInstances) {
  Sets first = make_sets(300, 300, 100, 13);
  Outcome o = run_psi("rr22", party(PSI_ROLE_RECEIVER, first.a, sizes(300, 300, "instance=1"), 3),
                      party(PSI_ROLE_SENDER, first.b, sizes(300, 300, "instance=1"), 4), 4096,
                      nullptr, true);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  ASSERT_FALSE(o.receiver_setup.empty());
  ASSERT_FALSE(o.sender_setup.empty());
  for (uint64_t inst = 2; inst < 6; ++inst) {
    Sets s = make_sets(200 + inst, 400, 40 * inst, 100 + inst);
    const std::string p = sizes(200 + inst, 400, "output=both,instance=" + std::to_string(inst));
    Party r = party(PSI_ROLE_RECEIVER, s.a, p, uint8_t(inst));
    Party q = party(PSI_ROLE_SENDER, s.b, p, uint8_t(inst + 50));
    r.setup = o.receiver_setup;
    q.setup = o.sender_setup;
    Outcome oi = run_psi("rr22", r, q);
    ASSERT_EQ(oi.status, PSI_OK) << oi.error;
    EXPECT_EQ(oi.receiver, s.expect_a);
    EXPECT_EQ(oi.sender, s.expect_b);
  }
}

TEST(Rr22, ManyPiecesAndThreadsGiveTheSameAnswer) {
  // About 15k VOLE outputs in pieces of at most 4096: four pieces, each with its own trees and
  // code; each party picks its own thread count (it changes no message).
  Sets s = make_sets(12000, 9000, 4000, 47);
  for (const auto& [rt, st] : {std::pair<int, int>{1, 1}, {3, 1}, {1, 2}, {4, 4}}) {
    const std::string common = "output=both,piece=4096";
    Outcome o = run_psi("rr22",
                        party(PSI_ROLE_RECEIVER, s.a,
                              sizes(12000, 9000, common + ",threads=" + std::to_string(rt)), 1),
                        party(PSI_ROLE_SENDER, s.b,
                              sizes(12000, 9000, common + ",threads=" + std::to_string(st)), 2));
    ASSERT_EQ(o.status, PSI_OK) << rt << "/" << st << ": " << o.error;
    EXPECT_EQ(o.receiver, s.expect_a) << rt << "/" << st;
    EXPECT_EQ(o.sender, s.expect_b) << rt << "/" << st;
  }
  // The piece size is public: parties that disagree fail cleanly.
  Outcome o = run_psi("rr22", party(0, s.a, sizes(12000, 9000, "piece=4096"), 1),
                      party(1, s.b, sizes(12000, 9000, "piece=8192"), 2));
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
}

TEST(Rr22, TrafficIsFarBelowKkrt) {
  // Both protocols on the same sets: P + a is 16 bytes per OKVS column (1.28 n), the masks
  // (40 + 18 + 18) / 8 = 10 bytes per sender element, the VOLE's correlated OTs and trees about
  // 3 MB per 2^21 VOLE outputs; KKRT sends a 64-byte row per cuckoo bin and 4 masks per element.
  const size_t n = 1 << 18;
  Sets s = make_sets(n, n, n / 2, 17);
  Outcome o = run(s, n, n, "output=receiver");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  Outcome k = run_psi("kkrt", party(PSI_ROLE_RECEIVER, s.a, sizes(n, n, "output=receiver"), 1),
                      party(PSI_ROLE_SENDER, s.b, sizes(n, n, "output=receiver"), 2));
  ASSERT_EQ(k.status, PSI_OK) << k.error;
  EXPECT_EQ(k.receiver, s.expect_a);
  const uint64_t rr22 = o.bytes_receiver_to_sender + o.bytes_sender_to_receiver;
  const uint64_t kkrt = k.bytes_receiver_to_sender + k.bytes_sender_to_receiver;
  EXPECT_LT(2.5 * double(rr22), double(kkrt)) << rr22 << " against kkrt's " << kkrt;
  // The exact message sizes (docs/protocols.md, rr22): one VOLE piece of m = |P| outputs.
  const uint64_t m = psi::Okvs(n, psi::zero_block()).size();
  const psi::LpnShape v = psi::lpn_shape(m);
  const uint64_t cots = (v.t * (v.depth + 128) + 127) / 128 * 128;
  EXPECT_EQ(o.bytes_receiver_to_sender, 32 + 32 + 16 * cots + 16 * m);
  EXPECT_EQ(o.bytes_sender_to_receiver, 128 * 32 + 32 + v.t * (32 * v.depth + 16) + 10 * n);
}

TEST(Rr22, DuplicateInputsAreRejectedNotAnswered) {
  Sets s = make_sets(50, 50, 10, 19);
  std::copy(s.a.begin() + 16 * 3, s.a.begin() + 16 * 4, s.a.begin() + 16 * 40);
  Outcome o = run(s, 50, 50, "");
  EXPECT_EQ(o.status, PSI_ERR_INPUT) << o.error;
  EXPECT_NE(o.error.find("duplicate"), std::string::npos) << o.error;
  Sets t = make_sets(50, 50, 10, 19);
  std::copy(t.b.begin() + 16 * 7, t.b.begin() + 16 * 8, t.b.begin() + 16 * 9);
  o = run(t, 50, 50, "");
  EXPECT_EQ(o.status, PSI_ERR_INPUT) << o.error;
  EXPECT_NE(o.error.find("duplicate"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("7 and 9"), std::string::npos) << o.error;
}

// Above 2^16 elements the OKVS has several bins and the receiver works on its elements in bin
// order: a duplicate is still named by its input indices.
TEST(Rr22, ReceiverDuplicateNamedByInputIndicesAcrossBins) {
  const size_t n = size_t(1) << 17;
  Sets s = make_sets(n, 1000, 10, 23);
  std::copy(s.a.begin() + 16 * 70000, s.a.begin() + 16 * 70001, s.a.begin() + 16 * 123456);
  Outcome o = run(s, n, 1000, "");
  EXPECT_EQ(o.status, PSI_ERR_INPUT) << o.error;
  EXPECT_NE(o.error.find("input indices 70000 and 123456"), std::string::npos) << o.error;
}

TEST(Rr22, BadParametersAreArgumentErrors) {
  Sets s = make_sets(10, 10, 1, 23);
  for (const char* p :
       {"receiver_size=10", "receiver_size=10,sender_size=10,colour=blue",
        "receiver_size=10,sender_size=x", "receiver_size=10,sender_size=10,output=all",
        "receiver_size=10,sender_size=10,sigma=2", "receiver_size=10,sender_size=10,hashes=3",
        "receiver_size=10,sender_size=10,instance=xyz", "receiver_size=268435456,sender_size=10",
        "receiver_size=10,sender_size=10,threads=0", "receiver_size=10,sender_size=10,threads=65",
        "receiver_size=10,sender_size=10,piece=1000"}) {
    Outcome o =
        run_psi("rr22", party(PSI_ROLE_RECEIVER, s.a, p, 1), party(PSI_ROLE_SENDER, s.b, p, 2));
    EXPECT_EQ(o.status, PSI_ERR_ARGUMENT) << p << " -> " << o.error;
    EXPECT_FALSE(o.error.empty());
  }
}

TEST(Rr22, WrongInputCountIsAnInputError) {
  Sets s = make_sets(10, 10, 1, 29);
  Outcome o = run(s, 11, 10, "");
  EXPECT_EQ(o.status, PSI_ERR_INPUT) << o.error;
}

TEST(Rr22, MismatchedSizesOrInstancesFailCleanly) {
  Sets s = make_sets(100, 100, 1, 31);
  Outcome o = run_psi("rr22", party(0, s.a, sizes(100, 100), 1),
                      party(1, s.b, sizes(100, 100, "instance=4"), 2));
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  EXPECT_NE(o.error.find("instance"), std::string::npos) << o.error;
  // The receiver declares 100, the sender believes 5000: the OKVS sizes disagree.
  o = run_psi("rr22", party(0, s.a, sizes(100, 100), 1), party(1, s.b, sizes(5000, 100), 2));
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
}

TEST(Rr22, HostileMessagesAtEveryRoundGiveErrorsNotCrashes) {
  Sets s = make_sets(300, 300, 30, 37);
  const std::string p = sizes(300, 300, "output=both");
  // Online rounds 0..4 carry messages (round 5 is the sender's last, silent); setup rounds 0, 1.
  struct Target {
    int phase;
    uint32_t round;
  };
  const Target targets[] = {{PSI_PHASE_SETUP, 0},  {PSI_PHASE_SETUP, 1},  {PSI_PHASE_ONLINE, 0},
                            {PSI_PHASE_ONLINE, 1}, {PSI_PHASE_ONLINE, 2}, {PSI_PHASE_ONLINE, 3},
                            {PSI_PHASE_ONLINE, 4}};
  for (const Target& t : targets) {
    const std::string what = std::string(t.phase == PSI_PHASE_SETUP ? "setup" : "online") +
                             " round " + std::to_string(t.round);
    auto only = [t](auto f) {
      return [t, f](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
        if (ph == t.phase && r == t.round) f(c);
      };
    };
    for (auto& [name, tamper] : std::vector<std::pair<std::string, psi_test::Tamper>>{
             {"truncated", only([](std::vector<uint8_t>* c) {
                if (!c->empty()) c->pop_back();
              })},
             {"extended", only([](std::vector<uint8_t>* c) { c->push_back(0x55); })},
             {"dropped", only([](std::vector<uint8_t>* c) { c->clear(); })}}) {
      Outcome o = run_psi("rr22", party(0, s.a, p, 1), party(1, s.b, p, 2), 4096, tamper);
      // Claims (online round 4) of an honest receiver are all-empty when truncated to nothing is
      // impossible: every variant must be refused as a bad peer message.
      EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE)
          << what << " " << name << ": " << psi_status_name(o.status) << " " << o.error;
      EXPECT_FALSE(o.error.empty()) << what << " " << name;
    }
    // Flipped bits: the semi-honest protocol may then answer wrongly about some elements, but never
    // crashes, and never claims an element the parties do not share.
    for (uint8_t bit : {uint8_t(1), uint8_t(0x80)}) {
      Outcome o = run_psi("rr22", party(0, s.a, p, 1), party(1, s.b, p, 2), 4096,
                          only([bit](std::vector<uint8_t>* c) {
                            for (size_t i = 0; i < c->size(); i += 97) (*c)[i] ^= bit;
                          }));
      if (o.status == PSI_OK) {
        EXPECT_TRUE(subset(o.receiver, s.expect_a)) << what;
        EXPECT_TRUE(subset(o.sender, s.expect_b)) << what;
      } else {
        EXPECT_NE(o.status, PSI_ERR_INTERNAL) << what << ": " << o.error;
      }
    }
  }
}

TEST(Rr22Claims, SenderRefusesClaimsItCannotVerify) {
  Sets s = make_sets(200, 200, 100, 41);
  const std::string p = sizes(200, 200, "output=both");
  // A claim's proof altered: the sender refuses the run instead of revealing a row.
  Outcome o = run_psi("rr22", party(0, s.a, p, 1), party(1, s.b, p, 2), 1 << 16,
                      [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                        if (ph == PSI_PHASE_ONLINE && r == 4 && c->size() > 12) (*c)[12] ^= 1;
                      });
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  EXPECT_NE(o.error.find("proof"), std::string::npos) << o.error;
  EXPECT_TRUE(o.sender.empty());
  // A claim moved to a position the receiver holds no output for.
  o = run_psi("rr22", party(0, s.a, p, 1), party(1, s.b, p, 2), 1 << 16,
              [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                if (ph == PSI_PHASE_ONLINE && r == 4 && c->size() > 8) (*c)[4] ^= 0x40;
              });
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
}

TEST(Rr22, MasksOfAnotherInstanceMatchNothing) {
  // The sender's outputs of instance 1 replayed into a run of instance 2 over the same sets.
  Sets s = make_sets(400, 400, 400, 43);
  std::vector<uint8_t> masks;
  Outcome a = run_psi("rr22", party(0, s.a, sizes(400, 400, "instance=1"), 1),
                      party(1, s.b, sizes(400, 400, "instance=1"), 2), 1 << 20,
                      [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                        if (ph == PSI_PHASE_ONLINE && r == 3)
                          masks.insert(masks.end(), c->begin(), c->end());
                      });
  ASSERT_EQ(a.status, PSI_OK) << a.error;
  EXPECT_EQ(a.receiver, s.expect_a);
  size_t off = 0;
  Outcome x = run_psi("rr22", party(0, s.a, sizes(400, 400, "instance=2"), 1),
                      party(1, s.b, sizes(400, 400, "instance=2"), 2), 1 << 20,
                      [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                        if (ph != PSI_PHASE_ONLINE || r != 3) return;
                        std::copy(masks.begin() + off, masks.begin() + off + c->size(), c->begin());
                        off += c->size();
                      });
  ASSERT_EQ(x.status, PSI_OK) << x.error;
  EXPECT_TRUE(x.receiver.empty()) << x.receiver.size() << " cross-instance matches";
}

TEST(Rr22, IndependentSessionsRunConcurrently) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok] {
      Sets s = make_sets(3000 + t, 2000, 500, 50 + t);
      Outcome o = run(s, 3000 + t, 2000, "output=both");
      ok[t] = o.status == PSI_OK && o.receiver == s.expect_a && o.sender == s.expect_b;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << t;
}

}  // namespace
