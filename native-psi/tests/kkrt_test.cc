// End-to-end KKRT through the C ABI against a plaintext intersection computed independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "psi_driver.h"

using psi_test::make_sets;
using psi_test::Outcome;
using psi_test::Party;
using psi_test::party;
using psi_test::run_psi;
using psi_test::Sets;
using psi_test::sizes;

namespace {

Outcome run(const Sets& s, size_t na, size_t nb, const std::string& extra, size_t chunk = 1 << 16) {
  return run_psi("kkrt", party(PSI_ROLE_RECEIVER, s.a, sizes(na, nb, extra), 1),
                 party(PSI_ROLE_SENDER, s.b, sizes(na, nb, extra), 2), chunk);
}

}  // namespace

struct Case {
  size_t na, nb, common;
};

class KkrtSizes : public ::testing::TestWithParam<Case> {};

TEST_P(KkrtSizes, MatchesPlaintextIntersection) {
  const Case c = GetParam();
  Sets s = make_sets(c.na, c.nb, c.common, c.na * 31 + c.nb * 7 + c.common);
  Outcome o = run(s, c.na, c.nb, "output=both");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_EQ(o.sender, s.expect_b);
}

INSTANTIATE_TEST_SUITE_P(SizesAndOverlaps, KkrtSizes,
                         ::testing::Values(Case{0, 0, 0}, Case{0, 5, 0}, Case{5, 0, 0},
                                           Case{1, 1, 1}, Case{1, 1, 0}, Case{2, 3, 1},
                                           Case{17, 17, 17}, Case{100, 100, 0}, Case{100, 100, 50},
                                           Case{1000, 10, 10}, Case{10, 1000, 10},
                                           Case{1000, 1000, 1000}, Case{4096, 3000, 1500},
                                           Case{20000, 20000, 200}, Case{65536, 65536, 32768},
                                           Case{1 << 17, 1000, 999}));

TEST(Kkrt, ReceiverOnlyOutputLeavesSenderEmpty) {
  Sets s = make_sets(500, 700, 123, 5);
  Outcome o = run(s, 500, 700, "output=receiver");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_TRUE(o.sender.empty());
}

TEST(Kkrt, CuckooVariantsAllAgreeWithOracle) {
  Sets s = make_sets(3000, 2500, 1000, 9);
  for (const char* v : {"hashes=2,bin_factor=2.4,stash=8", "hashes=4,bin_factor=1.1,stash=4",
                        "hashes=2,slots=2,bin_factor=1.2,stash=6", "separate_tables=1",
                        "hashes=3,stash=0,bin_factor=1.5", "hashes=3,stash=8"}) {
    Outcome o = run(s, 3000, 2500, std::string("output=both,") + v);
    ASSERT_EQ(o.status, PSI_OK) << v << ": " << o.error;
    EXPECT_EQ(o.receiver, s.expect_a) << v;
    EXPECT_EQ(o.sender, s.expect_b) << v;
  }
}

TEST(Kkrt, TinyChunksGiveTheSameAnswer) {
  Sets s = make_sets(700, 900, 350, 11);
  for (size_t chunk : {size_t(1), size_t(7), size_t(64), size_t(1000)}) {
    Outcome o = run(s, 700, 900, "output=both", chunk);
    ASSERT_EQ(o.status, PSI_OK) << o.error;
    EXPECT_EQ(o.receiver, s.expect_a) << chunk;
    EXPECT_EQ(o.sender, s.expect_b) << chunk;
  }
}

TEST(Kkrt, SetupExportedOnceServesManyInstances) {
  Sets first = make_sets(300, 300, 100, 13);
  Outcome o = run_psi("kkrt", party(PSI_ROLE_RECEIVER, first.a, sizes(300, 300, "instance=1"), 3),
                      party(PSI_ROLE_SENDER, first.b, sizes(300, 300, "instance=1"), 4), 4096,
                      nullptr, true);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  ASSERT_FALSE(o.receiver_setup.empty());
  for (uint64_t inst = 2; inst < 6; ++inst) {
    Sets s = make_sets(200 + inst, 400, 40 * inst, 100 + inst);
    Party r = party(PSI_ROLE_RECEIVER, s.a,
                    sizes(200 + inst, 400, "output=both,instance=" + std::to_string(inst)),
                    uint8_t(inst));
    Party q = party(PSI_ROLE_SENDER, s.b,
                    sizes(200 + inst, 400, "output=both,instance=" + std::to_string(inst)),
                    uint8_t(inst + 50));
    r.setup = o.receiver_setup;
    q.setup = o.sender_setup;
    Outcome oi = run_psi("kkrt", r, q);
    ASSERT_EQ(oi.status, PSI_OK) << oi.error;
    EXPECT_EQ(oi.receiver, s.expect_a);
    EXPECT_EQ(oi.sender, s.expect_b);
  }
}

