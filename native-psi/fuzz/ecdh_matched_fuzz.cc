// Fuzzes the server's parse of the client's matched values (output=both, online round 2 -> 3).
#include "ecdh_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ecdh_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  push(s, PSI_PHASE_ONLINE, 1, request_of(r));
  push(r, PSI_PHASE_ONLINE, 2, pull(s, PSI_PHASE_ONLINE, 1));
  std::vector<uint8_t> matched = pull(r, PSI_PHASE_ONLINE, 2);
  psi_session_free(r);
  feed_raw_or_mutated(s, PSI_PHASE_ONLINE, 3, std::move(matched), data, size);
  psi_session_free(s);
  return 0;
}
