// Labelled PSI (output=labels) of every protocol that offers it, through the C ABI, against a
// plaintext oracle: the receiver must get exactly the labels the sender attached to the elements
// both hold, in result-index order; the sender learns nothing; sizes do not depend on the overlap;
// tampered messages give clean errors, never a wrong label. Plus the label message itself
// (labels.h) against a receiver that tries every key it can derive on every record.
#include "protocols/labels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/aes_gcm.h"
#include "psi_driver.h"

using psi_test::make_sets;
using psi_test::Outcome;
using psi_test::Party;
using psi_test::party;
using psi_test::run_psi;
using psi_test::Sets;
using psi_test::sizes;

namespace {

struct Proto {
  const char* name;
  int label_phase;  // where the sender's label message travels
  uint32_t label_round;
  bool labels_in_setup;  // the setup message carries the labels: psi_set_labels precedes it
};

// The rr22 label message replaces the masks of online round 3, kkrt's those of online round 1.
const Proto kRr22{"rr22", PSI_PHASE_ONLINE, 3, false};
const Proto kKkrt{"kkrt", PSI_PHASE_ONLINE, 1, false};
// ecdh's labels replace the filter of its setup message (setup round 0, the sender's).
const Proto kEcdh{"ecdh", PSI_PHASE_SETUP, 0, true};
#define LABEL_PROTOCOLS kRr22, kKkrt, kEcdh

struct Labelled {
  Sets s;
  size_t L = 0;
  std::vector<uint8_t> labels;  // sender's, in its input order
  std::vector<uint8_t> expect;  // oracle: the labels of s.expect_a, in that order
};

Labelled make(size_t na, size_t nb, size_t common, size_t L, uint64_t seed) {
  Labelled t;
  t.s = make_sets(na, nb, common, seed);
  t.L = L;
  std::mt19937_64 rng(seed * 7 + 3);
  t.labels.resize(nb * L);
  for (auto& b : t.labels) b = uint8_t(rng());
  std::map<std::vector<uint8_t>, size_t> sender_index;
  for (size_t j = 0; j < nb; ++j)
    sender_index[std::vector<uint8_t>(t.s.b.begin() + 16 * j, t.s.b.begin() + 16 * (j + 1))] = j;
  for (uint64_t i : t.s.expect_a) {
    const size_t j =
        sender_index.at(std::vector<uint8_t>(t.s.a.begin() + 16 * i, t.s.a.begin() + 16 * i + 16));
    t.expect.insert(t.expect.end(), t.labels.begin() + j * L, t.labels.begin() + (j + 1) * L);
  }
  return t;
}

std::string label_params(size_t na, size_t nb, size_t L, const std::string& extra = "") {
  return sizes(na, nb,
               "output=labels,label=" + std::to_string(L) + (extra.empty() ? "" : ",") + extra);
}

Outcome run(const Proto& p, const Labelled& t, size_t chunk = 1 << 16,
            const psi_test::Tamper& tamper = nullptr, const std::string& extra = "") {
  const size_t na = t.s.a.size() / 16, nb = t.s.b.size() / 16;
  const std::string params = label_params(na, nb, t.L, extra);
  Party r = party(PSI_ROLE_RECEIVER, t.s.a, params, 1);
  Party s = party(PSI_ROLE_SENDER, t.s.b, params, 2);
  r.label_len = s.label_len = t.L;
  s.labels = t.labels;
  return run_psi(p.name, r, s, chunk, tamper);
}

struct Case {
  size_t na, nb, common, L;
};

class LabelsOracle : public ::testing::TestWithParam<std::tuple<Proto, Case>> {};

TEST_P(LabelsOracle, ReceiverGetsExactlyTheSendersLabelsOfItsMatches) {
  const Proto p = std::get<0>(GetParam());
  const Case c = std::get<1>(GetParam());
  Labelled t = make(c.na, c.nb, c.common, c.L, c.na * 131 + c.nb * 17 + c.common + c.L);
  Outcome o = run(p, t);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, t.s.expect_a);
  EXPECT_EQ(o.labels, t.expect);
  EXPECT_EQ(o.labels.size(), t.s.expect_a.size() * c.L);
  // the sender learns nothing, not even the size
  EXPECT_EQ(o.sender_size_status, PSI_ERR_STATE);
  EXPECT_EQ(o.sender_indices_status, PSI_ERR_STATE);
  EXPECT_EQ(o.sender_labels_status, PSI_ERR_STATE);
}

