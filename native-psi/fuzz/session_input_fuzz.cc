// Fuzzes what a caller hands the library: the parameter string, a setup blob to import, and input
// elements (duplicates, wrong lengths).
#include <string>

#include "round_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace round_fuzz;
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  ++data;
  --size;
  uint8_t seed[32] = {0};
  char err[256];
  psi_session* s = nullptr;
  if (mode == 0) {
    std::string p(reinterpret_cast<const char*>(data), size);
    psi_status st =
        psi_session_create("kkrt", PSI_ROLE_RECEIVER, p.c_str(), seed, 32, &s, err, sizeof err);
    check(st);
  } else if (mode == 1) {
    s = make(kKkrt, size > 0 ? data[0] & 1 : 0, 9);
    check(psi_setup_import(s, data, size));
  } else {
    s = make(kKkrt, PSI_ROLE_SENDER, 9);
    check(psi_setup_import(s, setup(kKkrt).sender.data(), setup(kKkrt).sender.size()));
    check(psi_set_input(s, data, size / 16, 16));
  }
  psi_session_free(s);
  return 0;
}
