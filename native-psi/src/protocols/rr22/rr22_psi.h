// rr22_psi.h — VOLE-based PSI (Raghuraman, Rindal, "Blazing Fast PSI from Improved OKVS and
// Subfield VOLE", CCS 2022; Rindal, Schoppmann, "VOLE-PSI", Eurocrypt 2021) behind the round API,
// semi-honest. The receiver encodes its set in an OKVS P with decode(P, x) = Hv(x); a silent VOLE
// of length m = |P| gives the receiver (a, c) and the sender (b, Delta) with c = b + a * Delta; the
// receiver sends P + a, the sender computes K = b + (P + a) * Delta = c + P * Delta, and its OPRF
// of y is H(decode(K, y) + Hv(y) * Delta, y), which equals the receiver's H(decode(c, x), x)
// exactly when y = x. See docs/protocols.md, "rr22".
//
// Setup (once per pair of parties; exportable):
//   round 0, receiver: A of 128 base OTs                                        (32 bytes)
//   round 1, sender:   B_0..B_127 of the base OTs, then a 32-byte shared seed  (4128 bytes)
//   round 2, receiver: derives its base-OT key pairs; sends nothing
// Online (per bin). The VOLE runs in pieces of at most kRr22PieceMax outputs, each with its own
// trees and code, so that memory stays bounded:
//   round 0, receiver: the instance (32 bytes), then per piece the IKNP matrix of its correlated
//                      OTs (16 bytes per OT)
//   round 1, sender:   per piece, the silent VOLE message (GGM level ciphertexts, corrections)
//   round 2, receiver: P + a (16 m bytes)
//   round 3, sender:   its OPRF outputs truncated to mask_bytes, one per element, in a secret
//                      random order; with output=labels instead the label message of labels.h
//                      (direct format: tag | label ciphertext per element, same order)
//   round 4, receiver: looks its own outputs up; with output=both sends claims (u32 count, then u32
//                      position | u64 proof, ascending), else nothing (output=labels: opens the
//                      labels of its matches)
//   round 5, sender:   (output=both only) verifies the claims and maps positions to its indices
#pragma once

#include <memory>

#include "../protocol.h"

namespace psi {

std::unique_ptr<Protocol> make_rr22(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status);

}  // namespace psi
