// Fuzzes the rr22 receiver's parse and lookup of the sender's outputs (online round 3 -> 4).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kRr22, 4, data, size));
  return 0;
}
