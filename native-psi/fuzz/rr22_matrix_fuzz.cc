// Fuzzes the rr22 sender's parse of the instance and the IKNP matrices (online round 0 -> 1).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kRr22, 1, data, size));
  return 0;
}
