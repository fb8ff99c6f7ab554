// Fuzzes the Golomb-compressed-set parser directly: the range it expects is read from the input's own
// header (so the fuzzer gets past the header check), then the whole message is validated and looked up.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "protocols/ecdh/set_filter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psi::ecdh;
  psi::ByteView v(data, size);
  size_t pos = 0;
  u128 count = 0, range = 0;
  if (!read_varint(v, &pos, &count) || !read_varint(v, &pos, &range) || range == 0) range = 1000;
  psi::Status st = gcs_validate(v, range, 1 << 16);
  std::vector<FilterKey> q(8);
  for (size_t i = 0; i < q.size(); ++i) q[i].lo = i * 977;
  std::vector<uint8_t> hits;
  psi::Status st2 = gcs_lookup(v, range, 1 << 16, q, &hits);
  if (st.is_ok() != st2.is_ok()) std::abort();  // lookup validates exactly like validate
  if (!st.is_ok() && st.code() != PSI_ERR_PEER_MESSAGE) std::abort();
  return 0;
}
