// mpsi_psi.cc — see mpsi_psi.h.
#include "mpsi_psi.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../../core/bytes.h"
#include "../../core/prg.h"
#include "../../group/ristretto.h"
#include "../../group/ristretto_batch.h"

namespace psi {
namespace {

using group::decode;
using group::decode_hinted;
using group::double_encode_batch;
using group::FixedBase;
using group::Point;

constexpr size_t kKeyRecord = 96;            // Y | R | z
constexpr size_t kHinted = 64;               // point | hint
constexpr size_t kCiphertext = 2 * kHinted;  // u | hint | v | hint
constexpr size_t kBatch = 512;               // positions computed per step of a round
constexpr uint64_t kMaxBits = uint64_t(1) << 28;
constexpr uint64_t kMaxSetSize = uint64_t(1) << 22;
constexpr char kSetupMagic[4] = {'m', 'p', 's', '1'};

struct Config {
  uint32_t parties = 0;
  uint32_t index = 0;  // party only
  uint64_t set_size = 0;
  double fpr = 0;
  mpsi::FilterShape shape;
  uint8_t instance[32] = {};
};

Status config_from_params(const Params& p, psi_role role, Config* c) {
  uint64_t n = 0, index = 0;
  PSI_RETURN_IF_ERROR(p.get_u64("parties", 0, &n));
  if (n < 2 || n > 1024) return argument_error("mpsi: parties must be in [2, 1024]");
  c->parties = uint32_t(n);
  if (role == PSI_ROLE_PARTY) {
    if (!p.has("index")) return argument_error("mpsi: a party needs index (0 .. parties-1)");
    PSI_RETURN_IF_ERROR(p.get_u64("index", 0, &index));
    if (index >= n) return argument_error("mpsi: index must be below parties");
    c->index = uint32_t(index);
  }
  PSI_RETURN_IF_ERROR(p.get_u64("set_size", 0, &c->set_size));
  if (c->set_size == 0 || c->set_size >= kMaxSetSize)
    return argument_error("mpsi: set_size must be in [1, " + std::to_string(kMaxSetSize - 1) + "]");
  std::string output;
  PSI_RETURN_IF_ERROR(p.get_string("output", "both", &output));
  if (output != "both")
    return argument_error(
        "mpsi: output must be both (every party learns its own elements in "
        "the intersection)");
  PSI_RETURN_IF_ERROR(p.get_double("fpr", std::ldexp(1.0, -40), &c->fpr));
  if (!(c->fpr >= 1e-30 && c->fpr <= 0.5))
    return argument_error("mpsi: fpr must be in [1e-30, 0.5]");
  double fill = 0;
  PSI_RETURN_IF_ERROR(p.get_double("fill", 0, &fill));
  if (p.has("fill") && !(fill >= 0.01 && fill <= 0.5))
    return argument_error("mpsi: fill must be in [0.01, 0.5]");
  c->shape = mpsi::filter_shape(c->set_size, c->fpr, fill);
  if (c->shape.bits > kMaxBits)
    return argument_error("mpsi: set_size " + std::to_string(c->set_size) + " at fpr " +
                          std::to_string(c->fpr) + " needs a filter of " +
                          std::to_string(c->shape.bits) + " positions, more than " +
                          std::to_string(kMaxBits) + ": use more bins");
  PSI_RETURN_IF_ERROR(p.get_instance("instance", c->instance));
  return p.check_all_used();
}

// Scalars mod the group order, little-endian 32 bytes.
struct Scalar {
  uint8_t b[32];
};

Scalar reduce64(const uint8_t wide[64]) {
  Scalar s;
  crypto_core_ristretto255_scalar_reduce(s.b, wide);
  return s;
}

Scalar random_scalar(Prg& prg) {
  uint8_t wide[64];
  prg.fill(wide, sizeof wide);
  Scalar s = reduce64(wide);
  secure_wipe(wide, sizeof wide);
  return s;
}

bool scalar_canonical(const uint8_t in[32]) {
  uint8_t wide[64] = {};
  std::memcpy(wide, in, 32);
  Scalar r = reduce64(wide);
  return std::memcmp(r.b, in, 32) == 0;
}

// Constants of the group: the generator's table, 1/4 and -G/2 (see the wire convention in
// mpsi_psi.h).
struct Constants {
  FixedBase g;
  Scalar quarter;
  Point minus_half_g;
  Constants() : g(group::point_generator()) {
    uint8_t two[32] = {2}, four[32] = {4};
    Scalar half;
    crypto_core_ristretto255_scalar_invert(half.b, two);
    crypto_core_ristretto255_scalar_invert(quarter.b, four);
    Scalar neg_half;
    crypto_core_ristretto255_scalar_negate(neg_half.b, half.b);
    minus_half_g = g.mul(neg_half.b);
  }
};
const Constants& constants() {
  static const Constants k;
  return k;
}

// Schnorr proof of knowledge of x for Y = xG, bound to the group size and the party's index.
Scalar key_challenge(uint32_t n, uint32_t index, const uint8_t y[32], const uint8_t r[32]) {
  crypto_generichash_blake2b_state st;
  static const char kDomain[] = "psi-flink mpsi key proof v1";
  uint8_t ctx[8];
  for (int i = 0; i < 4; ++i)
    ctx[i] = uint8_t(n >> (8 * i)), ctx[4 + i] = uint8_t(index >> (8 * i));
  uint8_t wide[64];
  crypto_generichash_blake2b_init(&st, nullptr, 0, sizeof wide);
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain);
  crypto_generichash_blake2b_update(&st, ctx, sizeof ctx);
  crypto_generichash_blake2b_update(&st, y, 32);
  crypto_generichash_blake2b_update(&st, r, 32);
  crypto_generichash_blake2b_final(&st, wide, sizeof wide);
  return reduce64(wide);
}

// Checks one key record of party `index`; on success *y is its public key.
Status check_key_record(const uint8_t rec[kKeyRecord], uint32_t n, uint32_t index, Point* y) {
  const std::string who = "party " + std::to_string(index) + "'s key";
  Point r;
  if (!decode(rec, y) || group::point_is_identity(*y))
    return peer_error(who + " is not a valid non-identity ristretto255 encoding");
  if (!decode(rec + 32, &r)) return peer_error(who + " proof is not a valid ristretto255 encoding");
  if (!scalar_canonical(rec + 64)) return peer_error(who + " proof has a non-canonical scalar");
  const Scalar e = key_challenge(n, index, rec, rec + 32);
  const Point lhs = constants().g.mul(rec + 64);
  const Point rhs = group::point_add(r, group::point_mul(*y, e.b));
  if (!group::point_equal(lhs, rhs)) return peer_error(who + " proof does not verify");
  return Status::ok();
}

// Emits a message of fixed-size records: kBatch records computed at a time, copied out in the
// caller's chunks.
class BatchedEmitter {
 public:
  void reset(uint64_t records, size_t record_len) {
    records_ = records, record_len_ = record_len, next_ = 0, pos_ = 0;
    buf_.clear();
  }
  // produce(first, count, dst) fills count records starting at record `first`.
  template <class Produce>
  Status emit(uint8_t* out, size_t cap, size_t* written, bool* done, Produce&& produce) {
    *written = 0;
    *done = false;
    for (;;) {
      if (pos_ < buf_.size()) {
        const size_t n = std::min(cap - *written, buf_.size() - pos_);
        if (n) std::memcpy(out + *written, buf_.data() + pos_, n);
        pos_ += n, *written += n;
        if (pos_ < buf_.size()) return Status::ok();
      }
      if (next_ == records_) {
        *done = true;
        return Status::ok();
      }
      const uint64_t count = std::min<uint64_t>(kBatch, records_ - next_);
      buf_.assign(size_t(count) * record_len_, 0);
      PSI_RETURN_IF_ERROR(produce(next_, size_t(count), buf_.data()));
      next_ += count, pos_ = 0;
    }
  }

