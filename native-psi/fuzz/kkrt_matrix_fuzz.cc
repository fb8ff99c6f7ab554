// Fuzzes the sender's parse of the OT-extension matrix U (online round 0 -> 1).
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* s = online(PSI_ROLE_SENDER);
  // Mostly the real matrix with the fuzz bytes xored in, so parsing goes past the length checks.
  psi_session* r = online(PSI_ROLE_RECEIVER);
  if (psi_round_feed(r, PSI_PHASE_ONLINE, 0, nullptr, 0, 1) != PSI_OK) std::abort();
  std::vector<uint8_t> u = pull(r, PSI_PHASE_ONLINE, 0);
  psi_session_free(r);
  if (size > 0 && (data[0] & 1)) {
    for (size_t i = 1; i < size && i - 1 < u.size(); ++i) u[i - 1] ^= data[i];
    if (size > u.size() + 1) u.insert(u.end(), data + u.size() + 1, data + size);
    feed_fuzz(s, PSI_PHASE_ONLINE, 1, u.data(), u.size());
  } else {
    feed_fuzz(s, PSI_PHASE_ONLINE, 1, data, size);
  }
  psi_session_free(s);
  return 0;
}
