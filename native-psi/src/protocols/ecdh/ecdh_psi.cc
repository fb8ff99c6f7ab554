#include "ecdh_psi.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>

#include "../../core/prg.h"
#include "../labels.h"
#include "set_filter.h"

namespace psi {
namespace {

using ecdh::FilterKey;
using ecdh::FilterKind;

constexpr size_t kPoint = crypto_core_ristretto255_BYTES;         // 32
constexpr size_t kScalar = crypto_core_ristretto255_SCALARBYTES;  // 32
constexpr size_t kSetupId = 8;
constexpr char kSetupMagic[4] = {'p', 's', 'e', '1'};
constexpr char kSenderBlobMagic[8] = {'e', 'c', 'd', 'h', 's', 'n', 'd', '1'};
constexpr char kReceiverBlobMagic[8] = {'e', 'c', 'd', 'h', 'r', 'c', 'v', '1'};
constexpr size_t kSetupIdOffset = 4;  // setup message: magic | setup id | ...
constexpr size_t kInstance = 32;      // the 256-bit run instance (Params::get_instance)
constexpr size_t kRequestHeader = kInstance + kSetupId + 8;
constexpr size_t kResponseHeader = kSetupId + kInstance + 8;
constexpr size_t kChunkElements = 1024;  // client points computed per emit batch
constexpr char kHashDomain[] = "psi-flink ecdh hash-to-group v1";
constexpr uint64_t kMaxSize = uint64_t(1) << 32;
// output=labels: the setup message carries the label message of labels.h in place of a filter
// (its tags are the membership test), under this kind byte; tags of sigma = 40 bits + log2 of both
// sizes, like the masks of rr22 and kkrt.
constexpr uint8_t kLabelsKind = 3;
constexpr uint32_t kLabelSigma = 40;

enum class Output { kReceiver, kBoth, kCardinality, kLabels };

struct EcdhConfig {
  uint64_t receiver_size = 0, sender_size = 0;
  std::array<uint8_t, kInstance> instance{};
  double fpr = 1e-9;
  FilterKind filter = FilterKind::kGcs;
  Output output = Output::kReceiver;
  uint64_t label = 0;  // output=labels: the length of every label
};

Status config_from_params(const Params& p, EcdhConfig* c) {
  if (!p.has("receiver_size") || !p.has("sender_size"))
    return argument_error("ecdh needs receiver_size and sender_size");
  std::string filter, output;
  PSI_RETURN_IF_ERROR(p.get_u64("receiver_size", 0, &c->receiver_size));
  PSI_RETURN_IF_ERROR(p.get_u64("sender_size", 0, &c->sender_size));
  PSI_RETURN_IF_ERROR(p.get_instance("instance", c->instance.data()));
  PSI_RETURN_IF_ERROR(p.get_double("fpr", 1e-9, &c->fpr));
  PSI_RETURN_IF_ERROR(p.get_string("filter", "gcs", &filter));
  PSI_RETURN_IF_ERROR(p.get_string("output", "receiver", &output));
  PSI_RETURN_IF_ERROR(p.get_u64("label", 0, &c->label));
  PSI_RETURN_IF_ERROR(p.check_all_used());
  if (c->receiver_size >= kMaxSize || c->sender_size >= kMaxSize)
    return argument_error("ecdh: receiver_size and sender_size must be below 2^32");
  if (!(c->fpr > 0 && c->fpr < 1) || c->fpr < 1e-30)
    return argument_error("ecdh: fpr must be in [1e-30, 1)");
  if (filter == "gcs")
    c->filter = FilterKind::kGcs;
  else if (filter == "bloom")
    c->filter = FilterKind::kBloom;
  else
    return argument_error("ecdh: filter must be 'gcs' or 'bloom', not '" + filter + "'");
  if (output == "receiver")
    c->output = Output::kReceiver;
  else if (output == "both")
    c->output = Output::kBoth;
  else if (output == "cardinality")
    c->output = Output::kCardinality;
  else if (output == "labels")
    c->output = Output::kLabels;
  else
    return argument_error(
        "ecdh: output must be 'receiver', 'both', 'cardinality' or 'labels', not '" + output + "'");
  if (c->output == Output::kLabels) {
    if (!p.has("label")) return argument_error("ecdh: output=labels needs the label parameter");
    LabelLayout check;
    PSI_RETURN_IF_ERROR(LabelLayout::make(kLabelSigma, 1, 1, 1, c->label, &check));
  } else if (p.has("label")) {
    return argument_error("ecdh: the label parameter goes with output=labels only");
  }
  return Status::ok();
}

uint64_t load_u64(const uint8_t* p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = x << 8 | p[i];
  return x;
}

// Scalar from the session seed: BLAKE2b-512 keyed by the seed over a label, reduced mod l.
void derive_scalar(const uint8_t seed[32], const std::string& label, uint8_t out[kScalar]) {
  uint8_t wide[64];
  crypto_generichash(wide, sizeof wide, reinterpret_cast<const uint8_t*>(label.data()),
                     label.size(), seed, 32);
  crypto_core_ristretto255_scalar_reduce(out, wide);
  sodium_memzero(wide, sizeof wide);
}

// H(x): ristretto255 from_hash of a domain-separated BLAKE2b-512 of the element.
void hash_to_group(const uint8_t* x, size_t len, uint8_t out[kPoint]) {
  uint8_t wide[64];
  crypto_generichash(wide, sizeof wide, x, len, reinterpret_cast<const uint8_t*>(kHashDomain),
                     sizeof kHashDomain - 1);
  crypto_core_ristretto255_from_hash(out, wide);
}

// The label message's shape for a setup of ns sender elements serving `queries` client elements.
LabelLayout label_layout(const EcdhConfig& c, uint64_t queries) {
  LabelLayout l;
  LabelLayout::make(kLabelSigma, queries, c.sender_size, 1, c.label, &l);  // label checked
  return l;
}

// The labels' derivations are keyed per setup (a setup serves many runs): the setup id, which
// names the server key k, zero-padded to an instance.
std::array<uint8_t, 32> label_instance(const uint8_t setup_id[kSetupId]) {
  std::array<uint8_t, 32> inst{};
  std::memcpy(inst.data(), setup_id, kSetupId);
  return inst;
}

// The OPRF value F(y) = H(y)^k as the 128-bit input of labels.h: BLAKE2b-128 of the point.
Block label_value(const uint8_t point[kPoint]) {
  uint8_t d[16];
  crypto_generichash(d, sizeof d, point, kPoint,
                     reinterpret_cast<const uint8_t*>("psi-flink ecdh label value"), 26);
  Block b = load_block(d);
  sodium_memzero(d, sizeof d);
  return b;
}

std::string where(const char* who, psi_phase phase, uint32_t round) {
  return std::string("ecdh ") + who + (phase == PSI_PHASE_SETUP ? " setup" : " online") +
         " round " + std::to_string(round);
}

// Collects a peer message of bounded size.
Status append_bounded(std::vector<uint8_t>* buf, ByteView c, size_t max, const std::string& w) {
  if (c.size > max - buf->size())
    return peer_error(w + ": message longer than the expected " + std::to_string(max) + " bytes");
  buf->insert(buf->end(), c.data, c.data + c.size);
  return Status::ok();
}

// Splits a streamed message into a fixed header and fixed-size records; the header callback returns
// the number of records that must follow.
class RecordStream {
 public:
  using OnHeader = std::function<Status(const uint8_t*, uint64_t*)>;
  using OnRecord = std::function<Status(const uint8_t*, uint64_t)>;
  RecordStream(size_t header, size_t record) : header_(header), record_(record) {}
  Status feed(ByteView c, const OnHeader& on_header, const OnRecord& on_record,
              const std::string& w) {
    size_t off = 0;
    while (off < c.size) {
      const size_t want = !have_header_ ? header_ : record_;
      if (have_header_ && seen_ == expected_)
        return peer_error(w + ": message longer than its " + std::to_string(expected_) +
                          " records");
      const size_t take = std::min(want - pending_.size(), c.size - off);
      const uint8_t* p = nullptr;
      if (pending_.empty() && take == want) {
        p = c.data + off;  // a whole unit inside the chunk: no copy
      } else {
        pending_.insert(pending_.end(), c.data + off, c.data + off + take);
        if (pending_.size() == want) p = pending_.data();
      }
      off += take;
      if (p == nullptr) continue;
      if (!have_header_) {
        PSI_RETURN_IF_ERROR(on_header(p, &expected_));
        have_header_ = true;
      } else {
        PSI_RETURN_IF_ERROR(on_record(p, seen_));
        ++seen_;
      }
      pending_.clear();
    }
    return Status::ok();
  }
  Status finish(const std::string& w) const {
    if (!have_header_) return peer_error(w + ": message truncated in its header");
    if (seen_ != expected_ || !pending_.empty())
      return peer_error(w + ": message truncated: " + std::to_string(seen_) + " of " +
                        std::to_string(expected_) + " records");
    return Status::ok();
  }