 private:
  uint64_t records_ = 0, next_ = 0;
  size_t record_len_ = 0, pos_ = 0;
  std::vector<uint8_t> buf_;
};

// Collects a peer's stream of fixed-size records, handing complete ones to a consumer.
class RecordReader {
 public:
  void reset(uint64_t expected, size_t record_len) {
    expected_ = expected, record_len_ = record_len, seen_ = 0;
    carry_.clear();
  }
  // consume(first, count, data) handles count complete records starting at record `first`.
  template <class Consume>
  Status feed(ByteView chunk, const std::string& what, Consume&& consume) {
    size_t off = 0;
    if (!carry_.empty()) {
      const size_t take = std::min(record_len_ - carry_.size(), chunk.size);
      carry_.insert(carry_.end(), chunk.data, chunk.data + take);
      off = take;
      if (carry_.size() < record_len_) return Status::ok();
      PSI_RETURN_IF_ERROR(accept(1, carry_.data(), what, consume));
      carry_.clear();
    }
    const size_t whole = (chunk.size - off) / record_len_;
    if (whole) PSI_RETURN_IF_ERROR(accept(whole, chunk.data + off, what, consume));
    off += whole * record_len_;
    carry_.assign(chunk.data + off, chunk.data + chunk.size);
    return Status::ok();
  }
  Status finish(const std::string& what) const {
    if (seen_ != expected_ || !carry_.empty())
      return peer_error(what + " has " + std::to_string(seen_ * record_len_ + carry_.size()) +
                        " bytes, expected " + std::to_string(expected_ * record_len_));
    return Status::ok();
  }

