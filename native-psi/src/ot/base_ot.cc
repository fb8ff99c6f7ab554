// base_ot.cc — Chou–Orlandi "simplest OT" over ristretto255 (libsodium). See base_ot.h for the
// contract.
//
// Cost per OT: the receiver does one fixed-base multiplication (b_i*G) and one variable-base
// multiplication (b_i*A); the sender does one variable-base multiplication (a*B_i) and gets
// a*(B_i - A) = a*B_i - a*A with one point subtraction, a*A being computed once per finish().
// The receiver's choice bit only selects between two already computed encodings, in constant time.
#include "base_ot.h"

#include <sodium.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

namespace psi {
namespace {

constexpr size_t kPoint = crypto_core_ristretto255_BYTES;                       // 32
constexpr size_t kScalar = crypto_core_ristretto255_SCALARBYTES;                // 32
constexpr size_t kNonReduced = crypto_core_ristretto255_NONREDUCEDSCALARBYTES;  // 64
constexpr char kLabel[] = "psi-flink base-ot v1";  // hashed without the NUL

static_assert(kPoint == 32 && kScalar == 32 && kNonReduced == 64, "libsodium sizes");

bool sodium_ready() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = sodium_init() >= 0; });
  return ok;
}

// Uniform non-zero scalar from 64 PRG bytes reduced mod L (zero has probability ~2^-252; redraw).
void random_scalar(Prg& rng, uint8_t out[kScalar]) {
  uint8_t wide[kNonReduced];
  do {
    rng.fill(wide, sizeof wide);
    crypto_core_ristretto255_scalar_reduce(out, wide);
  } while (sodium_is_zero(out, kScalar));
  sodium_memzero(wide, sizeof wide);
}

// H(i, A, B, P) = BLAKE2b (digest length 16) over label || le64(i) || A || B || P.
Block ot_hash(uint64_t i, const uint8_t A[kPoint], const uint8_t B[kPoint],
              const uint8_t P[kPoint]) {
  uint8_t idx[8];
  for (int k = 0; k < 8; ++k) idx[k] = uint8_t(i >> (8 * k));
  crypto_generichash_state st;
  uint8_t out[16];
  crypto_generichash_init(&st, nullptr, 0, sizeof out);
  crypto_generichash_update(&st, reinterpret_cast<const uint8_t*>(kLabel), sizeof kLabel - 1);
  crypto_generichash_update(&st, idx, sizeof idx);
  crypto_generichash_update(&st, A, kPoint);
  crypto_generichash_update(&st, B, kPoint);
  crypto_generichash_update(&st, P, kPoint);
  crypto_generichash_final(&st, out, sizeof out);
  Block r = load_block(out);
  sodium_memzero(&st, sizeof st);
  sodium_memzero(out, sizeof out);
  return r;
}

// Constant-time: out = bit ? y : x (bit in {0,1}).
void ct_select(uint8_t* out, const uint8_t* x, const uint8_t* y, size_t n, uint8_t bit) {
  const uint8_t mask = uint8_t(0u - bit);
  for (size_t k = 0; k < n; ++k) out[k] = uint8_t(x[k] ^ (mask & (x[k] ^ y[k])));
}

// A canonical encoding of a ristretto255 point other than the identity. libsodium 1.0.18's
// crypto_core_ristretto255_is_valid_point() checks canonical encoding only and ACCEPTS the identity
// (encoded as 32 zero bytes, its only canonical encoding), so the identity is rejected here.
bool valid_non_identity(const uint8_t p[kPoint]) {
  return crypto_core_ristretto255_is_valid_point(p) == 1 && !sodium_is_zero(p, kPoint);
}