 private:
  size_t header_, record_;
  std::vector<uint8_t> pending_;
  bool have_header_ = false;
  uint64_t expected_ = 0, seen_ = 0;
};

// Checks a setup message against this party's configuration; on success *queries gets the number of
// client queries the filter was sized for and *filter_at the offset of the filter.
Status check_setup_message(ByteView m, const EcdhConfig& c, uint64_t* queries, size_t* filter_at,
                           const std::string& w,
                           std::vector<ecdh::GcsCheckpoint>* index = nullptr) {
  if (m.size < kSetupIdOffset + kSetupId) return peer_error(w + ": setup message truncated");
  if (std::memcmp(m.data, kSetupMagic, 4) != 0)
    return peer_error(w + ": not an ecdh setup message");
  size_t pos = kSetupIdOffset + kSetupId;
  ecdh::u128 ns = 0, q = 0;
  if (!ecdh::read_varint(m, &pos, &ns) || !ecdh::read_varint(m, &pos, &q) || pos >= m.size)
    return peer_error(w + ": setup header truncated or overlong");
  const uint8_t kind = m.data[pos++];
  if (ns != c.sender_size)
    return peer_error(w + ": setup is for another number of sender elements than sender_size=" +
                      std::to_string(c.sender_size));
  if (q < c.receiver_size || q >= kMaxSize)
    return peer_error(w + ": setup is sized for fewer client queries than receiver_size=" +
                      std::to_string(c.receiver_size));
  if (c.output == Output::kLabels) {
    ecdh::u128 len = 0;
    if (kind != kLabelsKind) return peer_error(w + ": setup carries no labels (output=labels)");
    if (!ecdh::read_varint(m, &pos, &len)) return peer_error(w + ": setup header truncated");
    if (len != c.label)
      return peer_error(w + ": setup carries labels of " + std::to_string(uint64_t(len)) +
                        " bytes, this session has label=" + std::to_string(c.label));
    const uint64_t want = label_layout(c, uint64_t(q)).message_bytes();
    if (m.size - pos != want)
      return peer_error(w + ": label message of " + std::to_string(m.size - pos) +
                        " bytes, expected " + std::to_string(want));
    *queries = uint64_t(q);
    *filter_at = pos;
    return Status::ok();
  }
  if (kind == kLabelsKind)
    return peer_error(w + ": setup carries labels but this session's output is not labels");
  if (kind != uint8_t(c.filter)) return peer_error(w + ": setup uses another filter than filter=");
  ByteView f(m.data + pos, m.size - pos);
  Status st = c.filter == FilterKind::kGcs
                  ? ecdh::gcs_validate(f, ecdh::gcs_range(uint64_t(ns), uint64_t(q), c.fpr),
                                       uint64_t(ns), index)
                  : ecdh::bloom_validate(f, ecdh::bloom_shape(uint64_t(ns), uint64_t(q), c.fpr));
  if (!st.is_ok()) return peer_error(w + ": " + st.message());
  *queries = uint64_t(q);
  *filter_at = pos;
  return Status::ok();
}

// Common state of both roles.
class EcdhBase : public Protocol {
 public:
  EcdhBase(const EcdhConfig& c, const uint8_t seed[32]) : cfg_(c) { std::memcpy(seed_, seed, 32); }
  ~EcdhBase() override { sodium_memzero(seed_, sizeof seed_); }
  const std::vector<uint64_t>& result() const override { return result_; }