TEST(Kkrt, CommunicationMatchesTheFormula) {
  // U: 32 (instance) + rows*64; masks: (3 hash tables + stash) * n_s * mask_bytes.
  Sets s = make_sets(1000, 1000, 10, 17);
  Outcome o = run(s, 1000, 1000, "stash=2");
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  const uint64_t rows = 1270 + 2, mask = (40 + 10 + 10 + 7) / 8;
  EXPECT_EQ(o.bytes_receiver_to_sender, 32 + 32 + rows * 64);
  EXPECT_EQ(o.bytes_sender_to_receiver, 512 * 32 + 32 + 5 * 1000 * mask);
}

TEST(Kkrt, DuplicateInputsAreRejectedNotAnswered) {
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
}

TEST(Kkrt, BadParametersAreArgumentErrors) {
  Sets s = make_sets(10, 10, 1, 23);
  for (const char* p :
       {"receiver_size=10", "receiver_size=10,sender_size=10,colour=blue",
        "receiver_size=10,sender_size=x", "receiver_size=10,sender_size=10,hashes=7",
        "receiver_size=10,sender_size=10,output=all", "receiver_size=10,,sender_size=10,sigma=2",
        "receiver_size=10,sender_size=10,stash=-1", "receiver_size",
        "receiver_size=10,sender_size=10,hashes=2"}) {
    Outcome o =
        run_psi("kkrt", party(PSI_ROLE_RECEIVER, s.a, p, 1), party(PSI_ROLE_SENDER, s.b, p, 2));
    EXPECT_EQ(o.status, PSI_ERR_ARGUMENT) << p << " -> " << o.error;
    EXPECT_FALSE(o.error.empty());
  }
  Outcome o = run_psi("nope", party(0, s.a, sizes(10, 10), 1), party(1, s.b, sizes(10, 10), 2));
  EXPECT_EQ(o.status, PSI_ERR_ARGUMENT);
  EXPECT_NE(o.error.find("unknown protocol"), std::string::npos);
}

TEST(Kkrt, WrongInputCountIsAnInputError) {
  Sets s = make_sets(10, 10, 1, 29);
  Outcome o = run(s, 11, 10, "");
  EXPECT_EQ(o.status, PSI_ERR_INPUT) << o.error;
}

TEST(Kkrt, MismatchedSizesOrInstancesFailCleanly) {
  Sets s = make_sets(100, 100, 1, 31);
  Outcome o = run_psi("kkrt", party(0, s.a, sizes(100, 100), 1),
                      party(1, s.b, sizes(100, 100, "bin_factor=2"), 2));
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  o = run_psi("kkrt", party(0, s.a, sizes(100, 100, "instance=4"), 1),
              party(1, s.b, sizes(100, 100, "instance=5"), 2));
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  EXPECT_NE(o.error.find("instance"), std::string::npos) << o.error;
}

namespace {
// 64 hex digits: `low` in the last 8 bytes (big-endian), `top` as the first byte.
std::string hex_instance(uint8_t top, uint64_t low) {
  char buf[65];
  std::snprintf(buf, sizeof buf, "%02x%046d%016llx", top, 0, (unsigned long long)low);
  return buf;
}
}  // namespace

TEST(KkrtInstance, HexAndZeroExtendedDecimalAreTheSameInstance) {
  Sets s = make_sets(200, 300, 70, 41);
  const std::string hex = hex_instance(0, 12345);
  ASSERT_EQ(hex.size(), 64u);
  Outcome o = run_psi("kkrt", party(0, s.a, sizes(200, 300, "output=both,instance=12345"), 1),
                      party(1, s.b, sizes(200, 300, "output=both,instance=" + hex), 2));
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_EQ(o.sender, s.expect_b);
  // upper-case digits are accepted too
  std::string upper = hex_instance(0xAB, 7);
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  o = run_psi("kkrt",
              party(0, s.a, sizes(200, 300, "output=both,instance=" + hex_instance(0xab, 7)), 1),
              party(1, s.b, sizes(200, 300, "output=both,instance=" + upper), 2));
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, s.expect_a);
}

