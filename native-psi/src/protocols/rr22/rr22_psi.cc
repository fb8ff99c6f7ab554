#include "rr22_psi.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "../../core/aes.h"
#include "../../core/gf128.h"
#include "../../core/prg.h"
#include "../../okvs/okvs.h"
#include "../../ot/base_ot.h"
#include "../../vole/iknp.h"
#include "../../vole/silent_vole.h"
#include "../labels.h"
#include "../message_buffer.h"

namespace psi {
namespace {

constexpr uint64_t kDefaultPiece = uint64_t(1) << 21;  // VOLE outputs per piece (default)
constexpr uint64_t kMaxSetSize = uint64_t(1) << 28;    // element indices fit the lookup's 32 bits
constexpr size_t kSetupSenderBytes = kIknpBaseOts * 32 + 32;
constexpr char kSetupMagic[8] = {'r', 'r', '2', '2', 's', 'e', 't', '1'};
constexpr size_t kInstanceBytes = 32;
constexpr size_t kClaimBytes = 12;  // u32 position | u64 proof, as for kkrt
constexpr size_t kBatch = 1024;     // elements hashed / decoded at a time
// Outputs computed per step: the sender's per refill of its round-3 message. Decoding this many
// keys per call lets the OKVS use its tables for the dense part.
constexpr size_t kMaskChunk = 1u << 15;
constexpr size_t kFirstMasks = 4 * kBatch;  // the sender's first step of round 3

// The OKVS-sized vectors (tens to hundreds of MB, allocated once per run) on ordinary pages, not
// transparent huge pages: on the reference VMs (virtio-balloon; the host seems to take back free
// guest memory) faulting in a huge page that was not freed moments before ran at 150-900 MB/s,
// against ~2 GB/s for ordinary pages, which outweighed the TLB misses THP saves on decode
// (2^24 x 2^24: 14.7-15.8 s against 18.5-19.4 s). The VOLE's piece buffers keep THP: each piece
// gets back the pages the one before freed (silent_vole.cc). resize() leaves new elements
// uninitialised (Uninit): every element of these is written before it is read or sent (the OKVS
// encoding writes all of P, the VOLE all of b), and zeroing them first was a pass over tens of MB
// on the receiver's critical path.
template <typename T>
struct Uninit : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = Uninit<U>;
  };
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using BigBlocks = std::vector<Block, Uninit<Block>>;

std::string where(const char* who, psi_phase phase, uint32_t round) {
  return std::string("rr22 ") + who + (phase == PSI_PHASE_SETUP ? " setup" : " online") +
         " round " + std::to_string(round);
}

struct Rr22Config {
  uint64_t receiver_size = 0, sender_size = 0;
  uint32_t sigma = 40;
  uint32_t mask_bytes = 0;  // sigma + log2 n_r + log2 n_s bits, rounded up to bytes
  bool output_both = false;
  bool output_labels = false;      // the sender's round 3 carries labels (labels.h), not masks
  LabelLayout labels;              // output=labels: the label message's shape
  uint64_t piece = kDefaultPiece;  // most VOLE outputs per piece (public: both pass the same)
  uint32_t threads =
      1;  // threads of this party's session (its choice; the messages do not depend on it)
  std::array<uint8_t, 32> instance{};
};

// out = the indices of the set bits of `bits` (bit i of word i/64), ascending: a result without a
// sort.
void set_bits_ascending(const std::vector<uint64_t>& bits, std::vector<uint64_t>* out) {
  out->clear();
  for (uint64_t w = 0; w < bits.size(); ++w)
    for (uint64_t b = bits[w]; b; b &= b - 1) out->push_back(64 * w + uint64_t(__builtin_ctzll(b)));
}

// dst[0 .. L) = the first L bytes of *b (L <= 16), without a call for the usual 8 <= L: two
// overlapping 8-byte copies (a memcpy of a length known only at run time is a call per mask). b
// points into an array: loads from a Block just stored in a register spill would stall.
inline void put_mask(uint8_t* dst, const Block* b, uint32_t L) {
  const uint8_t* src = reinterpret_cast<const uint8_t*>(b);
  if (L < 8) {
    std::memcpy(dst, src, L);
    return;
  }
  std::memcpy(dst, src, 8);
  std::memcpy(dst + L - 8, src + L - 8, 8);
}

// Runs fn(begin, end) over [0, count) in up to `threads` contiguous parts, the first on the calling
// thread. An exception on a worker is carried to the caller (the ABI layer turns it into a status):
// none may escape a thread, which would end the process (and a JVM with it).
template <typename Fn>
void parallel_for(uint32_t threads, size_t count, size_t min_part, Fn fn) {
  const size_t parts =
      std::max<size_t>(1, std::min<size_t>(threads, count / std::max<size_t>(min_part, 1)));
  if (parts == 1) {
    fn(size_t(0), count);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> pool;
  for (size_t p = 1; p < parts; ++p)
    pool.emplace_back([&, p] {
      try {
        fn(count * p / parts, count * (p + 1) / parts);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  try {
    fn(size_t(0), count / parts);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

Status config_from_params(const Params& params, Rr22Config* c) {
  uint64_t sigma, threads, label;
  std::string output;
  if (!params.has("receiver_size") || !params.has("sender_size"))
    return argument_error("rr22 needs receiver_size and sender_size");
  PSI_RETURN_IF_ERROR(params.get_u64("receiver_size", 0, &c->receiver_size));
  PSI_RETURN_IF_ERROR(params.get_u64("sender_size", 0, &c->sender_size));
  PSI_RETURN_IF_ERROR(params.get_u64("sigma", 40, &sigma));
  PSI_RETURN_IF_ERROR(params.get_instance("instance", c->instance.data()));
  PSI_RETURN_IF_ERROR(params.get_string("output", "receiver", &output));
  PSI_RETURN_IF_ERROR(params.get_u64("threads", 1, &threads));
  PSI_RETURN_IF_ERROR(params.get_u64("piece", kDefaultPiece, &c->piece));
  PSI_RETURN_IF_ERROR(params.get_u64("label", 0, &label));
  if (c->piece < 1024 || c->piece > (uint64_t(1) << 26))
    return argument_error("piece must be in [1024, 2^26] VOLE outputs");
  if (threads < 1 || threads > 64) return argument_error("threads must be in [1, 64]");
  c->threads = uint32_t(threads);
  if (c->receiver_size >= kMaxSetSize || c->sender_size >= kMaxSetSize)
    return argument_error("rr22 set sizes must be below 2^28 per side (bin larger inputs)");
  if (sigma < 16 || sigma > 80) return argument_error("sigma must be in [16, 80]");
  if (output != "receiver" && output != "both" && output != "labels")
    return argument_error("output must be 'receiver', 'both' or 'labels', not '" + output + "'");
  c->sigma = uint32_t(sigma);
  c->output_both = output == "both";
  c->output_labels = output == "labels";
  c->mask_bytes = mask_bytes(c->sigma, c->receiver_size, c->sender_size);
  if (c->output_labels) {
    if (!params.has("label")) return argument_error("output=labels needs the label parameter");
    PSI_RETURN_IF_ERROR(
        LabelLayout::make(c->sigma, c->receiver_size, c->sender_size, 1, label, &c->labels));
  } else if (params.has("label")) {
    return argument_error("the label parameter goes with output=labels only");
  }
  return Status::ok();
}

// The public split of the VOLE of length m into pieces of near-equal size, and each piece's
// offset among the VOLE outputs and among the correlated OTs (IKNP needs multiples of 128).
struct Piece {
  LpnShape shape;
  uint64_t offset = 0;      // first VOLE output
  uint64_t msg_offset = 0;  // first byte of the piece's VOLE message in the sender's round 1
  uint64_t cot_first = 0;   // first correlated OT of the run
  uint64_t cot_padded = 0;  // correlated OTs requested (cot_count rounded up to 128)
};

std::vector<Piece> split_pieces(uint64_t m, uint64_t piece_max) {
  std::vector<Piece> pieces;
  if (m == 0) return pieces;
  const uint64_t count = (m + piece_max - 1) / piece_max;
  uint64_t offset = 0;
  for (uint64_t p = 0; p < count; ++p) {
    Piece piece;
    piece.shape = lpn_shape(m / count + (p < m % count ? 1 : 0));
    piece.offset = offset;
    offset += piece.shape.m;
    pieces.push_back(piece);
  }
  return pieces;
}

// Keys of one online run, from the setup's shared seed and the 256-bit instance. Both parties
// derive the same public ones (OKVS rows, codes, value hash, output key).
struct RunKeys {
  Block okvs_seed, value_key, out_key, proof_tweak;
  Block code_seed(size_t piece) const { return piece_block("code", piece); }
  Block vole_tweak(size_t piece) const { return piece_block("vole", piece); }

  void derive(const uint8_t shared_seed[32], const uint8_t instance[32]) {
    derive_key(shared_seed, 32, instance_label("psi-flink rr22 v1 instance", instance), key, 32);
    okvs_seed = derive_block(key, 32, "okvs");
    value_key = derive_block(key, 32, "value");
    out_key = derive_block(key, 32, "output");
    proof_tweak = derive_block(key, 32, "proof");
  }
  ~RunKeys() { secure_wipe(key, sizeof key); }

 private:
  Block piece_block(const char* what, size_t piece) const {
    return derive_block(key, 32, std::string(what) + " " + std::to_string(piece));
  }
  uint8_t key[32] = {0};
};

// The OPRF's last step on a batch: z = o ^ E(x) binds the element, tag = H(z) is compared, proof =
// H(z ^ proof_tweak) backs an output=both claim (H: the fixed-key correlation-robust hash).
class OutputHash {
 public:
  void init(const RunKeys& k) {
    elem_.set_key(k.out_key);
    proof_tweak_ = k.proof_tweak;
  }
  // o[i] becomes the tag; proofs (if not null) get the first 8 bytes of the proof.
  void finish(const Block* xs, Block* o, size_t n, uint64_t* proofs) const {
    bind(xs, o, n);
    tag(o, o, n, proofs);
  }
  // The two halves of finish(): o[i] becomes z = o ^ E(x); then tags[i] = H(z[i]) (tags may be
  // z) and the proofs. A caller that holds z in place of x can defer the second half.
  void bind(const Block* xs, Block* o, size_t n) const {
    Block e[kBatch];
    for (size_t i0 = 0; i0 < n; i0 += kBatch) {
      const size_t c = std::min(kBatch, n - i0);
      elem_.encrypt_blocks(xs + i0, e, c);
      for (size_t i = 0; i < c; ++i) o[i0 + i] ^= e[i];
    }
  }
  void tag(const Block* z, Block* tags, size_t n, uint64_t* proofs) const {
    for (size_t i0 = 0; i0 < n; i0 += kBatch) {
      const size_t c = std::min(kBatch, n - i0);
      if (proofs) {
        Block p[kBatch];
        for (size_t i = 0; i < c; ++i) p[i] = z[i0 + i] ^ proof_tweak_;
        hash_.hash_blocks(p, p, c);
        for (size_t i = 0; i < c; ++i) proofs[i0 + i] = block_lo(p[i]);
      }
      hash_.hash_blocks(z + i0, tags + i0, c);
    }
  }

 private:
  Aes128 elem_;
  Block proof_tweak_ = zero_block();
  FixedKeyHash hash_;
};

class Rr22Base : public Protocol {
 public:
  Rr22Base(const Rr22Config& cfg, const uint8_t seed[32]) : cfg_(cfg) {
    rng_.reseed(derive_block(seed, 32, "psi-flink rr22 rng"));
  }
  ~Rr22Base() override { secure_wipe(shared_seed_, sizeof shared_seed_); }

  uint32_t round_count(psi_phase phase) const override {
    return phase == PSI_PHASE_SETUP ? 3 : (cfg_.output_both ? 6 : 5);
  }
  const std::vector<uint64_t>& result() const override { return result_; }

  Status set_input(const uint8_t* elements, size_t count, size_t element_len) override {
    if (element_len != 16)
      return input_error("rr22 takes 16-byte elements (tokens), got element_len " +
                         std::to_string(element_len));
    if (count != own_size())
      return input_error("input has " + std::to_string(count) +
                         " elements but this party declared " + std::to_string(own_size()));
    elements_.resize(count);
    if (count) std::memcpy(elements_.data(), elements, count * 16);
    input_set_ = true;
    return ready_hook();
  }

 protected:
  virtual uint64_t own_size() const = 0;
  virtual Status prepare_online() = 0;
  // Work that needs only the input and the setup runs as soon as both are there.
  Status ready_hook() {
    if (!input_set_ || !setup_done_ || prepared_) return Status::ok();
    prepared_ = true;
    keys_.derive(shared_seed_, cfg_.instance.data());
    okvs_ = std::make_unique<Okvs>(cfg_.receiver_size, keys_.okvs_seed);
    pieces_ = split_pieces(okvs_->size(), cfg_.piece);
    value_.set_key(keys_.value_key);
    out_hash_.init(keys_);
    return prepare_online();
  }

  Status export_blob(psi_role role, ByteView secrets, std::vector<uint8_t>* out) const {
    if (!setup_done_) return state_error("rr22: setup is not complete");
    out->clear();
    put_bytes(out, kSetupMagic, 8);
    out->push_back(uint8_t(role));
    put_bytes(out, shared_seed_, 32);
    put_bytes(out, secrets.data, secrets.size);
    return Status::ok();
  }
  Status import_blob(ByteView data, psi_role role, size_t secrets_len, ByteView* secrets) {
    if (data.size != 41 + secrets_len || std::memcmp(data.data, kSetupMagic, 8) != 0 ||
        data.data[8] != role)
      return argument_error(std::string("not an rr22 ") + psi_role_name(role) + " setup blob (" +
                            std::to_string(data.size) + " bytes)");
    std::memcpy(shared_seed_, data.data + 9, 32);
    *secrets = ByteView(data.data + 41, secrets_len);
    setup_done_ = true;
    return Status::ok();
  }

  // The IKNP matrix bytes of all pieces (after the 32-byte instance).
  uint64_t matrix_bytes() const {
    uint64_t b = 0;
    for (const Piece& p : pieces_) b += 16 * p.cot_padded;
    return b;
  }

  // Streams out_ and refills it with produce() until that says no more; then runs after() in a
  // call of its own that writes nothing, so the caller has sent the last bytes before the work
  // starts (the peer's next round overlaps it).
  template <typename Produce, typename After>
  Status emit_streamed(uint8_t* out, size_t cap, size_t* written, bool* done, Produce produce,
                       After after) {
    *written = 0;
    *done = false;
    while (cap > 0) {
      if (out_pos_ == out_.size()) {
        out_.clear();
        out_pos_ = 0;
        if (!produced_all_) {
          bool more = false;
          PSI_RETURN_IF_ERROR(produce(&more));
          produced_all_ = !more;
        }
        if (out_.empty()) break;
      }
      const size_t n = std::min(cap, out_.size() - out_pos_);
      std::memcpy(out, out_.data() + out_pos_, n);
      out_pos_ += n;
      out += n;
      cap -= n;
      *written += n;
    }
    if (produced_all_ && out_pos_ == out_.size() && *written == 0) {
      PSI_RETURN_IF_ERROR(after());
      produced_all_ = false;
      out_.clear();
      out_pos_ = 0;
      *done = true;
    }
    return Status::ok();
  }

  Rr22Config cfg_;
  Prg rng_;
  uint8_t shared_seed_[32] = {0};
  bool setup_done_ = false, input_set_ = false, prepared_ = false;
  std::vector<Block> elements_;
  RunKeys keys_;
  std::unique_ptr<Okvs> okvs_;
  std::vector<Piece> pieces_;
  Aes128 value_;  // Hv(x) = AES_value_key(x): the value the receiver's OKVS maps x to
  OutputHash out_hash_;
  std::vector<uint64_t> result_;
  std::vector<uint8_t> out_;
  size_t out_pos_ = 0;
  bool produced_all_ = false;
};

// ---------------------------------------------------------------------------------------------
class Rr22Receiver final : public Rr22Base {
 public:
  using Rr22Base::Rr22Base;
  ~Rr22Receiver() override {
    secure_wipe(base_keys_.data(), base_keys_.size() * sizeof(base_keys_[0]));
    secure_wipe(P_.data(), P_.size() * sizeof(Block));
  }

  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 0; }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string at = where("receiver", phase, round);
    if (round == 0) {
      if (chunk.size) return peer_error(at + ": expects no input");
      if (!last) return Status::ok();
      if (phase == PSI_PHASE_SETUP) {
        base_ot_ = std::make_unique<BaseOtSender>(kIknpBaseOts, rng_);
        out_ = base_ot_->first_message();
        out_pos_ = 0;
        setup_in_.reset(kSetupSenderBytes);
        return Status::ok();
      }
      PSI_RETURN_IF_ERROR(ready_hook());
      if (!prepared_) return state_error(at + ": setup not complete");
      out_.assign(cfg_.instance.begin(), cfg_.instance.end());
      out_pos_ = 0;
      return Status::ok();
    }
    if (phase == PSI_PHASE_SETUP) {
      PSI_RETURN_IF_ERROR(setup_in_.append(chunk, at));
      return last ? finish_setup(at) : Status::ok();
    }
    if (round == 2) {
      PSI_RETURN_IF_ERROR(vole_in_.append(chunk, at));
      if (!last) {
        // The message is complete before its end is signalled: the sender encodes its last piece
        // between the two. The first pieces' P + a are computed in that time and wait in out_.
        if (vole_in_.data().size() != vole_bytes_ || masked_early_) return Status::ok();
        masked_early_ = true;
        out_.clear();
        out_pos_ = 0;
        bool more = false;
        return next_masked_piece(&more);
      }
      if (vole_in_.data().size() != vole_bytes_)
        return peer_error(at + ": message ended after " + std::to_string(vole_in_.data().size()) +
                          " of " + std::to_string(vole_bytes_) + " bytes");
      if (!masked_early_) {
        out_.clear();
        out_pos_ = 0;
      }
      return Status::ok();
    }
    // Round 4. This party's own outputs wait until the sender's arrive: computing them earlier
    // (after P + a has gone) would hold back the end of round 2, and with it the sender's outputs.
    if (!own_ready_) {
      PSI_RETURN_IF_ERROR(own_outputs());
      own_ready_ = true;
    }
    if (cfg_.output_labels) {
      PSI_RETURN_IF_ERROR(labels_in_.absorb(chunk, at));
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(labels_in_.finish(at));
      original_order_labels();
      labels_done_ = true;
      return Status::ok();
    }
    return absorb_masks(chunk, last, at);
  }

  Status set_labels(const uint8_t*, size_t, size_t) override {
    return state_error("rr22: only the sender gives labels");
  }
  Status labels_available() const override {
    if (!cfg_.output_labels) return state_error("rr22: this run's output is not labels");
    if (!labels_done_) return state_error("rr22: the labels are not complete");
    return Status::ok();
  }
  const std::vector<uint8_t>& result_labels() const override { return labels_; }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_ONLINE && round == 0)
      return emit_streamed(
          out, cap, written, done, [this](bool* more) { return next_matrix_piece(more); },
          [this] { return encode_set(); });
    if (phase == PSI_PHASE_ONLINE && round == 2)
      return emit_streamed(
          out, cap, written, done, [this](bool* more) { return next_masked_piece(more); },
          [] { return Status::ok(); });
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    return export_blob(PSI_ROLE_RECEIVER,
                       ByteView(reinterpret_cast<const uint8_t*>(base_keys_.data()),
                                base_keys_.size() * sizeof(base_keys_[0])),
                       out);
  }

  Status import_setup(ByteView data) override {
    ByteView keys;
    PSI_RETURN_IF_ERROR(import_blob(data, PSI_ROLE_RECEIVER, kIknpBaseOts * 32, &keys));
    base_keys_.resize(kIknpBaseOts);
    std::memcpy(base_keys_.data(), keys.data, keys.size);
    return ready_hook();
  }

 protected:
  uint64_t own_size() const override { return cfg_.receiver_size; }

 private:
  Status finish_setup(const std::string& at) {
    const auto& msg = setup_in_.data();
    if (msg.size() != kSetupSenderBytes)
      return peer_error(at + ": expected " + std::to_string(kSetupSenderBytes) + " bytes, got " +
                        std::to_string(msg.size()));
    PSI_RETURN_IF_ERROR(base_ot_->finish(ByteView(msg.data(), msg.size() - 32), &base_keys_));
    std::memcpy(shared_seed_, msg.data() + msg.size() - 32, 32);
    base_ot_.reset();
    setup_in_.release();
    out_.clear();
    out_pos_ = 0;
    setup_done_ = true;
    return ready_hook();
  }

  Status prepare_online() override {
    sort_by_bin();
    vole_.clear();
    vole_bytes_ = 0;
    for (size_t p = 0; p < pieces_.size(); ++p) {
      vole_.push_back(std::make_unique<SilentVoleReceiver>(pieces_[p].shape, keys_.code_seed(p),
                                                           keys_.vole_tweak(p), rng_));
      pieces_[p].cot_padded = (vole_[p]->cot_count() + 127) / 128 * 128;
      pieces_[p].msg_offset = vole_bytes_;
      vole_bytes_ += vole_[p]->message_bytes();
    }
    uint64_t cot = 0;
    for (Piece& p : pieces_) {
      p.cot_first = cot;
      cot += p.cot_padded;
    }
    vole_in_.reset(vole_bytes_);
    iknp_ = std::make_unique<IknpReceiver>(base_keys_.data(), cfg_.instance.data());
    cots_.resize(pieces_.size());
    return Status::ok();
  }

  // The elements in the order of their OKVS bins (stable): the encoding takes them in any order,
  // and own_outputs() then decodes c one bin's columns at a time (2-3x faster than in input order
  // once the OKVS exceeds the caches). Items are numbered in this order until the result, which
  // bin_of_ (2 bytes per element) maps back to input indices.
  void sort_by_bin() {
    const uint64_t n = cfg_.receiver_size;
    bin_of_.resize(n);
    okvs_->bins_of(elements_.data(), n, bin_of_.data());
    std::vector<uint64_t> at = bin_starts();
    std::vector<Block> sorted(n);
    for (uint64_t i = 0; i < n; ++i) sorted[at[bin_of_[i]]++] = elements_[i];
    secure_wipe(elements_.data(), elements_.size() * sizeof(Block));
    elements_.swap(sorted);
  }
  // Where each bin's items start in that order.
  std::vector<uint64_t> bin_starts() const {
    std::vector<uint64_t> at(okvs_->bins() + 1, 0);
    for (uint16_t b : bin_of_) ++at[b + 1];
    for (size_t b = 1; b < at.size(); ++b) at[b] += at[b - 1];
    return at;
  }
  // visit(input index, item) for the items whose bit is set in `items`, ascending input indices.
  template <typename Visit>
  void each_input_index(const std::vector<uint64_t>& items, Visit visit) const {
    std::vector<uint64_t> at = bin_starts();
    for (uint64_t i = 0; i < bin_of_.size(); ++i) {
      const uint64_t item = at[bin_of_[i]]++;
      if ((items[item / 64] >> (item % 64)) & 1) visit(i, item);
    }
  }
  // output=labels: the label receiver's result (items, ascending) as input indices, ascending,
  // with the labels in that order.
  void original_order_labels() {
    const std::vector<uint64_t>& items = labels_in_.result();
    const std::vector<uint8_t>& labels = labels_in_.labels();
    const size_t len = items.empty() ? 0 : labels.size() / items.size();
    std::vector<uint64_t> bits((cfg_.receiver_size + 63) / 64, 0);
    for (uint64_t it : items) bits[it / 64] |= uint64_t(1) << (it % 64);
    std::vector<uint32_t> rank(bits.size() + 1, 0);  // matches before each word
    for (size_t w = 0; w < bits.size(); ++w) rank[w + 1] = rank[w] + __builtin_popcountll(bits[w]);
    result_.clear();
    labels_.clear();
    labels_.reserve(labels.size());
    each_input_index(bits, [&](uint64_t i, uint64_t item) {
      const uint64_t below = bits[item / 64] & ((uint64_t(1) << (item % 64)) - 1);
      const size_t r = rank[item / 64] + size_t(__builtin_popcountll(below));
      result_.push_back(i);
      labels_.insert(labels_.end(), labels.begin() + r * len, labels.begin() + (r + 1) * len);
    });
    std::vector<uint16_t>().swap(bin_of_);
  }

  // Round 0: the next piece's IKNP matrix (first the instance, already in out_ at feed time).
  Status next_matrix_piece(bool* more) {
    if (next_piece_ == pieces_.size()) {
      *more = false;
      next_piece_ = 0;
      return Status::ok();
    }
    const Piece& p = pieces_[next_piece_];
    std::vector<uint8_t> choices(p.cot_padded / 8, 0);
    vole_[next_piece_]->choices(choices.data());
    out_.resize(16 * p.cot_padded);
    cots_[next_piece_].resize(p.cot_padded);
    iknp_->extend(p.cot_first, p.cot_padded, choices.data(), out_.data(),
                  cots_[next_piece_].data());
    secure_wipe(choices.data(), choices.size());
    ++next_piece_;
    *more = true;
    return Status::ok();
  }

  // After round 0 has gone: the OKVS of (x, Hv(x)) while the sender computes its VOLE.
  Status encode_set() {
    iknp_.reset();
    const uint64_t n = cfg_.receiver_size;
    P_.resize(okvs_->size());
    Status s = okvs_->encode(elements_.data(), value_, n, P_.data(), rng_);
    if (s.code() == PSI_ERR_INPUT) s = duplicate_error();  // the OKVS names items, not inputs
    if (!s.is_ok())
      return Status(s.code(), where("receiver", PSI_PHASE_ONLINE, 0) + ": " + s.message());
    return Status::ok();
  }

  // Two equal elements, by input index (the error path only: sorts the items).
  Status duplicate_error() const {
    std::vector<uint32_t> items(elements_.size());
    for (uint32_t j = 0; j < items.size(); ++j) items[j] = j;
    std::sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
      const int c = std::memcmp(&elements_[x], &elements_[y], 16);
      return c != 0 ? c < 0 : x < y;
    });
    uint64_t j1 = 0, j2 = 0;
    for (size_t k = 1; k < items.size() && j1 == j2; ++k)
      if (std::memcmp(&elements_[items[k - 1]], &elements_[items[k]], 16) == 0)
        j1 = items[k - 1], j2 = items[k];
    if (j1 == j2) return input_error("duplicate elements in the input");
    std::vector<uint64_t> bits((elements_.size() + 63) / 64, 0), inputs;
    for (uint64_t j : {j1, j2}) bits[j / 64] |= uint64_t(1) << (j % 64);
    each_input_index(bits, [&](uint64_t i, uint64_t) { inputs.push_back(i); });
    return input_error("duplicate element at input indices " + std::to_string(inputs[0]) + " and " +
                       std::to_string(inputs[1]));
  }

  // Round 2: the next pieces' P + a (up to `threads` pieces at once); P's range then holds c.
  Status next_masked_piece(bool* more) {
    if (next_piece_ == pieces_.size()) {
      *more = false;
      return Status::ok();
    }
    const size_t q0 = next_piece_;
    const size_t k = std::min<size_t>(cfg_.threads, pieces_.size() - q0);
    const uint64_t first = pieces_[q0].offset;
    const uint64_t end = q0 + k < pieces_.size() ? pieces_[q0 + k].offset : P_.size();
    out_.resize(16 * (end - first));
    std::vector<Status> st(k);
    parallel_for(uint32_t(k), k, 1, [&](size_t b, size_t e) {
      for (size_t j = b; j < e; ++j) {
        const size_t q = q0 + j;
        const Piece& p = pieces_[q];
        // vector storage is 16-byte aligned and every piece starts at a multiple of 16 bytes
        Block* masked = reinterpret_cast<Block*>(out_.data() + 16 * (p.offset - first));
        st[j] = vole_[q]->finish_masked(
            cots_[q].data(),
            ByteView(vole_in_.data().data() + p.msg_offset, vole_[q]->message_bytes()),
            P_.data() + p.offset, masked);
        if (!st[j].is_ok()) continue;
        secure_wipe(cots_[q].data(), cots_[q].size() * sizeof(Block));
        std::vector<Block>().swap(cots_[q]);
        vole_[q].reset();
      }
    });
    for (const Status& x : st) PSI_RETURN_IF_ERROR(x);
    next_piece_ += k;
    *more = true;
    return Status::ok();
  }

  // This party's OPRF outputs H(decode(c, x), x) and their lookup table (output=labels: the
  // label receiver's).
  Status own_outputs() {
    vole_in_.release();
    const uint64_t n = cfg_.receiver_size;
    if (cfg_.output_labels) {
      std::vector<Block> F(n);
      parallel_for(cfg_.threads, n, kMaskChunk, [&](size_t b, size_t e) {
        for (uint64_t i0 = b; i0 < e; i0 += kMaskChunk) {
          const size_t c = size_t(std::min<uint64_t>(kMaskChunk, e - i0));
          okvs_->decode(P_.data(), &elements_[i0], c, &F[i0]);
          out_hash_.finish(&elements_[i0], &F[i0], c, nullptr);
        }
      });
      secure_wipe(P_.data(), P_.size() * sizeof(Block));
      BigBlocks().swap(P_);
      std::vector<Block>().swap(elements_);
      labels_in_.start(cfg_.labels, cfg_.instance.data(), "rr22", F.data(), n);
      secure_wipe(F.data(), F.size() * sizeof(Block));
      return Status::ok();
    }
    // While P is held (the receiver's peak of memory) each element is replaced by its bound
    // output z, which is all the masks and proofs need: they take memory only once P is gone.
    parallel_for(cfg_.threads, n, kMaskChunk, [&](size_t b, size_t e) {
      std::vector<Block> o(std::min<size_t>(kMaskChunk, e - b));
      for (uint64_t i0 = b; i0 < e; i0 += kMaskChunk) {
        const size_t c = size_t(std::min<uint64_t>(kMaskChunk, e - i0));
        okvs_->decode(P_.data(), &elements_[i0], c, o.data());
        out_hash_.bind(&elements_[i0], o.data(), c);
        std::memcpy(&elements_[i0], o.data(), c * sizeof(Block));
      }
    });
    secure_wipe(P_.data(), P_.size() * sizeof(Block));
    BigBlocks().swap(P_);
    const uint32_t L = cfg_.mask_bytes;
    item_mask_.resize(n * L);
    if (cfg_.output_both) item_proof_.assign(n, 0);
    parallel_for(cfg_.threads, n, kMaskChunk, [&](size_t b, size_t e) {
      std::vector<Block> o(std::min<size_t>(kMaskChunk, e - b));
      for (uint64_t i0 = b; i0 < e; i0 += kMaskChunk) {
        const size_t c = size_t(std::min<uint64_t>(kMaskChunk, e - i0));
        out_hash_.tag(&elements_[i0], o.data(), c, cfg_.output_both ? &item_proof_[i0] : nullptr);
        for (size_t k = 0; k < c; ++k) put_mask(&item_mask_[(i0 + k) * L], &o[k], L);
      }
    });
    secure_wipe(elements_.data(), elements_.size() * sizeof(Block));
    std::vector<Block>().swap(elements_);
    build_lookup(n);
    matched_.assign((n + 63) / 64, 0);
    out_.clear();
    out_pos_ = 0;
    if (cfg_.output_both) {
      // The claims are written as the matches are found (positions ascend), the count at the end.
      // Reserved for the most there can be: address space only until written.
      out_.reserve(4 + kClaimBytes * size_t(std::min(n, cfg_.sender_size)));
      put_u32(&out_, 0);
    }
    masks_in_.reset(cfg_.mask_bytes, cfg_.sender_size);
    return Status::ok();
  }

  // The masks' table (below) of this party's n masks. Inserted one by one in the masks' order,
  // every insertion missed the cache (random homes in 12 MiB at 2^20: 20 ns a mask). Instead the
  // entries are distributed by the top bits of their keys, which orders their homes, into up to
  // 4096 buckets (a counting sort: 8 bytes per mask for the moment, once the elements are gone),
  // and each bucket is placed by a counting sort of its homes, within its few KiB of the table: in
  // home order, each entry at its home or right after the entries placed before it. That is the
  // table's invariant.
  void build_lookup(uint64_t n) {
    const uint32_t L = cfg_.mask_bytes;
    // 1.5 home slots per item (load 2/3): at 2^24 items 192 MiB
    homes_ = std::max<uint64_t>(16, n + n / 2 + 1);
    lookup_.assign(homes_ + 64, 0);
    uint32_t bits = 0;
    while (bits < 12 && (uint64_t(64) << bits) < homes_) ++bits;
    const uint32_t shift = 32 - bits;
    std::vector<uint64_t> at((size_t(1) << bits) + 1, 0);
    for (uint64_t i = 0; i < n; ++i)
      ++at[((key_of(&item_mask_[i * L]) & 0xFFFFFFFFu) >> shift) + 1];
    for (size_t b = 1; b < at.size(); ++b) at[b] += at[b - 1];
    std::unique_ptr<uint64_t[]> entries(new uint64_t[n]);  // each written below: not zeroed
    {
      std::vector<uint64_t> next(at.begin(), at.end() - 1);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t key = key_of(&item_mask_[i * L]);
        entries[next[(key & 0xFFFFFFFFu) >> shift]++] = key << kItemBits | (i + 1);
      }
    }
    // Bucket b holds the keys whose low 32 bits lie in [b, b + 1) << shift, so homes in [h0, h1].
    std::vector<uint64_t> first(((homes_ + 1) >> bits) + 2);
    uint64_t free_slot = 0;  // the first slot after everything placed so far
    for (size_t b = 0; b + 1 < at.size(); ++b) {
      const uint64_t h0 = home_slot(uint64_t(b) << shift);
      const uint64_t h1 = home_slot(((uint64_t(b) + 1) << shift) - 1);
      std::fill(first.begin(), first.begin() + (h1 - h0 + 1), 0);
      for (uint64_t e = at[b]; e < at[b + 1]; ++e) ++first[home_slot(entries[e] >> kItemBits) - h0];
      for (uint64_t h = h0; h <= h1; ++h) {
        const uint64_t count = first[h - h0];
        first[h - h0] = std::max(h, free_slot);
        if (count) free_slot = first[h - h0] + count;
      }
      if (free_slot + 1 > lookup_.size()) lookup_.resize(free_slot + 64);  // the last stays empty
      for (uint64_t e = at[b]; e < at[b + 1]; ++e)
        lookup_[first[home_slot(entries[e] >> kItemBits) - h0]++] = entries[e];
    }
  }

