// Fuzzes the kkrt receiver's parse of a label message in the indirect format (online round 1 -> 2,
// output=labels): key records matched by tag and unpadded, then label records opened (labels.h).
#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  psi_session* r = round_fuzz::fuzz_online(round_fuzz::kKkrtLabels, 2, data, size);
  size_t len = 0;
  // whatever the message, asking for the labels never crashes
  round_fuzz::check(psi_result_labels(r, nullptr, 0, &len));
  psi_session_free(r);
  return 0;
}
