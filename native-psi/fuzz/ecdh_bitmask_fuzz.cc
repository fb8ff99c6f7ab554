// Fuzzes the client's parse of the server's genuine-match bitmask (output=both, online round 3 ->
// 4).
#include "ecdh_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ecdh_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  push(s, PSI_PHASE_ONLINE, 1, request_of(r));
  push(r, PSI_PHASE_ONLINE, 2, pull(s, PSI_PHASE_ONLINE, 1));
  push(s, PSI_PHASE_ONLINE, 3, pull(r, PSI_PHASE_ONLINE, 2));
  std::vector<uint8_t> mask = pull(s, PSI_PHASE_ONLINE, 3);
  psi_session_free(s);
  feed_raw_or_mutated(r, PSI_PHASE_ONLINE, 4, std::move(mask), data, size);
  psi_session_free(r);
  return 0;
}
