// Fuzzes the client's parse of the server's setup message (setup round 0 -> 1).
#include "ecdh_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ecdh_fuzz;
  psi_session* r = make(PSI_ROLE_RECEIVER, 5);
  feed_raw_or_mutated(r, PSI_PHASE_SETUP, 1, setup().message, data, size);
  psi_session_free(r);
  return 0;
}
