// round_fuzz_common.h — brings a pair of sessions of a two-party protocol whose setup is
// independent of the sets (kkrt, rr22) to the state just before the round a fuzz target attacks, so
// each target feeds arbitrary bytes to exactly one parser. The setup (base OTs) runs once per
// process; every input then uses fresh sessions that import it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "psi_native.h"

namespace round_fuzz {

constexpr size_t kN = 24;

// The protocol a target attacks and its parameters (kN elements per side, output=both).
struct Target {
  const char* protocol;
  const char* params;
};
inline constexpr Target kKkrt{"kkrt", "receiver_size=24,sender_size=24,output=both,stash=2"};
inline constexpr Target kRr22{"rr22", "receiver_size=24,sender_size=24,output=both"};
// Labelled runs (output=labels): the sender's label message replaces its masks (labels.h): kkrt's
// in the indirect format (key records, then label records), rr22's in the direct one.
constexpr size_t kLabelLen = 20;
inline constexpr Target kKkrtLabels{
    "kkrt", "receiver_size=24,sender_size=24,output=labels,label=20,stash=2"};
inline constexpr Target kRr22Labels{"rr22",
                                    "receiver_size=24,sender_size=24,output=labels,label=20"};

inline bool labelled(const Target& t) { return std::strstr(t.params, "output=labels") != nullptr; }

inline void check(psi_status st) {
  // Errors are expected on hostile input; an internal error or a crash is a bug.
  if (st == PSI_ERR_INTERNAL || st == PSI_ERR_NO_MEMORY) std::abort();
}

inline psi_session* make(const Target& t, int role, uint8_t seed_byte) {
  uint8_t seed[32];
  std::memset(seed, seed_byte, 32);
  psi_session* s = nullptr;
  if (psi_session_create(t.protocol, role, t.params, seed, 32, &s, nullptr, 0) != PSI_OK)
    std::abort();
  return s;
}

inline std::vector<uint8_t> pull(psi_session* s, int phase, uint32_t round) {
  std::vector<uint8_t> out, buf(4096);
  for (;;) {
    size_t w = 0;
    int done = 0;
    if (psi_round_emit(s, phase, round, buf.data(), buf.size(), &w, &done) != PSI_OK) std::abort();
    out.insert(out.end(), buf.begin(), buf.begin() + w);
    if (done) return out;
  }
}

inline void push(psi_session* s, int phase, uint32_t round, const std::vector<uint8_t>& m) {
  if (psi_round_feed(s, phase, round, m.data(), m.size(), 1) != PSI_OK) std::abort();
}

// The session's completed setup, exported.
inline std::vector<uint8_t> exported(psi_session* s) {
  size_t len = 0;
  psi_setup_export(s, nullptr, 0, &len);
  std::vector<uint8_t> blob(len);
  if (psi_setup_export(s, blob.data(), len, &len) != PSI_OK) std::abort();
  return blob;
}

struct Setup {
  std::vector<uint8_t> receiver, sender;
};

// Runs the real setup once per protocol and keeps both exported blobs.
inline const Setup& setup(const Target& t) {
  static std::map<std::string, Setup> cache;  // by protocol and parameters
  const std::string key = std::string(t.protocol) + " " + t.params;
  auto it = cache.find(key);
  if (it == cache.end()) {
    Setup b;
    psi_session* r = make(t, PSI_ROLE_RECEIVER, 1);
    psi_session* s = make(t, PSI_ROLE_SENDER, 2);
    if (psi_round_feed(r, PSI_PHASE_SETUP, 0, nullptr, 0, 1) != PSI_OK) std::abort();
    push(s, PSI_PHASE_SETUP, 1, pull(r, PSI_PHASE_SETUP, 0));
    push(r, PSI_PHASE_SETUP, 2, pull(s, PSI_PHASE_SETUP, 1));
    pull(r, PSI_PHASE_SETUP, 2);
    b.receiver = exported(r);
    b.sender = exported(s);
    psi_session_free(r);
    psi_session_free(s);
    it = cache.emplace(key, std::move(b)).first;
  }
  return it->second;
}

// A fresh session of `role` with the shared setup imported and kN elements (half shared).
inline psi_session* online(const Target& t, int role) {
  psi_session* s = make(t, role, uint8_t(3 + role));
  const Setup& setups = setup(t);
  const std::vector<uint8_t>& blob = role == PSI_ROLE_RECEIVER ? setups.receiver : setups.sender;
  if (psi_setup_import(s, blob.data(), blob.size()) != PSI_OK) std::abort();
  // Distinct elements; the first half equal on both sides.
  std::vector<uint8_t> elems(kN * 16, 0x5a);
  for (size_t k = 0; k < kN; ++k) {
    elems[16 * k] = uint8_t(k);
    elems[16 * k + 1] = k < kN / 2 ? 0 : uint8_t(1 + role);
  }
  if (psi_set_input(s, elems.data(), kN, 16) != PSI_OK) std::abort();
  if (labelled(t) && role == PSI_ROLE_SENDER) {
    std::vector<uint8_t> labels(kN * kLabelLen);
    for (size_t k = 0; k < labels.size(); ++k) labels[k] = uint8_t(k * 7 + 1);
    if (psi_set_labels(s, labels.data(), kN, kLabelLen) != PSI_OK) std::abort();
  }
  return s;
}

// The receiver's online round 0: the OT-extension matrix it sends.
inline std::vector<uint8_t> first_message(psi_session* r) {
  if (psi_round_feed(r, PSI_PHASE_ONLINE, 0, nullptr, 0, 1) != PSI_OK) std::abort();
  return pull(r, PSI_PHASE_ONLINE, 0);
}

// Feeds data to (phase, round) in pieces whose sizes come from the data's first byte.
inline void feed_fuzz(psi_session* s, int phase, uint32_t round, const uint8_t* data, size_t size) {
  size_t piece = size ? size_t(data[0]) + 1 : 1;
  size_t off = 0;
  psi_status st = PSI_OK;
  while (off < size && st == PSI_OK) {
    size_t n = size - off < piece ? size - off : piece;
    st = psi_round_feed(s, phase, round, data + off, n, off + n == size);
    off += n;
  }
  if (size == 0) st = psi_round_feed(s, phase, round, nullptr, 0, 1);
  check(st);
  if (st == PSI_OK) {  // a well-formed message: the session must carry on without crashing
    std::vector<uint8_t> buf(4096);
    for (int k = 0; k < 100000; ++k) {
      size_t w = 0;
      int done = 0;
      st = psi_round_emit(s, phase, round, buf.data(), buf.size(), &w, &done);
      check(st);
      if (st != PSI_OK || done) break;
    }
  }
}

// Feeds either the raw fuzz bytes or, when the first byte is odd, the honest message with the rest
// of the bytes xored in (and any excess appended), so parsing also gets past the length checks.
inline void feed_raw_or_mutated(psi_session* s, int phase, uint32_t round,
                                std::vector<uint8_t> honest, const uint8_t* data, size_t size) {
  if (size > 0 && (data[0] & 1)) {
    for (size_t i = 1; i < size && i - 1 < honest.size(); ++i) honest[i - 1] ^= data[i];
    if (size > honest.size() + 1)
      honest.insert(honest.end(), data + honest.size() + 1, data + size);
    feed_fuzz(s, phase, round, honest.data(), honest.size());
  } else {
    feed_fuzz(s, phase, round, data, size);
  }
}

// The setup parsers: first byte odd, the sender parses the receiver's first message; even, the
// receiver parses the sender's reply (base-OT points, shared seed).
inline void fuzz_setup(const Target& t, const uint8_t* data, size_t size) {
  if (size == 0) return;
  if (data[0] & 1) {
    psi_session* s = make(t, PSI_ROLE_SENDER, 2);
    feed_fuzz(s, PSI_PHASE_SETUP, 1, data + 1, size - 1);
    psi_session_free(s);
  } else {
    psi_session* r = make(t, PSI_ROLE_RECEIVER, 1);
    if (psi_round_feed(r, PSI_PHASE_SETUP, 0, nullptr, 0, 1) != PSI_OK) std::abort();
    pull(r, PSI_PHASE_SETUP, 0);
    feed_fuzz(r, PSI_PHASE_SETUP, 2, data + 1, size - 1);
    psi_session_free(r);
  }
}

// Runs the honest online rounds before `round`, then feeds the fuzz bytes (raw or mutating the
// honest message, see feed_raw_or_mutated) to the owner of `round` (>= 1) and returns that session
// for the caller's checks (the caller frees it).
inline psi_session* fuzz_online(const Target& t, uint32_t round, const uint8_t* data, size_t size) {
  psi_session* party[2] = {online(t, PSI_ROLE_RECEIVER), online(t, PSI_ROLE_SENDER)};
  auto owner = [&](uint32_t r) {
    int mine = 0;
    if (psi_round_is_mine(party[0], PSI_PHASE_ONLINE, r, &mine) != PSI_OK) std::abort();
    return mine ? party[0] : party[1];
  };
  std::vector<uint8_t> msg = first_message(owner(0));
  for (uint32_t r = 1; r < round; ++r) {
    push(owner(r), PSI_PHASE_ONLINE, r, msg);
    msg = pull(owner(r), PSI_PHASE_ONLINE, r);
  }
  psi_session* target = owner(round);
  psi_session_free(target == party[0] ? party[1] : party[0]);
  feed_raw_or_mutated(target, PSI_PHASE_ONLINE, round, std::move(msg), data, size);
  return target;
}

}  // namespace round_fuzz