 protected:
  bool both() const { return cfg_.output == Output::kBoth; }
  bool labelled() const { return cfg_.output == Output::kLabels; }
  EcdhConfig cfg_;
  uint8_t seed_[32];
  std::vector<uint8_t> out_;
  size_t out_pos_ = 0;
  std::vector<uint64_t> result_;
};

// ---------------------------------------------------------------------------------------------
class EcdhSender final : public EcdhBase {
 public:
  EcdhSender(const EcdhConfig& c, const uint8_t seed[32]) : EcdhBase(c, seed) {
    derive_scalar(seed_, "psi-flink ecdh server key", key_);
    crypto_generichash(setup_id_, kSetupId, key_, kScalar,
                       reinterpret_cast<const uint8_t*>("psi-flink ecdh setup id"), 23);
  }
  ~EcdhSender() override {
    sodium_memzero(key_, sizeof key_);
    sodium_memzero(elements_.data(), elements_.size());
  }

  uint32_t round_count(psi_phase phase) const override {
    return phase == PSI_PHASE_SETUP ? 2 : (both() ? 5 : 3);
  }
  bool is_mine(psi_phase phase, uint32_t round) const override {
    return phase == PSI_PHASE_SETUP ? round % 2 == 0 : round % 2 == 1;
  }
  bool setup_needs_input() const override { return true; }
  Status indices_available() const override {
    if (cfg_.output == Output::kCardinality)
      return state_error(
          "ecdh output=cardinality: the sender learns nothing, there are no indices");
    return Status::ok();
  }
  Status result_available() const override {
    if (labelled())
      return state_error("ecdh: the sender of a labelled run learns nothing (no result)");
    return Status::ok();
  }
  // The labels travel in the setup message: they must come before the setup round.
  Status set_labels(const uint8_t* labels, size_t count, size_t label_len) override {
    if (!labelled()) return state_error("ecdh: labels need output=labels");
    if (setup_done_)
      return state_error(
          "ecdh: the setup (run or imported) already carries the labels; psi_set_labels must "
          "precede the setup round");
    return labels_.set(label_layout(cfg_, cfg_.receiver_size), labels, count, label_len);
  }

  Status set_input(const uint8_t* elements, size_t count, size_t element_len) override {
    if (count != cfg_.sender_size)
      return input_error("input has " + std::to_string(count) + " elements but sender_size is " +
                         std::to_string(cfg_.sender_size));
    uint8_t digest[32];
    input_digest(elements, count, element_len, digest);
    // Before the setup the input may be replaced; after it (run or imported) it must be the same
    // array.
    if (setup_done_ && !ct_equal(digest, digest_, 32))
      return input_error(
          "ecdh: the input differs from the set the setup was computed for; run a new setup");
    std::memcpy(digest_, digest, 32);
    have_digest_ = true;
    if (!setup_done_) {
      element_len_ = element_len;
      elements_.assign(elements, elements + count * element_len);
    }
    return Status::ok();
  }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string w = where("sender", phase, round);
    if (phase == PSI_PHASE_SETUP) {  // round 0
      if (chunk.size) return peer_error(w + ": expects no input");
      return last ? compute_setup(w) : Status::ok();
    }
    if (round == 1) {
      PSI_RETURN_IF_ERROR(request_.feed(
          chunk, [&](const uint8_t* h, uint64_t* n) { return on_request_header(h, n, w); },
          [&](const uint8_t* p, uint64_t i) { return on_request_point(p, i, w); }, w));
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(request_.finish(w));
      if (cfg_.output == Output::kCardinality) shuffle_response();
      out_pos_ = 0;
      return Status::ok();
    }
    // round 3 (output=both): the matched values
    PSI_RETURN_IF_ERROR(append_bounded(&in_, chunk, 8 + cfg_.receiver_size * kPoint, w));
    return last ? finish_matches(w) : Status::ok();
  }

