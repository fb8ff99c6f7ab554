// Fuzzes the receiver's parse of the sender's masks (online round 1 -> 2).
#include "kkrt_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kkrt_fuzz;
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  if (psi_round_feed(r, PSI_PHASE_ONLINE, 0, nullptr, 0, 1) != PSI_OK) std::abort();
  push(s, PSI_PHASE_ONLINE, 1, pull(r, PSI_PHASE_ONLINE, 0));
  std::vector<uint8_t> masks = pull(s, PSI_PHASE_ONLINE, 1);
  psi_session_free(s);
  if (size > 0 && (data[0] & 1)) {
    for (size_t i = 1; i < size && i - 1 < masks.size(); ++i) masks[i - 1] ^= data[i];
    if (size > masks.size() + 1) masks.insert(masks.end(), data + masks.size() + 1, data + size);
    feed_fuzz(r, PSI_PHASE_ONLINE, 2, masks.data(), masks.size());
  } else {
    feed_fuzz(r, PSI_PHASE_ONLINE, 2, data, size);
  }
  psi_session_free(r);
  return 0;
}
