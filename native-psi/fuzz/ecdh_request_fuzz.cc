// Fuzzes the server's parse of the client's blinded points (online round 0 -> 1).
#include "ecdh_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ecdh_fuzz;
  static const std::vector<uint8_t> honest = [] {
    psi_session* r = online(PSI_ROLE_RECEIVER);
    std::vector<uint8_t> m = request_of(r);
    psi_session_free(r);
    return m;
  }();
  psi_session* s = online(PSI_ROLE_SENDER);
  feed_raw_or_mutated(s, PSI_PHASE_ONLINE, 1, honest, data, size);
  psi_session_free(s);
  return 0;
}
