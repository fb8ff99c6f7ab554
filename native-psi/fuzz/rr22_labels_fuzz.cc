// Fuzzes the rr22 receiver's parse of a label message in the direct format (online round 3 -> 4,
// output=labels): records of tag | label ciphertext, matched by tag and opened (labels.h).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session* r = round_fuzz::fuzz_online(round_fuzz::kRr22Labels, 4, data, size);
  size_t len = 0;
  round_fuzz::check(psi_result_labels(r, nullptr, 0, &len));
  psi_session_free(r);
  return 0;
}
