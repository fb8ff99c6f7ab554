// Fuzzes the rr22 setup messages: the sender's parse of A and the receiver's parse of B || seed.
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  round_fuzz::fuzz_setup(round_fuzz::kRr22, data, size);
  return 0;
}
