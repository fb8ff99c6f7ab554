// base_ot_test.cc — Chou–Orlandi base OT over ristretto255: correctness, determinism, hostile
// input, and known-answer pins of the group arithmetic (RFC 9496, appendix A.1).
#include "ot/base_ot.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hex.h"
#include "rfc9496_vectors.h"

namespace psi {
namespace {

using test::from_hex;
using test::to_hex;
using test::rfc9496::kMultiples;

std::string block_hex(Block b) {
  uint8_t t[16];
  store_block(t, b);
  return to_hex(t, 16);
}

class BaseOtTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

struct RunResult {
  std::vector<std::array<Block, 2>> sender_keys;
  std::vector<Block> receiver_keys;
  std::vector<uint8_t> first, reply;
};

RunResult run(const std::vector<uint8_t>& choices, uint64_t seed_s, uint64_t seed_r) {
  Prg rs(make_block(seed_s, 0x5e));
  Prg rr(make_block(seed_r, 0x4e));
  BaseOtSender sender(choices.size(), rs);
  BaseOtReceiver receiver(choices, rr);
  RunResult r;
  r.first = sender.first_message();
  EXPECT_EQ(r.first.size(), 32u);
  Status st = receiver.respond(ByteView(r.first), &r.reply, &r.receiver_keys);
  EXPECT_TRUE(st.is_ok()) << st.message();
  EXPECT_EQ(r.reply.size(), 32 * choices.size());
  st = sender.finish(ByteView(r.reply), &r.sender_keys);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return r;
}

// ---- known answers: pin ristretto255 ----------------------------------------------------------

// RFC 9496 A.1: encodings of k*G for k = 0..5.

TEST_F(BaseOtTest, Rfc9496GeneratorMultiples) {
  for (int k = 1; k <= 5; ++k) {
    uint8_t s[32] = {0}, p[32], q[32];
    s[0] = uint8_t(k);
    ASSERT_EQ(crypto_scalarmult_ristretto255_base(p, s), 0);
    EXPECT_EQ(to_hex(p, 32), kMultiples[k]) << "k=" << k;
    // Variable-base path on G gives the same.
    std::vector<uint8_t> g = from_hex(kMultiples[1]);
    ASSERT_EQ(crypto_scalarmult_ristretto255(q, s, g.data()), 0);
    EXPECT_EQ(to_hex(q, 32), kMultiples[k]) << "k=" << k;
  }
  // 2*G + 3*G = 5*G, 5*G - 2*G = 3*G.
  std::vector<uint8_t> p2 = from_hex(kMultiples[2]), p3 = from_hex(kMultiples[3]);
  std::vector<uint8_t> p5 = from_hex(kMultiples[5]);
  uint8_t r[32];
  ASSERT_EQ(crypto_core_ristretto255_add(r, p2.data(), p3.data()), 0);
  EXPECT_EQ(to_hex(r, 32), kMultiples[5]);
  ASSERT_EQ(crypto_core_ristretto255_sub(r, p5.data(), p2.data()), 0);
  EXPECT_EQ(to_hex(r, 32), kMultiples[3]);
  // libsodium 1.0.18 accepts the identity (all zeros) as a valid encoding; base_ot.cc must reject
  // it itself (see ReceiverRejectsBadPoints). Pin that behaviour so an upgrade that changes it is
  // noticed.
  EXPECT_EQ(crypto_core_ristretto255_is_valid_point(from_hex(kMultiples[0]).data()), 1);
}

// Invalid encodings: every one of RFC 9496 A.2, the top bit set, and the identity (which libsodium
// accepts but base_ot.cc must refuse).
std::vector<const char*> bad_encodings() {
  std::vector<const char*> out(std::begin(test::rfc9496::kInvalid),
                               std::end(test::rfc9496::kInvalid));
  out.push_back("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
  out.push_back("0000000000000000000000000000000000000000000000000000000000000000");
  return out;
}

// ---- correctness ------------------------------------------------------------------------------

TEST_F(BaseOtTest, CorrectOverManyChoiceVectors) {
  Prg coins(make_block(7, 7));
  for (int trial = 0; trial < 20; ++trial) {
    size_t n = trial == 0 ? 1 : 1 + coins.uniform(200);
    std::vector<uint8_t> c(n);
    for (auto& x : c) x = uint8_t(coins.uniform(2));
    if (trial == 1) std::fill(c.begin(), c.end(), 0);
    if (trial == 2) std::fill(c.begin(), c.end(), 1);
    RunResult r = run(c, 100 + trial, 200 + trial);
    ASSERT_EQ(r.sender_keys.size(), n);
    ASSERT_EQ(r.receiver_keys.size(), n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(block_equal(r.receiver_keys[i], r.sender_keys[i][c[i]]))
          << "trial " << trial << " i " << i;
      EXPECT_FALSE(block_equal(r.receiver_keys[i], r.sender_keys[i][1 - c[i]]))
          << "trial " << trial << " i " << i;
    }
  }
}

TEST_F(BaseOtTest, CorrectAt512) {
  Prg coins(make_block(9, 9));
  std::vector<uint8_t> c(512);
  for (auto& x : c) x = uint8_t(coins.uniform(2));
  RunResult r = run(c, 1, 2);
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_TRUE(block_equal(r.receiver_keys[i], r.sender_keys[i][c[i]])) << i;
    ASSERT_FALSE(block_equal(r.receiver_keys[i], r.sender_keys[i][1 - c[i]])) << i;
  }
}

TEST_F(BaseOtTest, DeterministicFromSeed) {
  std::vector<uint8_t> c = {0, 1, 1, 0, 1, 0, 0, 1, 1, 1};
  RunResult a = run(c, 42, 43), b = run(c, 42, 43);
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.reply, b.reply);
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_TRUE(block_equal(a.sender_keys[i][0], b.sender_keys[i][0]));
    EXPECT_TRUE(block_equal(a.sender_keys[i][1], b.sender_keys[i][1]));
    EXPECT_TRUE(block_equal(a.receiver_keys[i], b.receiver_keys[i]));
  }
  // A different seed changes the transcript and the keys.
  RunResult d = run(c, 44, 43), e = run(c, 42, 45);
  EXPECT_NE(a.first, d.first);
  EXPECT_NE(a.reply, e.reply);
  EXPECT_FALSE(block_equal(a.sender_keys[0][0], d.sender_keys[0][0]));
  EXPECT_FALSE(block_equal(a.receiver_keys[0], e.receiver_keys[0]));
}

