// Fuzzes the Golomb-compressed-set parser directly: the range it expects is read from the input's
// own header (so the fuzzer gets past the header check), then the whole message is validated and
// looked up, by the merge and by the checkpoint index, which must agree.
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
  std::vector<GcsCheckpoint> index;
  psi::Status st = gcs_validate(v, range, 1 << 16, &index);
  std::vector<FilterKey> q(8);
  for (size_t i = 0; i < q.size(); ++i) q[i].lo = i * 977 + (size > 8 ? data[size - 1 - i] : 0);
  std::vector<uint8_t> hits, hits2;
  psi::Status st2 = gcs_lookup(v, range, 1 << 16, q, &hits);
  if (st.is_ok() != st2.is_ok()) std::abort();  // lookup validates exactly like validate
  if (!st.is_ok() && st.code() != PSI_ERR_PEER_MESSAGE) std::abort();
  if (st.is_ok()) {
    if (!gcs_lookup_indexed(v, range, 1 << 16, index, q, &hits2).is_ok() || hits != hits2)
      std::abort();
  }
  return 0;
}
