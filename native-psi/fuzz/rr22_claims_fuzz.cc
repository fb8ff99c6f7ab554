// Fuzzes the rr22 sender's parse and verification of the receiver's claims (online round 4 -> 5,
// output=both: u32 count | count x (u32 position | u64 proof)), raw or mutating the honest claims.
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session* s = round_fuzz::fuzz_online(round_fuzz::kRr22, 5, data, size);
  uint64_t n = 0;
  round_fuzz::check(psi_result_size(s, &n));
  if (n > round_fuzz::kN) std::abort();
  psi_session_free(s);
  return 0;
}