TEST_F(BaseOtTest, DistinctKeysAcrossIndices) {
  std::vector<uint8_t> c(300);
  for (size_t i = 0; i < c.size(); ++i) c[i] = uint8_t((i * 7 + 3) % 5 < 2);
  RunResult r = run(c, 5, 6);
  std::set<std::string> seen;
  for (size_t i = 0; i < c.size(); ++i) {
    seen.insert(block_hex(r.sender_keys[i][0]));
    seen.insert(block_hex(r.sender_keys[i][1]));
  }
  EXPECT_EQ(seen.size(), 2 * c.size());
  std::set<std::string> points;
  for (size_t i = 0; i < c.size(); ++i) points.insert(to_hex(r.reply.data() + 32 * i, 32));
  EXPECT_EQ(points.size(), c.size());
}

// The hash binds the index: swapping two receiver points breaks the keys at those positions.
TEST_F(BaseOtTest, KeysBoundToIndex) {
  std::vector<uint8_t> c = {0, 0, 1, 1};
  Prg rs(make_block(1, 11)), rr(make_block(2, 22));
  BaseOtSender s(c.size(), rs);
  BaseOtReceiver rcv(c, rr);
  std::vector<uint8_t> reply;
  std::vector<Block> rk;
  ASSERT_TRUE(rcv.respond(ByteView(s.first_message()), &reply, &rk).is_ok());
  std::swap_ranges(reply.begin(), reply.begin() + 32, reply.begin() + 32);
  std::vector<std::array<Block, 2>> sk;
  ASSERT_TRUE(s.finish(ByteView(reply), &sk).is_ok());
  EXPECT_FALSE(block_equal(rk[0], sk[1][0]));
  EXPECT_FALSE(block_equal(rk[1], sk[0][0]));
  EXPECT_TRUE(block_equal(rk[2], sk[2][1]));
}

// ---- hostile input -----------------------------------------------------------------------------

void expect_peer_error(const Status& st) {
  EXPECT_EQ(st.code(), PSI_ERR_PEER_MESSAGE) << st.message();
  EXPECT_FALSE(st.message().empty());
}

Status receiver_on(const std::vector<uint8_t>& msg, size_t count = 4) {
  Prg rr(make_block(3, 3));
  BaseOtReceiver r(std::vector<uint8_t>(count, 1), rr);
  std::vector<uint8_t> reply = {9};
  std::vector<Block> keys(1);
  Status st = r.respond(ByteView(msg.data(), msg.size()), &reply, &keys);
  if (!st.is_ok()) {  // outputs untouched on error
    EXPECT_EQ(reply.size(), 1u);
    EXPECT_EQ(keys.size(), 1u);
  }
  return st;
}

Status sender_on(const std::vector<uint8_t>& msg, size_t count = 4) {
  Prg rs(make_block(4, 4));
  BaseOtSender s(count, rs);
  std::vector<std::array<Block, 2>> keys;
  Status st = s.finish(ByteView(msg.data(), msg.size()), &keys);
  if (!st.is_ok()) {
    EXPECT_TRUE(keys.empty());
  }
  return st;
}

std::vector<uint8_t> valid_reply(size_t count, std::vector<uint8_t>* first = nullptr) {
  Prg rs(make_block(4, 4)), rr(make_block(3, 3));
  BaseOtSender s(count, rs);
  BaseOtReceiver r(std::vector<uint8_t>(count, 1), rr);
  std::vector<uint8_t> reply;
  std::vector<Block> keys;
  std::vector<uint8_t> a = s.first_message();
  EXPECT_TRUE(r.respond(ByteView(a), &reply, &keys).is_ok());
  if (first) *first = a;
  return reply;
}