  Status emit(psi_phase, uint32_t, uint8_t* out, size_t cap, size_t* written, bool* done) override {
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    if (*done) {
      std::vector<uint8_t>().swap(out_);
      out_pos_ = 0;
    }
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    if (!setup_done_) return state_error("ecdh: setup is not complete");
    out->clear();
    put_bytes(out, kSenderBlobMagic, 8);
    put_bytes(out, key_, kScalar);
    put_bytes(out, digest_, 32);
    put_u64(out, queries_);
    put_u64(out, setup_msg_.size());
    put_bytes(out, setup_msg_.data(), setup_msg_.size());
    put_u64(out, table_.size());
    for (const Entry& e : table_) {
      put_u64(out, e.key.lo);
      put_u64(out, e.key.hi);
      put_u64(out, e.index);
    }
    return Status::ok();
  }

  Status import_setup(ByteView data) override {
    const std::string w = "ecdh sender setup import";
    ByteReader r(data);
    char magic[8];
    uint8_t key[kScalar], digest[32];
    uint64_t queries = 0, msg_len = 0, entries = 0;
    ByteView msg;
    if (!r.read(magic, 8) || std::memcmp(magic, kSenderBlobMagic, 8) != 0 ||
        !r.read(key, kScalar) || !r.read(digest, 32) || !r.read_u64(&queries) ||
        !r.read_u64(&msg_len) || !r.take(msg_len, &msg) || !r.read_u64(&entries) ||
        entries != cfg_.sender_size || r.remaining() != entries * 24)
      return argument_error(
          "not an ecdh sender setup blob for sender_size=" + std::to_string(cfg_.sender_size) +
          " (" + std::to_string(data.size) + " bytes)");
    uint64_t q = 0;
    size_t filter_at = 0;
    Status st = check_setup_message(msg, cfg_, &q, &filter_at, w);
    if (!st.is_ok() || q != queries)
      return argument_error(w + ": " + (st.is_ok() ? "queries differ" : st.message()));
    std::vector<Entry> table(entries);
    for (uint64_t i = 0; i < entries; ++i) {
      r.read_u64(&table[i].key.lo);
      r.read_u64(&table[i].key.hi);
      r.read_u64(&table[i].index);
      if (table[i].index >= cfg_.sender_size || (i > 0 && !(table[i - 1].key < table[i].key)))
        return argument_error(w + ": corrupt table");
    }
    if (have_digest_ && !ct_equal(digest, digest_, 32))
      return input_error(
          "ecdh: the input differs from the set the imported setup was computed for");
    std::memcpy(key_, key, kScalar);
    sodium_memzero(key, kScalar);
    crypto_generichash(setup_id_, kSetupId, key_, kScalar,
                       reinterpret_cast<const uint8_t*>("psi-flink ecdh setup id"), 23);
    if (std::memcmp(setup_id_, msg.data + kSetupIdOffset, kSetupId) != 0)
      return argument_error(w + ": key and setup id differ");
    std::memcpy(digest_, digest, 32);
    have_digest_ = true;
    queries_ = q;
    setup_msg_.assign(msg.data, msg.data + msg.size);
    table_ = std::move(table);
    setup_done_ = true;
    sodium_memzero(elements_.data(), elements_.size());
    std::vector<uint8_t>().swap(elements_);
    return Status::ok();
  }

 private:
  struct Entry {
    FilterKey key;
    uint64_t index;
  };

  static void input_digest(const uint8_t* e, size_t count, size_t len, uint8_t out[32]) {
    crypto_generichash_state st;
    crypto_generichash_init(&st, reinterpret_cast<const uint8_t*>("psi-flink ecdh input digest"),
                            27, 32);
    uint8_t hdr[16];
    for (int i = 0; i < 8; ++i) hdr[i] = uint8_t(uint64_t(count) >> (8 * i));
    for (int i = 0; i < 8; ++i) hdr[8 + i] = uint8_t(uint64_t(len) >> (8 * i));
    crypto_generichash_update(&st, hdr, sizeof hdr);
    if (count) crypto_generichash_update(&st, e, count * len);
    crypto_generichash_final(&st, out, 32);
  }