std::string proto_name(const Proto& p) { return p.name; }

INSTANTIATE_TEST_SUITE_P(
    SizesOverlapsLengths, LabelsOracle,
    ::testing::Combine(
        ::testing::Values(LABEL_PROTOCOLS),
        ::testing::Values(Case{0, 0, 0, 17}, Case{0, 5, 0, 17}, Case{5, 0, 0, 17}, Case{1, 1, 1, 1},
                          Case{1, 1, 0, 1}, Case{2, 3, 1, 64}, Case{100, 100, 0, 17},
                          Case{100, 100, 50, 17}, Case{100, 100, 100, 17}, Case{300, 40, 40, 64},
                          Case{40, 300, 40, 64}, Case{64, 64, 32, 4096},
                          Case{1 << 14, 1 << 14, 1 << 13, 17}, Case{1 << 14, 1 << 14, 0, 1},
                          Case{1 << 14, 1 << 14, 1 << 14, 64}, Case{1000, 1 << 14, 700, 40})),
    [](const auto& info) {
      const Case c = std::get<1>(info.param);
      return proto_name(std::get<0>(info.param)) + "_" + std::to_string(c.na) + "x" +
             std::to_string(c.nb) + "_common" + std::to_string(c.common) + "_L" +
             std::to_string(c.L);
    });

class Labels : public ::testing::TestWithParam<Proto> {};

TEST_P(Labels, TinyChunksAndThreadsGiveTheSameLabels) {
  Labelled t = make(700, 900, 350, 33, 11);
  for (size_t chunk : {size_t(1), size_t(7), size_t(100), size_t(5000)}) {
    Outcome o = run(GetParam(), t, chunk);
    ASSERT_EQ(o.status, PSI_OK) << o.error;
    EXPECT_EQ(o.receiver, t.s.expect_a) << chunk;
    EXPECT_EQ(o.labels, t.expect) << chunk;
  }
  if (std::string(GetParam().name) == "rr22") {
    Labelled big = make(20000, 20000, 9000, 40, 12);
    Outcome o = run(GetParam(), big, 1 << 16, nullptr, "threads=2,piece=4096");
    ASSERT_EQ(o.status, PSI_OK) << o.error;
    EXPECT_EQ(o.receiver, big.s.expect_a);
    EXPECT_EQ(o.labels, big.expect);
  }
}

// rr22's receiver works on its elements in the order of the OKVS bins (several above 2^16
// elements) and maps its result back: the labels still come in its input order.
TEST(LabelsRr22, SeveralOkvsBinsGiveTheLabelsInInputOrder) {
  Labelled t = make(size_t(1) << 17, 5000, 3000, 24, 31);
  Outcome o = run(kRr22, t);
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.receiver, t.s.expect_a);
  EXPECT_EQ(o.labels, t.expect);
}

TEST_P(Labels, BytesDoNotDependOnTheOverlap) {
  for (size_t L : {size_t(1), size_t(40)}) {
    Labelled none = make(3000, 3000, 0, L, 21), all = make(3000, 3000, 3000, L, 22);
    Outcome a = run(GetParam(), none), b = run(GetParam(), all);
    ASSERT_EQ(a.status, PSI_OK) << a.error;
    ASSERT_EQ(b.status, PSI_OK) << b.error;
    EXPECT_TRUE(a.receiver.empty());
    EXPECT_EQ(b.receiver.size(), 3000u);
    EXPECT_EQ(a.bytes_receiver_to_sender, b.bytes_receiver_to_sender);
    EXPECT_EQ(a.bytes_sender_to_receiver, b.bytes_sender_to_receiver);
  }
}