std::string at(size_t i) { return "base OT " + std::to_string(i) + ": "; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Sender

BaseOtSender::BaseOtSender(size_t count, Prg& rng) : count_(count) {
  sodium_ready();
  random_scalar(rng, a_);
  // a != 0 mod L, so a*G is never the identity and this cannot fail.
  if (crypto_scalarmult_ristretto255_base(A_, a_) != 0) sodium_memzero(A_, sizeof A_);
}

BaseOtSender::~BaseOtSender() { sodium_memzero(a_, sizeof a_); }

std::vector<uint8_t> BaseOtSender::first_message() const {
  return std::vector<uint8_t>(A_, A_ + kPoint);
}

Status BaseOtSender::finish(ByteView receiver_message, std::vector<std::array<Block, 2>>* keys) {
  if (keys == nullptr) return argument_error("base OT sender: keys is null");
  if (count_ == 0) return argument_error("base OT sender: count must be positive");
  if (!sodium_ready()) return Status(PSI_ERR_INTERNAL, "base OT sender: sodium_init failed");
  if (sodium_is_zero(A_, kPoint)) return Status(PSI_ERR_INTERNAL, "base OT sender: bad own point");
  if (count_ > SIZE_MAX / kPoint || receiver_message.size != count_ * kPoint) {
    return peer_error("base OT sender: receiver message has " +
                      std::to_string(receiver_message.size) + " bytes, expected " +
                      std::to_string(count_) + " * 32");
  }
  if (receiver_message.data == nullptr)
    return peer_error("base OT sender: receiver message is null");

  uint8_t aA[kPoint];  // a*A, secret
  if (crypto_scalarmult_ristretto255(aA, a_, A_) != 0) {
    return Status(PSI_ERR_INTERNAL, "base OT sender: a*A failed");
  }
  std::vector<std::array<Block, 2>> out(count_);
  uint8_t p0[kPoint], p1[kPoint];
  Status st;
  for (size_t i = 0; i < count_; ++i) {
    const uint8_t* B = receiver_message.data + i * kPoint;
    if (!valid_non_identity(B)) {
      st = peer_error(at(i) + "B is not a canonical non-identity ristretto255 point");
      break;
    }
    if (sodium_memcmp(B, A_, kPoint) == 0) {  // would make a*(B - A) the identity
      st = peer_error(at(i) + "B equals A");
      break;
    }
    if (crypto_scalarmult_ristretto255(p0, a_, B) != 0) {
      st = peer_error(at(i) + "a*B is the identity");
      break;
    }
    if (crypto_core_ristretto255_sub(p1, p0, aA) != 0 || sodium_is_zero(p1, kPoint)) {
      st = peer_error(at(i) + "a*(B - A) is the identity");
      break;
    }
    out[i][0] = ot_hash(i, A_, B, p0);
    out[i][1] = ot_hash(i, A_, B, p1);
  }
  sodium_memzero(aA, sizeof aA);
  sodium_memzero(p0, sizeof p0);
  sodium_memzero(p1, sizeof p1);
  if (!st.is_ok()) {
    sodium_memzero(out.data(), out.size() * sizeof out[0]);
    return st;
  }
  *keys = std::move(out);
  return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Receiver

BaseOtReceiver::BaseOtReceiver(std::vector<uint8_t> choices, Prg& rng)
    : choices_(std::move(choices)), rng_(&rng) {
  sodium_ready();
}

BaseOtReceiver::~BaseOtReceiver() {
  if (!choices_.empty()) sodium_memzero(choices_.data(), choices_.size());
}

Status BaseOtReceiver::respond(ByteView sender_message, std::vector<uint8_t>* reply,
                               std::vector<Block>* keys) {
  if (reply == nullptr || keys == nullptr) return argument_error("base OT receiver: null output");
  const size_t count = choices_.size();
  if (count == 0) return argument_error("base OT receiver: no choices");
  if (count > SIZE_MAX / kPoint) return argument_error("base OT receiver: too many choices");
  for (size_t i = 0; i < count; ++i) {
    if (choices_[i] > 1) return argument_error(at(i) + "choice bit is not 0 or 1");
  }
  if (!sodium_ready()) return Status(PSI_ERR_INTERNAL, "base OT receiver: sodium_init failed");
  if (sender_message.size != kPoint) {
    return peer_error("base OT receiver: sender message has " +
                      std::to_string(sender_message.size) + " bytes, expected 32");
  }
  if (sender_message.data == nullptr) return peer_error("base OT receiver: sender message is null");
  uint8_t A[kPoint];
  std::memcpy(A, sender_message.data, kPoint);
  if (!valid_non_identity(A)) {
    return peer_error("base OT receiver: A is not a canonical non-identity ristretto255 point");
  }

  std::vector<uint8_t> msg(count * kPoint);
  std::vector<Block> out(count);
  uint8_t b[kScalar], bG[kPoint], AbG[kPoint], shared[kPoint];
  Status st;
  for (size_t i = 0; i < count; ++i) {
    random_scalar(*rng_, b);
    uint8_t* B = msg.data() + i * kPoint;
    if (crypto_scalarmult_ristretto255_base(bG, b) != 0 ||
        crypto_core_ristretto255_add(AbG, A, bG) != 0) {
      st = Status(PSI_ERR_INTERNAL, at(i) + "computing B failed");
      break;
    }
    ct_select(B, bG, AbG, kPoint, choices_[i]);
    // Identity only if b*G = -A, i.e. with probability 2^-252 for an honest A; treat as peer error.
    if (sodium_is_zero(B, kPoint)) {
      st = peer_error(at(i) + "B would be the identity");
      break;
    }
    if (crypto_scalarmult_ristretto255(shared, b, A) != 0) {
      st = peer_error(at(i) + "b*A is the identity");
      break;
    }
    out[i] = ot_hash(i, A, B, shared);
  }
  sodium_memzero(b, sizeof b);
  sodium_memzero(bG, sizeof bG);
  sodium_memzero(AbG, sizeof AbG);
  sodium_memzero(shared, sizeof shared);
  if (!st.is_ok()) {
    sodium_memzero(out.data(), out.size() * sizeof out[0]);
    return st;
  }
  *reply = std::move(msg);
  *keys = std::move(out);
  return Status::ok();
}

}  // namespace psi