 private:
  template <class Consume>
  Status accept(size_t count, const uint8_t* data, const std::string& what, Consume&& consume) {
    if (count > expected_ - seen_)
      return peer_error(what + " is longer than " + std::to_string(expected_ * record_len_) +
                        " bytes");
    PSI_RETURN_IF_ERROR(consume(seen_, count, data));
    seen_ += count;
    return Status::ok();
  }
  uint64_t expected_ = 0, seen_ = 0;
  size_t record_len_ = 0;
  std::vector<uint8_t> carry_;
};

Status bad_point(const std::string& what, uint64_t position) {
  return peer_error(what + ": position " + std::to_string(position) +
                    " is not a valid ristretto255 encoding with its hint");
}

// ---------------------------------------------------------------------------------------------
class MpsiParty final : public Protocol {
 public:
  MpsiParty(const Config& c, const uint8_t seed[32]) : c_(c) {
    std::memcpy(seed_, seed, 32);
    prg_.reseed(derive_block(seed_, 32, instance_label("psi-flink mpsi party", c_.instance)));
  }
  ~MpsiParty() override {
    secure_wipe(seed_, sizeof seed_);
    secure_wipe(x_.b, sizeof x_.b);
    secure_wipe(x4_.b, sizeof x4_.b);
    secure_wipe(secret_, sizeof secret_);
  }

  uint32_t round_count(psi_phase phase) const override { return phase == PSI_PHASE_SETUP ? 3 : 5; }
  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 0; }

