// Fuzzes the sender's parse and verification of the receiver's claims (online round 2 -> 3,
// output=both: u32 count | count x (u32 position | u64 proof)). Raw bytes, or (first byte odd) the
// honest claims with the rest xored in, so the proof check is reached with real positions.
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  push(s, PSI_PHASE_ONLINE, 1, matrix_of(r));
  push(r, PSI_PHASE_ONLINE, 2, pull(s, PSI_PHASE_ONLINE, 1));
  std::vector<uint8_t> claims = pull(r, PSI_PHASE_ONLINE, 2);
  psi_session_free(r);
  feed_raw_or_mutated(s, PSI_PHASE_ONLINE, 3, std::move(claims), data, size);
  uint64_t n = 0;
  check(psi_result_size(s, &n));
  if (n > kN) std::abort();
  psi_session_free(s);
  return 0;
}