  Status compute_setup(const std::string& w) {
    if (setup_done_) return state_error(w + ": setup already imported");
    if (!have_digest_) return state_error(w + ": the sender's setup needs psi_set_input first");
    if (labelled() && !labels_.has_labels())
      return state_error(w + ": output=labels but psi_set_labels was not called before the setup");
    const uint64_t n = cfg_.sender_size;
    std::vector<FilterKey> keys(n);
    table_.resize(n);
    std::vector<Block> values(labelled() ? n : 0);
    uint8_t h[kPoint], hk[kPoint];
    for (uint64_t i = 0; i < n; ++i) {
      hash_to_group(&elements_[i * element_len_], element_len_, h);
      if (crypto_scalarmult_ristretto255(hk, key_, h) != 0)
        return Status(PSI_ERR_INTERNAL, w + ": identity point");
      keys[i] = ecdh::filter_key(hk);
      table_[i] = {keys[i], i};
      if (labelled()) values[i] = label_value(hk);
    }
    sodium_memzero(hk, sizeof hk);
    std::sort(table_.begin(), table_.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    for (size_t i = 1; i < table_.size(); ++i)
      if (table_[i - 1].key == table_[i].key)
        return input_error(w + ": duplicate element in the sender's input (indices " +
                           std::to_string(table_[i - 1].index) + " and " +
                           std::to_string(table_[i].index) + ")");
    queries_ = cfg_.receiver_size;
    setup_msg_.clear();
    put_bytes(&setup_msg_, kSetupMagic, 4);
    put_bytes(&setup_msg_, setup_id_, kSetupId);
    ecdh::put_varint(&setup_msg_, n);
    ecdh::put_varint(&setup_msg_, queries_);
    if (labelled()) {  // no filter: the label tags are the membership test
      setup_msg_.push_back(kLabelsKind);
      ecdh::put_varint(&setup_msg_, cfg_.label);
      append_labels(values);
    } else {
      setup_msg_.push_back(uint8_t(cfg_.filter));
      if (cfg_.filter == FilterKind::kGcs)
        ecdh::gcs_encode(keys, ecdh::gcs_range(n, queries_, cfg_.fpr), &setup_msg_);
      else
        ecdh::bloom_encode(keys, ecdh::bloom_shape(n, queries_, cfg_.fpr), &setup_msg_);
    }
    sodium_memzero(elements_.data(), elements_.size());
    std::vector<uint8_t>().swap(elements_);
    setup_done_ = true;
    out_ = setup_msg_;
    out_pos_ = 0;
    return Status::ok();
  }

  // The label records, one per element in a secret random order (the receiver must not learn the
  // input index of an element it holds): the shuffle is derived from the seed and the setup id.
  void append_labels(std::vector<Block>& values) {
    const uint64_t n = cfg_.sender_size;
    uint8_t k[16];
    derive_key(seed_, 32, "psi-flink ecdh label order", k, 16);
    Prg prg(load_block(k));
    sodium_memzero(k, sizeof k);
    std::vector<uint32_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = uint32_t(i);
    for (uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[prg.uniform(i)]);
    std::vector<Block> F(n);
    for (uint64_t i = 0; i < n; ++i) F[i] = values[order[i]];
    sodium_memzero(values.data(), values.size() * sizeof(Block));
    const auto inst = label_instance(setup_id_);
    labels_.start(inst.data(), "ecdh", &prg);
    const size_t base = setup_msg_.size();
    setup_msg_.resize(base + labels_.layout().message_bytes());
    labels_.direct_records(F.data(), order.data(), n, setup_msg_.data() + base);
    sodium_memzero(F.data(), F.size() * sizeof(Block));
    labels_.clear();
  }

  Status on_request_header(const uint8_t* h, uint64_t* n, const std::string& w) {
    if (!setup_done_) return state_error(w + ": setup not complete");
    const uint64_t count = load_u64(h + kInstance + kSetupId);
    if (std::memcmp(h, cfg_.instance.data(), kInstance) != 0)
      return peer_error(w + ": request for instance " + instance_hex(h) +
                        ", this session is instance " + instance_hex(cfg_.instance.data()));
    if (!ct_equal(h + kInstance, setup_id_, kSetupId))
      return peer_error(
          w +
          ": the client holds another setup (the server key was rotated?): run the setup again");
    if (count != cfg_.receiver_size)
      return peer_error(w + ": request of " + std::to_string(count) + " points, receiver_size is " +
                        std::to_string(cfg_.receiver_size));
    if (count > queries_)
      return peer_error(w + ": " + std::to_string(count) + " queries, the setup allows " +
                        std::to_string(queries_));
    out_.assign(kResponseHeader + count * kPoint, 0);
    std::memcpy(out_.data(), setup_id_, kSetupId);
    std::memcpy(out_.data() + kSetupId, cfg_.instance.data(), kInstance);
    for (int i = 0; i < 8; ++i) out_[kSetupId + kInstance + i] = uint8_t(count >> (8 * i));
    *n = count;
    return Status::ok();
  }

  Status on_request_point(const uint8_t* p, uint64_t i, const std::string& w) {
    // Fails on a non-canonical encoding, a non-point and the identity (k != 0, prime order).
    if (crypto_scalarmult_ristretto255(&out_[kResponseHeader + i * kPoint], key_, p) != 0)
      return peer_error(w + ": point " + std::to_string(i) +
                        " is not a valid non-identity ristretto255 encoding");
    return Status::ok();
  }

  void shuffle_response() {
    uint8_t k[16];
    derive_key(seed_, 32, "psi-flink ecdh shuffle " + instance_hex(cfg_.instance.data()), k, 16);
    Prg prg(load_block(k));
    sodium_memzero(k, sizeof k);
    const uint64_t n = cfg_.receiver_size;
    uint8_t tmp[kPoint];
    uint8_t* base = out_.data() + kResponseHeader;
    for (uint64_t i = n; i > 1; --i) {
      const uint64_t j = prg.uniform(i);
      std::memcpy(tmp, base + (i - 1) * kPoint, kPoint);
      std::memmove(base + (i - 1) * kPoint, base + j * kPoint, kPoint);
      std::memcpy(base + j * kPoint, tmp, kPoint);
    }
  }

  Status finish_matches(const std::string& w) {
    if (in_.size() < 8) return peer_error(w + ": message truncated");
    const uint64_t m = load_u64(in_.data());
    if (m > cfg_.receiver_size || in_.size() != 8 + m * kPoint)
      return peer_error(w + ": expected " + std::to_string(m) +
                        " matched points (at most receiver_size), got " +
                        std::to_string(in_.size()) + " bytes");
    out_.assign(8 + (m + 7) / 8, 0);
    for (int i = 0; i < 8; ++i) out_[i] = uint8_t(m >> (8 * i));
    std::vector<uint64_t> found;
    for (uint64_t j = 0; j < m; ++j) {
      const uint8_t* p = &in_[8 + j * kPoint];
      if (!crypto_core_ristretto255_is_valid_point(p))
        return peer_error(w + ": matched value " + std::to_string(j) +
                          " is not a valid ristretto255 point");
      const FilterKey k = ecdh::filter_key(p);
      auto it = std::lower_bound(table_.begin(), table_.end(), k,
                                 [](const Entry& e, const FilterKey& x) { return e.key < x; });
      if (it != table_.end() && it->key == k) {
        out_[8 + j / 8] |= uint8_t(1u << (j % 8));
        found.push_back(it->index);
      }
    }
    std::sort(found.begin(), found.end());
    for (size_t i = 1; i < found.size(); ++i)
      if (found[i] == found[i - 1]) return peer_error(w + ": the same value was sent twice");
    result_ = std::move(found);
    std::vector<uint8_t>().swap(in_);
    out_pos_ = 0;
    return Status::ok();
  }

  uint8_t key_[kScalar];
  uint8_t setup_id_[kSetupId];
  uint8_t digest_[32] = {0};
  bool have_digest_ = false;
  bool setup_done_ = false;
  size_t element_len_ = 0;
  std::vector<uint8_t> elements_;
  uint64_t queries_ = 0;
  std::vector<uint8_t> setup_msg_;
  std::vector<Entry> table_;
  RecordStream request_{kRequestHeader, kPoint};
  std::vector<uint8_t> in_;
  LabelSender labels_;  // output=labels: the labels, until the setup message holds them
};

// ---------------------------------------------------------------------------------------------
class EcdhReceiver final : public EcdhBase {
 public:
  EcdhReceiver(const EcdhConfig& c, const uint8_t seed[32]) : EcdhBase(c, seed) {
    derive_scalar(seed_, "psi-flink ecdh client blind " + instance_hex(cfg_.instance.data()), r_);
    crypto_core_ristretto255_scalar_invert(r_inv_, r_);
  }
  ~EcdhReceiver() override {
    sodium_memzero(r_, sizeof r_);
    sodium_memzero(r_inv_, sizeof r_inv_);
    sodium_memzero(elements_.data(), elements_.size());
  }