  // The masks' table: 8-byte slots, each the low 36 bits of a mask (its key) above its element + 1
  // (28 bits; 0: empty). Linear probing without wrap-around, each run of slots kept in order of the
  // keys' homes (as Robin Hood hashing keeps it), so that a lookup stops at the first slot whose
  // home lies past its own: about 2 slots, one cache line, at load 2/3, where scanning on to the
  // run's end took about 5. A key's home: its low 32 bits scaled to homes_. The table's last slot
  // is always empty. A slot whose key matches is confirmed against the element's whole mask.
  static constexpr uint32_t kItemBits = 28;  // rr22 sets are below 2^28
  static constexpr uint64_t kKeyMask = (uint64_t(1) << (64 - kItemBits)) - 1;
  uint64_t key_of(const void* mask) const {
    uint64_t k = 0;
    if (cfg_.mask_bytes >= 8)
      std::memcpy(&k, mask, 8);  // a copy of constant length: no call
    else
      std::memcpy(&k, mask, cfg_.mask_bytes);
    return k & kKeyMask;
  }
  uint64_t home_slot(uint64_t key) const { return ((key & 0xFFFFFFFFu) * homes_) >> 32; }

  // Checks masks number g0 .. g0+count-1 (contiguous at m), a batch at a time in three passes so
  // that each pass's random reads were prefetched by the one before: the slots, then the masks of
  // the elements whose keys match, then the whole-mask compares.
  void check_masks(uint64_t g0, const uint8_t* m, size_t count) {
    const uint32_t L = cfg_.mask_bytes;
    constexpr size_t kStep = 64;
    uint64_t key[kStep];
    Candidate cand[kMaxCandidates];
    for (size_t k0 = 0; k0 < count; k0 += kStep) {
      const size_t c = std::min(kStep, count - k0);
      const uint8_t* mb = m + k0 * L;
      for (size_t k = 0; k < c; ++k) {
        key[k] = key_of(mb + k * L);
        __builtin_prefetch(&lookup_[home_slot(key[k])]);
      }
      size_t nc = 0;
      for (size_t k = 0; k < c; ++k) {
        const uint64_t home = home_slot(key[k]);
        for (uint64_t slot = home; lookup_[slot]; ++slot) {
          const uint64_t e = lookup_[slot], ekey = e >> kItemBits;
          if (ekey != key[k]) {
            if (home_slot(ekey) > home) break;
            continue;
          }
          const uint32_t item = uint32_t((e & ((uint64_t(1) << kItemBits) - 1)) - 1);
          __builtin_prefetch(&item_mask_[size_t(item) * L]);
          if (cfg_.output_both) __builtin_prefetch(&item_proof_[item]);
          if (nc == kMaxCandidates) confirm(g0 + k0, mb, cand, &nc);
          cand[nc++] = Candidate{uint32_t(k), item};
        }
      }
      confirm(g0 + k0, mb, cand, &nc);
    }
  }
  // A mask (index k of its batch) whose key is element `item`'s.
  struct Candidate {
    uint32_t k, item;
  };
  static constexpr size_t kMaxCandidates = 256;  // about one per mask of a batch is expected
  // The candidates whose whole masks are equal are matches.
  void confirm(uint64_t g0, const uint8_t* mb, const Candidate* cand, size_t* nc) {
    const uint32_t L = cfg_.mask_bytes;
    for (size_t j = 0; j < *nc; ++j) {
      const uint64_t item = cand[j].item;
      if (!same_mask(&item_mask_[item * L], mb + size_t(cand[j].k) * L, L)) continue;
      matched_[item / 64] |= uint64_t(1) << (item % 64);
      const uint64_t pos = g0 + cand[j].k;
      // a position claimed once, even if two elements' whole masks were equal
      if (cfg_.output_both && pos + 1 != claimed_end_) {
        put_u32(&out_, uint32_t(pos));
        put_u64(&out_, item_proof_[item]);
        claimed_end_ = pos + 1;
      }
    }
    *nc = 0;
  }
  // a == b over L bytes without a call: two 8-byte words, overlapping when L < 16.
  static bool same_mask(const uint8_t* a, const uint8_t* b, uint32_t L) {
    if (L < 8) return std::memcmp(a, b, L) == 0;
    uint64_t a0, b0, a1, b1;
    std::memcpy(&a0, a, 8);
    std::memcpy(&b0, b, 8);
    std::memcpy(&a1, a + L - 8, 8);
    std::memcpy(&b1, b + L - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }

  Status absorb_masks(ByteView chunk, bool last, const std::string& at) {
    PSI_RETURN_IF_ERROR(masks_in_.absorb(
        chunk, at,
        [this](uint64_t g0, const uint8_t* m, size_t count) { check_masks(g0, m, count); }));
    return last ? masks_done(at) : Status::ok();
  }

  Status masks_done(const std::string& at) {
    PSI_RETURN_IF_ERROR(masks_in_.finish(at));
    result_.clear();
    each_input_index(matched_, [this](uint64_t i, uint64_t) { result_.push_back(i); });
    std::vector<uint16_t>().swap(bin_of_);
    std::vector<uint64_t>().swap(matched_);
    std::vector<uint8_t>().swap(item_mask_);
    std::vector<uint64_t>().swap(lookup_);
    if (cfg_.output_both) {
      // Claims: u32 count | count x (u32 position | u64 proof), ascending positions, each once.
      std::vector<uint8_t> count;
      put_u32(&count, uint32_t((out_.size() - 4) / kClaimBytes));
      std::memcpy(out_.data(), count.data(), 4);
      secure_wipe(item_proof_.data(), item_proof_.size() * sizeof(uint64_t));
      std::vector<uint64_t>().swap(item_proof_);
    }
    return Status::ok();
  }

  MessageBuffer setup_in_;
  std::unique_ptr<BaseOtSender> base_ot_;
  std::vector<std::array<Block, 2>> base_keys_;
  std::unique_ptr<IknpReceiver> iknp_;
  std::vector<std::unique_ptr<SilentVoleReceiver>> vole_;
  std::vector<std::vector<Block>> cots_;  // per piece: the IKNP receiver's t_j
  uint64_t vole_bytes_ = 0;
  MessageBuffer vole_in_;
  size_t next_piece_ = 0;
  bool masked_early_ = false;  // round 2's first P + a computed before the message's end
  bool own_ready_ = false;
  BigBlocks P_;  // the OKVS; piece by piece replaced by the VOLE's c
  std::vector<uint8_t> item_mask_;
  std::vector<uint64_t> item_proof_;
  std::vector<uint64_t> lookup_;
  uint64_t homes_ = 0;
  RecordStream masks_in_;
  LabelReceiver labels_in_;  // output=labels: round 4's parser
  bool labels_done_ = false;
  std::vector<uint64_t> matched_;  // bit i: item i (bin order) matched
  std::vector<uint16_t> bin_of_;   // the OKVS bin of each input element, by input index
  std::vector<uint8_t> labels_;    // output=labels: the result's labels, in input order
  uint64_t claimed_end_ = 0;       // output=both: 1 + the last position claimed (0: none yet)
};

// ---------------------------------------------------------------------------------------------
class Rr22Sender final : public Rr22Base {
 public:
  Rr22Sender(const Rr22Config& cfg, const uint8_t seed[32]) : Rr22Base(cfg, seed) {
    setup_in_.reset(32);
    claims_in_.reset(4 + kClaimBytes * size_t(cfg.sender_size));
  }
  ~Rr22Sender() override {
    secure_wipe(base_keys_.data(), base_keys_.size() * sizeof(Block));
    secure_wipe(s_, sizeof s_);
    secure_wipe(K_.data(), K_.size() * sizeof(Block));
    secure_wipe(proofs_.data(), proofs_.size() * sizeof(uint64_t));
  }

  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 1; }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string at = where("sender", phase, round);
    if (phase == PSI_PHASE_SETUP) {
      PSI_RETURN_IF_ERROR(setup_in_.append(chunk, at));
      return last ? answer_setup(at) : Status::ok();
    }
    if (round == 1) return absorb_matrix(chunk, last, at);
    if (round == 3) return absorb_masked(chunk, last, at);
    PSI_RETURN_IF_ERROR(claims_in_.append(chunk, at));
    return last ? finish_claims(at) : Status::ok();
  }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_ONLINE && round == 3) return emit_masks(out, cap, written, done);
    if (phase == PSI_PHASE_ONLINE && round == 1)
      return emit_streamed(
          out, cap, written, done,
          [](bool* more) {
            *more = false;
            return Status::ok();
          },
          [this] { return encode_last_piece(); });
    // Not prepared here once the setup reply is written: the caller sends it only when this call
    // returns, so the receiver would wait for the duplicate check and the allocations. They run
    // when round 1 starts (absorb_matrix), during the receiver's OKVS encoding.
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    std::vector<uint8_t> secrets(s_, s_ + sizeof s_);
    put_bytes(&secrets, base_keys_.data(), base_keys_.size() * sizeof(Block));
    Status st = export_blob(PSI_ROLE_SENDER, ByteView(secrets), out);
    secure_wipe(secrets.data(), secrets.size());
    return st;
  }

  Status set_labels(const uint8_t* labels, size_t count, size_t label_len) override {
    if (!cfg_.output_labels) return state_error("rr22: labels need output=labels");
    return labels_.set(cfg_.labels, labels, count, label_len);
  }
  Status result_available() const override {
    if (cfg_.output_labels)
      return state_error("rr22: the sender of a labelled run learns nothing (no result)");
    return Status::ok();
  }

  Status import_setup(ByteView data) override {
    ByteView secrets;
    PSI_RETURN_IF_ERROR(import_blob(data, PSI_ROLE_SENDER, 16 + kIknpBaseOts * 16, &secrets));
    std::memcpy(s_, secrets.data, 16);
    base_keys_.resize(kIknpBaseOts);
    std::memcpy(base_keys_.data(), secrets.data + 16, kIknpBaseOts * 16);
    return ready_hook();
  }

 protected:
  uint64_t own_size() const override { return cfg_.sender_size; }

 private:
  Status answer_setup(const std::string& at) {
    const auto& a = setup_in_.data();
    if (a.size() != 32)
      return peer_error(at + ": expected 32 bytes, got " + std::to_string(a.size()));
    rng_.fill(s_, sizeof s_);
    std::vector<uint8_t> choices(kIknpBaseOts);
    for (size_t i = 0; i < kIknpBaseOts; ++i) choices[i] = (s_[i / 8] >> (i % 8)) & 1;
    BaseOtReceiver ot(std::move(choices), rng_);
    PSI_RETURN_IF_ERROR(ot.respond(ByteView(a.data(), a.size()), &out_, &base_keys_));
    rng_.fill(shared_seed_, 32);
    put_bytes(&out_, shared_seed_, 32);
    out_pos_ = 0;
    setup_done_ = true;
    return Status::ok();
  }

  // Duplicates are refused up front (equal elements would give equal outputs); the secret order of
  // the outputs is drawn once the VOLE is done (encode_last_piece).
  Status prepare_online() override {
    PSI_RETURN_IF_ERROR(check_distinct());
    delta_ = load_block(s_);
    out_.clear();
    vole_.clear();
    uint64_t cot = 0;
    for (size_t p = 0; p < pieces_.size(); ++p) {
      vole_.push_back(std::make_unique<SilentVoleSender>(pieces_[p].shape, keys_.code_seed(p),
                                                         keys_.vole_tweak(p), rng_));
      pieces_[p].cot_padded = (vole_[p]->cot_count() + 127) / 128 * 128;
      pieces_[p].cot_first = cot;
      cot += pieces_[p].cot_padded;
      pieces_[p].msg_offset = out_.size();
      out_.resize(out_.size() + vole_[p]->message_bytes());
    }
    pending_.resize(std::min<size_t>(cfg_.threads, std::max<size_t>(pieces_.size(), 1)));
    K_.resize(okvs_->size());
    masked_in_.reset(16, K_.size());
    out_pos_ = 0;
    return Status::ok();
  }

  Status check_distinct() const {
    const uint64_t n = cfg_.sender_size;
    uint64_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    std::vector<uint32_t> table(cap, 0);
    for (uint64_t i = 0; i < n; ++i) {
      const Block x = elements_[i];
      uint64_t h = (block_lo(x) ^ (block_hi(x) * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
      for (uint64_t slot = (h >> 17) & (cap - 1);; slot = (slot + 1) & (cap - 1)) {
        if (table[slot] == 0) {
          table[slot] = uint32_t(i + 1);
          break;
        }
        if (block_equal(elements_[table[slot] - 1], x))
          return input_error("duplicate element at input indices " +
                             std::to_string(table[slot] - 1) + " and " + std::to_string(i));
      }
    }
    return Status::ok();
  }

  // Round 1 input: the instance, then each piece's IKNP matrix; complete pieces run their VOLE at
  // once (`threads` of them together), so the sender's work overlaps the rest of the transfer.
  Status absorb_matrix(ByteView chunk, bool last, const std::string& at) {
    PSI_RETURN_IF_ERROR(ready_hook());
    if (!prepared_) return state_error(at + ": setup not complete");
    // Round 3 will carry the labels: refuse their absence now, not after the VOLE.
    if (cfg_.output_labels && !labels_.has_labels())
      return state_error(at + ": output=labels but psi_set_labels was not called");
    const uint64_t total = kInstanceBytes + matrix_bytes();
    if (chunk.size > total - received_)
      return peer_error(at + ": message longer than the expected " + std::to_string(total) +
                        " bytes");
    ByteReader rd(chunk);
    while (received_ < kInstanceBytes && rd.remaining()) {
      rd.read(&header_[received_], 1);
      if (++received_ == kInstanceBytes &&
          std::memcmp(header_, cfg_.instance.data(), kInstanceBytes) != 0)
        return peer_error(at + ": peer runs instance " + instance_hex(header_) +
                          ", this session instance " + instance_hex(cfg_.instance.data()));
    }
    while (rd.remaining()) {
      const Piece& p = pieces_[next_piece_];
      std::vector<uint8_t>& u = pending_[next_piece_ - batch_first_];
      const size_t want = 16 * p.cot_padded;
      if (u.size() != want) u.resize(want);
      const size_t n = std::min(want - ubuf_fill_, rd.remaining());
      rd.read(&u[ubuf_fill_], n);
      ubuf_fill_ += n;
      received_ += n;
      if (ubuf_fill_ == want) {
        ubuf_fill_ = 0;
        if (++next_piece_ - batch_first_ == pending_.size() || next_piece_ == pieces_.size())
          run_pieces();
      }
    }
    if (!last) return Status::ok();
    if (received_ != total)
      return peer_error(at + ": message ended after " + std::to_string(received_) + " of " +
                        std::to_string(total) + " bytes");
    std::vector<std::vector<uint8_t>>().swap(pending_);
    out_pos_ = 0;
    return Status::ok();
  }

  // The VOLEs of the pieces whose matrices are complete, each writing its message at its offset.
  void run_pieces() {
    const size_t k = next_piece_ - batch_first_;
    parallel_for(uint32_t(k), k, 1, [&](size_t b, size_t e) {
      for (size_t j = b; j < e; ++j) {
        const size_t q = batch_first_ + j;
        const Piece& p = pieces_[q];
        IknpSender iknp(base_keys_.data(), delta_, cfg_.instance.data());
        std::vector<Block> cots(p.cot_padded);
        iknp.extend(p.cot_first, p.cot_padded, pending_[j].data(), cots.data());
        vole_[q]->send(cots.data(), delta_, out_.data() + p.msg_offset);
        secure_wipe(cots.data(), cots.size() * sizeof(Block));
        // The last piece's encoding waits until its message has gone (emit, round 1).
        if (q + 1 < pieces_.size()) {
          vole_[q]->encode(K_.data() + p.offset);
          vole_[q].reset();
        }
      }
    });
    batch_first_ = next_piece_;
  }

  // After the VOLE messages have gone, while the receiver finishes its VOLE: the last piece's LPN
  // encoding, then the secret order of round 3 (drawn only now: 4 bytes per element less during
  // the VOLE; a shuffle of 2^24 took 0.3-0.5 s, which after round 2 the receiver waited for).
  Status encode_last_piece() {
    if (!pieces_.empty() && vole_.back()) {
      vole_.back()->encode(K_.data() + pieces_.back().offset);
      vole_.back().reset();
    }
    const uint64_t n = cfg_.sender_size;
    order_.resize(n);
    for (uint64_t i = 0; i < n; ++i) order_[i] = uint32_t(i);
    for (uint64_t i = n; i > 1; --i) std::swap(order_[i - 1], order_[rng_.uniform(i)]);
    return Status::ok();
  }

  // Round 3 input: P + a, folded into K = b + (P + a) * Delta block by block as it arrives.
  Status absorb_masked(ByteView chunk, bool last, const std::string& at) {
    PSI_RETURN_IF_ERROR(
        masked_in_.absorb(chunk, at, [this](uint64_t first, const uint8_t* p, size_t blocks) {
          Block tmp[kBatch];
          for (size_t b0 = 0; b0 < blocks; b0 += kBatch) {
            const size_t c = std::min(kBatch, blocks - b0);
            std::memcpy(tmp, p + 16 * b0, 16 * c);
            gf128_mul_const(tmp, delta_, tmp, c);
            for (size_t k = 0; k < c; ++k) K_[first + b0 + k] ^= tmp[k];
          }
        }));
    if (!last) return Status::ok();
    PSI_RETURN_IF_ERROR(masked_in_.finish(at));
    // not earlier: held during the receiver's VOLE it raised the peak RSS (2^24: 1,597 MiB, not
    // 1,475); reserved only, its pages are touched chunk by chunk as the outputs are computed
    if (cfg_.output_both) proofs_.reserve(cfg_.sender_size);
    if (cfg_.output_labels) labels_.start(cfg_.instance.data(), "rr22", &rng_);
    masks_done_ = 0;
    out_.clear();
    out_pos_ = 0;
    return Status::ok();
  }

  // Round 3 output, computed chunk by chunk as it is sent: position k carries the output of
  // element order_[k], H(decode(K, y) + Hv(y) * Delta, y).
  Status emit_masks(uint8_t* out, size_t cap, size_t* written, bool* done) {
    *written = 0;
    *done = false;
    while (cap > 0) {
      if (out_pos_ == out_.size()) {
        // One step per call: what is computed goes out before the next step is computed.
        if (masks_done_ == cfg_.sender_size || *written > 0) break;
        fill_masks();
      }
      const size_t n = std::min(cap, out_.size() - out_pos_);
      std::memcpy(out, out_.data() + out_pos_, n);
      out_pos_ += n;
      out += n;
      cap -= n;
      *written += n;
    }
    if (out_pos_ == out_.size() && masks_done_ == cfg_.sender_size) {
      *done = true;
      if (!cfg_.output_both) std::vector<uint32_t>().swap(order_);
      secure_wipe(K_.data(), K_.size() * sizeof(Block));
      BigBlocks().swap(K_);
      std::vector<Block>().swap(elements_);
      labels_.clear();
    }
    return Status::ok();
  }

  // output=labels: the records of labels.h (tag | label ciphertext) in place of the masks.
  void fill_masks() {
    const bool lab = cfg_.output_labels;
    const size_t L = lab ? cfg_.labels.key_record_bytes() : cfg_.mask_bytes;
    const uint64_t first = masks_done_;
    // Large labels: fewer elements per step, so the buffer stays near 8 MB per thread.
    const size_t per_thread =
        lab ? std::clamp<size_t>((size_t(8) << 20) / L, kBatch, kMaskChunk) : kMaskChunk;
    // The first step is small: the receiver starts on its own outputs when the first bytes arrive.
    const size_t count = size_t(std::min<uint64_t>(
        first == 0 ? kFirstMasks : per_thread * cfg_.threads, cfg_.sender_size - first));
    if (cfg_.output_both) proofs_.resize(first + count);

    out_.resize(count * L);
    out_pos_ = 0;
    parallel_for(cfg_.threads, count, 4 * kBatch, [&](size_t b, size_t e) {
      std::vector<Block> ys(e - b), o(e - b);
      constexpr size_t kAhead = 16;
      for (size_t k = b; k < e; ++k) {
        if (k + kAhead < e) __builtin_prefetch(&elements_[order_[first + k + kAhead]]);
        ys[k - b] = elements_[order_[first + k]];
      }
      okvs_->decode(K_.data(), ys.data(), e - b, o.data());
      Block hv[kBatch];
      for (size_t k0 = 0; k0 < e - b; k0 += kBatch) {
        const size_t c = std::min(kBatch, e - b - k0);
        value_.encrypt_blocks(&ys[k0], hv, c);
        gf128_mul_const(hv, delta_, hv, c);
        for (size_t k = 0; k < c; ++k) o[k0 + k] ^= hv[k];
        out_hash_.finish(&ys[k0], &o[k0], c, cfg_.output_both ? &proofs_[first + b + k0] : nullptr);
        if (lab) {
          labels_.direct_records(&o[k0], &order_[first + b + k0], c, &out_[(b + k0) * L]);
          secure_wipe(&o[k0], c * sizeof(Block));
        } else {
          for (size_t k = 0; k < c; ++k) put_mask(&out_[(b + k0 + k) * L], &o[k0 + k], L);
        }
      }
    });
    masks_done_ += count;
  }

  // The receiver's claims: u32 count | count x (u32 position | u64 proof), strictly ascending. A
  // claim is accepted only with the proof of the output at that position (constant-time compare);
  // one bad claim fails the run.
  Status finish_claims(const std::string& at) {
    const auto& d = claims_in_.data();
    ByteReader rd(ByteView(d.data(), d.size()));
    uint32_t count;
    if (!rd.read_u32(&count)) return peer_error(at + ": message shorter than 4 bytes");
    const uint64_t ns = cfg_.sender_size;
    if (count > ns || rd.remaining() != size_t(count) * kClaimBytes)
      return peer_error(at + ": claims " + std::to_string(count) + " positions in " +
                        std::to_string(d.size()) + " bytes for a set of " + std::to_string(ns));
    std::vector<uint32_t> found;
    found.reserve(count);
    uint64_t prev = 0, bad = 0;
    for (uint32_t k = 0; k < count; ++k) {
      uint32_t p = 0;
      uint64_t proof = 0;
      rd.read_u32(&p);
      rd.read_u64(&proof);
      if (p >= ns || (k > 0 && p <= prev))
        return peer_error(at + ": claimed position " + std::to_string(p) +
                          (p >= ns ? " out of range" : " repeated or out of ascending order"));
      prev = p;
      const uint64_t x = proofs_[p] ^ proof;
      bad += ((x | (0 - x)) >> 63);  // 1 iff x != 0, without a branch
      found.push_back(p);
    }
    secure_wipe(proofs_.data(), proofs_.size() * sizeof(uint64_t));
    std::vector<uint64_t>().swap(proofs_);
    claims_in_.release();
    if (bad)
      return peer_error(at + ": " + std::to_string(bad) + " of " + std::to_string(count) +
                        " claimed positions carry no valid proof of a match");
    // Ascending through a bitmap of the elements: n/8 bytes, no sort of the matches
    std::vector<uint64_t> hit((ns + 63) / 64, 0);
    for (uint32_t p : found) hit[order_[p] / 64] |= uint64_t(1) << (order_[p] % 64);
    set_bits_ascending(hit, &result_);
    std::vector<uint32_t>().swap(order_);
    out_.clear();
    out_pos_ = 0;
    return Status::ok();
  }

  MessageBuffer setup_in_, claims_in_;
  uint8_t s_[16] = {0};
  Block delta_ = zero_block();
  std::vector<Block> base_keys_;
  std::vector<std::unique_ptr<SilentVoleSender>> vole_;
  size_t next_piece_ = 0, batch_first_ = 0;
  std::vector<std::vector<uint8_t>> pending_;  // IKNP matrices of the pieces not yet run
  size_t ubuf_fill_ = 0;
  uint64_t received_ = 0;
  RecordStream masked_in_;  // P + a, 16 bytes per OKVS column
  uint8_t header_[kInstanceBytes];
  BigBlocks K_;  // b, then K = b + (P + a) * Delta
  std::vector<uint32_t> order_;
  std::vector<uint64_t> proofs_;  // output=both: the proof of the output at each position
  uint64_t masks_done_ = 0;
  LabelSender labels_;  // output=labels: the labels and round 3's record writer
};

}  // namespace

std::unique_ptr<Protocol> make_rr22(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status) {
  Rr22Config cfg;
  *status = config_from_params(params, &cfg);
  if (!status->is_ok()) return nullptr;
  *status = params.check_all_used();
  if (!status->is_ok()) return nullptr;
  if (role == PSI_ROLE_RECEIVER) return std::make_unique<Rr22Receiver>(cfg, seed);
  if (role == PSI_ROLE_SENDER) return std::make_unique<Rr22Sender>(cfg, seed);
  *status =
      argument_error("rr22 has roles receiver (0) and sender (1), not " + std::to_string(role));
  return nullptr;
}

}  // namespace psi
