// Fuzzes the sender's parse and verification of the receiver's claims (online round 2 -> 3,
// output=both: u32 count | count x (u32 position | u64 proof)). Raw bytes, or (first byte odd) the
// honest claims with the rest xored in, so the proof check is reached with real positions.
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session* s = round_fuzz::fuzz_online(round_fuzz::kKkrt, 3, data, size);
  uint64_t n = 0;
  round_fuzz::check(psi_result_size(s, &n));
  if (n > round_fuzz::kN) std::abort();
  psi_session_free(s);
  return 0;
}
