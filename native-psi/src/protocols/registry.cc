// registry.cc — protocol names of the C ABI. A new protocol registers here and nowhere else.
#include "ecdh/ecdh_psi.h"
#include "kkrt/kkrt_psi.h"
#include "protocol.h"

namespace psi {

std::unique_ptr<Protocol> make_protocol(const std::string& name, psi_role role,
                                        const Params& params, const uint8_t seed[32],
                                        Status* status) {
  if (name == "kkrt") return make_kkrt(role, params, seed, status);
  if (name == "ecdh") return make_ecdh(role, params, seed, status);
  *status = argument_error("unknown protocol '" + name + "' (known: kkrt, ecdh)");
  return nullptr;
}

}  // namespace psi
