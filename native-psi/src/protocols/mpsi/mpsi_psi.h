// mpsi_psi.h — multiparty PSI through an outsourcing provider (Miyaji, Nakasho, Nishida 2017,
// "Privacy-Preserving Integration of Medical Data", seed multiparty-psi-outsourcing.txt), with
// exponential ElGamal over ristretto255 and (n, n)-threshold decryption.
//
// Roles: PSI_ROLE_PARTY (parameter index = i of parties = n; holds a set, learns which of its
// elements all n parties hold) and PSI_ROLE_PROVIDER (holds nothing, learns nothing). Every message
// goes between one party and the provider; the provider's messages are the same for every party
// (broadcast), and it takes the parties' messages with psi_round_feed_from.
//
// Every party holds a Bloom filter BF_i of `bits` positions with `hashes` positions per element
// (filter_shape below), keyed by the parties' group secret and the run's instance. Points on the
// wire are ristretto255 encodings (32 bytes); those a party sends to the provider, and the
// provider's round-1 points, carry a decoding hint (32 bytes, group/ristretto.h) so that the
// receiver checks them without a field exponentiation.
//
// Setup (once per group of parties; psi_setup_export/import carry it to every bin):
//   round 0, party i:   Y_i = x_i G with a Schnorr proof of knowledge of x_i bound to (n, i):
//                       Y_i | R | z (96 bytes)
//   round 1, provider:  checks every proof; sends the n records in index order (n * 96 bytes)
//   round 2, party:     checks the list (its own record at i, every proof); joint key
//                       Y = sum Y_i; sends nothing
// Online (one bin; instance unique per run):
//   round 0, party:     for each position j: (u, v) = (rho G, (BF_i[j] - 1) G + rho Y), rho fresh;
//                       bits * (u | hint | v | hint)
//   round 1, provider:  U_j = sum u, V_j = sum v over the n parties; r_j fresh per position;
//                       sends u'_j = r_j U_j (bits * (point | hint)), keeps W_j = r_j V_j
//   round 2, party:     where BF_i[j] = 1, its decryption share S_j = x_i u'_j (party 0 adds the
//                       blind 4 d_j G, d_j derived from the group secret: the provider never sees
//                       an unblinded sum); where BF_i[j] = 0, a random point instead: that
//                       position cannot decrypt to the identity anyway, and the random point looks
//                       like a share to the provider. bits * (point | hint)
//   round 3, provider:  Q_j = W_j - sum S_j = r_j (sum BF[j] - n) G - 4 d_j G; sends bits * point
//   round 4, party:     position j is in every filter iff Q_j = -4 d_j G; an element is in the
//                       intersection iff all its positions are. Sends nothing.
// (On the wire every point is sent as 2P for a P the sender computed, the price of encoding a
// batch with one inversion; the scalars are halved accordingly, which changes nothing above.)
//
// What each role learns (docs/security.md): the provider sees ciphertexts, shares and blinded
// differences only. A party learns, for each position, whether all n parties set it (the AND of
// the n filters; the intersection is read from it) and nothing else. Semi-honest roles, no
// collusion of the provider with a party.
#pragma once

#include <cstdint>
#include <memory>

#include "../protocol.h"

namespace psi {

std::unique_ptr<Protocol> make_mpsi(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status);

namespace mpsi {

// Bloom filter shape for `set_size` elements per party with a per-element false-positive rate of
// at most `fpr`: the smallest number of positions over integer hash counts k, each with the fewest
// positions m for which (1 - e^{-k w / m})^k <= fpr (a fill near 1/2). An element one party lacks
// passes only when that party's filter has all its k positions set, so the rate per element is that
// of one filter, whatever n is. With fill f in (0, 0.5]: the filters are filled to f instead,
// k = ceil(log fpr / log f) and m as above: more positions, less for a party to read from the AND
// of the filters (docs/protocols.md, "Leakage").
struct FilterShape {
  uint64_t bits = 0;
  uint32_t hashes = 0;
};
FilterShape filter_shape(uint64_t set_size, double fpr, double fill = 0);

}  // namespace mpsi
}  // namespace psi
