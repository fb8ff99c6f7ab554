#include "kkrt_psi.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "../../core/aes.h"
#include "../../core/prg.h"
#include "../../core/transpose.h"
#include "../../ot/base_ot.h"
#include "../message_buffer.h"
#include "kkrt_config.h"
#include "kkrt_oprf.h"

namespace psi {
namespace {

constexpr size_t kChunkRows = 1024;  // rows of the OT-extension matrix processed at a time
constexpr size_t kSetupSenderBytes = size_t(kKkrtCodeBits) * 32 + 32;
constexpr char kSetupMagic[8] = {'k', 'k', 'r', 't', 's', 'e', 't', '1'};
constexpr size_t kInstanceBytes = 32;  // the online matrix message starts with the 256-bit instance
// output=both claim: u32 position | u64 proof. 64 bits: a receiver without the OPRF value guesses a
// proof with probability 2^-64, and the first wrong guess fails the run (the caller must start a
// new attempt with a fresh instance, which the peer sees), so forging even one row is out of reach.
constexpr size_t kClaimBytes = 12;

std::string role_round(const char* who, psi_phase phase, uint32_t round) {
  return std::string("kkrt ") + who + (phase == PSI_PHASE_SETUP ? " setup" : " online") +
         " round " + std::to_string(round);
}

inline void load_row(const uint8_t* p, Block v[4]) {
  for (int l = 0; l < 4; ++l) v[l] = load_block(p + 16 * l);
}

// Common state: configuration, randomness, and the rows of the OT-extension matrix.
class KkrtBase : public Protocol {
 public:
  KkrtBase(const KkrtConfig& cfg, const uint8_t seed[32]) : cfg_(cfg) {
    rng_.reseed(derive_block(seed, 32, "psi-flink kkrt rng"));
  }
  ~KkrtBase() override {
    secure_wipe(shared_seed_, sizeof shared_seed_);
    secure_wipe(inst_key_, sizeof inst_key_);
  }

  uint32_t round_count(psi_phase phase) const override {
    return phase == PSI_PHASE_SETUP ? 3 : (cfg_.output_both ? 4 : 3);
  }
  const std::vector<uint64_t>& result() const override { return result_; }

  Status set_input(const uint8_t* elements, size_t count, size_t element_len) override {
    if (element_len != 16)
      return input_error("kkrt takes 16-byte elements (tokens), got element_len " +
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
  // Local work that needs only the input and the setup (hashing the set into bins) runs as soon as
  // both are present, so it overlaps the peer's work instead of waiting for the first online
  // message.
  virtual Status prepare_online() = 0;
  Status ready_hook() {
    if (!input_set_ || !setup_done_ || prepared_) return Status::ok();
    prepared_ = true;
    return prepare_online();
  }
  bool input_set_ = false;
  bool prepared_ = false;

  // Setup blob: magic, role, shared seed, then the role's secrets.
  Status export_blob(psi_role role, ByteView secrets, std::vector<uint8_t>* out) const {
    if (!setup_done_) return state_error("kkrt: setup is not complete");
    out->clear();
    put_bytes(out, kSetupMagic, 8);
    out->push_back(uint8_t(role));
    put_bytes(out, shared_seed_, 32);
    put_bytes(out, secrets.data, secrets.size);
    return Status::ok();
  }
  // Checks the framing, loads the shared seed and returns a view of the secrets (secrets_len
  // bytes).
  Status import_blob(ByteView data, psi_role role, size_t secrets_len, ByteView* secrets) {
    if (data.size != 41 + secrets_len || std::memcmp(data.data, kSetupMagic, 8) != 0 ||
        data.data[8] != role)
      return argument_error(std::string("not a kkrt ") +
                            (role == PSI_ROLE_RECEIVER ? "receiver" : "sender") + " setup blob (" +
                            std::to_string(data.size) + " bytes)");
    std::memcpy(shared_seed_, data.data + 9, 32);
    *secrets = ByteView(data.data + 41, secrets_len);
    setup_done_ = true;
    return Status::ok();
  }

  // Expands the column PRGs for rows [first, first + rows_padded) and transposes them into rows of
  // 64 bytes: rows_out[r] bit i = PRG_i(first + r). first and rows_padded are multiples of 128.
  void prg_rows(const std::vector<Aes128>& prgs, uint64_t first, size_t rows_padded,
                uint8_t* rows_out) {
    const size_t col_bytes = rows_padded / 8;
    cols_.resize(size_t(kKkrtCodeBits) * (kChunkRows / 8));
    for (uint32_t i = 0; i < kKkrtCodeBits; ++i)
      prgs[i].ctr_blocks(0, first / 128,  // the key is per instance (kkrt_column_key)
                         reinterpret_cast<Block*>(cols_.data() + i * col_bytes), rows_padded / 128);
    transpose_bits(cols_.data(), kKkrtCodeBits, col_bytes, rows_out);
  }

  // This run's keys from the shared seed and the 256-bit instance (kkrt_oprf.h).
  void derive_instance() {
    kkrt_instance_key(shared_seed_, cfg_.instance.data(), inst_key_);
    code_.init(inst_key_);
    out_tweak_ = kkrt_output_tweak(inst_key_);
  }

  KkrtConfig cfg_;
  Prg rng_;
  uint8_t shared_seed_[32] = {0};
  uint8_t inst_key_[32] = {0};
  Block out_tweak_ = zero_block();
  bool setup_done_ = false;
  std::vector<Block> elements_;
  KkrtCode code_;
  FixedKeyHash fixed_hash_;
  std::vector<uint64_t> result_;
  std::vector<uint8_t> cols_;
};

// ---------------------------------------------------------------------------------------------
class KkrtReceiver final : public KkrtBase {
 public:
  using KkrtBase::KkrtBase;
  ~KkrtReceiver() override {
    secure_wipe(keys_.data(), keys_.size() * sizeof(keys_[0]));
    secure_wipe(item_proof_.data(), item_proof_.size() * sizeof(uint64_t));
  }

  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 0; }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string where = role_round("receiver", phase, round);
    if (phase == PSI_PHASE_SETUP) {
      if (round == 0) {
        if (chunk.size) return peer_error(where + ": expects no input");
        if (last) {
          base_ot_ = std::make_unique<BaseOtSender>(kKkrtCodeBits, rng_);
          out_ = base_ot_->first_message();
          out_pos_ = 0;
        }
        return Status::ok();
      }
      PSI_RETURN_IF_ERROR(setup_in_.append(chunk, where));
      return last ? finish_setup(where) : Status::ok();
    }
    if (round == 0) {
      if (chunk.size) return peer_error(where + ": expects no input");
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(ready_hook());
      if (!prepared_) return state_error(where + ": setup not complete");
      out_.clear();
      put_bytes(&out_, cfg_.instance.data(), cfg_.instance.size());
      out_pos_ = 0;
      return Status::ok();
    }
    // round 2: the sender's masks (output=labels: its label message)
    if (cfg_.output_labels) {
      PSI_RETURN_IF_ERROR(labels_in_.absorb(chunk, where));
      if (!last) return Status::ok();
      PSI_RETURN_IF_ERROR(labels_in_.finish(where));
      result_ = labels_in_.result();
      labels_done_ = true;
      return Status::ok();
    }
    return absorb_masks(chunk, last, where);
  }