  Status set_input(const uint8_t* elements, size_t count, size_t element_len) override {
    if (count > c_.set_size)
      return input_error("mpsi: " + std::to_string(count) + " elements, more than set_size " +
                         std::to_string(c_.set_size));
    std::vector<size_t> order(count);
    std::iota(order.begin(), order.end(), size_t(0));
    auto at = [&](size_t i) { return elements + i * element_len; };
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return std::memcmp(at(a), at(b), element_len) < 0; });
    for (size_t i = 1; i < count; ++i)
      if (std::memcmp(at(order[i - 1]), at(order[i]), element_len) == 0)
        return input_error("mpsi: duplicate element (indices " +
                           std::to_string(std::min(order[i - 1], order[i])) + " and " +
                           std::to_string(std::max(order[i - 1], order[i])) + ")");
    elements_.assign(elements, elements + count * element_len);
    count_ = count, element_len_ = element_len;
    return Status::ok();
  }

  Status set_group_secret(const uint8_t* key, size_t len) override {
    if (len != 32) return argument_error("mpsi: the group secret is 32 bytes");
    std::memcpy(secret_, key, 32);
    have_secret_ = true;
    return Status::ok();
  }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    if (round == 0) return Status::ok();
    if (phase != feed_phase_ || round != feed_round_) start_feed(phase, round);
    const std::string what = phase == PSI_PHASE_SETUP
                                 ? "provider's key list"
                                 : "provider's round-" + std::to_string(round - 1) + " message";
    if (phase == PSI_PHASE_SETUP || round == 2) {  // kept whole: the key list, u'
      const size_t record = phase == PSI_PHASE_SETUP ? kKeyRecord : kHinted;
      PSI_RETURN_IF_ERROR(
          reader_.feed(chunk, what, [&](uint64_t, size_t count, const uint8_t* data) {
            in_.insert(in_.end(), data, data + count * record);
            return Status::ok();
          }));
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(reader_.finish(what));
      return phase == PSI_PHASE_SETUP ? check_key_list() : Status::ok();
    }
    // round 4: the blinded differences, checked as they arrive.
    PSI_RETURN_IF_ERROR(
        reader_.feed(chunk, what, [&](uint64_t first, size_t count, const uint8_t* data) {
          return check_differences(first, count, data);
        }));
    if (!last) return Status::ok();
    PSI_RETURN_IF_ERROR(reader_.finish(what));
    const uint32_t k = c_.shape.hashes;
    result_.clear();
    for (size_t e = 0; e < count_; ++e) {
      bool all = true;
      for (uint32_t h = 0; h < k; ++h) all &= pass_[positions_[e * k + h]] != 0;
      if (all) result_.push_back(e);
    }
    return Status::ok();
  }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_SETUP) {
      if (round == 2) return finish_empty(written, done);
      if (record_.empty()) make_key_record();
      emit_from_buffer(record_, &record_pos_, out, cap, written, done);
      return Status::ok();
    }
    if (round == 4) return finish_empty(written, done);
    if (round == 0) {
      if (!emitter_started_) {
        if (!have_secret_)
          return state_error("mpsi: psi_set_group_secret before the first online round");
        compute_filter();
        emitter_.reset(c_.shape.bits, kCiphertext);
        emitter_started_ = true;
      }
      PSI_RETURN_IF_ERROR(emitter_.emit(
          out, cap, written, done,
          [&](uint64_t first, size_t count, uint8_t* dst) { return encrypt(first, count, dst); }));
      if (*done) emitter_started_ = false;
      return Status::ok();
    }
    // round 2: decryption shares.
    if (!emitter_started_) {
      emitter_.reset(c_.shape.bits, kHinted);
      blind_.reseed(blind_key());
      emitter_started_ = true;
    }
    PSI_RETURN_IF_ERROR(emitter_.emit(
        out, cap, written, done,
        [&](uint64_t first, size_t count, uint8_t* dst) { return shares(first, count, dst); }));
    if (*done) {
      emitter_started_ = false;
      std::vector<uint8_t>().swap(in_);
    }
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    if (!have_key_) return state_error("mpsi: setup is not complete");
    out->assign(kSetupMagic, kSetupMagic + 4);
    append_u32(out, c_.parties);
    append_u32(out, c_.index);
    out->insert(out->end(), x_.b, x_.b + 32);
    uint8_t y[32];
    group::encode(joint_, y);
    out->insert(out->end(), y, y + 32);
    return Status::ok();
  }

  Status import_setup(ByteView data) override {
    ByteReader r(data);
    char magic[4];
    uint32_t n = 0, index = 0;
    uint8_t y[32];
    if (!r.read(magic, 4) || std::memcmp(magic, kSetupMagic, 4) != 0 || !r.read_u32(&n) ||
        !r.read_u32(&index) || !r.read(x_.b, 32) || !r.read(y, 32) || r.remaining() != 0)
      return argument_error("mpsi: not an exported mpsi party setup");
    if (n != c_.parties || index != c_.index)
      return argument_error("mpsi: the setup is of party " + std::to_string(index) + " of " +
                            std::to_string(n) + ", this session is party " +
                            std::to_string(c_.index) + " of " + std::to_string(c_.parties));
    if (!scalar_canonical(x_.b) || !decode(y, &joint_))
      return argument_error("mpsi: the exported setup is corrupt");
    set_keys();
    return Status::ok();
  }

  const std::vector<uint64_t>& result() const override { return result_; }

 private:
  static Status finish_empty(size_t* written, bool* done) {
    *written = 0;
    *done = true;
    return Status::ok();
  }
  static void append_u32(std::vector<uint8_t>* out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out->push_back(uint8_t(v >> (8 * i)));
  }

  void make_key_record() {
    Prg kp(derive_block(seed_, 32, "psi-flink mpsi key"));
    x_ = random_scalar(kp);
    const Scalar k = random_scalar(kp);
    record_.assign(kKeyRecord, 0);
    group::encode(constants().g.mul(x_.b), record_.data());
    group::encode(constants().g.mul(k.b), record_.data() + 32);
    const Scalar e = key_challenge(c_.parties, c_.index, record_.data(), record_.data() + 32);
    crypto_core_ristretto255_scalar_mul(record_.data() + 64, e.b, x_.b);
    crypto_core_ristretto255_scalar_add(record_.data() + 64, record_.data() + 64, k.b);
    record_pos_ = 0;
  }

  // The records of a feed round: the key list (setup round 2), u' (online round 2), the
  // differences (online round 4), each of a known count.
  void start_feed(psi_phase phase, uint32_t round) {
    feed_phase_ = phase, feed_round_ = round;
    if (phase == PSI_PHASE_SETUP) {
      reader_.reset(c_.parties, kKeyRecord);
    } else if (round == 2) {
      reader_.reset(c_.shape.bits, kHinted);
    } else {
      reader_.reset(c_.shape.bits, group::kPointBytes);
      blind_.reseed(blind_key());
      pass_.assign(c_.shape.bits, 0);
    }
  }

  // The complete key list in in_.
  Status check_key_list() {
    if (std::memcmp(in_.data() + size_t(c_.index) * kKeyRecord, record_.data(), kKeyRecord) != 0)
      return peer_error("provider's key list does not hold this party's key at index " +
                        std::to_string(c_.index));
    Point sum = group::point_identity();
    for (uint32_t i = 0; i < c_.parties; ++i) {
      Point y;
      PSI_RETURN_IF_ERROR(check_key_record(in_.data() + size_t(i) * kKeyRecord, c_.parties, i, &y));
      sum = group::point_add(sum, y);
    }
    if (group::point_is_identity(sum)) return peer_error("the joint key is the identity");
    joint_ = sum;
    std::vector<uint8_t>().swap(in_);
    set_keys();
    return Status::ok();
  }

  void set_keys() {
    crypto_core_ristretto255_scalar_mul(x4_.b, x_.b, constants().quarter.b);
    fixed_y_ = std::make_unique<FixedBase>(joint_);
    have_key_ = true;
  }

  Block blind_key() const {
    return derive_block(secret_, 32, instance_label("psi-flink mpsi blind", c_.instance));
  }

  // The Bloom filter of this party's set: positions_ (count * k) and bits_.
  void compute_filter() {
    uint8_t key[32];
    derive_key(secret_, 32, instance_label("psi-flink mpsi positions", c_.instance), key, 32);
    const uint32_t k = c_.shape.hashes;
    const uint64_t m = c_.shape.bits;
    positions_.assign(count_ * k, 0);
    bits_.assign(m, 0);
    for (size_t e = 0; e < count_; ++e) {
      const uint8_t* el = elements_.data() + e * element_len_;
      for (uint32_t blk = 0; blk * 8 < k; ++blk) {
        uint8_t ctr[4] = {uint8_t(blk), uint8_t(blk >> 8), uint8_t(blk >> 16), uint8_t(blk >> 24)};
        uint8_t h[64];
        crypto_generichash_blake2b_state st;
        crypto_generichash_blake2b_init(&st, key, sizeof key, sizeof h);
        crypto_generichash_blake2b_update(&st, ctr, sizeof ctr);
        crypto_generichash_blake2b_update(&st, el, element_len_);
        crypto_generichash_blake2b_final(&st, h, sizeof h);
        for (uint32_t j = 0; j < 8 && blk * 8 + j < k; ++j) {
          uint64_t v = 0;
          for (int b = 0; b < 8; ++b) v |= uint64_t(h[8 * j + b]) << (8 * b);
          const uint64_t pos = uint64_t((group::u128(v) * m) >> 64);
          positions_[e * k + blk * 8 + j] = pos;
          bits_[pos] = 1;
        }
      }
    }
    secure_wipe(key, sizeof key);
  }

  // Round 0: (2 rho' G, 2 rho' Y - [bit = 0] G) for each position, with hints.
  Status encrypt(uint64_t first, size_t count, uint8_t* dst) {
    const Constants& k = constants();
    std::vector<uint8_t> rho(count * 32);
    for (size_t t = 0; t < count; ++t) store(random_scalar(prg_), &rho, t);
    std::vector<Point> u(count), v(count), pts(2 * count);
    group::fixed_base_mul_batch(k.g, rho.data(), count, u.data());
    group::fixed_base_mul_batch(*fixed_y_, rho.data(), count, v.data());
    secure_wipe(rho.data(), rho.size());
    for (size_t t = 0; t < count; ++t) {
      pts[2 * t] = u[t];
      pts[2 * t + 1] = bits_[first + t] ? v[t] : group::point_add(v[t], k.minus_half_g);
    }
    double_encode_batch(pts.data(), pts.size(), dst, kHinted, dst + group::kPointBytes, kHinted);
    return Status::ok();
  }

  // Round 2: x_i/2 * u' (+ 2 d_j G from party 0) where the bit is set, else a random point.
  Status shares(uint64_t first, size_t count, uint8_t* dst) {
    const Constants& k = constants();
    std::vector<Point> set_u, pts(count);
    std::vector<size_t> set_at, unset_at;
    std::vector<uint8_t> blinds, noise;
    for (size_t t = 0; t < count; ++t) {
      const uint64_t j = first + t;
      const uint8_t* rec = in_.data() + j * kHinted;
      Point u;
      if (!decode_hinted(rec, rec + group::kPointBytes, &u))
        return bad_point("provider's round-1 message", j);
      Scalar d;
      if (c_.index == 0) d = random_scalar(blind_);
      if (bits_[j]) {
        set_u.push_back(u);
        set_at.push_back(t);
        if (c_.index == 0) append(d, &blinds);
      } else {
        unset_at.push_back(t);
        append(random_scalar(prg_), &noise);
      }
    }
    std::vector<uint8_t> keys(set_u.size() * 32);
    for (size_t i = 0; i < set_u.size(); ++i) std::memcpy(&keys[i * 32], x4_.b, 32);
    std::vector<Point> shares(set_u.size()), extra(std::max(set_u.size(), unset_at.size()));
    group::point_mul_batch(set_u.data(), keys.data(), set_u.size(), shares.data());
    if (c_.index == 0) {
      group::fixed_base_mul_batch(k.g, blinds.data(), set_u.size(), extra.data());
      for (size_t i = 0; i < set_u.size(); ++i) shares[i] = group::point_add(shares[i], extra[i]);
    }
    for (size_t i = 0; i < set_u.size(); ++i) pts[set_at[i]] = shares[i];
    group::fixed_base_mul_batch(k.g, noise.data(), unset_at.size(), extra.data());
    for (size_t i = 0; i < unset_at.size(); ++i) pts[unset_at[i]] = extra[i];
    secure_wipe(keys.data(), keys.size());
    secure_wipe(blinds.data(), blinds.size());
    secure_wipe(noise.data(), noise.size());
    double_encode_batch(pts.data(), count, dst, kHinted, dst + group::kPointBytes, kHinted);
    return Status::ok();
  }

  // Round 4: Q_j against -4 d_j G where this party's bit is set.
  Status check_differences(uint64_t first, size_t count, const uint8_t* data) {
    const Constants& k = constants();
    std::vector<uint8_t> blinds;
    std::vector<uint64_t> where;
    for (size_t t = 0; t < count; ++t) {
      group::Fe s;
      const uint8_t* q = data + t * group::kPointBytes;
      if (!group::fe_from_bytes_canonical(q, &s) || (q[0] & 1))
        return peer_error("provider's round-3 message: position " + std::to_string(first + t) +
                          " is not a canonical ristretto255 encoding");
      const Scalar d = random_scalar(blind_);
      if (bits_[first + t]) {
        append(d, &blinds);
        where.push_back(t);
      }
    }
    std::vector<Point> expect(where.size());
    group::fixed_base_mul_batch(k.g, blinds.data(), where.size(), expect.data());
    secure_wipe(blinds.data(), blinds.size());
    for (Point& e : expect) e = group::point_neg(group::point_dbl(e));
    std::vector<uint8_t> enc(expect.size() * group::kPointBytes);
    double_encode_batch(expect.data(), expect.size(), enc.data(), group::kPointBytes, nullptr, 0);
    for (size_t i = 0; i < where.size(); ++i)
      pass_[first + where[i]] = ct_equal(enc.data() + i * group::kPointBytes,
                                         data + where[i] * group::kPointBytes, group::kPointBytes);
    return Status::ok();
  }

  static void store(const Scalar& s, std::vector<uint8_t>* out, size_t i) {
    std::memcpy(out->data() + i * 32, s.b, 32);
  }
  static void append(const Scalar& s, std::vector<uint8_t>* out) {
    out->insert(out->end(), s.b, s.b + 32);
  }

  Config c_;
  uint8_t seed_[32];
  Prg prg_, blind_;
  // setup
  Scalar x_{}, x4_{};
  std::vector<uint8_t> record_;
  size_t record_pos_ = 0;
  bool have_key_ = false;
  Point joint_{};
  std::unique_ptr<FixedBase> fixed_y_;
  uint8_t secret_[32] = {};
  bool have_secret_ = false;
  // input and filter
  std::vector<uint8_t> elements_;
  size_t count_ = 0, element_len_ = 0;
  std::vector<uint64_t> positions_;
  std::vector<uint8_t> bits_;
  // rounds
  std::vector<uint8_t> in_;
  BatchedEmitter emitter_;
  bool emitter_started_ = false;
  RecordReader reader_;
  psi_phase feed_phase_ = PSI_PHASE_SETUP;
  uint32_t feed_round_ = 0;  // 0: no round fed yet (round 0 takes no message)
  std::vector<uint8_t> pass_;
  std::vector<uint64_t> result_;
};