// Records the sender's label message (and its length) as it passes.
psi_test::Tamper capture(const Proto& p, std::vector<uint8_t>* msg) {
  return [p, msg](int phase, uint32_t round, bool from_receiver, std::vector<uint8_t>* c) {
    if (phase == p.label_phase && round == p.label_round && !from_receiver)
      msg->insert(msg->end(), c->begin(), c->end());
  };
}

TEST_P(Labels, MessageHoldsNoLabelInTheClear) {
  // 16-byte labels with a recognisable 12-byte run: none may appear in the message
  Labelled t = make(500, 500, 250, 16, 31);
  for (size_t j = 0; j < 500; ++j) std::memcpy(&t.labels[j * 16], "LABEL-CLEAR!", 12);
  t = [&] {
    Labelled u = t;
    u.expect.clear();
    std::map<std::vector<uint8_t>, size_t> idx;
    for (size_t j = 0; j < 500; ++j)
      idx[std::vector<uint8_t>(u.s.b.begin() + 16 * j, u.s.b.begin() + 16 * j + 16)] = j;
    for (uint64_t i : u.s.expect_a) {
      size_t j = idx.at(std::vector<uint8_t>(u.s.a.begin() + 16 * i, u.s.a.begin() + 16 * i + 16));
      u.expect.insert(u.expect.end(), u.labels.begin() + j * 16, u.labels.begin() + j * 16 + 16);
    }
    return u;
  }();
  std::vector<uint8_t> msg;
  Outcome o = run(GetParam(), t, 4096, capture(GetParam(), &msg));
  ASSERT_EQ(o.status, PSI_OK) << o.error;
  EXPECT_EQ(o.labels, t.expect);
  ASSERT_GT(msg.size(), 500u * 16);
  const std::string needle = "LABEL-CLEAR!";
  EXPECT_EQ(std::search(msg.begin(), msg.end(), needle.begin(), needle.end()), msg.end());
  // and no 8-byte window of any label either
  size_t hits = 0;
  for (size_t j = 0; j < 500; ++j)
    hits += std::search(msg.begin(), msg.end(), t.labels.begin() + j * 16 + 8,
                        t.labels.begin() + j * 16 + 16) != msg.end();
  EXPECT_EQ(hits, 0u);
}

// Tamper with byte `at` of the label message (or its length): the run fails with `want`.
Outcome tampered(const Proto& p, const Labelled& t,
                 std::function<void(std::vector<uint8_t>*, uint64_t offset, bool)> edit) {
  auto offset = std::make_shared<uint64_t>(0);
  return run(
      p, t, 1000,
      [p, offset, edit](int phase, uint32_t round, bool from_receiver, std::vector<uint8_t>* c) {
        if (phase != p.label_phase || round != p.label_round || from_receiver) return;
        const uint64_t first = *offset;
        *offset += c->size();
        edit(c, first, c->size() < 1000);  // a short chunk is the last one
      });
}

