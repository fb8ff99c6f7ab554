// registry.cc — the protocols of the C ABI: each one's self-description (psi_protocol_info) and its
// factory. A new protocol registers here and nowhere else: callers (the JVM binding, the job, the
// coordinator) list, select and validate protocols from this table.
#include <string>

#include "ecdh/ecdh_psi.h"
#include "kkrt/kkrt_psi.h"
#include "mpsi/mpsi_psi.h"
#include "protocol.h"
#include "rr22/rr22_psi.h"

namespace psi {
namespace {

using Factory = std::unique_ptr<Protocol> (*)(psi_role, const Params&, const uint8_t[32], Status*);

struct Entry {
  psi_protocol_description info;
  Factory make;
};

// Immutable; the order is the index order of psi_protocol_info, and index 0 is the default.
const Entry kProtocols[] = {
    {{"rr22",
      "RR22 VOLE-based PSI (OKVS, silent VOLE from expand-convolute LPN): least traffic and time, "
      "setup reusable across bins",
      2,
      2,
      {PSI_ROLE_RECEIVER, PSI_ROLE_SENDER, 0, 0},
      PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_LABELS,
      PSI_OUTPUT_RECEIVER,
      0,
      1,
      16,
      16,
      uint64_t(1) << 28,
      "receiver_size,sender_size,instance,output,label,sigma,piece,threads"},
     make_rr22},
    {{"kkrt",
      "KKRT16 OPRF-based PSI (cuckoo hashing, OT extension): fast, setup reusable across bins",
      2,
      2,
      {PSI_ROLE_RECEIVER, PSI_ROLE_SENDER, 0, 0},
      PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_LABELS,
      PSI_OUTPUT_RECEIVER,
      0,
      1,
      16,
      16,
      uint64_t(1) << 28,
      "receiver_size,sender_size,instance,output,label,sigma,hashes,slots,separate_tables,"
      "bin_factor,stash"},
     make_kkrt},
    {{"ecdh",
      "ECDH (ristretto255 DDH) PSI with a GCS/Bloom setup filter: small traffic, cardinality-only "
      "output",
      2,
      2,
      {PSI_ROLE_RECEIVER, PSI_ROLE_SENDER, 0, 0},
      PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_CARDINALITY | PSI_OUTPUT_LABELS,
      PSI_OUTPUT_RECEIVER,
      1,
      1,
      1,
      4096,
      uint64_t(1) << 32,
      "receiver_size,sender_size,instance,output,label,fpr,filter"},
     make_ecdh},
    {{"mpsi",
      "Multiparty PSI through an outsourcing provider (Bloom filters, threshold exponential "
      "ElGamal over ristretto255): n parties, the provider learns nothing",
      0,
      2,
      {PSI_ROLE_PARTY, PSI_ROLE_PROVIDER, 0, 0},
      PSI_OUTPUT_BOTH,
      PSI_OUTPUT_BOTH,
      0,
      0,
      1,
      4096,
      uint64_t(1) << 22,
      "parties,index,set_size,fpr,fill,instance,output"},
     make_mpsi},
};

constexpr size_t kCount = sizeof kProtocols / sizeof kProtocols[0];

std::string known_names() {
  std::string s;
  for (const Entry& e : kProtocols) s += (s.empty() ? "" : ", ") + std::string(e.info.name);
  return s;
}

}  // namespace

size_t protocol_count() { return kCount; }

const psi_protocol_description* protocol_info_at(size_t index) {
  return index < kCount ? &kProtocols[index].info : nullptr;
}

const psi_protocol_description* find_protocol_info(const char* name) {
  if (name == nullptr) return nullptr;
  for (const Entry& e : kProtocols)
    if (std::string(e.info.name) == name) return &e.info;
  return nullptr;
}

std::unique_ptr<Protocol> make_protocol(const std::string& name, psi_role role,
                                        const Params& params, const uint8_t seed[32],
                                        Status* status) {
  for (const Entry& e : kProtocols)
    if (name == e.info.name) return e.make(role, params, seed, status);
  *status = argument_error("unknown protocol '" + name + "' (known: " + known_names() + ")");
  return nullptr;
}

}  // namespace psi