// ---------------------------------------------------------------------------------------------
class MpsiProvider final : public Protocol {
 public:
  MpsiProvider(const Config& c, const uint8_t seed[32])
      : c_(c), readers_(c.parties), peer_done_(c.parties, 0), records_(c.parties) {
    prg_.reseed(derive_block(seed, 32, instance_label("psi-flink mpsi provider", c_.instance)));
  }

  uint32_t round_count(psi_phase phase) const override { return phase == PSI_PHASE_SETUP ? 3 : 5; }
  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 1; }
  bool needs_input() const override { return false; }

  Status set_input(const uint8_t*, size_t, size_t) override {
    return state_error("mpsi: the provider holds no set");
  }
  Status set_group_secret(const uint8_t*, size_t) override {
    return state_error("mpsi: the provider must not hold the parties' group secret");
  }
  Status feed(psi_phase, uint32_t, ByteView, bool) override {
    return argument_error("mpsi: the provider takes each party's message with psi_round_feed_from");
  }

  Status feed_from(psi_phase phase, uint32_t round, uint32_t peer, ByteView chunk, bool last,
                   bool* complete) override {
    *complete = false;
    if (peer >= c_.parties)
      return argument_error("mpsi: peer " + std::to_string(peer) +
                            " is not a party (parties=" + std::to_string(c_.parties) + ")");
    if (phase != feed_phase_ || round != feed_round_) start_round(phase, round);
    if (peer_done_[peer])
      return state_error("mpsi: party " + std::to_string(peer) + "'s message of round " +
                         std::to_string(round) + " is complete already");
    const std::string what =
        "party " + std::to_string(peer) + "'s round-" + std::to_string(round - 1) + " message";
    RecordReader& rd = readers_[peer];
    if (phase == PSI_PHASE_SETUP) {
      PSI_RETURN_IF_ERROR(rd.feed(chunk, what, [&](uint64_t, size_t, const uint8_t* data) {
        records_[peer].assign(data, data + kKeyRecord);
        return Status::ok();
      }));
      if (last) {
        PSI_RETURN_IF_ERROR(rd.finish(what));
        Point y;
        PSI_RETURN_IF_ERROR(check_key_record(records_[peer].data(), c_.parties, peer, &y));
      }
    } else if (round == 1) {
      PSI_RETURN_IF_ERROR(
          rd.feed(chunk, what, [&](uint64_t first, size_t count, const uint8_t* data) {
            for (size_t t = 0; t < count; ++t) {
              const uint8_t* rec = data + t * kCiphertext;
              Point u, v;
              if (!decode_hinted(rec, rec + 32, &u) || !decode_hinted(rec + 64, rec + 96, &v))
                return bad_point(what, first + t);
              acc_u_[first + t] = group::point_add(acc_u_[first + t], u);
              acc_v_[first + t] = group::point_add(acc_v_[first + t], v);
            }
            return Status::ok();
          }));
      if (last) PSI_RETURN_IF_ERROR(rd.finish(what));
    } else {
      PSI_RETURN_IF_ERROR(
          rd.feed(chunk, what, [&](uint64_t first, size_t count, const uint8_t* data) {
            for (size_t t = 0; t < count; ++t) {
              const uint8_t* rec = data + t * kHinted;
              Point s;
              if (!decode_hinted(rec, rec + 32, &s)) return bad_point(what, first + t);
              acc_u_[first + t] = group::point_add(acc_u_[first + t], s);
            }
            return Status::ok();
          }));
      if (last) PSI_RETURN_IF_ERROR(rd.finish(what));
    }
    if (last) {
      peer_done_[peer] = 1;
      *complete = ++peers_done_ == c_.parties;
    }
    return Status::ok();
  }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_SETUP) {
      if (list_.empty())
        for (const auto& r : records_) list_.insert(list_.end(), r.begin(), r.end());
      emit_from_buffer(list_, &list_pos_, out, cap, written, done);
      if (*done) have_setup_ = true;
      return Status::ok();
    }
    if (!emitter_started_) {
      emitter_.reset(c_.shape.bits, round == 1 ? kHinted : group::kPointBytes);
      emitter_started_ = true;
    }
    if (round == 1) {
      PSI_RETURN_IF_ERROR(
          emitter_.emit(out, cap, written, done, [&](uint64_t first, size_t count, uint8_t* dst) {
            std::vector<Point> pts(count);
            std::vector<uint8_t> r(count * 32);
            for (size_t t = 0; t < count; ++t) {
              const Scalar s = random_scalar(prg_);
              std::memcpy(&r[t * 32], s.b, 32);
            }
            group::point_mul_batch(&acc_u_[first], r.data(), count, pts.data());
            group::point_mul_batch(&acc_v_[first], r.data(), count, &acc_v_[first]);
            secure_wipe(r.data(), r.size());
            for (size_t t = 0; t < count; ++t)  // from here on: the sum of the shares
              acc_u_[first + t] = group::point_identity();
            double_encode_batch(pts.data(), count, dst, kHinted, dst + group::kPointBytes, kHinted);
            return Status::ok();
          }));
    } else {
      PSI_RETURN_IF_ERROR(
          emitter_.emit(out, cap, written, done, [&](uint64_t first, size_t count, uint8_t* dst) {
            std::vector<Point> pts(count);
            for (size_t t = 0; t < count; ++t)
              pts[t] = group::point_sub(acc_v_[first + t], acc_u_[first + t]);
            double_encode_batch(pts.data(), count, dst, group::kPointBytes, nullptr, 0);
            return Status::ok();
          }));
      if (*done) {
        std::vector<Point>().swap(acc_u_);
        std::vector<Point>().swap(acc_v_);
      }
    }
    if (*done) emitter_started_ = false;
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    if (!have_setup_) return state_error("mpsi: setup is not complete");
    out->assign(kSetupMagic, kSetupMagic + 4);
    for (int i = 0; i < 4; ++i) out->push_back(uint8_t(c_.parties >> (8 * i)));
    return Status::ok();
  }
  Status import_setup(ByteView data) override {
    ByteReader r(data);
    char magic[4];
    uint32_t n = 0;
    if (!r.read(magic, 4) || std::memcmp(magic, kSetupMagic, 4) != 0 || !r.read_u32(&n) ||
        r.remaining() != 0)
      return argument_error("mpsi: not an exported mpsi provider setup");
    if (n != c_.parties)
      return argument_error("mpsi: the setup is for " + std::to_string(n) + " parties, not " +
                            std::to_string(c_.parties));
    have_setup_ = true;
    return Status::ok();
  }

  Status result_available() const override {
    return state_error("mpsi: the provider learns nothing, it has no result");
  }
  const std::vector<uint64_t>& result() const override { return none_; }

 private:
  void start_round(psi_phase phase, uint32_t round) {
    feed_phase_ = phase, feed_round_ = round;
    std::fill(peer_done_.begin(), peer_done_.end(), 0);
    peers_done_ = 0;
    const uint64_t m = c_.shape.bits;
    for (auto& rd : readers_) {
      if (phase == PSI_PHASE_SETUP)
        rd.reset(1, kKeyRecord);
      else
        rd.reset(m, round == 1 ? kCiphertext : kHinted);
    }
    if (phase == PSI_PHASE_ONLINE && round == 1) {
      acc_u_.assign(m, group::point_identity());
      acc_v_.assign(m, group::point_identity());
    }
  }

  Config c_;
  Prg prg_;
  psi_phase feed_phase_ = PSI_PHASE_SETUP;
  uint32_t feed_round_ = UINT32_MAX;
  std::vector<RecordReader> readers_;
  std::vector<uint8_t> peer_done_;
  uint32_t peers_done_ = 0;
  std::vector<std::vector<uint8_t>> records_;
  std::vector<uint8_t> list_;
  size_t list_pos_ = 0;
  bool have_setup_ = false;
  std::vector<Point> acc_u_, acc_v_;  // round 1: sums of u and v; then shares and r_j V_j
  BatchedEmitter emitter_;
  bool emitter_started_ = false;
  std::vector<uint64_t> none_;
};

}  // namespace

