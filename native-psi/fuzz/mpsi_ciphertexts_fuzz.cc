// Fuzzes the provider's parse of party 0's encrypted filter (mpsi online round 1).
#include "mpsi_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mpsi_fuzz::fuzz_round(PSI_PHASE_ONLINE, 1, data, size);
  return 0;
}
