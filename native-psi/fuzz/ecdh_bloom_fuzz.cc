// Fuzzes the Bloom filter parser directly: the shape it expects is read from the input's own
// header.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "protocols/ecdh/set_filter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace psi::ecdh;
  psi::ByteView v(data, size);
  size_t pos = 0;
  u128 bits = 0;
  BloomShape shape{64, 3};
  if (read_varint(v, &pos, &bits) && pos < size && bits > 0 && bits < (u128(1) << 40)) {
    shape.bits = uint64_t(bits);
    shape.hashes = data[pos];
  }
  psi::Status st = bloom_validate(v, shape);
  if (!st.is_ok()) {
    if (st.code() != PSI_ERR_PEER_MESSAGE) std::abort();
    return 0;
  }
  std::vector<FilterKey> q(8);
  for (size_t i = 0; i < q.size(); ++i) q[i].lo = i * 0x9e3779b97f4a7c15ull;
  std::vector<uint8_t> hits;
  bloom_lookup(v, q, &hits);
  return 0;
}