  Status set_labels(const uint8_t*, size_t, size_t) override {
    return state_error("kkrt: only the sender gives labels");
  }
  Status labels_available() const override {
    if (!cfg_.output_labels) return state_error("kkrt: this run's output is not labels");
    if (!labels_done_) return state_error("kkrt: the labels are not complete");
    return Status::ok();
  }
  const std::vector<uint8_t>& result_labels() const override { return labels_in_.labels(); }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_ONLINE && round == 0) return emit_matrix(out, cap, written, done);
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    return export_blob(
        PSI_ROLE_RECEIVER,
        ByteView(reinterpret_cast<const uint8_t*>(keys_.data()), keys_.size() * sizeof(keys_[0])),
        out);
  }

  Status import_setup(ByteView data) override {
    ByteView keys;
    PSI_RETURN_IF_ERROR(import_blob(data, PSI_ROLE_RECEIVER, size_t(kKkrtCodeBits) * 32, &keys));
    keys_.resize(kKkrtCodeBits);
    std::memcpy(keys_.data(), keys.data, keys.size);
    return ready_hook();
  }

 protected:
  uint64_t own_size() const override { return cfg_.receiver_size; }

 private:
  Status finish_setup(const std::string& where) {
    const auto& msg = setup_in_.data();
    if (msg.size() != kSetupSenderBytes)
      return peer_error(where + ": expected " + std::to_string(kSetupSenderBytes) + " bytes, got " +
                        std::to_string(msg.size()));
    PSI_RETURN_IF_ERROR(base_ot_->finish(ByteView(msg.data(), msg.size() - 32), &keys_));
    std::memcpy(shared_seed_, msg.data() + msg.size() - 32, 32);
    base_ot_.reset();
    out_.clear();
    out_pos_ = 0;
    setup_done_ = true;
    return ready_hook();
  }

  Status prepare_online() override {
    const std::string where = role_round("receiver", PSI_PHASE_ONLINE, 0);
    derive_instance();
    g0_.resize(kKkrtCodeBits);
    g1_.resize(kKkrtCodeBits);
    for (uint32_t i = 0; i < kKkrtCodeBits; ++i) {
      g0_[i].set_key(kkrt_column_key(keys_[i][0], cfg_.instance.data()));
      g1_[i].set_key(kkrt_column_key(keys_[i][1], cfg_.instance.data()));
    }
    const uint64_t n = cfg_.receiver_size;
    {
      std::vector<ItemHash> hashes(n);
      code_.item_hashes(elements_.data(), n, hashes.data());
      table_ = std::make_unique<CuckooTable>(cfg_.cuckoo);
      Status s = table_->build(hashes.data(), n, rng_.next_u64());
      if (!s.is_ok()) return Status(s.code(), where + ": " + s.message());
    }
    if (cfg_.output_labels)
      item_value_.assign(n, zero_block());
    else
      item_mask_.assign(n * cfg_.mask_bytes, 0);
    if (cfg_.output_both) item_proof_.assign(n, 0);
    item_tag_.assign(n, 0xFF);
    stash_items_.assign(cfg_.cuckoo.stash, CuckooTable::kEmpty);
    const auto& st = table_->stash();
    for (size_t t = 0; t < st.size(); ++t) {
      stash_items_[t] = st[t];
      item_tag_[st[t]] = uint8_t(cfg_.hash_tables() + t);
    }
    rows0_.resize(kChunkRows * kKkrtRowBytes);
    rows1_.resize(kChunkRows * kKkrtRowBytes);
    c_row_.resize(kChunkRows);
    c_item_.resize(kChunkRows);
    c_index_.resize(kChunkRows);
    c_j_.resize(kChunkRows);
    c_x_.resize(kChunkRows);
    c_code_.resize(4 * kChunkRows);
    if (cfg_.output_both) c_proof_.resize(kChunkRows);
    return Status::ok();
  }

  // Code index and element of OPRF instance j, or false for an empty cuckoo slot / stash position.
  bool occupant(uint64_t j, uint32_t* item, uint32_t* code_index, uint8_t* tag) const {
    if (j < cfg_.cuckoo_rows()) {
      const auto& e = table_->slot(j);
      if (e.item == CuckooTable::kEmpty) return false;
      *item = e.item;
      *code_index = e.hash_index;
      *tag = uint8_t(e.hash_index * cfg_.cuckoo.slots_per_bin + j % cfg_.cuckoo.slots_per_bin);
      return true;
    }
    uint32_t it = stash_items_[j - cfg_.cuckoo_rows()];
    if (it == CuckooTable::kEmpty) return false;
    *item = it;
    *code_index = cfg_.cuckoo.hashes;
    *tag = uint8_t(cfg_.hash_tables() + (j - cfg_.cuckoo_rows()));
    return true;
  }