TEST_P(Labels, TamperedMessagesFailCleanlyNeverAWrongLabel) {
  const Proto p = GetParam();
  Labelled t = make(200, 200, 200, 24, 41);  // every record matches an element of the receiver
  std::vector<uint8_t> msg;
  Outcome clean = run(p, t, 1000, capture(p, &msg));
  ASSERT_EQ(clean.status, PSI_OK) << clean.error;
  ASSERT_EQ(clean.labels, t.expect);
  const uint64_t total = msg.size();
  // truncated: the last byte dropped
  Outcome o = tampered(p, t, [&](std::vector<uint8_t>* c, uint64_t first, bool) {
    if (first + c->size() == total) c->pop_back();
  });
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  // extended: one byte more
  o = tampered(p, t, [&](std::vector<uint8_t>* c, uint64_t first, bool) {
    if (first + c->size() == total) c->push_back(0);
  });
  EXPECT_EQ(o.status, PSI_ERR_PEER_MESSAGE) << o.error;
  // bit flips at many offsets: either a clean peer error or the exact labels of a subset of the
  // matches (a flipped tag only hides its record); never a changed label
  std::mt19937_64 rng(5);
  int errors = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint64_t at = trial == 0 ? total - 1 : rng() % total;
    const int bit = int(rng() % 8);
    Outcome f = tampered(p, t, [&](std::vector<uint8_t>* c, uint64_t first, bool) {
      if (at >= first && at < first + c->size()) (*c)[at - first] ^= uint8_t(1 << bit);
    });
    if (f.status != PSI_OK) {
      EXPECT_EQ(f.status, PSI_ERR_PEER_MESSAGE) << f.error;
      ++errors;
      continue;
    }
    ASSERT_EQ(f.labels.size(), f.receiver.size() * t.L);
    for (size_t k = 0; k < f.receiver.size(); ++k) {
      auto it = std::find(t.s.expect_a.begin(), t.s.expect_a.end(), f.receiver[k]);
      ASSERT_NE(it, t.s.expect_a.end());
      const size_t e = size_t(it - t.s.expect_a.begin());
      EXPECT_TRUE(std::equal(f.labels.begin() + k * t.L, f.labels.begin() + (k + 1) * t.L,
                             t.expect.begin() + e * t.L))
          << "a changed label after flipping bit " << bit << " of byte " << at;
    }
  }
  EXPECT_GT(errors, 0);  // the ciphertext is most of the message: some flips must be caught
}

