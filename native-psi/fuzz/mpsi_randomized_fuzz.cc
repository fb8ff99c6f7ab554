// Fuzzes party 0's parse of the provider's randomized ciphertexts (mpsi online round 2).
#include "mpsi_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mpsi_fuzz::fuzz_round(PSI_PHASE_ONLINE, 2, data, size);
  return 0;
}
