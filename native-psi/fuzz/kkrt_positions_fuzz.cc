// Fuzzes the sender's parse of the matched positions (online round 2 -> 3, output=both).
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  push(s, PSI_PHASE_ONLINE, 1, matrix_of(r));
  pull(s, PSI_PHASE_ONLINE, 1);
  psi_session_free(r);
  feed_fuzz(s, PSI_PHASE_ONLINE, 3, data, size);
  uint64_t n = 0;
  check(psi_result_size(s, &n));
  psi_session_free(s);
  return 0;
}