  uint32_t round_count(psi_phase phase) const override {
    return phase == PSI_PHASE_SETUP ? 2 : (both() ? 5 : 3);
  }
  bool is_mine(psi_phase phase, uint32_t round) const override {
    return phase == PSI_PHASE_SETUP ? round % 2 == 1 : round % 2 == 0;
  }
  uint64_t result_size() const override {
    return cfg_.output == Output::kCardinality ? cardinality_ : result_.size();
  }
  Status indices_available() const override {
    if (cfg_.output == Output::kCardinality)
      return state_error(
          "ecdh output=cardinality: the client learns only the count (psi_result_size), no "
          "indices");
    return Status::ok();
  }

  Status set_labels(const uint8_t*, size_t, size_t) override {
    return state_error("ecdh: only the sender gives labels");
  }
  Status labels_available() const override {
    if (!labelled()) return state_error("ecdh: this run's output is not labels");
    if (!labels_done_) return state_error("ecdh: the labels are not complete");
    return Status::ok();
  }
  const std::vector<uint8_t>& result_labels() const override { return labels_in_.labels(); }

  Status set_input(const uint8_t* elements, size_t count, size_t element_len) override {
    if (count != cfg_.receiver_size)
      return input_error("input has " + std::to_string(count) + " elements but receiver_size is " +
                         std::to_string(cfg_.receiver_size));
    element_len_ = element_len;
    elements_.assign(elements, elements + count * element_len);
    return Status::ok();
  }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string w = where("receiver", phase, round);
    if (phase == PSI_PHASE_SETUP) {  // round 1: the setup message
      const uint64_t cap =
          1024 +
          (labelled()
               ? cfg_.sender_size * (16 + cfg_.label + kLabelMacBytes)
               : std::max<uint64_t>(
                     cfg_.sender_size * 24,
                     (ecdh::bloom_shape(cfg_.sender_size, cfg_.receiver_size, cfg_.fpr).bits + 7) /
                         8));
      PSI_RETURN_IF_ERROR(
          append_bounded(&setup_msg_, chunk, size_t(std::max<uint64_t>(cap, 1 << 20)), w));
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(
          check_setup_message(ByteView(setup_msg_), cfg_, &queries_, &filter_at_, w, &index_));
      setup_done_ = true;
      out_.clear();
      out_pos_ = 0;
      return Status::ok();
    }
    if (round == 0) {
      if (chunk.size) return peer_error(w + ": expects no input");
      if (!last) return Status::ok();
      if (!setup_done_) return state_error(w + ": setup not complete");
      out_.clear();
      put_bytes(&out_, cfg_.instance.data(), kInstance);
      put_bytes(&out_, setup_msg_.data() + kSetupIdOffset, kSetupId);
      put_u64(&out_, cfg_.receiver_size);
      out_pos_ = 0;
      next_ = 0;
      return Status::ok();
    }
    if (round == 2) {
      PSI_RETURN_IF_ERROR(response_.feed(
          chunk, [&](const uint8_t* h, uint64_t* n) { return on_response_header(h, n, w); },
          [&](const uint8_t* p, uint64_t i) { return on_response_point(p, i, w); }, w));
      return last ? finish_response(w) : Status::ok();
    }
    // round 4: the genuine-match bitmask
    PSI_RETURN_IF_ERROR(append_bounded(&in_, chunk, 8 + (matched_.size() + 7) / 8, w));
    return last ? finish_bitmask(w) : Status::ok();
  }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_ONLINE && round == 0) return emit_request(out, cap, written, done);
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    if (!setup_done_) return state_error("ecdh: setup is not complete");
    out->clear();
    put_bytes(out, kReceiverBlobMagic, 8);
    put_u64(out, setup_msg_.size());
    put_bytes(out, setup_msg_.data(), setup_msg_.size());
    return Status::ok();
  }

  Status import_setup(ByteView data) override {
    ByteReader r(data);
    char magic[8];
    uint64_t len = 0;
    ByteView msg;
    if (!r.read(magic, 8) || std::memcmp(magic, kReceiverBlobMagic, 8) != 0 || !r.read_u64(&len) ||
        !r.take(len, &msg) || r.remaining() != 0)
      return argument_error("not an ecdh receiver setup blob (" + std::to_string(data.size) +
                            " bytes)");
    Status st = check_setup_message(msg, cfg_, &queries_, &filter_at_, "ecdh receiver setup import",
                                    &index_);
    if (!st.is_ok()) return argument_error(st.message());
    setup_msg_.assign(msg.data, msg.data + msg.size);
    setup_done_ = true;
    return Status::ok();
  }

 private:
  Status emit_request(uint8_t* out, size_t cap, size_t* written, bool* done) {
    *written = 0;
    *done = false;
    const uint64_t n = cfg_.receiver_size;
    while (cap > 0) {
      if (out_pos_ == out_.size()) {
        if (next_ == n) break;
        const uint64_t end = std::min<uint64_t>(n, next_ + kChunkElements);
        out_.resize((end - next_) * kPoint);
        out_pos_ = 0;
        uint8_t h[kPoint];
        for (uint64_t i = next_; i < end; ++i) {
          hash_to_group(&elements_[i * element_len_], element_len_, h);
          if (crypto_scalarmult_ristretto255(&out_[(i - next_) * kPoint], r_, h) != 0)
            return Status(PSI_ERR_INTERNAL, "ecdh: identity point");
        }
        next_ = end;
      }
      const size_t k = std::min(cap, out_.size() - out_pos_);
      std::memcpy(out, out_.data() + out_pos_, k);
      out_pos_ += k;
      out += k;
      cap -= k;
      *written += k;
    }
    if (out_pos_ == out_.size() && next_ == n) {
      *done = true;
      std::vector<uint8_t>().swap(out_);
      out_pos_ = 0;
    }
    return Status::ok();
  }

  Status on_response_header(const uint8_t* h, uint64_t* n, const std::string& w) {
    if (!ct_equal(h, setup_msg_.data() + kSetupIdOffset, kSetupId))
      return peer_error(w + ": response under another server key than the setup's (key rotated?)");
    const uint64_t count = load_u64(h + kSetupId + kInstance);
    if (std::memcmp(h + kSetupId, cfg_.instance.data(), kInstance) != 0)
      return peer_error(w + ": response for another instance");
    if (count != cfg_.receiver_size)
      return peer_error(w + ": response of " + std::to_string(count) + " points, expected " +
                        std::to_string(cfg_.receiver_size));
    keys_.resize(count);
    if (both()) unblinded_.resize(count * kPoint);
    if (labelled()) values_.resize(count);
    *n = count;
    return Status::ok();
  }

  Status on_response_point(const uint8_t* p, uint64_t i, const std::string& w) {
    uint8_t z[kPoint];
    if (crypto_scalarmult_ristretto255(z, r_inv_, p) != 0)
      return peer_error(w + ": point " + std::to_string(i) +
                        " is not a valid non-identity ristretto255 encoding");
    keys_[i] = ecdh::filter_key(z);
    if (both()) std::memcpy(&unblinded_[i * kPoint], z, kPoint);
    if (labelled()) values_[i] = label_value(z);
    sodium_memzero(z, sizeof z);
    return Status::ok();
  }

  Status finish_response(const std::string& w) {
    PSI_RETURN_IF_ERROR(response_.finish(w));
    {  // equal unblinded points come from equal elements (up to a 2^-128 digest collision)
      std::vector<FilterKey> sorted = keys_;
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i - 1] == sorted[i])
          return input_error(w + ": duplicate element in the receiver's input");
    }
    if (labelled()) return open_labels(w);
    std::vector<uint8_t> hits;
    ByteView f(setup_msg_.data() + filter_at_, setup_msg_.size() - filter_at_);
    if (cfg_.filter == FilterKind::kGcs) {
      // Few queries: jump to each one's block; many: one merge pass over the whole set.
      const ecdh::u128 range = ecdh::gcs_range(cfg_.sender_size, queries_, cfg_.fpr);
      Status st = keys_.size() * ecdh::kGcsCheckpointEvery < cfg_.sender_size
                      ? ecdh::gcs_lookup_indexed(f, range, cfg_.sender_size, index_, keys_, &hits)
                      : ecdh::gcs_lookup(f, range, cfg_.sender_size, keys_, &hits);
      if (!st.is_ok()) return Status(PSI_ERR_INTERNAL, w + ": " + st.message());
    } else {
      ecdh::bloom_lookup(f, keys_, &hits);
    }
    std::vector<FilterKey>().swap(keys_);
    sodium_memzero(elements_.data(), elements_.size());
    std::vector<uint8_t>().swap(elements_);
    out_.clear();
    out_pos_ = 0;
    if (cfg_.output == Output::kCardinality) {
      cardinality_ = 0;
      for (uint8_t h : hits) cardinality_ += h;
      return Status::ok();
    }
    for (uint64_t i = 0; i < hits.size(); ++i)
      if (hits[i]) matched_.push_back(i);
    if (!both()) {
      result_ = matched_;
      return Status::ok();
    }
    put_u64(&out_, matched_.size());
    for (uint64_t i : matched_) put_bytes(&out_, &unblinded_[i * kPoint], kPoint);
    std::vector<uint8_t>().swap(unblinded_);
    return Status::ok();
  }

  // output=labels: the setup's label records against this party's OPRF values H(x)^k.
  Status open_labels(const std::string& w) {
    std::vector<FilterKey>().swap(keys_);
    sodium_memzero(elements_.data(), elements_.size());
    std::vector<uint8_t>().swap(elements_);
    const auto inst = label_instance(setup_msg_.data() + kSetupIdOffset);
    labels_in_.start(label_layout(cfg_, queries_), inst.data(), "ecdh", values_.data(),
                     values_.size());
    sodium_memzero(values_.data(), values_.size() * sizeof(Block));
    std::vector<Block>().swap(values_);
    PSI_RETURN_IF_ERROR(labels_in_.absorb(
        ByteView(setup_msg_.data() + filter_at_, setup_msg_.size() - filter_at_), w));
    PSI_RETURN_IF_ERROR(labels_in_.finish(w));
    result_ = labels_in_.result();
    labels_done_ = true;
    out_.clear();
    out_pos_ = 0;
    return Status::ok();
  }

  Status finish_bitmask(const std::string& w) {
    const uint64_t m = matched_.size();
    if (in_.size() != 8 + (m + 7) / 8 || load_u64(in_.data()) != m)
      return peer_error(w + ": expected a bitmask of " + std::to_string(m) + " bits");
    const uint8_t* bits = in_.data() + 8;
    if ((m & 7) && (bits[m / 8] >> (m & 7))) return peer_error(w + ": non-zero padding bits");
    result_.clear();
    for (uint64_t j = 0; j < m; ++j)
      if ((bits[j / 8] >> (j % 8)) & 1) result_.push_back(matched_[j]);
    out_.clear();
    out_pos_ = 0;
    return Status::ok();
  }

  uint8_t r_[kScalar], r_inv_[kScalar];
  bool setup_done_ = false;
  size_t element_len_ = 0;
  std::vector<uint8_t> elements_;
  std::vector<uint8_t> setup_msg_;
  uint64_t queries_ = 0;
  size_t filter_at_ = 0;
  std::vector<ecdh::GcsCheckpoint> index_;  // every 64th value of the checked GCS
  uint64_t next_ = 0;
  RecordStream response_{kResponseHeader, kPoint};
  std::vector<FilterKey> keys_;
  std::vector<uint8_t> unblinded_;
  std::vector<uint64_t> matched_;
  std::vector<uint8_t> in_;
  uint64_t cardinality_ = 0;
  std::vector<Block> values_;  // output=labels: this party's OPRF values, F(x) = H(x)^k
  LabelReceiver labels_in_;
  bool labels_done_ = false;
};

}  // namespace

std::unique_ptr<Protocol> make_ecdh(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status) {
  EcdhConfig c;
  *status = config_from_params(params, &c);
  if (!status->is_ok()) return nullptr;
  if (role == PSI_ROLE_RECEIVER) return std::make_unique<EcdhReceiver>(c, seed);
  if (role == PSI_ROLE_SENDER) return std::make_unique<EcdhSender>(c, seed);
  *status = argument_error("ecdh has the roles receiver (client) and sender (server) only");
  return nullptr;
}

}  // namespace psi