TEST(KkrtInstance, MalformedInstancesAreArgumentErrors) {
  Sets s = make_sets(10, 10, 1, 43);
  const std::string h = hex_instance(1, 2);
  for (const std::string& bad :
       {h.substr(1), h + "0", h.substr(0, 63) + "g", "0x" + h.substr(2), std::string("-1"),
        std::string("18446744073709551616"), std::string("123456789012345678901"),
        std::string("1e3"), std::string(" 1")}) {
    for (const char* proto : {"kkrt", "ecdh"}) {
      const std::string p = sizes(10, 10, "instance=" + bad);
      Outcome o = run_psi(proto, party(0, s.a, p, 1), party(1, s.b, p, 2));
      EXPECT_EQ(o.status, PSI_ERR_ARGUMENT) << proto << " instance=" << bad << " -> " << o.error;
      EXPECT_NE(o.error.find("instance"), std::string::npos) << o.error;
    }
  }
}

TEST(KkrtInstance, InstancesDifferingOnlyInHighBitsAreRefusedAtThePeer) {
  Sets s = make_sets(100, 100, 10, 47);
  for (const char* proto : {"kkrt", "ecdh"}) {
    Outcome o =
        run_psi(proto, party(0, s.a, sizes(100, 100, "instance=" + hex_instance(0x80, 9)), 1),
                party(1, s.b, sizes(100, 100, "instance=" + hex_instance(0x00, 9)), 2));
    EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << proto << ": " << o.error;
    EXPECT_NE(o.error.find("instance"), std::string::npos) << o.error;
  }
}

// The sender's masks of one instance, replayed into another instance of the same setup and sets,
// match nothing: per-instance column PRG keys, code keys and output tweak make the OPRF outputs of
// instances that differ only in their high bits independent.
TEST(KkrtInstance, MasksOfAnotherInstanceMatchNothing) {
  Sets s = make_sets(400, 400, 400, 53);  // every element shared: any stale mask would match
  Outcome setup = run_psi("kkrt", party(0, s.a, sizes(400, 400, "instance=1"), 3),
                          party(1, s.b, sizes(400, 400, "instance=1"), 4), 4096, nullptr, true);
  ASSERT_EQ(setup.status, PSI_OK) << setup.error;
  auto with_setup = [&](int role, const std::string& inst, uint8_t seed) {
    Party p = party(role, role == 0 ? s.a : s.b, sizes(400, 400, "instance=" + inst), seed);
    p.setup = role == 0 ? setup.receiver_setup : setup.sender_setup;
    return p;
  };
  const std::string ia = hex_instance(0x01, 77), ib = hex_instance(0x02, 77);
  std::vector<uint8_t> masks_a;
  Outcome a = run_psi("kkrt", with_setup(0, ia, 5), with_setup(1, ia, 6), 4096,
                      [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                        if (ph == PSI_PHASE_ONLINE && r == 1)
                          masks_a.insert(masks_a.end(), c->begin(), c->end());
                      });
  ASSERT_EQ(a.status, PSI_OK) << a.error;
  EXPECT_EQ(a.receiver, s.expect_a);
  // the same run under instance b (same seeds) is correct on its own ...
  std::vector<uint8_t> masks_b;
  Outcome b = run_psi("kkrt", with_setup(0, ib, 5), with_setup(1, ib, 6), 4096,
                      [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                        if (ph == PSI_PHASE_ONLINE && r == 1)
                          masks_b.insert(masks_b.end(), c->begin(), c->end());
                      });
  ASSERT_EQ(b.status, PSI_OK) << b.error;
  EXPECT_EQ(b.receiver, s.expect_a);
  ASSERT_EQ(masks_a.size(), masks_b.size());
  EXPECT_NE(masks_a, masks_b);
  // ... but with instance a's masks in place of its own it finds no match at all
  size_t off = 0;
  Outcome x =
      run_psi("kkrt", with_setup(0, ib, 5), with_setup(1, ib, 6), 4096,
              [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                if (ph != PSI_PHASE_ONLINE || r != 1) return;
                std::copy(masks_a.begin() + off, masks_a.begin() + off + c->size(), c->begin());
                off += c->size();
              });
  ASSERT_EQ(x.status, PSI_OK) << x.error;
  EXPECT_TRUE(x.receiver.empty()) << x.receiver.size() << " cross-instance matches";
}