  // Next chunk of U = T0 ^ T1 ^ C into out_, and this party's OPRF outputs for those rows.
  void next_matrix_chunk() {
    const uint64_t first = next_row_;
    const size_t rows = size_t(std::min<uint64_t>(kChunkRows, cfg_.rows() - first));
    const size_t padded = (rows + 127) / 128 * 128;
    prg_rows(g0_, first, padded, rows0_.data());
    prg_rows(g1_, first, padded, rows1_.data());
    // Occupied rows of the chunk: gather their elements (prefetched) and encode them in a batch.
    size_t used = 0;
    for (size_t r = 0; r < rows; ++r) {
      uint32_t item, ci;
      uint8_t tag;
      if (!occupant(first + r, &item, &ci, &tag)) continue;
      __builtin_prefetch(&elements_[item]);
      c_row_[used] = uint32_t(r);
      c_item_[used] = item;
      c_index_[used] = uint8_t(ci);
      item_tag_[item] = tag;
      ++used;
    }
    for (size_t k = 0; k < used; ++k) c_x_[k] = elements_[c_item_[k]];
    code_.encode(c_x_.data(), c_index_.data(), used, c_code_.data());
    const size_t base = out_.size();
    out_.resize(base + rows * kKkrtRowBytes);
    uint8_t* u = out_.data() + base;
    for (size_t r = 0; r < rows; ++r)
      for (int l = 0; l < 4; ++l)
        store_block(u + r * kKkrtRowBytes + 16 * l,
                    load_block(&rows0_[r * kKkrtRowBytes + 16 * l]) ^
                        load_block(&rows1_[r * kKkrtRowBytes + 16 * l]));
    for (size_t k = 0; k < used; ++k) {
      const size_t r = c_row_[k];
      for (int l = 0; l < 4; ++l) {
        uint8_t* p = u + r * kKkrtRowBytes + 16 * l;
        store_block(p, load_block(p) ^ c_code_[4 * k + l]);
        c_code_[4 * k + l] = load_block(&rows0_[r * kKkrtRowBytes + 16 * l]);  // now: T row
      }
      c_j_[k] = first + r;
      if (!cfg_.output_labels)
        __builtin_prefetch(&item_mask_[size_t(c_item_[k]) * cfg_.mask_bytes], 1);
    }
    kkrt_output_hash(fixed_hash_, out_tweak_, c_j_.data(), c_code_.data(), used, c_x_.data(),
                     cfg_.output_both ? c_proof_.data() : nullptr);
    if (cfg_.output_labels)
      for (size_t k = 0; k < used; ++k) item_value_[c_item_[k]] = c_x_[k];
    else
      for (size_t k = 0; k < used; ++k)
        std::memcpy(&item_mask_[size_t(c_item_[k]) * cfg_.mask_bytes], &c_x_[k], cfg_.mask_bytes);
    if (cfg_.output_both)
      for (size_t k = 0; k < used; ++k) item_proof_[c_item_[k]] = c_proof_[k];
    next_row_ += rows;
  }

  Status emit_matrix(uint8_t* out, size_t cap, size_t* written, bool* done) {
    *written = 0;
    *done = false;
    while (cap > 0) {
      if (out_pos_ == out_.size()) {
        if (next_row_ == cfg_.rows()) break;
        out_.clear();
        out_pos_ = 0;
        next_matrix_chunk();
      }
      size_t n = std::min(cap, out_.size() - out_pos_);
      std::memcpy(out, out_.data() + out_pos_, n);
      out_pos_ += n;
      out += n;
      cap -= n;
      *written += n;
    }
    if (out_pos_ == out_.size() && next_row_ == cfg_.rows()) {
      *done = true;
      finish_matrix();
    }
    return Status::ok();
  }

  // All rows sent: the elements are no longer needed; index the OPRF outputs for round 2.
  void finish_matrix() {
    if (finished_matrix_) return;
    finished_matrix_ = true;
    std::vector<Block>().swap(elements_);
    std::vector<uint8_t>().swap(rows0_);
    std::vector<uint8_t>().swap(rows1_);
    std::vector<uint8_t>().swap(cols_);
    std::vector<Aes128>().swap(g0_);
    std::vector<Aes128>().swap(g1_);
    table_.reset();
    const uint64_t n = cfg_.receiver_size;
    if (cfg_.output_labels) {
      labels_in_.start(cfg_.labels, cfg_.instance.data(), "kkrt", item_value_.data(), n);
      secure_wipe(item_value_.data(), item_value_.size() * sizeof(Block));
      std::vector<Block>().swap(item_value_);
      secure_wipe(c_x_.data(), c_x_.size() * sizeof(Block));
      out_.clear();
      out_pos_ = 0;
      return;
    }
    uint64_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    lookup_.assign(cap, 0);
    lookup_mask_ = cap - 1;
    for (uint64_t i = 0; i < n; ++i) {
      if (item_tag_[i] >= cfg_.hash_tables()) continue;  // stash items are compared directly
      uint64_t key = mask_key(&item_mask_[i * cfg_.mask_bytes]);
      uint64_t slot = key & lookup_mask_;
      while (lookup_[slot]) slot = (slot + 1) & lookup_mask_;
      lookup_[slot] = lookup_entry(key, item_tag_[i], i);
    }
    out_.clear();
    out_pos_ = 0;
    masks_in_.reset(cfg_.mask_bytes, uint64_t(cfg_.mask_tables()) * cfg_.sender_size);
  }

  uint64_t mask_key(const uint8_t* m) const {
    uint64_t k = 0;
    std::memcpy(&k, m, std::min<uint32_t>(8, cfg_.mask_bytes));
    return k;
  }

  // Lookup entries: 32-bit fingerprint (mask bytes 4..7) | table id (4 bits) | element index + 1
  // (28 bits), so a probe needs the element's full mask only on a fingerprint match.
  static uint64_t lookup_entry(uint64_t key, uint32_t tid, uint64_t item) {
    return (key >> 32) << 32 | uint64_t(tid) << 28 | (item + 1);
  }

