// labels.h — labelled PSI on top of any OPRF the sender can evaluate on its own elements (see
// psi_set_labels in psi_native.h and docs/protocols.md, "Labelled PSI"). A protocol supplies the
// OPRF values; this file turns them into the sender's label message and parses it on the receiver.
//
// From an OPRF value F (128 bits, secret unless the receiver holds the element) and public tweaks
// derived from the run's instance and the protocol's domain, with H the fixed-key tweakable
// correlation-robust hash (core/aes.h):
//   tag(F) = H(F ^ t_tag) truncated to tag_bytes = sigma + log2 n_r + log2(h n_s) bits
//   (mask_bytes), k1(F) = H(F ^ t_k1), k2(F) = H(F ^ t_k2).
// Label ciphertexts are AES-128-GCM (core/aes_gcm.h) under single-use keys, nonce 0, no
// associated data: label_len + 16 bytes each.
//
// Message, h = 1 OPRF value per sender element (rr22, ecdh), "direct":
//   n_s records tag(F) | AEAD(k1(F), label), in the sender's secret order.
// Message, h > 1 values per element (kkrt: one per hash function and stash position), each label
// still sent once, "indirect":
//   h n_s key records tag(F) | ((c | u32 position) ^ (k1(F) | k2(F))[0..20)), the sender's order;
//   then n_s label records AEAD(H(c ^ t_c1), label), record p for the element at
//   label position p, c a fresh random 128-bit content key per element.
// Sizes depend only on n_r, n_s, h and label_len. The receiver matches each record's tag against
// its own items' tags; a match whose label does not authenticate (or whose position is out of range
// or taken twice) is PSI_ERR_PEER_MESSAGE, never a wrong label.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/aes.h"
#include "../core/block.h"
#include "../core/bytes.h"
#include "../core/prefetch.h"
#include "../core/prg.h"
#include "../core/status.h"

namespace psi {

constexpr size_t kLabelMacBytes = 16;      // GCM tag after each label ciphertext
constexpr size_t kLabelKeyBytes = 16;      // content key c of the indirect format
constexpr size_t kLabelKeyPlain = 16 + 4;  // c | u32 position, padded in a key record

// The public shape of one run's label message.
struct LabelLayout {
  uint64_t receiver_size = 0, sender_size = 0;
  uint32_t values_per_element = 1;  // h
  uint32_t tag_bytes = 0;
  uint32_t label_len = 0;

  // PSI_ERR_ARGUMENT for label_len outside [1, PSI_MAX_LABEL_BYTES] or h == 0.
  static Status make(uint32_t sigma, uint64_t n_r, uint64_t n_s, uint32_t h, uint64_t label_len,
                     LabelLayout* out);
  bool direct() const { return values_per_element == 1; }
  size_t label_record_bytes() const { return size_t(label_len) + kLabelMacBytes; }
  size_t key_record_bytes() const {
    return tag_bytes + (direct() ? label_record_bytes() : kLabelKeyPlain);
  }
  uint64_t key_records() const { return uint64_t(values_per_element) * sender_size; }
  uint64_t label_records() const { return direct() ? 0 : sender_size; }
  uint64_t message_bytes() const {
    return key_records() * key_record_bytes() + label_records() * label_record_bytes();
  }
};

// The per-run tweaks and the derivations from an OPRF value. Immutable after init; thread-safe.
class LabelDerive {
 public:
  // domain: e.g. "rr22"; the tweaks are BLAKE2b of the instance under a labels-specific label.
  void init(const uint8_t instance[32], const std::string& domain);
  // For i < n: tags[i] = H(F[i] ^ t_tag); keys (if not null) keys[2i], keys[2i+1] = k1, k2.
  void derive(const Block* F, size_t n, Block* tags, Block* keys) const;
  // The 16-byte AEAD key of a content key c (indirect format).
  void content_key(Block c, uint8_t key[16]) const;