TEST(Kkrt, HostileMessagesGiveErrorsNotCrashes) {
  Sets s = make_sets(300, 300, 30, 37);
  const std::string p = sizes(300, 300, "output=both");
  struct Attack {
    const char* what;
    psi_test::Tamper t;
  };
  std::vector<Attack> attacks = {
      {"truncate every message",
       [](int, uint32_t, bool, std::vector<uint8_t>* c) {
         if (!c->empty()) c->pop_back();
       }},
      {"extend every message",
       [](int, uint32_t, bool, std::vector<uint8_t>* c) { c->push_back(0x55); }},
      {"garbage setup",
       [](int ph, uint32_t, bool, std::vector<uint8_t>* c) {
         if (ph == PSI_PHASE_SETUP)
           for (auto& x : *c) x = 0xff;
       }},
      {"drop the matrix",
       [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
         if (ph == PSI_PHASE_ONLINE && r == 0) c->clear();
       }},
      {"drop the masks",
       [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
         if (ph == PSI_PHASE_ONLINE && r == 1) c->clear();
       }},
      {"positions out of range",
       [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
         if (ph == PSI_PHASE_ONLINE && r == 2 && c->size() >= 8) {
           (*c)[4] = 0xff;
           (*c)[5] = 0xff;
           (*c)[6] = 0xff;
           (*c)[7] = 0x7f;
         }
       }},
      {"huge position count",
       [](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
         if (ph == PSI_PHASE_ONLINE && r == 2 && c->size() >= 4) {
           (*c)[3] = 0x7f;
         }
       }},
  };
  for (const auto& a : attacks) {
    Outcome o = run_psi("kkrt", party(0, s.a, p, 1), party(1, s.b, p, 2), 4096, a.t);
    EXPECT_NE(o.status, PSI_OK) << a.what;
    EXPECT_TRUE(o.status == PSI_ERR_PEER_MESSAGE)
        << a.what << ": " << psi_status_name(o.status) << " " << o.error;
    EXPECT_FALSE(o.error.empty()) << a.what;
  }
}

TEST(Kkrt, OutOfOrderCallsAreStateErrors) {
  uint8_t seed[32] = {0};
  psi_session* s = nullptr;
  char err[256];
  ASSERT_EQ(
      psi_session_create("kkrt", 0, "receiver_size=4,sender_size=4", seed, 32, &s, err, sizeof err),
      PSI_OK);
  size_t w;
  int done;
  uint8_t buf[64];
  EXPECT_EQ(psi_round_emit(s, PSI_PHASE_SETUP, 0, buf, sizeof buf, &w, &done), PSI_ERR_STATE);
  EXPECT_NE(std::string(psi_session_error(s)).find("out of order"), std::string::npos);
  psi_session_free(s);
  ASSERT_EQ(
      psi_session_create("kkrt", 0, "receiver_size=4,sender_size=4", seed, 32, &s, err, sizeof err),
      PSI_OK);
  EXPECT_EQ(psi_round_feed(s, PSI_PHASE_ONLINE, 0, nullptr, 0, 1), PSI_ERR_STATE);
  uint64_t n;
  psi_session_free(s);
  ASSERT_EQ(
      psi_session_create("kkrt", 0, "receiver_size=4,sender_size=4", seed, 32, &s, err, sizeof err),
      PSI_OK);
  EXPECT_EQ(psi_result_size(s, &n), PSI_ERR_STATE);
  psi_session_free(s);
  EXPECT_EQ(
      psi_session_create("kkrt", 0, "receiver_size=4,sender_size=4", seed, 31, &s, err, sizeof err),
      PSI_ERR_ARGUMENT);
  EXPECT_EQ(
      psi_session_create("kkrt", 9, "receiver_size=4,sender_size=4", seed, 32, &s, err, sizeof err),
      PSI_ERR_ARGUMENT);
}

TEST(Kkrt, IndependentSessionsRunConcurrently) {
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &ok]() {
      Sets s = make_sets(5000 + t, 4000, 1000 + t, 1000 + t);
      Outcome o = run(s, 5000 + t, 4000, "output=both");
      ok[t] = o.status == PSI_OK && o.receiver == s.expect_a && o.sender == s.expect_b;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << t;
}