TEST_P(Labels, SetLabelsMisuseIsRefusedCleanly) {
  const Proto p = GetParam();
  const std::string params = label_params(4, 4, 8);
  std::vector<uint8_t> seed(32, 1), elems(4 * 16), labels(4 * 8, 9);
  for (size_t k = 0; k < 4; ++k) elems[16 * k] = uint8_t(k + 1);
  auto session = [&](int role, const std::string& prm) {
    psi_session* s = nullptr;
    EXPECT_EQ(PSI_OK,
              psi_session_create(p.name, role, prm.c_str(), seed.data(), 32, &s, nullptr, 0));
    return s;
  };
  // receiver
  psi_session* s = session(PSI_ROLE_RECEIVER, params);
  ASSERT_EQ(PSI_OK, psi_set_input(s, elems.data(), 4, 16));
  EXPECT_EQ(PSI_ERR_STATE, psi_set_labels(s, labels.data(), 4, 8));
  psi_session_free(s);
  // sender: before psi_set_input; then (each on a fresh session: an error other than ARGUMENT
  // fails the session) wrong count, wrong length, NULL, zero length
  s = session(PSI_ROLE_SENDER, params);
  EXPECT_EQ(PSI_ERR_STATE, psi_set_labels(s, labels.data(), 4, 8));
  psi_session_free(s);
  auto fresh_sender = [&] {
    psi_session* t = session(PSI_ROLE_SENDER, params);
    EXPECT_EQ(PSI_OK, psi_set_input(t, elems.data(), 4, 16));
    return t;
  };
  struct Bad {
    const uint8_t* labels;
    size_t count, len;
    psi_status want;
  };
  for (const Bad& b :
       {Bad{labels.data(), 3, 8, PSI_ERR_INPUT}, Bad{labels.data(), 4, 7, PSI_ERR_INPUT},
        Bad{labels.data(), 2, 16, PSI_ERR_INPUT}, Bad{nullptr, 4, 8, PSI_ERR_ARGUMENT},
        Bad{labels.data(), 4, 0, PSI_ERR_ARGUMENT}}) {
    s = fresh_sender();
    EXPECT_EQ(b.want, psi_set_labels(s, b.labels, b.count, b.len)) << b.count << " x " << b.len;
    psi_session_free(s);
  }
  s = fresh_sender();
  EXPECT_EQ(PSI_OK, psi_set_labels(s, labels.data(), 4, 8));
  EXPECT_EQ(PSI_OK, psi_set_labels(s, labels.data(), 4, 8));  // replacing them is fine
  psi_session_free(s);
  // a run whose output is not labels takes none
  s = session(PSI_ROLE_SENDER, sizes(4, 4));
  ASSERT_EQ(PSI_OK, psi_set_input(s, elems.data(), 4, 16));
  EXPECT_EQ(PSI_ERR_STATE, psi_set_labels(s, labels.data(), 4, 8));
  psi_session_free(s);
  // missing when the round needs them: the sender's first online round refuses with STATE
  Sets sets = make_sets(4, 4, 2, 3);
  Party r = party(PSI_ROLE_RECEIVER, sets.a, params, 1);
  Party snd = party(PSI_ROLE_SENDER, sets.b, params, 2);
  r.label_len = snd.label_len = 8;
  snd.skip_set_labels = true;
  Outcome o = run_psi(p.name, r, snd);
  EXPECT_EQ(o.status, PSI_ERR_STATE) << o.error;
  EXPECT_NE(o.error.find("psi_set_labels"), std::string::npos) << o.error;
  // after the online rounds started: STATE (checked by the ABI layer on a live session)
  s = session(PSI_ROLE_SENDER, params);
  psi_session* rs = session(PSI_ROLE_RECEIVER, params);
  ASSERT_EQ(PSI_OK, psi_set_input(s, sets.b.data(), 4, 16));
  ASSERT_EQ(PSI_OK, psi_set_input(rs, sets.a.data(), 4, 16));
  // run the setup and the receiver's first online round, then feed the sender
  std::vector<uint8_t> buf(1 << 20);
  uint32_t rounds = 0;
  psi_round_count(s, PSI_PHASE_SETUP, &rounds);
  psi_session* ps[2] = {rs, s};
  auto pass = [&](int phase, uint32_t round, bool feed_peer) {
    int mine = 0;
    psi_round_is_mine(rs, phase, round, &mine);
    psi_session* owner = ps[mine ? 0 : 1];
    psi_session* peer = ps[mine ? 1 : 0];
    if (round == 0) {
      EXPECT_EQ(PSI_OK, psi_round_feed(owner, phase, 0, nullptr, 0, 1));
    }
    for (;;) {
      size_t w = 0;
      int done = 0;
      EXPECT_EQ(PSI_OK, psi_round_emit(owner, phase, round, buf.data(), buf.size(), &w, &done));
      if (feed_peer) psi_round_feed(peer, phase, round + 1, buf.data(), w, done);
      if (done) break;
    }
  };
  if (p.labels_in_setup) {
    ASSERT_EQ(PSI_OK, psi_set_labels(s, labels.data(), 4, 8));
  }
  for (uint32_t k = 0; k < rounds; ++k) pass(PSI_PHASE_SETUP, k, k + 1 < rounds);
  if (p.labels_in_setup) {
    // after the setup round that carried them: refused
    EXPECT_EQ(PSI_ERR_STATE, psi_set_labels(s, labels.data(), 4, 8));
  } else {
    ASSERT_EQ(PSI_OK, psi_set_labels(s, labels.data(), 4, 8));
    pass(PSI_PHASE_ONLINE, 0, true);
    EXPECT_EQ(PSI_ERR_STATE, psi_set_labels(s, labels.data(), 4, 8));
  }
  psi_session_free(s);
  psi_session_free(rs);
}

INSTANTIATE_TEST_SUITE_P(Protocols, Labels, ::testing::Values(LABEL_PROTOCOLS),
                         [](const auto& info) { return proto_name(info.param); });

