// Fuzzes the sender's parse of the OT-extension matrix U (online round 0 -> 1).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kKkrt, 1, data, size));
  return 0;
}