// --- output=both: the receiver's claims are verified by the sender ------------------------------
namespace {

struct Claim {
  uint32_t pos;
  uint64_t proof;
};

uint64_t le(const uint8_t* p, int n) {
  uint64_t x = 0;
  for (int i = n - 1; i >= 0; --i) x = x << 8 | p[i];
  return x;
}

// Parses the whole claims message (u32 count | count x (u32 position | u64 proof)).
std::vector<Claim> parse_claims(const std::vector<uint8_t>& m) {
  std::vector<Claim> out;
  const uint64_t count = le(m.data(), 4);
  EXPECT_EQ(m.size(), 4 + 12 * count);
  for (uint64_t k = 0; k < count; ++k)
    out.push_back({uint32_t(le(&m[4 + 12 * k], 4)), le(&m[8 + 12 * k], 8)});
  return out;
}

std::vector<uint8_t> write_claims(const std::vector<Claim>& cs) {
  std::vector<uint8_t> m;
  auto put = [&](uint64_t x, int n) {
    for (int i = 0; i < n; ++i) m.push_back(uint8_t(x >> (8 * i)));
  };
  put(cs.size(), 4);
  for (const Claim& c : cs) {
    put(c.pos, 4);
    put(c.proof, 8);
  }
  return m;
}

// A tamper that rewrites the receiver's claims (online round 2) with f.
psi_test::Tamper claims_tamper(std::function<void(std::vector<Claim>*)> f) {
  return [f](int ph, uint32_t r, bool from_receiver, std::vector<uint8_t>* c) {
    if (ph != PSI_PHASE_ONLINE || r != 2 || !from_receiver || c->empty()) return;
    std::vector<Claim> cs = parse_claims(*c);
    f(&cs);
    *c = write_claims(cs);
  };
}

}  // namespace

TEST(KkrtClaims, HonestClaimsPassThroughTheParserUnchanged) {
  Sets s = make_sets(300, 400, 60, 59);
  size_t seen = 0;
  Outcome o = run_psi("kkrt", party(0, s.a, sizes(300, 400, "output=both"), 1),
                      party(1, s.b, sizes(300, 400, "output=both"), 2), 1 << 16,
                      claims_tamper([&](std::vector<Claim>* cs) { seen = cs->size(); }));
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(seen, 60u);
  EXPECT_EQ(o.receiver, s.expect_a);
  EXPECT_EQ(o.sender, s.expect_b);
}

TEST(KkrtClaims, SenderRefusesClaimsItCannotVerify) {
  Sets s = make_sets(300, 300, 30, 61);
  const std::string p = sizes(300, 300, "output=both");
  // the first position no genuine claim names
  auto unclaimed = [](const std::vector<Claim>& cs) {
    uint32_t q = 0;
    for (;; ++q) {
      bool used = false;
      for (const Claim& c : cs) used |= c.pos == q;
      if (!used) return q;
    }
  };
  auto insert_sorted = [](std::vector<Claim>* cs, Claim c) {
    cs->insert(std::lower_bound(cs->begin(), cs->end(), c,
                                [](const Claim& a, const Claim& b) { return a.pos < b.pos; }),
               c);
  };
  struct Attack {
    const char* what;
    std::function<void(std::vector<Claim>*)> f;
  };
  const std::vector<Attack> attacks = {
      {"extra position, random proof",
       [&](std::vector<Claim>* cs) {
         insert_sorted(cs, {unclaimed(*cs), 0x0123456789abcdefull});
       }},
      {"extra position, a genuine claim's proof",
       [&](std::vector<Claim>* cs) {
         insert_sorted(cs, {unclaimed(*cs), (*cs)[0].proof});
       }},
      {"every unclaimed position",
       [&](std::vector<Claim>* cs) {
         for (uint32_t q = 0; q < 300; ++q) {
           bool used = false;
           for (const Claim& c : *cs) used |= c.pos == q;
           if (!used) insert_sorted(cs, {q, 0});
         }
       }},
      {"one proof byte flipped",
       [](std::vector<Claim>* cs) { (*cs)[cs->size() / 2].proof ^= uint64_t(1) << 40; }},
      {"proofs swapped between two claims",
       [](std::vector<Claim>* cs) { std::swap((*cs)[0].proof, (*cs)[1].proof); }},
      {"a position repeated",
       [](std::vector<Claim>* cs) { cs->insert(cs->begin() + 1, (*cs)[0]); }},
      {"positions out of order", [](std::vector<Claim>* cs) { std::swap((*cs)[0], (*cs)[1]); }},
      {"position out of range", [](std::vector<Claim>* cs) { cs->back().pos = 300; }},
  };
  for (const Attack& a : attacks) {
    Outcome o =
        run_psi("kkrt", party(0, s.a, p, 1), party(1, s.b, p, 2), 1 << 16, claims_tamper(a.f));
    EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE)
        << a.what << ": " << psi_status_name(o.status) << " " << o.error;
    EXPECT_EQ(o.error.rfind("sender:", 0), 0u) << a.what << ": " << o.error;
    EXPECT_TRUE(o.sender.empty()) << a.what;
  }
}

