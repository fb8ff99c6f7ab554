// Fuzzes the rr22 sender's parse of P + a (online round 2 -> 3) and its outputs from it.
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kRr22, 3, data, size));
  return 0;
}
