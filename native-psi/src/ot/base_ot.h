// base_ot.h — random 1-out-of-2 base OTs over ristretto255 (libsodium): the "simplest OT" of Chou
// and Orlandi (LATINCRYPT 2015), semi-honest, with keys hashed together with the OT index and the
// transcript. Two messages:
//   OT sender   -> OT receiver : A = a*G                                  (32 bytes)
//   OT receiver -> OT sender   : B_i = b_i*G + c_i*A for i < count         (32*count bytes)
// Sender outputs k0_i = H(i, A, B_i, a*B_i), k1_i = H(i, A, B_i, a*(B_i - A)); receiver outputs
// k_{c_i} = H(i, A, B_i, b_i*A). H is BLAKE2b with a 16-byte output.
// In KKRT the PSI receiver is the base-OT sender and the PSI sender the base-OT receiver.
// Every peer message is validated: exact length, canonical encodings of valid non-identity points.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "../core/block.h"
#include "../core/bytes.h"
#include "../core/prg.h"
#include "../core/status.h"

namespace psi {

class BaseOtSender {
 public:
  // count > 0 OTs; randomness drawn from rng.
  BaseOtSender(size_t count, Prg& rng);
  ~BaseOtSender();
  // The first message, A (32 bytes).
  std::vector<uint8_t> first_message() const;
  // Consumes the receiver's message; on success fills keys[i] = {k0_i, k1_i}.
  Status finish(ByteView receiver_message, std::vector<std::array<Block, 2>>* keys);

 private:
  size_t count_;
  uint8_t a_[32];  // scalar
  uint8_t A_[32];  // point
};

class BaseOtReceiver {
 public:
  // choices[i] in {0,1}; randomness drawn from rng.
  BaseOtReceiver(std::vector<uint8_t> choices, Prg& rng);
  ~BaseOtReceiver();
  // Consumes A, produces the reply (32*count bytes) and keys[i] = k_{c_i}.
  Status respond(ByteView sender_message, std::vector<uint8_t>* reply, std::vector<Block>* keys);

 private:
  std::vector<uint8_t> choices_;
  Prg* rng_;
};

}  // namespace psi