// --- the receiver never drops a candidate (issue 18, item 11) -----------------------------------
// With mask_bytes <= 4 every lookup fingerprint is 0, so a sender can point many crafted masks of
// one 32-mask step at a long probe chain of the receiver's table: more than 64 candidates. The old
// receiver silently dropped candidates beyond 64 per step, so a genuine match after them was missed
// (a false negative the sender chose). Every start slot of the 512-slot table is tried.
TEST(KkrtCandidates, CraftedMasksCanNotHideAGenuineMatch) {
  const size_t n = 256;
  Sets s = make_sets(n, n, 4, 67);
  const std::string p = sizes(n, n, "output=both,sigma=16,stash=0");  // mask_bytes = (16+8+8)/8 = 4
  Outcome setup = run_psi("kkrt", party(0, s.a, p, 3), party(1, s.b, p, 4), 1 << 16, nullptr, true);
  ASSERT_EQ(setup.status, PSI_OK) << setup.error;
  auto with_setup = [&](int role) {
    Party q = party(role, role == 0 ? s.a : s.b, p, uint8_t(5 + role));
    q.setup = role == 0 ? setup.receiver_setup : setup.sender_setup;
    return q;
  };
  // honest run: the genuine positions (claims) and the masks
  std::vector<Claim> genuine;
  std::vector<uint8_t> masks;
  Outcome honest = run_psi("kkrt", with_setup(0), with_setup(1), 1 << 16,
                           [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                             if (ph != PSI_PHASE_ONLINE || c->empty()) return;
                             if (r == 1) masks.insert(masks.end(), c->begin(), c->end());
                             if (r == 2) genuine = parse_claims(*c);
                           });
  ASSERT_EQ(honest.status, PSI_OK) << honest.error;
  ASSERT_EQ(honest.receiver, s.expect_a);
  ASSERT_EQ(genuine.size(), 4u);
  ASSERT_EQ(masks.size(), 3 * n * 4);
  // a genuine position alone in its 32-position window, as late in the window as possible
  int best = -1;
  for (const Claim& c : genuine) {
    bool alone = true;
    for (const Claim& d : genuine) alone &= d.pos == c.pos || d.pos / 32 != c.pos / 32;
    if (alone && (best < 0 || c.pos % 32 > uint32_t(best) % 32)) best = int(c.pos);
  }
  ASSERT_GE(best, 0);
  ASSERT_GE(best % 32, 8) << "seed gives no late lone match; pick another";
  size_t missed = 0;
  for (uint32_t slot = 0; slot < 512; ++slot) {
    // every table: the window's masks before the genuine one all start probing at `slot`
    std::vector<uint8_t> crafted = masks;
    for (uint32_t t = 0; t < 3; ++t)
      for (uint32_t q = uint32_t(best) / 32 * 32; q < uint32_t(best); ++q) {
        uint8_t* m = &crafted[(t * n + q) * 4];
        m[0] = uint8_t(slot);
        m[1] = uint8_t(slot >> 8);
        m[2] = 0;
        m[3] = 0;
      }
    Outcome o = run_psi("kkrt", with_setup(0), with_setup(1), 1 << 16,
                        [&](int ph, uint32_t r, bool, std::vector<uint8_t>* c) {
                          if (ph == PSI_PHASE_ONLINE && r == 1 && !c->empty()) *c = crafted;
                        });
    // the crafted masks hide nothing: every genuine match is still found (the positions the
    // crafted masks overwrote held no genuine match)
    ASSERT_TRUE(o.status == PSI_OK || o.status == PSI_ERR_PEER_MESSAGE) << o.error;
    if (o.receiver != s.expect_a &&
        !std::includes(o.receiver.begin(), o.receiver.end(), s.expect_a.begin(), s.expect_a.end()))
      ++missed;
  }
  EXPECT_EQ(missed, 0u) << "crafted masks hid a genuine match at " << missed
                        << " of 512 start slots";
}