// ecdh: one labelled setup (the label records are in the setup message) serves a second client
// query set: the sender imports its setup (its psi_set_labels is then refused: the setup holds the
// labels), the receiver imports the checked setup message, and the labels still match the oracle.
TEST(LabelsEcdh, OneLabelledSetupServesManyClientQueries) {
  Labelled t = make(300, 400, 150, 24, 61);
  const std::string params = label_params(300, 400, 24);
  Party r = party(PSI_ROLE_RECEIVER, t.s.a, params, 1);
  Party s = party(PSI_ROLE_SENDER, t.s.b, params, 2);
  r.label_len = s.label_len = 24;
  s.labels = t.labels;
  Outcome first = run_psi("ecdh", r, s, 1 << 16, nullptr, true);
  ASSERT_EQ(first.status, PSI_OK) << first.error;
  EXPECT_EQ(first.labels, t.expect);
  // a second query set: every 3rd sender element plus fresh ones, under a new instance
  std::vector<uint8_t> a2;
  std::vector<uint64_t> want_idx;
  std::vector<uint8_t> want_labels;
  std::mt19937_64 rng(62);
  for (size_t i = 0; i < 300; ++i) {
    if (i % 3 == 0) {
      const size_t j = i;  // sender element j
      a2.insert(a2.end(), t.s.b.begin() + 16 * j, t.s.b.begin() + 16 * j + 16);
      want_idx.push_back(i);
      want_labels.insert(want_labels.end(), t.labels.begin() + j * 24,
                         t.labels.begin() + (j + 1) * 24);
    } else {
      for (int b = 0; b < 16; ++b) a2.push_back(uint8_t(rng()));
    }
  }
  const std::string params2 = label_params(300, 400, 24, "instance=7");
  Party r2 = party(PSI_ROLE_RECEIVER, a2, params2, 3);
  Party s2 = party(PSI_ROLE_SENDER, t.s.b, params2, 2);
  r2.label_len = s2.label_len = 24;
  r2.setup = first.receiver_setup;
  s2.setup = first.sender_setup;
  s2.skip_set_labels = true;
  Outcome second = run_psi("ecdh", r2, s2);
  ASSERT_EQ(second.status, PSI_OK) << second.error;
  EXPECT_EQ(second.receiver, want_idx);
  EXPECT_EQ(second.labels, want_labels);
  // the sender with an imported setup refuses new labels: they are in the setup already
  s2.skip_set_labels = false;
  s2.labels = t.labels;
  Outcome refused = run_psi("ecdh", r2, s2);
  EXPECT_EQ(refused.status, PSI_ERR_STATE) << refused.error;
}

// ---------------------------------------------------------------------------------------------
// labels.h alone: a receiver that knows the OPRF values of its own elements tries every key it can
// derive (its own items' keys, and every content key it unpads) on every ciphertext in the
// message; only its matches' labels open.
class LabelMessage : public ::testing::TestWithParam<uint32_t> {};