  void add_match(uint64_t item, uint64_t pos) {
    matched_items_.push_back(item);
    matched_positions_.push_back(uint32_t(pos));
  }

  // Checks masks number g0 .. g0+count-1 (contiguous at m) in three overlapped passes: prefetch the
  // table slots, probe them and prefetch the candidates' masks, verify the candidates. A full
  // candidate buffer is verified and emptied on the spot, never truncated: masks crafted to make
  // many fingerprints collide cost the receiver time, but can not hide a genuine match.
  void check_masks(uint64_t g0, const uint8_t* m, size_t count) {
    const uint64_t ns = cfg_.sender_size;
    const uint32_t L = cfg_.mask_bytes;
    constexpr size_t kStep = 32;
    uint64_t cand_item[2 * kStep];
    const uint8_t* cand_mask[2 * kStep];
    uint64_t cand_pos[2 * kStep];
    size_t nc = 0;
    auto verify = [&]() {
      for (size_t q = 0; q < nc; ++q)
        if (std::memcmp(&item_mask_[cand_item[q] * L], cand_mask[q], L) == 0)
          add_match(cand_item[q], cand_pos[q]);
      nc = 0;
    };
    for (size_t k0 = 0; k0 < count; k0 += kStep) {
      const size_t c = std::min(kStep, count - k0);
      for (size_t k = 0; k < c; ++k)
        __builtin_prefetch(&lookup_[mask_key(m + (k0 + k) * L) & lookup_mask_]);
      for (size_t k = 0; k < c; ++k) {
        const uint8_t* mk = m + (k0 + k) * L;
        const uint64_t g = g0 + k0 + k, tid = g / ns, pos = g % ns;
        if (tid >= cfg_.hash_tables()) {  // stash tables: one candidate each
          uint32_t item = stash_items_[tid - cfg_.hash_tables()];
          if (item != CuckooTable::kEmpty && std::memcmp(&item_mask_[size_t(item) * L], mk, L) == 0)
            add_match(item, pos);
          continue;
        }
        const uint64_t key = mask_key(mk);
        const uint64_t want = (key >> 32) << 32 | uint64_t(tid) << 28;
        for (uint64_t slot = key & lookup_mask_; lookup_[slot]; slot = (slot + 1) & lookup_mask_) {
          const uint64_t e = lookup_[slot];
          if ((e & ~uint64_t(0x0FFFFFFF)) != want) continue;
          if (nc == 2 * kStep) verify();
          cand_item[nc] = (e & 0x0FFFFFFF) - 1;
          cand_mask[nc] = mk;
          cand_pos[nc] = pos;
          __builtin_prefetch(&item_mask_[cand_item[nc] * L]);
          ++nc;
        }
      }
      verify();
    }
  }

  Status absorb_masks(ByteView chunk, bool last, const std::string& where) {
    PSI_RETURN_IF_ERROR(masks_in_.absorb(
        chunk, where,
        [this](uint64_t g0, const uint8_t* m, size_t count) { check_masks(g0, m, count); }));
    return last ? masks_done(where) : Status::ok();
  }

  Status masks_done(const std::string& where) {
    PSI_RETURN_IF_ERROR(masks_in_.finish(where));
    result_.assign(matched_items_.begin(), matched_items_.end());
    std::sort(result_.begin(), result_.end());
    result_.erase(std::unique(result_.begin(), result_.end()), result_.end());
    std::vector<uint8_t>().swap(item_mask_);
    std::vector<uint64_t>().swap(lookup_);
    out_.clear();
    out_pos_ = 0;
    if (cfg_.output_both) {
      // Claims: u32 count | count x (u32 position | u64 proof), ascending positions, each once.
      std::vector<std::pair<uint32_t, uint64_t>> claims(matched_positions_.size());
      for (size_t k = 0; k < claims.size(); ++k)
        claims[k] = {matched_positions_[k], item_proof_[matched_items_[k]]};
      std::sort(claims.begin(), claims.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      claims.erase(std::unique(claims.begin(), claims.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; }),
                   claims.end());
      put_u32(&out_, uint32_t(claims.size()));
      for (const auto& c : claims) {
        put_u32(&out_, c.first);
        put_u64(&out_, c.second);
      }
      secure_wipe(item_proof_.data(), item_proof_.size() * sizeof(uint64_t));
      std::vector<uint64_t>().swap(item_proof_);
    }
    return Status::ok();
  }

  MessageBuffer setup_in_{kSetupSenderBytes};
  std::unique_ptr<BaseOtSender> base_ot_;
  std::vector<std::array<Block, 2>> keys_;
  std::vector<uint8_t> out_;
  size_t out_pos_ = 0;
  std::vector<Aes128> g0_, g1_;
  std::unique_ptr<CuckooTable> table_;
  std::vector<uint8_t> rows0_, rows1_;
  // Per-chunk scratch for the occupied rows: row, element index, code index, instance, element or
  // hash output, codeword or T row.
  std::vector<uint32_t> c_row_, c_item_;
  std::vector<uint8_t> c_index_;
  std::vector<uint64_t> c_j_;
  std::vector<Block> c_x_, c_code_;
  uint64_t next_row_ = 0;
  bool finished_matrix_ = false;
  std::vector<uint8_t> item_mask_;
  std::vector<Block> item_value_;  // output=labels: each element's OPRF value
  LabelReceiver labels_in_;        // output=labels: round 2's parser
  bool labels_done_ = false;
  std::vector<uint64_t> item_proof_,
      c_proof_;  // output=both: claim proof of each element's OPRF value
  std::vector<uint8_t> item_tag_;
  std::vector<uint32_t> stash_items_;
  std::vector<uint64_t> lookup_;
  uint64_t lookup_mask_ = 0;
  RecordStream masks_in_;
  std::vector<uint64_t> matched_items_;
  std::vector<uint32_t> matched_positions_;
};