 private:
  FixedKeyHash hash_;
  Block t_tag_ = zero_block(), t_k1_ = zero_block(), t_k2_ = zero_block();
  Block t_c1_ = zero_block();
};

// The sender's side: holds a copy of the labels (wiped on destruction) and writes records. The
// record writers are const and may run on several threads for disjoint ranges.
class LabelSender {
 public:
  ~LabelSender();
  // Checks count against the layout's sender_size and label_len against its label_len
  // (PSI_ERR_INPUT naming both), then copies the labels.
  Status set(const LabelLayout& layout, const uint8_t* labels, size_t count, size_t label_len);
  bool has_labels() const { return set_; }
  // Once per run before writing: the derivations, and (indirect) a fresh content key per label
  // position from rng.
  void start(const uint8_t instance[32], const std::string& domain, Prg* rng);
  const LabelLayout& layout() const { return layout_; }

  // Direct format: out gets n records, record k for element elems[k] with OPRF value F[k].
  void direct_records(const Block* F, const uint32_t* elems, size_t n, uint8_t* out) const;
  // Indirect format: out gets n key records, record k for OPRF value F[k] of the element whose
  // label position is pos[k].
  void key_records(const Block* F, const uint32_t* pos, size_t n, uint8_t* out) const;
  // The same, record k written at outs[k] (for a caller that scatters records into tables).
  void key_records_at(const Block* F, const uint32_t* pos, size_t n, uint8_t* const* outs) const;
  // Indirect format: label records for positions first .. first+n-1; elem_at[p] is the element at
  // label position p.
  void label_records(const uint32_t* elem_at, uint64_t first, size_t n, uint8_t* out) const;
  // Wipes the labels and content keys (after the message has gone).
  void clear();

 private:
  PSI_PREFETCHER void prefetch_labels(const uint32_t* elems, size_t n) const {
    const size_t L = layout_.label_len, lines = std::min<size_t>(2, (L + 63) / 64);
    for (size_t i = 0; i < n; ++i)
      for (size_t l = 0; l < lines; ++l)
        __builtin_prefetch(&labels_[size_t(elems[i]) * L + std::min(64 * l, L - 1)]);
  }

  LabelLayout layout_;
  bool set_ = false;
  LabelDerive derive_;
  std::vector<uint8_t> labels_;  // sender_size * label_len, input order
  std::vector<Block> content_;   // indirect: content key per label position
};

// The receiver's side: indexes its own items' tags, then matches the message as it streams in.
class LabelReceiver {
 public:
  ~LabelReceiver();
  // own[i]: the receiver's OPRF value of its item i (i < count = layout.receiver_size).
  void start(const LabelLayout& layout, const uint8_t instance[32], const std::string& domain,
             const Block* own, size_t count);
  Status absorb(ByteView chunk, const std::string& at);
  // Refuses a message that ended early; then result() ascending, labels() in result()'s order.
  Status finish(const std::string& at);
  const std::vector<uint64_t>& result() const { return result_; }
  const std::vector<uint8_t>& labels() const { return labels_; }

 private:
  Status on_record(const uint8_t* rec, const std::string& at);
  Status on_key_record(uint64_t index, const uint8_t* rec, const std::string& at);
  Status on_label_record(uint64_t position, const uint8_t* rec, const std::string& at);
  int64_t find_item(const uint8_t* tag) const;
  Status add_label(uint32_t match, const uint8_t key[32], const uint8_t* ct, const std::string& at,
                   uint64_t where);

  struct Match {
    uint32_t item;
    Block content;  // indirect: the content key c
  };
  LabelLayout layout_;
  LabelDerive derive_;
  std::vector<uint8_t> item_tag_;  // receiver_size * tag_bytes
  std::vector<Block> item_key_;    // 2 per item: k1, k2
  std::vector<uint64_t> lookup_;   // fingerprint (tag bytes 4..7) << 32 | item + 1
  uint64_t lookup_mask_ = 0;
  std::vector<uint32_t> item_match_;  // per item: its match index + 1, 0 if none yet
  std::vector<uint32_t> want_;        // indirect: per label position, match index + 1
  std::vector<Match> matches_;
  std::vector<uint8_t> match_labels_;  // label_len per match, in match order
  uint64_t records_seen_ = 0;          // key records, then label records
  std::vector<uint8_t> carry_;
  size_t carry_len_ = 0;
  std::vector<uint64_t> result_;
  std::vector<uint8_t> labels_;
};

}  // namespace psi
