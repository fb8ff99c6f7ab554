// ecdh_psi.h — DDH-based PSI and PSI-cardinality over ristretto255 (libsodium), after the OpenMined
// asymmetric PSI (Protocol 1): the server (PSI_ROLE_SENDER) publishes its set, hashed to the group
// and raised to its key k, compressed as a Golomb-compressed set or a Bloom filter; the client
// (PSI_ROLE_RECEIVER) blinds H(x) with its session scalar r, the server re-keys to H(x)^{rk}, the
// client unblinds with r^{-1} and tests H(x)^k against the filter.
//
// Setup (depends on the sender's set: the sender calls psi_set_input before setup round 0):
//   round 0, sender:   H(y)^k for its set, encoded as the filter; sends the setup message
//                      "pse1" | setup id (8) | varint sender_size | varint queries | u8 filter (1
//                      gcs, 2 bloom) | filter (set_filter.h); queries = the sender's receiver_size:
//                      the filter serves any client of at most that many elements
//   round 1, receiver: checks the setup message (header against its own sizes and fpr, every code);
//                      sends nothing
// Online (per client query set; the 256-bit instance must match, see psi_native.h; the client's
// blinding scalar and the cardinality shuffle are derived from the seed and the instance):
//   round 0, receiver: instance (32) | setup id (8) | u64 count | count blinded points H(x)^r (32
//   each) round 1, sender:   setup id (8) | instance (32) | u64 count | count points H(x)^{rk}, in
//   request
//                      order, or (output=cardinality) in a secret random order
//   round 2, receiver: unblinds, tests the filter; output=both: sends u64 m | the m matching H(x)^k
//   in
//                      ascending client index order, else nothing (last round)
//   round 3, sender:   (output=both) looks them up in its exact table of H(y)^k: its indices; sends
//                      u64 m | ceil(m/8) bytes, bit j set iff value j was genuine
//   round 4, receiver: (output=both) drops the filter's false positives; sends nothing
//
// output=labels (see labels.h and psi_set_labels): the setup message carries, in place of the
// filter, kind byte 3, varint label length, then the direct label message of labels.h (per sender
// element, in a secret order: tag | AES-128-GCM label under keys derived from F(y) =
// BLAKE2b-128(H(y)^k) and the setup id), sized for `queries` client elements; so psi_set_labels
// must precede the setup round. The online rounds are those of output=receiver; in round 2 the
// client opens the labels of its elements whose tags it finds. The sender learns nothing.
//
// psi_setup_export: the sender's blob carries k, the setup message and its exact table (so a static
// set is hashed and keyed once for any number of client queries, its psi_set_input must then be the
// same array: checked by digest); the receiver's carries the checked setup message. Key rotation: a
// sender session with a fresh seed has a fresh k and setup id; a client still holding the old setup
// is refused by the sender (setup id mismatch, PSI_ERR_PEER_MESSAGE) and must take the new setup.
#pragma once

#include <memory>

#include "../protocol.h"

namespace psi {

std::unique_ptr<Protocol> make_ecdh(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status);

}  // namespace psi