TEST_P(LabelMessage, TamperedReceiverOpensOnlyItsMatches) {
  const uint32_t h = GetParam();
  const uint64_t nr = 50, ns = 60;
  const size_t L = 20;
  psi::LabelLayout lay;
  ASSERT_TRUE(psi::LabelLayout::make(40, nr, ns, h, L, &lay).is_ok());
  uint8_t instance[32] = {7};
  std::mt19937_64 rng(99);
  auto rand_block = [&] { return psi::make_block(rng(), rng()); };
  // sender: h OPRF values per element; the receiver holds values of elements 0..19 (one each)
  std::vector<psi::Block> F(ns * h);
  for (auto& f : F) f = rand_block();
  std::vector<uint8_t> labels(ns * L);
  for (auto& b : labels) b = uint8_t(rng());
  psi::LabelSender snd;
  ASSERT_TRUE(snd.set(lay, labels.data(), ns, L).is_ok());
  psi::Prg prg(psi::make_block(1, 2));
  snd.start(instance, "test", &prg);
  std::vector<uint32_t> pos(ns);  // label position of element e: a fixed permutation
  std::vector<uint32_t> elem_at(ns);
  for (uint32_t e = 0; e < ns; ++e) pos[e] = uint32_t((e * 7 + 3) % ns);
  for (uint32_t e = 0; e < ns; ++e) elem_at[pos[e]] = e;
  std::vector<uint8_t> msg(lay.message_bytes());
  if (lay.direct()) {
    // record p: element elem_at[p], whose OPRF value is F[elem_at[p]]
    std::vector<psi::Block> Fo(ns);
    for (uint32_t p = 0; p < ns; ++p) Fo[p] = F[elem_at[p]];
    snd.direct_records(Fo.data(), elem_at.data(), ns, msg.data());
  } else {
    // key records: table j, element e at index j*ns + pos[e]
    std::vector<psi::Block> Fo(ns * h);
    std::vector<uint32_t> po(ns * h);
    for (uint32_t j = 0; j < h; ++j)
      for (uint32_t e = 0; e < ns; ++e) {
        Fo[j * ns + pos[e]] = F[e * h + j];
        po[j * ns + pos[e]] = pos[e];
      }
    snd.key_records(Fo.data(), po.data(), ns * h, msg.data());
    snd.label_records(elem_at.data(), 0, ns, msg.data() + ns * h * lay.key_record_bytes());
  }
  // receiver: items 0..19 are sender elements 0..19 (via value j = e % h), 20..49 are not held
  std::vector<psi::Block> own(nr);
  for (uint64_t i = 0; i < nr; ++i) own[i] = i < 20 ? F[i * h + (i % h)] : rand_block();
  psi::LabelReceiver rcv;
  rcv.start(lay, instance, "test", own.data(), nr);
  ASSERT_TRUE(rcv.absorb(psi::ByteView(msg.data(), msg.size()), "t").is_ok());
  ASSERT_TRUE(rcv.finish("t").is_ok());
  std::vector<uint64_t> want(20);
  for (uint64_t i = 0; i < 20; ++i) want[i] = i;
  EXPECT_EQ(rcv.result(), want);
  EXPECT_EQ(rcv.labels(), std::vector<uint8_t>(labels.begin(), labels.begin() + 20 * L));
  // the attack: every key derivable from the receiver's values (k1|k2 of each, and each content
  // key unpadded from every key record with each of them) against every ciphertext
  psi::LabelDerive d;
  d.init(instance, "test");
  std::vector<psi::Block> tags(nr), keys(2 * nr);
  d.derive(own.data(), nr, tags.data(), keys.data());
  std::vector<std::array<uint8_t, 16>> cand;
  for (uint64_t i = 0; i < nr; ++i) {
    std::array<uint8_t, 32> k;
    psi::store_block(k.data(), keys[2 * i]);
    psi::store_block(k.data() + 16, keys[2 * i + 1]);
    for (int half = 0; half < 2; ++half) {  // k1 (the AEAD key), and k2 for good measure
      std::array<uint8_t, 16> a;
      std::memcpy(a.data(), k.data() + 16 * half, 16);
      cand.push_back(a);
    }
    if (!lay.direct())
      for (uint64_t r = 0; r < lay.key_records(); ++r) {
        const uint8_t* rec = msg.data() + r * lay.key_record_bytes() + lay.tag_bytes;
        uint8_t c[16];
        for (int b = 0; b < 16; ++b) c[b] = rec[b] ^ k[b];
        std::array<uint8_t, 16> ck;
        d.content_key(psi::load_block(c), ck.data());
        cand.push_back(ck);
      }
  }
  std::vector<const uint8_t*> cts;
  for (uint64_t r = 0; r < lay.key_records(); ++r)
    if (lay.direct()) cts.push_back(msg.data() + r * lay.key_record_bytes() + lay.tag_bytes);
  for (uint64_t p = 0; p < lay.label_records(); ++p)
    cts.push_back(msg.data() + lay.key_records() * lay.key_record_bytes() +
                  p * lay.label_record_bytes());
  std::set<std::vector<uint8_t>> opened;
  for (const uint8_t* ct : cts)
    for (const auto& k : cand) {
      std::vector<uint8_t> out(L);
      if (psi::aes128gcm_open(k.data(), ct, L, out.data())) opened.insert(out);
    }
  std::set<std::vector<uint8_t>> mine;
  for (size_t e = 0; e < 20; ++e)
    mine.insert(std::vector<uint8_t>(labels.begin() + e * L, labels.begin() + (e + 1) * L));
  EXPECT_EQ(opened, mine);
}

INSTANTIATE_TEST_SUITE_P(DirectAndIndirect, LabelMessage, ::testing::Values(1u, 3u, 5u));

}  // namespace
