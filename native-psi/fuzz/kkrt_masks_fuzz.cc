// Fuzzes the receiver's parse of the sender's masks (online round 1 -> 2).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kKkrt, 2, data, size));
  return 0;
}
