// ecdh_fuzz_common.h — brings a pair of ecdh sessions (12 client x 24 server elements, output=both)
// to the state just before the round a fuzz target attacks, so each target feeds arbitrary bytes to
// one parser. The setup runs once per process; every input then uses fresh sessions that import it.
// The generic helpers (pull, push, exported, feed_fuzz, feed_raw_or_mutated) come from
// round_fuzz_common.h.
#pragma once

#include "round_fuzz_common.h"

namespace ecdh_fuzz {

using round_fuzz::exported;
using round_fuzz::feed_fuzz;
using round_fuzz::feed_raw_or_mutated;
using round_fuzz::pull;
using round_fuzz::push;

constexpr size_t kClient = 12, kServer = 24;
inline const char* params() { return "receiver_size=12,sender_size=24,output=both,filter=gcs"; }

inline psi_session* make(int role, uint8_t seed_byte, const char* p = params()) {
  uint8_t seed[32];
  std::memset(seed, seed_byte, 32);
  psi_session* s = nullptr;
  if (psi_session_create("ecdh", role, p, seed, 32, &s, nullptr, 0) != PSI_OK) std::abort();
  return s;
}

// Distinct elements; the first half of the client's are the server's.
inline void input(psi_session* s, int role) {
  const size_t n = role == PSI_ROLE_RECEIVER ? kClient : kServer;
  std::vector<uint8_t> elems(n * 16, 0x5a);
  for (size_t k = 0; k < n; ++k) {
    elems[16 * k] = uint8_t(k);
    elems[16 * k + 1] = role == PSI_ROLE_SENDER || k < kClient / 2 ? 0 : 1;
  }
  if (psi_set_input(s, elems.data(), n, 16) != PSI_OK) std::abort();
}

struct Setup {
  std::vector<uint8_t> message, receiver, sender;
};

inline const Setup& setup() {
  static const Setup blobs = [] {
    Setup b;
    psi_session* r = make(PSI_ROLE_RECEIVER, 1);
    psi_session* s = make(PSI_ROLE_SENDER, 2);
    input(s, PSI_ROLE_SENDER);
    if (psi_round_feed(s, PSI_PHASE_SETUP, 0, nullptr, 0, 1) != PSI_OK) std::abort();
    b.message = pull(s, PSI_PHASE_SETUP, 0);
    push(r, PSI_PHASE_SETUP, 1, b.message);
    pull(r, PSI_PHASE_SETUP, 1);
    b.receiver = exported(r);
    b.sender = exported(s);
    psi_session_free(r);
    psi_session_free(s);
    return b;
  }();
  return blobs;
}

// A fresh session of `role` with the shared setup imported and its input set.
inline psi_session* online(int role) {
  psi_session* s = make(role, uint8_t(3 + role));
  const std::vector<uint8_t>& blob = role == PSI_ROLE_RECEIVER ? setup().receiver : setup().sender;
  if (psi_setup_import(s, blob.data(), blob.size()) != PSI_OK) std::abort();
  input(s, role);
  return s;
}

inline std::vector<uint8_t> request_of(psi_session* r) {
  if (psi_round_feed(r, PSI_PHASE_ONLINE, 0, nullptr, 0, 1) != PSI_OK) std::abort();
  return pull(r, PSI_PHASE_ONLINE, 0);
}

}  // namespace ecdh_fuzz
