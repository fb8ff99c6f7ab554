// kkrt_psi.h — KKRT PSI (Kolesnikov, Kumaresan, Rosulek, Trieu, CCS 2016) behind the round API.
//
// Setup (once per pair of parties; exportable):
//   round 0, receiver: A of the base OTs                                    (32 bytes)
//   round 1, sender:   B_0..B_511 of the base OTs, then a 32-byte shared seed (16416 bytes)
//   round 2, receiver: derives its base-OT key pairs; sends nothing
// Online (per bin):
//   round 0, receiver: cuckoo-hashes its set; sends the instance id and the OT-extension matrix U,
//                      one 64-byte row per OPRF instance (bins*slots + stash rows)
//   round 1, sender:   sends its OPRF outputs truncated to mask_bytes: for each hash function and
//                      slot, then each stash position, one mask per element, all tables in the same
//                      secret random order of the sender's elements; with output=labels instead
//                      the label message of labels.h (indirect format: a key record per mask,
//                      same layout, then one label record per element in the same order)
//   round 2, receiver: looks its own outputs up; with output=both sends the sorted positions that
//                      matched (u32 count, u32 each), else nothing
//   round 3, sender:   (output=both only) maps positions back to its element indices
#pragma once

#include <memory>

#include "../protocol.h"

namespace psi {

std::unique_ptr<Protocol> make_kkrt(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status);

}  // namespace psi
