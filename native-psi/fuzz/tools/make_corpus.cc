// make_corpus.cc — writes the checked-in seed corpus of every fuzz target, fuzz/corpus/<target>/:
// the real protocol messages each target starts from (produced by the same helpers the targets use,
// so they are exactly what a target would see from an honest peer) plus the hard cases around them
// (header fields at their bounds, truncation, trailing bytes, identity and non-canonical points,
// repeated values, the regression inputs of past crashes). ./psi fuzz passes fuzz/corpus/<target>
// to libFuzzer as a read-only seed directory.
//
// Rebuild after a message format changes:
//   cmake --build native-psi/target/cmake --target psi_fuzz_corpus
//   rm -rf native-psi/fuzz/corpus && native-psi/target/cmake/psi_fuzz_corpus native-psi/fuzz/corpus
// The output is deterministic (fixed seeds), so an unchanged format gives unchanged files.
#include <sodium.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../ecdh_fuzz_common.h"
#include "../mpsi_fuzz_common.h"
#include "../round_fuzz_common.h"
#include "core/prg.h"
#include "ot/base_ot.h"
#include "protocols/ecdh/set_filter.h"

namespace {

using Bytes = std::vector<uint8_t>;
namespace fs = std::filesystem;

fs::path g_root;
size_t g_files = 0;

void write(const std::string& target, const std::string& name, const Bytes& data) {
  const fs::path dir = g_root / target;
  fs::create_directories(dir);
  std::ofstream f(dir / name, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
    std::exit(1);
  }
  ++g_files;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
Bytes fill(size_t n, uint8_t v) { return Bytes(n, v); }
Bytes str(const std::string& s) { return Bytes(s.begin(), s.end()); }
Bytes noncanonical() {  // 2^255 - 1: not a canonical ristretto255 encoding
  Bytes p(32, 0xff);
  p[31] = 0x7f;
  return p;
}

// For the targets of feed_raw_or_mutated: a first byte 0x01 then bytes xored into the honest
// message (byte i + 1 of the input xors byte i of the message; bytes beyond it are appended).
Bytes mutated(const Bytes& honest, const std::vector<std::pair<size_t, Bytes>>& xors,
              size_t extra = 0) {
  size_t len = 0;
  for (const auto& [at, x] : xors) len = std::max(len, at + x.size());
  Bytes d(1 + std::max(len, honest.size() + extra), 0);
  if (len <= honest.size() && extra == 0) d.resize(1 + len);
  d[0] = 0x01;
  for (const auto& [at, x] : xors)
    for (size_t i = 0; i < x.size(); ++i) d[1 + at + i] ^= x[i];
  return d;
}
// Xor bytes that turn honest[at, at+n) into `want`.
Bytes to(const Bytes& honest, size_t at, const Bytes& want) {
  Bytes x(want.size());
  for (size_t i = 0; i < want.size(); ++i) x[i] = uint8_t(honest[at + i] ^ want[i]);
  return x;
}

// Seeds every message target gets: the honest message (mutated path with nothing xored), raw when
// its first byte is even (the raw path), truncated, extended, empty, all-0xff of the right length.
void message_seeds(const std::string& t, const Bytes& honest) {
  write(t, "honest", Bytes{0x01});
  if (!honest.empty() && honest[0] % 2 == 0) {
    write(t, "honest_raw", honest);
    write(t, "truncated_raw", Bytes(honest.begin(), honest.end() - 1));
    write(t, "extended_raw", cat({honest, Bytes{0}}));
    write(t, "half_raw", Bytes(honest.begin(), honest.begin() + long(honest.size() / 2)));
  }
  write(t, "empty", Bytes{});
  write(t, "extended_mutated", mutated(honest, {}, 1));
  Bytes ff(honest.size());
  for (size_t i = 0; i < honest.size(); ++i) ff[i] = uint8_t(honest[i] ^ 0xff);
  write(t, "all_ff", mutated(honest, {{0, ff}}));
}

Bytes le(uint64_t x, int n) {
  Bytes b(n);
  for (int i = 0; i < n; ++i) b[i] = uint8_t(x >> (8 * i));
  return b;
}

// ---- base OT ------------------------------------------------------------------------------------
void base_ot() {
  const std::string t = "fuzz_base_ot";
  // the honest transcript of the target (same seeds and choices)
  psi::Prg srng(psi::make_block(1, 2));
  psi::BaseOtSender sender(4, srng);
  const Bytes A = sender.first_message();
  psi::Prg rrng(psi::make_block(3, 4));
  psi::BaseOtReceiver r({0, 1, 1, 0}, rrng);
  Bytes reply;
  std::vector<psi::Block> keys;
  if (!r.respond(psi::ByteView(A), &reply, &keys).is_ok()) std::exit(1);
  // data[0] % (n + 1) = 32 splits the rest into A (32 bytes) and the reply (128 bytes)
  write(t, "honest_split", cat({Bytes{32}, A, reply}));
  write(t, "identity_A", cat({Bytes{32}, fill(32, 0), reply}));
  write(t, "noncanonical_A", cat({Bytes{32}, noncanonical(), reply}));
  write(t, "B_equals_A", cat({Bytes{32}, A, A, A, A, A}));
  write(t, "identity_B", cat({Bytes{32}, A, fill(128, 0)}));
  write(t, "noncanonical_B",
        cat({Bytes{32}, A, Bytes(reply.begin(), reply.begin() + 96), noncanonical()}));
  write(t, "short_reply", cat({Bytes{32}, A, Bytes(reply.begin(), reply.end() - 1)}));
  write(t, "xor_into_A", Bytes{1, 0x80});
  write(t, "xor_into_reply", cat({Bytes{2}, fill(96, 0), Bytes{0x01}}));
}

// ---- ecdh filters -------------------------------------------------------------------------------
std::vector<psi::ecdh::FilterKey> keys_of(size_t n, uint64_t seed) {
  psi::Prg prg(psi::make_block(seed, 99));
  std::vector<psi::ecdh::FilterKey> k(n);
  for (auto& x : k) {
    x.lo = prg.next_u64();
    x.hi = prg.next_u64();
  }
  return k;
}

void ecdh_gcs() {
  using namespace psi::ecdh;
  const std::string t = "fuzz_ecdh_gcs";
  struct Case {
    uint64_t n, q;
    double fpr;
  };
  for (const Case c : {Case{0, 1, 1e-9}, Case{1, 1, 1e-9}, Case{24, 12, 1e-9}, Case{100, 100, 1e-6},
                       Case{300, 1, 0.5}, Case{1000, 1000, 1e-30}}) {
    Bytes m;
    gcs_encode(keys_of(c.n, c.n), gcs_range(c.n, c.q, c.fpr), &m);
    const std::string name = "real_n" + std::to_string(c.n) + "_q" + std::to_string(c.q);
    write(t, name, m);
    if (m.size() > 4) {
      write(t, name + "_truncated", Bytes(m.begin(), m.end() - 1));
      write(t, name + "_trailing", cat({m, Bytes{0}}));
      Bytes pad = m;
      pad.back() |= 0x80;  // a set padding bit (or a changed last code)
      write(t, name + "_lastbit", pad);
    }
  }
  auto header = [](u128 count, u128 range, u128 m) {
    Bytes h;
    put_varint(&h, count);
    put_varint(&h, range);
    put_varint(&h, m);
    return h;
  };
  const u128 max = kGcsMaxRange;
  write(t, "range_max_m_max_empty", header(0, max, max));
  write(t, "range_max_one_value", cat({header(1, max, max), fill(15, 0)}));
  write(t, "range_above_max", header(0, max + 1, 1));
  write(t, "range_all_ones_m_2e127", header(0, ~u128(0), (u128(1) << 127) + 1));
  write(t, "m_zero", header(0, 1000, 0));
  write(t, "m_above_range", header(0, 1000, 1001));
  write(t, "count_above_max", header(u128(1) << 17, 1000, 1));
  write(t, "unary_runaway", cat({header(1, 1000, 1), fill(200, 0xff)}));
  write(t, "overlong_varint", Bytes{0x80, 0x00, 0x01, 0x01});
  write(t, "varint_129_bits", cat({Bytes{0}, fill(18, 0xff), Bytes{0x04}, Bytes{1}}));
  // issue 18 item 12: the crash ./psi fuzz found (range and divisor >= 2^127, shift by 128)
  write(t, "crash_shift128_range_2e127",
        Bytes{0x00, 0xdd, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xff, 0xff, 0xff,
              0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0xdd, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5, 0xb5,
              0xb5, 0xb5, 0xb5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x0b});
}

void ecdh_bloom() {
  using namespace psi::ecdh;
  const std::string t = "fuzz_ecdh_bloom";
  struct Case {
    uint64_t n, q;
    double fpr;
  };
  for (const Case c : {Case{1, 1, 0.5}, Case{24, 12, 1e-9}, Case{200, 50, 1e-6}}) {
    Bytes m;
    bloom_encode(keys_of(c.n, c.n + 7), bloom_shape(c.n, c.q, c.fpr), &m);
    const std::string name = "real_n" + std::to_string(c.n) + "_q" + std::to_string(c.q);
    write(t, name, m);
    write(t, name + "_truncated", Bytes(m.begin(), m.end() - 1));
    write(t, name + "_trailing", cat({m, Bytes{0}}));
  }
  Bytes h;
  put_varint(&h, 61);  // 61 bits: 8 bytes, 3 padding bits
  write(t, "padding_bit_set", cat({h, Bytes{3}, fill(7, 0), Bytes{0x80}}));
  write(t, "hashes_zero", cat({h, Bytes{0}, fill(8, 0)}));
  write(t, "hashes_255", cat({h, Bytes{255}, fill(8, 0xff)}));
  Bytes big;
  put_varint(&big, (u128(1) << 40) - 1);
  write(t, "bits_2e40", cat({big, Bytes{1}}));
  write(t, "header_only", h);
}

// ---- ecdh protocol messages ---------------------------------------------------------------------
void ecdh_messages() {
  using namespace ecdh_fuzz;
  const Bytes setup_msg = setup().message;
  {
    const std::string t = "fuzz_ecdh_setup";
    message_seeds(t, setup_msg);
    write(t, "magic_changed", mutated(setup_msg, {{0, Bytes{0x01}}}));
    write(t, "setup_id_changed", mutated(setup_msg, {{4, Bytes{0x01}}}));
    write(t, "sender_size_changed", mutated(setup_msg, {{12, Bytes{0x01}}}));
    write(t, "queries_changed", mutated(setup_msg, {{13, Bytes{0x02}}}));
    write(t, "filter_kind_bloom", mutated(setup_msg, {{14, Bytes{0x03}}}));
    write(t, "filter_first_code", mutated(setup_msg, {{18, Bytes{0x10}}}));
    write(t, "filter_last_byte", mutated(setup_msg, {{setup_msg.size() - 1, Bytes{0x80}}}));
  }
  psi_session* r = online(PSI_ROLE_RECEIVER);
  psi_session* s = online(PSI_ROLE_SENDER);
  const Bytes request = request_of(r);
  push(s, PSI_PHASE_ONLINE, 1, request);
  const Bytes response = pull(s, PSI_PHASE_ONLINE, 1);
  push(r, PSI_PHASE_ONLINE, 2, response);
  const Bytes matched = pull(r, PSI_PHASE_ONLINE, 2);
  push(s, PSI_PHASE_ONLINE, 3, matched);
  const Bytes bitmask = pull(s, PSI_PHASE_ONLINE, 3);
  psi_session_free(r);
  psi_session_free(s);
  // request: instance (32) | setup id (8) | u64 count | points
  {
    const std::string t = "fuzz_ecdh_request";
    message_seeds(t, request);
    write(t, "instance_high_bit", mutated(request, {{0, Bytes{0x80}}}));
    write(t, "instance_low_bit", mutated(request, {{31, Bytes{0x01}}}));
    write(t, "setup_id_changed", mutated(request, {{32, Bytes{0x01}}}));
    write(t, "count_plus_one", mutated(request, {{40, to(request, 40, le(kClient + 1, 8))}}));
    write(t, "count_zero", mutated(request, {{40, to(request, 40, le(0, 8))}}));
    write(t, "count_max", mutated(request, {{40, to(request, 40, fill(8, 0xff))}}));
    write(t, "identity_point", mutated(request, {{48, to(request, 48, fill(32, 0))}}));
    write(t, "noncanonical_point", mutated(request, {{80, to(request, 80, noncanonical())}}));
  }
  // response: setup id (8) | instance (32) | u64 count | points
  {
    const std::string t = "fuzz_ecdh_response";
    message_seeds(t, response);
    write(t, "setup_id_changed", mutated(response, {{0, Bytes{0x01}}}));
    write(t, "instance_changed", mutated(response, {{8, Bytes{0x80}}}));
    write(t, "count_max", mutated(response, {{40, to(response, 40, fill(8, 0xff))}}));
    write(t, "identity_point", mutated(response, {{48, to(response, 48, fill(32, 0))}}));
    write(t, "noncanonical_point", mutated(response, {{48, to(response, 48, noncanonical())}}));
    write(t, "two_points_equal",
          mutated(response,
                  {{80, to(response, 80, Bytes(response.begin() + 48, response.begin() + 80))}}));
  }
  // matched: u64 m | m points
  {
    const std::string t = "fuzz_ecdh_matched";
    message_seeds(t, matched);
    write(t, "m_plus_one", mutated(matched, {{0, Bytes{0x01}}}, 32));
    write(t, "m_max", mutated(matched, {{0, to(matched, 0, fill(8, 0xff))}}));
    if (matched.size() >= 8 + 64) {
      write(t, "value_repeated",
            mutated(matched,
                    {{40, to(matched, 40, Bytes(matched.begin() + 8, matched.begin() + 40))}}));
      write(t, "identity_value", mutated(matched, {{8, to(matched, 8, fill(32, 0))}}));
      write(t, "noncanonical_value", mutated(matched, {{40, to(matched, 40, noncanonical())}}));
    }
    write(t, "m_zero_raw", le(0, 8));
  }
  // bitmask: u64 m | ceil(m/8) bytes
  {
    const std::string t = "fuzz_ecdh_bitmask";
    message_seeds(t, bitmask);
    write(t, "padding_bit", mutated(bitmask, {{bitmask.size() - 1, Bytes{0x80}}}));
    write(t, "all_genuine",
          mutated(bitmask, {{8, to(bitmask, 8, fill(bitmask.size() - 8, 0x3f))}}));
    write(t, "m_changed", mutated(bitmask, {{0, Bytes{0x08}}}));
  }
}

// The setup parsers' seeds of a two-party protocol with base-OT setup (round_fuzz_common.h,
// fuzz_setup): first byte odd, the sender parses A; even, the receiver parses B || shared seed.
void setup_seeds(const round_fuzz::Target& k, const std::string& t) {
  using namespace round_fuzz;
  psi_session* r = make(k, PSI_ROLE_RECEIVER, 1);
  psi_session* s = make(k, PSI_ROLE_SENDER, 2);
  if (psi_round_feed(r, PSI_PHASE_SETUP, 0, nullptr, 0, 1) != PSI_OK) std::exit(1);
  const Bytes a = pull(r, PSI_PHASE_SETUP, 0);
  push(s, PSI_PHASE_SETUP, 1, a);
  const Bytes b = pull(s, PSI_PHASE_SETUP, 1);
  psi_session_free(r);
  psi_session_free(s);
  // first byte odd: the sender parses A; even: the receiver parses B || shared seed
  write(t, "sender_honest_A", cat({Bytes{1}, a}));
  write(t, "sender_identity_A", cat({Bytes{1}, fill(32, 0)}));
  write(t, "sender_noncanonical_A", cat({Bytes{1}, noncanonical()}));
  write(t, "sender_short_A", cat({Bytes{1}, Bytes(a.begin(), a.end() - 1)}));
  write(t, "receiver_honest_B", cat({Bytes{0}, b}));
  Bytes bad = b;
  std::fill(bad.begin() + 32 * 7, bad.begin() + 32 * 8, 0);
  write(t, "receiver_identity_B7", cat({Bytes{0}, bad}));
  bad = b;
  std::copy(a.begin(), a.end(), bad.begin());
  write(t, "receiver_B0_equals_A", cat({Bytes{0}, bad}));
  write(t, "receiver_short", cat({Bytes{0}, Bytes(b.begin(), b.end() - 1)}));
}

// ---- kkrt ---------------------------------------------------------------------------------------
void kkrt() {
  using namespace round_fuzz;
  const Target& k = kKkrt;
  setup_seeds(k, "fuzz_kkrt_setup");
  psi_session* r = online(k, PSI_ROLE_RECEIVER);
  psi_session* s = online(k, PSI_ROLE_SENDER);
  const Bytes matrix = first_message(r);
  push(s, PSI_PHASE_ONLINE, 1, matrix);
  const Bytes masks = pull(s, PSI_PHASE_ONLINE, 1);
  push(r, PSI_PHASE_ONLINE, 2, masks);
  const Bytes claims = pull(r, PSI_PHASE_ONLINE, 2);
  psi_session_free(r);
  psi_session_free(s);
  {  // matrix: instance (32) | rows x 64
    const std::string t = "fuzz_kkrt_matrix";
    message_seeds(t, matrix);
    write(t, "instance_high_bit", mutated(matrix, {{0, Bytes{0x80}}}));
    write(t, "instance_low_bit", mutated(matrix, {{31, Bytes{0x01}}}));
    write(t, "row0_flipped", mutated(matrix, {{32, fill(64, 0xff)}}));
    write(t, "header_only_raw", Bytes(matrix.begin(), matrix.begin() + 32));
  }
  {  // masks: (hash tables + stash) x n masks of mask_bytes
    const std::string t = "fuzz_kkrt_masks";
    message_seeds(t, masks);
    const size_t L = masks.size() / (5 * kN);  // 3 hash tables + stash 2
    // every mask a copy of the first: many candidates for one lookup slot
    Bytes same(masks.size());
    for (size_t i = 0; i < masks.size(); ++i) same[i] = uint8_t(masks[i] ^ masks[i % L]);
    write(t, "all_masks_equal", mutated(masks, {{0, same}}));
    // the stash tables copied from the first hash table
    Bytes stash(masks.size(), 0);
    for (size_t i = 3 * kN * L; i < masks.size(); ++i)
      stash[i] = uint8_t(masks[i] ^ masks[i - 3 * kN * L]);
    write(t, "stash_equals_table0", mutated(masks, {{0, stash}}));
  }
  {  // claims: u32 count | count x (u32 position | u64 proof)
    const std::string t = "fuzz_kkrt_positions";
    message_seeds(t, claims);
    const uint32_t count =
        uint32_t(claims[0] | claims[1] << 8 | claims[2] << 16 | uint32_t(claims[3]) << 24);
    write(t, "count_zero_raw", le(0, 4));
    write(t, "count_max_raw", le(0xffffffffu, 4));
    if (count >= 1) {
      write(t, "proof_bit_flipped", mutated(claims, {{8, Bytes{0x01}}}));
      write(t, "position_out_of_range", mutated(claims, {{4, to(claims, 4, le(kN, 4))}}));
      // one more claim: the first one repeated at the end
      write(t, "claim_repeated",
            mutated(claims, {{0, to(claims, 0, le(count + 1, 4))},
                             {claims.size(), Bytes(claims.begin() + 4, claims.begin() + 16)}}));
      // one more claim: a position not matched, with a genuine claim's proof
      Bytes extra(claims.begin() + 4, claims.begin() + 16);
      extra[0] = uint8_t(kN - 1);
      write(t, "claim_extra_position",
            mutated(claims, {{0, to(claims, 0, le(count + 1, 4))}, {claims.size(), extra}}));
    }
    if (count >= 2)
      write(
          t, "claims_swapped",
          mutated(claims, {{4, to(claims, 4, Bytes(claims.begin() + 16, claims.begin() + 28))},
                           {16, to(claims, 16, Bytes(claims.begin() + 4, claims.begin() + 16))}}));
  }
  {  // what a caller hands the library: mode byte (% 3) then params / a setup blob / elements
    const std::string t = "fuzz_session_input";
    const std::string base = "receiver_size=24,sender_size=24,";
    for (const std::string& p :
         {base + "instance=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
          base + "instance=00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeefg",
          base + "instance=0011223344556677", base + "instance=18446744073709551615",
          base + "instance=18446744073709551616", base + "output=both,sigma=80,stash=64",
          base + "hashes=4,slots=2,bin_factor=16,stash=3",
          base + "hashes=2,separate_tables=1,stash=0",
          std::string("receiver_size=268435455,sender_size=1"), base + "bin_factor=0.5,stash=auto",
          base + "sigma=15", std::string("receiver_size=1,,sender_size=1,=,x=")})
      write(t, "params_" + std::to_string(g_files), cat({Bytes{0}, str(p)}));
    write(t, "setup_receiver_blob", cat({Bytes{1}, Bytes{0}, setup(k).receiver}));
    write(t, "setup_sender_blob", cat({Bytes{1}, Bytes{1}, setup(k).sender}));
    Bytes elems(kN * 16, 0x5a);
    for (size_t k = 0; k < kN; ++k) elems[16 * k] = uint8_t(k);
    write(t, "elements_distinct", cat({Bytes{2}, elems}));
    std::copy(elems.begin(), elems.begin() + 16, elems.begin() + 16 * 5);
    write(t, "elements_duplicate", cat({Bytes{2}, elems}));
    write(t, "elements_one_short", cat({Bytes{2}, Bytes(elems.begin(), elems.end() - 16)}));
  }
}

// ---- rr22 ---------------------------------------------------------------------------------------
void rr22() {
  using namespace round_fuzz;
  const Target& k = kRr22;
  setup_seeds(k, "fuzz_rr22_setup");
  // The honest messages of every online round, each the seed of the target that parses it.
  psi_session* party[2] = {online(k, PSI_ROLE_RECEIVER), online(k, PSI_ROLE_SENDER)};
  std::vector<Bytes> msgs = {first_message(party[0])};
  for (uint32_t r = 1; r < 5; ++r) {
    psi_session* owner = party[r % 2];
    push(owner, PSI_PHASE_ONLINE, r, msgs.back());
    msgs.push_back(pull(owner, PSI_PHASE_ONLINE, r));
  }
  psi_session_free(party[0]);
  psi_session_free(party[1]);
  const char* targets[] = {"fuzz_rr22_matrix", "fuzz_rr22_vole", "fuzz_rr22_masked",
                           "fuzz_rr22_masks", "fuzz_rr22_claims"};
  // The IKNP matrix is ~1.7 MB even for 24 elements (one VOLE piece needs >= 848 trees): its
  // target gets the small seeds only (the honest message itself is reached through mode 0x01).
  for (size_t r = 1; r < 5; ++r) message_seeds(targets[r], msgs[r]);
  write("fuzz_rr22_matrix", "honest", Bytes{0x01});
  write("fuzz_rr22_matrix", "empty", Bytes{});
  write("fuzz_rr22_matrix", "header_only_raw", Bytes(msgs[0].begin(), msgs[0].begin() + 32));
  write("fuzz_rr22_matrix", "instance_high_bit", mutated(msgs[0], {{0, Bytes{0x80}}}));
  write("fuzz_rr22_matrix", "first_row_flipped", mutated(msgs[0], {{32, fill(16, 0xff)}}));
  write("fuzz_rr22_vole", "first_level_flipped", mutated(msgs[1], {{0, fill(32, 0xff)}}));
  write("fuzz_rr22_claims", "count_max_raw", le(0xffffffffu, 4));
  if (msgs[4].size() >= 16)
    write("fuzz_rr22_claims", "proof_bit_flipped", mutated(msgs[4], {{8, Bytes{0x01}}}));
}

// ---- labels (output=labels of kkrt and rr22)
// ------------------------------------------------------ The honest label message of a labelled
// target (the round before `round`, from the sender).
Bytes label_message(const round_fuzz::Target& k, uint32_t round) {
  using namespace round_fuzz;
  psi_session* party[2] = {online(k, PSI_ROLE_RECEIVER), online(k, PSI_ROLE_SENDER)};
  Bytes msg = first_message(party[0]);
  for (uint32_t r = 1; r < round; ++r) {
    psi_session* owner = party[r % 2];
    push(owner, PSI_PHASE_ONLINE, r, msg);
    msg = pull(owner, PSI_PHASE_ONLINE, r);
  }
  psi_session_free(party[0]);
  psi_session_free(party[1]);
  return msg;
}

// Seeds of a label-message target: record_bytes per key record, `keys` of them, then label
// records of label_bytes (none for the direct format).
void label_seeds(const std::string& t, const Bytes& msg, size_t keys, size_t record_bytes,
                 size_t tag_bytes) {
  message_seeds(t, msg);
  // every key record a copy of the first: a tag that matches matches again
  Bytes same(msg.size(), 0);
  for (size_t i = record_bytes; i < keys * record_bytes; ++i)
    same[i] = uint8_t(msg[i] ^ msg[i % record_bytes]);
  write(t, "key_records_all_equal", mutated(msg, {{0, same}}));
  // one bit flipped right after every tag: a padded key / ciphertext that no longer opens
  Bytes after_tag(msg.size(), 0);
  for (size_t r = 0; r < keys; ++r) after_tag[r * record_bytes + tag_bytes] = 0x01;
  write(t, "after_tag_flipped", mutated(msg, {{0, after_tag}}));
  // the last byte of every key record flipped (indirect: the position's high byte, out of range)
  Bytes last(msg.size(), 0);
  for (size_t r = 0; r < keys; ++r) last[r * record_bytes + record_bytes - 1] = 0x80;
  write(t, "record_end_flipped", mutated(msg, {{0, last}}));
  // every tag zeroed: nothing matches
  Bytes tags(msg.size(), 0);
  for (size_t r = 0; r < keys; ++r)
    for (size_t b = 0; b < tag_bytes; ++b) tags[r * record_bytes + b] = msg[r * record_bytes + b];
  write(t, "tags_zeroed", mutated(msg, {{0, tags}}));
  if (msg.size() > keys * record_bytes)  // indirect: the label section's first byte
    write(t, "label_section_flipped", mutated(msg, {{keys * record_bytes, Bytes{0x01}}}));
}

void labels() {
  using namespace round_fuzz;
  // mask_bytes(40, 24, h * 24) of labels.h: 40 + 5 + ceil(log2(h * 24)) bits
  {
    const Bytes msg = label_message(kKkrtLabels, 2);
    const size_t keys = 5 * kN;  // 3 hash tables + stash 2
    const size_t label_records = kN * (kLabelLen + 16);
    const size_t record = (msg.size() - label_records) / keys;
    label_seeds("fuzz_kkrt_labels", msg, keys, record, record - 20);
  }
  {
    const Bytes msg = label_message(kRr22Labels, 4);
    const size_t record = msg.size() / kN;
    label_seeds("fuzz_rr22_labels", msg, kN, record, record - kLabelLen - 16);
  }
}

}  // namespace

// mpsi: the honest message of each target's round, from a real run of the targets' sets.
void mpsi() {
  const struct {
    const char* target;
    int phase;
    uint32_t round;
  } targets[] = {{"fuzz_mpsi_keys", PSI_PHASE_SETUP, 1},
                 {"fuzz_mpsi_key_list", PSI_PHASE_SETUP, 2},
                 {"fuzz_mpsi_ciphertexts", PSI_PHASE_ONLINE, 1},
                 {"fuzz_mpsi_randomized", PSI_PHASE_ONLINE, 2},
                 {"fuzz_mpsi_shares", PSI_PHASE_ONLINE, 3},
                 {"fuzz_mpsi_differences", PSI_PHASE_ONLINE, 4}};
  for (const auto& t : targets) {
    psi_test::MpsiRun run = mpsi_fuzz::base_run();
    Bytes honest;
    run.tamper = [&](int ph, uint32_t r, int from, int to, std::vector<uint8_t>* chunk) {
      if (mpsi_fuzz::is_target(ph, r, from, to, t.phase, t.round) && honest.empty())
        honest = *chunk;
    };
    if (psi_test::run_mpsi(run).status != PSI_OK || honest.empty()) std::abort();
    message_seeds(t.target, honest);
    // a point set to the identity, and to a non-canonical encoding, in the first record
    write(t.target, "identity_first", mutated(honest, {{0, to(honest, 0, fill(32, 0))}}));
    write(t.target, "noncanonical_first", mutated(honest, {{0, to(honest, 0, noncanonical())}}));
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: psi_fuzz_corpus DIR   (writes DIR/<fuzz target>/<seed>)\n");
    return 2;
  }
  if (sodium_init() < 0) return 1;
  g_root = argv[1];
  base_ot();
  ecdh_gcs();
  ecdh_bloom();
  ecdh_messages();
  kkrt();
  rr22();
  labels();
  mpsi();
  std::printf("wrote %zu seed files under %s\n", g_files, g_root.c_str());
  return 0;
}
