// Fuzzes the KKRT setup messages: the sender's parse of A and the receiver's parse of B || seed.
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  if (size == 0) return 0;
  if (data[0] & 1) {
    psi_session* s = make(PSI_ROLE_SENDER, 2);
    feed_fuzz(s, PSI_PHASE_SETUP, 1, data + 1, size - 1);
    psi_session_free(s);
  } else {
    psi_session* r = make(PSI_ROLE_RECEIVER, 1);
    if (psi_round_feed(r, PSI_PHASE_SETUP, 0, nullptr, 0, 1) != PSI_OK) std::abort();
    pull(r, PSI_PHASE_SETUP, 0);
    feed_fuzz(r, PSI_PHASE_SETUP, 2, data + 1, size - 1);
    psi_session_free(r);
  }
  return 0;
}
