// Fuzzes the receiver's parse of the sender's masks (online round 1 -> 2).
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  push(s, PSI_PHASE_ONLINE, 1, matrix_of(r));
  std::vector<uint8_t> masks = pull(s, PSI_PHASE_ONLINE, 1);
  psi_session_free(s);
  feed_raw_or_mutated(r, PSI_PHASE_ONLINE, 2, std::move(masks), data, size);
  psi_session_free(r);
  return 0;
}
