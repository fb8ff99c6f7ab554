// base_ot_fuzz.cc — libFuzzer target: arbitrary bytes as the base-OT peer messages (count = 4).
// data[0] picks the split: data[1 .. 1+cut) goes to BaseOtReceiver::respond as A, the rest to
// BaseOtSender::finish as the receiver's reply. To reach the per-point checks beyond the first, the
// same bytes are also XORed into an honest transcript (A and the 128-byte reply). Any outcome other
// than success or PSI_ERR_PEER_MESSAGE, or an honest run whose keys disagree, traps.
#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ot/base_ot.h"

namespace {

constexpr size_t kCount = 4;
const std::vector<uint8_t> kChoices = {0, 1, 1, 0};

void check(const psi::Status& st) {
  if (!st.is_ok() && st.code() != PSI_ERR_PEER_MESSAGE) __builtin_trap();
  if (!st.is_ok() && st.message().empty()) __builtin_trap();
}

struct Honest {
  psi::Prg srng{psi::make_block(1, 2)};
  psi::BaseOtSender sender{kCount, srng};
  std::vector<uint8_t> A, reply;
  Honest() {
    if (sodium_init() < 0) abort();
    A = sender.first_message();
    psi::Prg rrng(psi::make_block(3, 4));
    psi::BaseOtReceiver r(kChoices, rrng);
    std::vector<psi::Block> keys;
    if (!r.respond(psi::ByteView(A), &reply, &keys).is_ok()) abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Honest* honest = new Honest();
  if (size == 0) return 0;
  const uint8_t sel = data[0];
  const uint8_t* rest = data + 1;
  const size_t n = size - 1;
  const size_t cut = sel % (n + 1);

  // 1. Raw bytes as A for a receiver.
  {
    psi::Prg rrng(psi::make_block(5, sel));
    psi::BaseOtReceiver r(kChoices, rrng);
    std::vector<uint8_t> reply;
    std::vector<psi::Block> keys;
    psi::Status st = r.respond(psi::ByteView(rest, cut), &reply, &keys);
    check(st);
    if (st.is_ok() && (reply.size() != 32 * kCount || keys.size() != kCount)) __builtin_trap();
  }
  // 2. Raw bytes as the reply for a sender.
  {
    std::vector<std::array<psi::Block, 2>> keys;
    psi::Status st = honest->sender.finish(psi::ByteView(rest + cut, n - cut), &keys);
    check(st);
    if (st.is_ok() && keys.size() != kCount) __builtin_trap();
  }
  // 3. Bytes XORed into the honest transcript (same lengths, so the point checks are reached).
  {
    std::vector<uint8_t> A = honest->A, reply = honest->reply;
    for (size_t i = 0; i < n; ++i) {
      if (sel & 1)
        A[i % A.size()] ^= rest[i];
      else
        reply[i % reply.size()] ^= rest[i];
    }
    psi::Prg rrng(psi::make_block(3, 4));
    psi::BaseOtReceiver r(kChoices, rrng);
    std::vector<uint8_t> my_reply;
    std::vector<psi::Block> rkeys;
    psi::Status st = r.respond(psi::ByteView(A), &my_reply, &rkeys);
    check(st);
    std::vector<std::array<psi::Block, 2>> skeys;
    psi::Status st2 = honest->sender.finish(psi::ByteView(reply), &skeys);
    check(st2);
    // Untouched transcript: the receiver's keys must match the sender's chosen keys.
    if (st.is_ok() && st2.is_ok() && A == honest->A && reply == honest->reply) {
      for (size_t i = 0; i < kCount; ++i) {
        if (!psi::block_equal(rkeys[i], skeys[i][kChoices[i]])) __builtin_trap();
      }
    }
  }
  return 0;
}
