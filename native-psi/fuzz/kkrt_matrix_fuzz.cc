// Fuzzes the sender's parse of the OT-extension matrix U (online round 0 -> 1).
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* s = online(PSI_ROLE_SENDER);
  psi_session* r = online(PSI_ROLE_RECEIVER);
  std::vector<uint8_t> u = matrix_of(r);
  psi_session_free(r);
  feed_raw_or_mutated(s, PSI_PHASE_ONLINE, 1, std::move(u), data, size);
  psi_session_free(s);
  return 0;
}