// ---------------------------------------------------------------------------------------------
class KkrtSender final : public KkrtBase {
 public:
  using KkrtBase::KkrtBase;
  ~KkrtSender() override {
    secure_wipe(keys_.data(), keys_.size() * sizeof(Block));
    secure_wipe(s_, sizeof s_);
    secure_wipe(proofs_.data(), proofs_.size() * sizeof(uint64_t));
  }

  bool is_mine(psi_phase, uint32_t round) const override { return round % 2 == 1; }

  Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) override {
    const std::string where = role_round("sender", phase, round);
    if (phase == PSI_PHASE_SETUP) {
      PSI_RETURN_IF_ERROR(setup_in_.append(chunk, where));
      return last ? answer_setup(where) : Status::ok();
    }
    if (round == 1) return absorb_matrix(chunk, last, where);
    PSI_RETURN_IF_ERROR(positions_in_.append(chunk, where));
    return last ? finish_positions(where) : Status::ok();
  }

  Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
              bool* done) override {
    if (phase == PSI_PHASE_ONLINE && round == 1 && cfg_.output_labels)
      return emit_label_message(out, cap, written, done);
    if (phase == PSI_PHASE_ONLINE && round == 1) {
      emit_from_buffer(masks_, &out_pos_, out, cap, written, done);
      if (*done) std::vector<uint8_t>().swap(masks_);
      return Status::ok();
    }
    emit_from_buffer(out_, &out_pos_, out, cap, written, done);
    if (*done && phase == PSI_PHASE_SETUP) return ready_hook();
    return Status::ok();
  }

  Status export_setup(std::vector<uint8_t>* out) const override {
    std::vector<uint8_t> secrets(s_, s_ + sizeof s_);
    put_bytes(&secrets, keys_.data(), keys_.size() * sizeof(Block));
    Status st = export_blob(PSI_ROLE_SENDER, ByteView(secrets), out);
    secure_wipe(secrets.data(), secrets.size());
    return st;
  }

  Status set_labels(const uint8_t* labels, size_t count, size_t label_len) override {
    if (!cfg_.output_labels) return state_error("kkrt: labels need output=labels");
    return labels_.set(cfg_.labels, labels, count, label_len);
  }
  Status result_available() const override {
    if (cfg_.output_labels)
      return state_error("kkrt: the sender of a labelled run learns nothing (no result)");
    return Status::ok();
  }

  Status import_setup(ByteView data) override {
    ByteView secrets;
    PSI_RETURN_IF_ERROR(
        import_blob(data, PSI_ROLE_SENDER, sizeof s_ + size_t(kKkrtCodeBits) * 16, &secrets));
    std::memcpy(s_, secrets.data, sizeof s_);
    keys_.resize(kKkrtCodeBits);
    std::memcpy(keys_.data(), secrets.data + sizeof s_, size_t(kKkrtCodeBits) * 16);
    return ready_hook();
  }

 protected:
  uint64_t own_size() const override { return cfg_.sender_size; }

 private:
  Status answer_setup(const std::string& where) {
    const auto& a = setup_in_.data();
    if (a.size() != 32)
      return peer_error(where + ": expected 32 bytes, got " + std::to_string(a.size()));
    rng_.fill(s_, sizeof s_);
    std::vector<uint8_t> choices(kKkrtCodeBits);
    for (uint32_t i = 0; i < kKkrtCodeBits; ++i) choices[i] = (s_[i / 8] >> (i % 8)) & 1;
    BaseOtReceiver ot(std::move(choices), rng_);
    PSI_RETURN_IF_ERROR(ot.respond(ByteView(a.data(), a.size()), &out_, &keys_));
    rng_.fill(shared_seed_, 32);
    put_bytes(&out_, shared_seed_, 32);
    out_pos_ = 0;
    setup_done_ = true;
    return Status::ok();  // prepares after the reply has gone (see emit), overlapping the receiver
  }

  // Simple hashing: every element into each of its candidate bins, grouped by bin.
  Status prepare_online() override {
    derive_instance();
    gs_.resize(kKkrtCodeBits);
    for (uint32_t i = 0; i < kKkrtCodeBits; ++i)
      gs_[i].set_key(kkrt_column_key(keys_[i], cfg_.instance.data()));
    for (int l = 0; l < 4; ++l) s_block_[l] = load_block(s_ + 16 * l);
    const uint64_t n = cfg_.sender_size, bins = cfg_.cuckoo.bins;
    const uint32_t h = cfg_.cuckoo.hashes;
    bin_start_.assign(bins + 1, 0);
    std::vector<uint32_t> first_bins(n * h);
    {
      constexpr size_t kStep = 256;
      ItemHash ih[kStep];
      for (uint64_t i = 0; i < n; i += kStep) {
        size_t m = size_t(std::min<uint64_t>(kStep, n - i));
        code_.item_hashes(&elements_[i], m, ih);
        uint32_t* fb = &first_bins[i * h];
        for (size_t k = 0; k < m; ++k)
          for (uint32_t f = 0; f < h; ++f) {
            fb[k * h + f] = uint32_t(cuckoo_candidate_bin(cfg_.cuckoo, ih[k], f));
            __builtin_prefetch(&bin_start_[fb[k * h + f] + 1], 1);
          }
        for (size_t k = 0; k < m * h; ++k) ++bin_start_[fb[k] + 1];
      }
    }
    for (uint64_t b = 0; b < bins; ++b) bin_start_[b + 1] += bin_start_[b];
    entries_.resize(n * h);
    {
      std::vector<uint32_t> fill(bin_start_.begin(), bin_start_.end() - 1);
      // Scattered writes, prefetched a step ahead to keep many cache misses in flight.
      constexpr uint64_t kAhead = 32;
      const uint64_t total = n * h;
      for (uint64_t k = 0; k < std::min(kAhead, total); ++k)
        __builtin_prefetch(&fill[first_bins[k]], 1);
      for (uint64_t k = 0; k < total; ++k) {
        if (k + kAhead < total) __builtin_prefetch(&fill[first_bins[k + kAhead]], 1);
        if (k + kAhead / 2 < total)
          __builtin_prefetch(&entries_[fill[first_bins[k + kAhead / 2]]], 1);
        entries_[fill[first_bins[k]]++] = uint32_t(k / h) << 2 | uint32_t(k % h);
      }
    }
    std::vector<uint32_t>().swap(first_bins);
    // Secret random order of the elements in every mask table: Fisher-Yates, with the random
    // indices drawn a batch ahead so the swaps' cache misses overlap.
    pos_.resize(n);
    for (uint64_t i = 0; i < n; ++i) pos_[i] = uint32_t(i);
    constexpr uint64_t kSwapBatch = 64;
    uint64_t js[kSwapBatch];
    for (uint64_t i = n; i > 1;) {
      const uint64_t m = std::min<uint64_t>(kSwapBatch, i - 1);
      for (uint64_t k = 0; k < m; ++k) {
        js[k] = rng_.uniform(i - k);
        __builtin_prefetch(&pos_[js[k]], 1);
      }
      for (uint64_t k = 0; k < m; ++k) std::swap(pos_[i - 1 - k], pos_[js[k]]);
      i -= m;
    }
    // output=labels: the key records in the masks' layout (the label records follow at emit time)
    masks_.assign(cfg_.output_labels
                      ? size_t(cfg_.labels.key_records() * cfg_.labels.key_record_bytes())
                      : size_t(cfg_.mask_tables()) * n * cfg_.mask_bytes,
                  0);
    if (cfg_.output_both) proofs_.assign(size_t(cfg_.mask_tables()) * n, 0);
    rowbuf_.resize(kChunkRows * kKkrtRowBytes);
    qrows_.resize(kChunkRows * kKkrtRowBytes);
    stash_q_.resize(size_t(cfg_.cuckoo.stash) * 4);
    return Status::ok();
  }

  uint8_t* mask_slot(uint32_t table, uint32_t item) {
    const size_t R = cfg_.output_labels ? cfg_.labels.key_record_bytes() : cfg_.mask_bytes;
    return &masks_[(size_t(table) * cfg_.sender_size + pos_[item]) * R];
  }
  uint64_t& proof_slot(uint32_t table, uint32_t item) {
    return proofs_[size_t(table) * cfg_.sender_size + pos_[item]];
  }

  // Output hash of the batch and the scattered writes of its masks (destinations prefetched while
  // the hashes are computed).
  void flush_batch(size_t nb) {
    for (size_t k = 0; k < nb; ++k) __builtin_prefetch(mask_slot(b_table_[k], b_item_[k]), 1);
    kkrt_output_hash(fixed_hash_, out_tweak_, b_j_.data(), b_v_.data(), nb, b_out_.data(),
                     cfg_.output_both ? b_proof_.data() : nullptr);
    if (cfg_.output_labels) {
      std::array<uint8_t*, kBatch> outs;
      std::array<uint32_t, kBatch> pos;
      for (size_t k = 0; k < nb; ++k) {
        outs[k] = mask_slot(b_table_[k], b_item_[k]);
        pos[k] = pos_[b_item_[k]];
      }
      labels_.key_records_at(b_out_.data(), pos.data(), nb, outs.data());
      secure_wipe(b_out_.data(), nb * sizeof(Block));
      return;
    }
    for (size_t k = 0; k < nb; ++k)
      std::memcpy(mask_slot(b_table_[k], b_item_[k]), &b_out_[k], cfg_.mask_bytes);
    if (cfg_.output_both)
      for (size_t k = 0; k < nb; ++k) proof_slot(b_table_[k], b_item_[k]) = b_proof_[k];
  }

  // Q rows for [first, first+rows): q_j = G(k_{s_i}) ^ (u_j & s), then the masks of all elements
  // hashed into the bins of those rows.
  Status process_rows(uint64_t first, size_t rows, const std::string& where) {
    const size_t padded = (rows + 127) / 128 * 128;
    prg_rows(gs_, first, padded, qrows_.data());
    for (size_t r = 0; r < rows; ++r) {
      uint8_t* q = &qrows_[r * kKkrtRowBytes];
      const uint8_t* u = &rowbuf_[r * kKkrtRowBytes];
      for (int l = 0; l < 4; ++l)
        store_block(q + 16 * l, load_block(q + 16 * l) ^ (load_block(u + 16 * l) & s_block_[l]));
    }
    const uint32_t slots = cfg_.cuckoo.slots_per_bin;
    const uint64_t cuckoo_rows = cfg_.cuckoo_rows();
    const uint64_t end = std::min<uint64_t>(first + rows, cuckoo_rows);
    const uint64_t b0 = first / slots, b1 = (end + slots - 1) / slots;
    if (b0 < b1) {
      const uint32_t lo = bin_start_[b0], hi = bin_start_[b1];
      const size_t cnt = hi - lo;
      if (e_x_.size() < cnt) {
        e_x_.resize(cnt);
        e_f_.resize(cnt);
        e_code_.resize(4 * cnt);
      }
      for (uint32_t e = lo; e < hi; ++e) __builtin_prefetch(&elements_[entries_[e] >> 2]);
      for (uint32_t e = lo; e < hi; ++e) {
        e_x_[e - lo] = elements_[entries_[e] >> 2];
        e_f_[e - lo] = uint8_t(entries_[e] & 3);
      }
      // Equal elements share all their bins, so a duplicate shows up inside one bin.
      for (uint64_t b = b0; b < b1; ++b)
        for (uint32_t e = bin_start_[b]; e < bin_start_[b + 1]; ++e)
          for (uint32_t e2 = bin_start_[b]; e2 < e; ++e2)
            if (e_f_[e2 - lo] == e_f_[e - lo] && block_equal(e_x_[e2 - lo], e_x_[e - lo]))
              return input_error(where + ": duplicate element at input indices " +
                                 std::to_string(entries_[e2] >> 2) + " and " +
                                 std::to_string(entries_[e] >> 2));
      code_.encode(e_x_.data(), e_f_.data(), cnt, e_code_.data());
      size_t nb = 0;
      for (uint64_t b = b0; b < b1; ++b)
        for (uint32_t e = bin_start_[b]; e < bin_start_[b + 1]; ++e) {
          const Block* c = &e_code_[4 * (e - lo)];
          for (uint32_t k = 0; k < slots; ++k) {
            const uint64_t j = b * slots + k;
            const uint8_t* q = &qrows_[(j - first) * kKkrtRowBytes];
            for (int l = 0; l < 4; ++l)
              b_v_[4 * nb + l] = load_block(q + 16 * l) ^ (c[l] & s_block_[l]);
            b_j_[nb] = j;
            b_item_[nb] = entries_[e] >> 2;
            b_table_[nb] = (entries_[e] & 3) * slots + k;
            if (++nb == kBatch) {
              flush_batch(nb);
              nb = 0;
            }
          }
        }
      flush_batch(nb);
    }
    for (uint64_t j = std::max(first, cuckoo_rows); j < first + rows; ++j)
      load_row(&qrows_[(j - first) * kKkrtRowBytes], &stash_q_[4 * (j - cuckoo_rows)]);
    return Status::ok();
  }

  // Every element against every stash position (the receiver's stash could hold any element).
  void stash_masks() {
    const uint32_t stash = cfg_.cuckoo.stash;
    if (stash == 0) return;
    const uint64_t cuckoo_rows = cfg_.cuckoo_rows();
    const uint8_t stash_index = uint8_t(cfg_.cuckoo.hashes);
    constexpr size_t kStep = kBatch;
    uint8_t ts[kStep];
    std::fill(ts, ts + kStep, stash_index);
    Block codes[4 * kStep];
    for (uint64_t i0 = 0; i0 < cfg_.sender_size; i0 += kStep) {
      const size_t m = size_t(std::min<uint64_t>(kStep, cfg_.sender_size - i0));
      code_.encode(&elements_[i0], ts, m, codes);
      for (uint32_t t = 0; t < stash; ++t) {
        for (size_t k = 0; k < m; ++k) {
          for (int l = 0; l < 4; ++l)
            b_v_[4 * k + l] = stash_q_[4 * t + l] ^ (codes[4 * k + l] & s_block_[l]);
          b_j_[k] = cuckoo_rows + t;
          b_item_[k] = uint32_t(i0 + k);
          b_table_[k] = cfg_.hash_tables() + t;
        }
        flush_batch(m);
      }
    }
  }

  Status absorb_matrix(ByteView chunk, bool last, const std::string& where) {
    PSI_RETURN_IF_ERROR(ready_hook());
    if (!prepared_) return state_error(where + ": setup not complete");
    if (cfg_.output_labels && !labels_started_) {
      // This round's reply carries the labels: refuse their absence before any work.
      if (!labels_.has_labels())
        return state_error(where + ": output=labels but psi_set_labels was not called");
      labels_.start(cfg_.instance.data(), "kkrt", &rng_);
      labels_started_ = true;
    }
    const uint64_t total = kInstanceBytes + cfg_.rows() * kKkrtRowBytes;
    if (chunk.size > total - received_)
      return peer_error(where + ": message longer than the expected " + std::to_string(total) +
                        " bytes");
    ByteReader rd(chunk);
    while (received_ < kInstanceBytes && rd.remaining()) {
      rd.read(&header_[received_], 1);
      if (++received_ == kInstanceBytes &&
          std::memcmp(header_, cfg_.instance.data(), kInstanceBytes) != 0)
        return peer_error(where + ": peer runs instance " + instance_hex(header_) +
                          ", this session instance " + instance_hex(cfg_.instance.data()));
    }
    while (rd.remaining()) {
      const size_t rows = size_t(std::min<uint64_t>(kChunkRows, cfg_.rows() - rows_done_));
      const size_t want = rows * kKkrtRowBytes;
      size_t n = std::min(want - rowbuf_fill_, rd.remaining());
      rd.read(&rowbuf_[rowbuf_fill_], n);
      rowbuf_fill_ += n;
      received_ += n;
      if (rowbuf_fill_ == want) {
        PSI_RETURN_IF_ERROR(process_rows(rows_done_, rows, where));
        rows_done_ += rows;
        rowbuf_fill_ = 0;
      }
    }
    if (!last) return Status::ok();
    if (received_ != total)
      return peer_error(where + ": message ended after " + std::to_string(received_) + " of " +
                        std::to_string(total) + " bytes");
    // A zero-row matrix never reaches process_rows; nothing to do then.
    stash_masks();
    if (cfg_.output_labels) {
      // Label record p holds the label of the element at position p of the key tables.
      const uint64_t n = cfg_.sender_size;
      elem_at_.resize(n);
      for (uint64_t i = 0; i < n; ++i) elem_at_[pos_[i]] = uint32_t(i);
      labels_next_ = 0;
    }
    std::vector<uint32_t>().swap(entries_);
    std::vector<uint32_t>().swap(bin_start_);
    std::vector<uint8_t>().swap(rowbuf_);
    std::vector<uint8_t>().swap(qrows_);
    std::vector<uint8_t>().swap(cols_);
    std::vector<Aes128>().swap(gs_);
    if (!cfg_.output_both) std::vector<uint32_t>().swap(pos_);
    std::vector<Block>().swap(elements_);
    out_pos_ = 0;
    return Status::ok();
  }

  // output=labels, round 1: the key records (masks_), then the label records, sealed a chunk at a
  // time as they are sent (so a large label needs no message-sized buffer).
  Status emit_label_message(uint8_t* out, size_t cap, size_t* written, bool* done) {
    *written = 0;
    *done = false;
    const uint64_t n = cfg_.sender_size;
    const size_t R = cfg_.labels.label_record_bytes();
    while (cap > 0) {
      std::vector<uint8_t>& cur = labels_next_ == 0 && !masks_sent_ ? masks_ : label_buf_;
      if (out_pos_ == cur.size()) {
        if (&cur == &masks_) {
          masks_sent_ = true;
          std::vector<uint8_t>().swap(masks_);
        } else if (labels_next_ == n) {
          break;
        }
        const size_t count = size_t(
            std::min<uint64_t>(std::max<size_t>(1, (size_t(8) << 20) / R), n - labels_next_));
        label_buf_.resize(count * R);
        if (count) labels_.label_records(elem_at_.data(), labels_next_, count, label_buf_.data());
        labels_next_ += count;
        out_pos_ = 0;
        if (count == 0) break;
        continue;
      }
      const size_t k = std::min(cap, cur.size() - out_pos_);
      std::memcpy(out, cur.data() + out_pos_, k);
      out_pos_ += k;
      out += k;
      cap -= k;
      *written += k;
    }
    if (masks_sent_ && labels_next_ == n && out_pos_ == label_buf_.size()) {
      *done = true;
      labels_.clear();
      std::vector<uint8_t>().swap(label_buf_);
      std::vector<uint32_t>().swap(elem_at_);
    }
    return Status::ok();
  }

  // The receiver's claims: u32 count | count x (u32 position | u64 proof), positions strictly
  // ascending. A position is accepted only if its proof equals the proof of one of the sender's
  // masks at that position (any table: which table matched would tell about the receiver's
  // cuckoo layout, so it is not sent); every table is compared, in constant time. One bad claim
  // fails the run: nothing is output, so a forged claim buys no rows.
  Status finish_positions(const std::string& where) {
    const auto& d = positions_in_.data();
    ByteReader rd(ByteView(d.data(), d.size()));
    uint32_t count;
    if (!rd.read_u32(&count)) return peer_error(where + ": message shorter than 4 bytes");
    if (count > cfg_.sender_size || rd.remaining() != size_t(count) * kClaimBytes)
      return peer_error(where + ": claims " + std::to_string(count) + " positions in " +
                        std::to_string(d.size()) + " bytes for a set of " +
                        std::to_string(cfg_.sender_size));
    const uint64_t ns = cfg_.sender_size;
    const uint32_t tables = cfg_.mask_tables();
    std::vector<uint32_t> found;
    found.reserve(count);
    uint64_t prev = 0, bad = 0;
    for (uint32_t k = 0; k < count; ++k) {
      uint32_t p = 0;
      uint64_t proof = 0;
      rd.read_u32(&p);  // length checked above
      rd.read_u64(&proof);
      if (p >= ns || (k > 0 && p <= prev))
        return peer_error(where + ": claimed position " + std::to_string(p) +
                          (p >= ns ? " out of range" : " repeated or out of ascending order"));
      prev = p;
      uint64_t hit = 0;
      for (uint32_t t = 0; t < tables; ++t) {
        const uint64_t x = proofs_[size_t(t) * ns + p] ^ proof;
        hit |= ((x | (0 - x)) >> 63) ^ 1;  // 1 iff x == 0, without a branch
      }
      bad += hit ^ 1;
      found.push_back(p);
    }
    secure_wipe(proofs_.data(), proofs_.size() * sizeof(uint64_t));
    std::vector<uint64_t>().swap(proofs_);
    if (bad)
      return peer_error(where + ": " + std::to_string(bad) + " of " + std::to_string(count) +
                        " claimed positions carry no valid proof of a match");
    std::vector<uint32_t> item_at(ns);
    for (uint64_t i = 0; i < ns; ++i) item_at[pos_[i]] = uint32_t(i);
    result_.clear();
    for (uint32_t p : found) result_.push_back(item_at[p]);
    std::sort(result_.begin(), result_.end());
    out_.clear();
    out_pos_ = 0;
    return Status::ok();
  }

  MessageBuffer setup_in_{32};
  MessageBuffer positions_in_{4 + kClaimBytes * size_t(cfg_.sender_size)};
  uint8_t s_[kKkrtCodeBits / 8] = {0};
  Block s_block_[4];
  std::vector<Block> keys_;
  std::vector<uint8_t> out_;
  size_t out_pos_ = 0;
  std::vector<Aes128> gs_;
  std::vector<uint32_t> bin_start_, entries_, pos_;
  std::vector<uint8_t> masks_;
  LabelSender labels_;  // output=labels: the labels and round 1's record writer
  bool labels_started_ = false, masks_sent_ = false;
  std::vector<uint32_t> elem_at_;   // output=labels: the element at each label position
  std::vector<uint8_t> label_buf_;  // output=labels: the label records being sent
  uint64_t labels_next_ = 0;        // output=labels: label records produced
  // output=both: the claim proof of every (table, position) mask, same layout as masks_ (8 bytes
  // each)
  std::vector<uint64_t> proofs_;
  std::vector<uint8_t> rowbuf_, qrows_;
  size_t rowbuf_fill_ = 0;
  uint64_t rows_done_ = 0;
  uint64_t received_ = 0;
  uint8_t header_[kInstanceBytes];
  std::vector<Block> stash_q_;
  // Scratch: the chunk's bin entries (element, hash function, codeword) and a batch of masks.
  std::vector<Block> e_x_, e_code_;
  std::vector<uint8_t> e_f_;
  static constexpr size_t kBatch = 128;
  std::array<uint64_t, kBatch> b_j_;
  std::array<uint32_t, kBatch> b_item_, b_table_;
  std::array<Block, 4 * kBatch> b_v_;
  std::array<Block, kBatch> b_out_;
  std::array<uint64_t, kBatch> b_proof_;
};

}  // namespace

std::unique_ptr<Protocol> make_kkrt(psi_role role, const Params& params, const uint8_t seed[32],
                                    Status* status) {
  KkrtConfig cfg;
  *status = kkrt_config_from_params(params, &cfg);
  if (!status->is_ok()) return nullptr;
  *status = params.check_all_used();
  if (!status->is_ok()) return nullptr;
  if (role == PSI_ROLE_RECEIVER) return std::make_unique<KkrtReceiver>(cfg, seed);
  if (role == PSI_ROLE_SENDER) return std::make_unique<KkrtSender>(cfg, seed);
  *status =
      argument_error("kkrt has roles receiver (0) and sender (1), not " + std::to_string(role));
  return nullptr;
}

}  // namespace psi
