// Fuzzes the rr22 receiver's parse of the silent VOLE messages (online round 1 -> 2): GGM
// level ciphertexts and corrections, then its VOLE and P + a from whatever it got.
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session_free(round_fuzz::fuzz_online(round_fuzz::kRr22, 2, data, size));
  return 0;
}
