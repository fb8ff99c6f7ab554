// Fuzzes party 0's parse of the provider's key list (mpsi setup round 2).
#include "mpsi_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mpsi_fuzz::fuzz_round(PSI_PHASE_SETUP, 2, data, size);
  return 0;
}