TEST_F(BaseOtTest, ReceiverRejectsBadLength) {
  std::vector<uint8_t> g = from_hex(kMultiples[1]);
  EXPECT_TRUE(receiver_on(g).is_ok());
  for (size_t len : {0, 1, 31, 33, 64, 128}) {
    std::vector<uint8_t> m(len, 0);
    for (size_t i = 0; i < len; ++i) m[i] = g[i % 32];
    SCOPED_TRACE(len);
    expect_peer_error(receiver_on(m));
  }
  // Null data with zero length.
  Prg rr(make_block(3, 3));
  BaseOtReceiver r(std::vector<uint8_t>(4, 0), rr);
  std::vector<uint8_t> reply;
  std::vector<Block> keys;
  expect_peer_error(r.respond(ByteView(nullptr, 0), &reply, &keys));
}

TEST_F(BaseOtTest, ReceiverRejectsBadPoints) {
  for (const char* h : bad_encodings()) {
    SCOPED_TRACE(h);
    std::vector<uint8_t> m = from_hex(h);
    if (m != std::vector<uint8_t>(32, 0)) {
      EXPECT_EQ(crypto_core_ristretto255_is_valid_point(m.data()), 0);
    }
    Status st = receiver_on(m);
    expect_peer_error(st);
    EXPECT_NE(st.message().find("A is not"), std::string::npos) << st.message();
  }
}

TEST_F(BaseOtTest, SenderRejectsBadLength) {
  std::vector<uint8_t> good = valid_reply(4);
  EXPECT_TRUE(sender_on(good).is_ok());
  for (size_t len : {0, 1, 32, 96, 127, 129, 160, 4096}) {
    std::vector<uint8_t> m(len);
    for (size_t i = 0; i < len; ++i) m[i] = good[i % good.size()];
    SCOPED_TRACE(len);
    expect_peer_error(sender_on(m));
  }
}

TEST_F(BaseOtTest, SenderRejectsBadPointAtEachIndex) {
  std::vector<uint8_t> first;
  std::vector<uint8_t> good = valid_reply(4, &first);
  for (const char* h : bad_encodings()) {
    std::vector<uint8_t> bad = from_hex(h);
    for (size_t i = 0; i < 4; ++i) {
      std::vector<uint8_t> m = good;
      std::copy(bad.begin(), bad.end(), m.begin() + 32 * i);
      SCOPED_TRACE(std::string(h) + " at " + std::to_string(i));
      Status st = sender_on(m);
      expect_peer_error(st);
      EXPECT_NE(st.message().find("base OT " + std::to_string(i) + ":"), std::string::npos)
          << st.message();
    }
  }
  // B_i == A would make a*(B_i - A) the identity.
  std::vector<uint8_t> m = good;
  std::copy(first.begin(), first.end(), m.begin() + 64);
  Status st = sender_on(m);
  expect_peer_error(st);
  EXPECT_NE(st.message().find("base OT 2:"), std::string::npos) << st.message();
}

TEST_F(BaseOtTest, RandomGarbageIsRejectedOrHandled) {
  Prg g(make_block(99, 1));
  int rejected_r = 0, rejected_s = 0;
  for (int t = 0; t < 300; ++t) {
    std::vector<uint8_t> a(32), b(128);
    g.fill(a.data(), a.size());
    g.fill(b.data(), b.size());
    Status sr = receiver_on(a), ss = sender_on(b);
    // A random 32-byte string is a valid encoding with probability about 1/16; either outcome is
    // fine as long as failures are peer errors.
    if (!sr.is_ok()) {
      expect_peer_error(sr);
      ++rejected_r;
    }
    if (!ss.is_ok()) {
      expect_peer_error(ss);
      ++rejected_s;
    }
  }
  EXPECT_GT(rejected_r, 200);
  EXPECT_GT(rejected_s, 250);
}

TEST_F(BaseOtTest, LocalArgumentErrors) {
  Prg rr(make_block(3, 3));
  std::vector<uint8_t> g = from_hex(kMultiples[1]);
  std::vector<uint8_t> reply;
  std::vector<Block> keys;
  BaseOtReceiver bad_choice(std::vector<uint8_t>{0, 2}, rr);
  EXPECT_EQ(bad_choice.respond(ByteView(g), &reply, &keys).code(), PSI_ERR_ARGUMENT);
  BaseOtReceiver empty(std::vector<uint8_t>{}, rr);
  EXPECT_EQ(empty.respond(ByteView(g), &reply, &keys).code(), PSI_ERR_ARGUMENT);
  BaseOtReceiver ok(std::vector<uint8_t>{1}, rr);
  EXPECT_EQ(ok.respond(ByteView(g), nullptr, &keys).code(), PSI_ERR_ARGUMENT);
  Prg rs(make_block(4, 4));
  BaseOtSender zero(0, rs);
  std::vector<std::array<Block, 2>> sk;
  EXPECT_EQ(zero.finish(ByteView(), &sk).code(), PSI_ERR_ARGUMENT);
}

}  // namespace
}  // namespace psi