namespace mpsi {

FilterShape filter_shape(uint64_t set_size, double fpr, double fill) {
  const double w = double(set_size);
  // the fewest positions m giving fill f with k hashes: 1 - e^{-kw/m} = f
  auto positions = [&](uint32_t k, double f) {
    return uint64_t(std::max(1.0, std::ceil(-double(k) * w / std::log1p(-f))));
  };
  if (fill > 0) {
    const uint32_t k = uint32_t(std::max(1.0, std::ceil(std::log(fpr) / std::log(fill))));
    return FilterShape{positions(k, fill), k};
  }
  FilterShape best;
  for (uint32_t k = 1; k <= 128; ++k) {
    const double f = std::pow(fpr, 1.0 / k);  // f^k = fpr
    if (!(f < 1)) continue;
    const uint64_t bits = positions(k, f);
    if (best.bits == 0 || bits < best.bits) best = FilterShape{bits, k};
  }
  return best;
}

}  // namespace mpsi

std::unique_ptr<Protocol> make_mpsi(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status) {
  if (role != PSI_ROLE_PARTY && role != PSI_ROLE_PROVIDER) {
    *status = argument_error("mpsi has the roles party and provider only");
    return nullptr;
  }
  Config c;
  *status = config_from_params(params, role, &c);
  if (!status->is_ok()) return nullptr;
  if (role == PSI_ROLE_PARTY) return std::make_unique<MpsiParty>(c, seed);
  return std::make_unique<MpsiProvider>(c, seed);
}

}  // namespace psi
