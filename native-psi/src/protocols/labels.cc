#include "labels.h"

#include <algorithm>

#include "../core/aes_gcm.h"
#include "../core/params.h"
#include "psi_native.h"

namespace psi {
namespace {

constexpr size_t kDeriveBatch = 256;
// AES-128-GCM under a single-use key (aes_gcm.h: nonce 0, no associated data).
void seal(const uint8_t key[16], const uint8_t* label, size_t len, uint8_t* out) {
  aes128gcm_seal(key, label, len, out);
}

bool open(const uint8_t key[16], const uint8_t* ct, size_t len, uint8_t* out) {
  return aes128gcm_open(key, ct, len, out);
}

void key_of(const Block* k, uint8_t key[32]) {
  store_block(key, k[0]);
  store_block(key + 16, k[1]);
}

}  // namespace

Status LabelLayout::make(uint32_t sigma, uint64_t n_r, uint64_t n_s, uint32_t h, uint64_t label_len,
                         LabelLayout* out) {
  if (label_len < 1 || label_len > PSI_MAX_LABEL_BYTES)
    return argument_error("label must be in [1, " + std::to_string(PSI_MAX_LABEL_BYTES) +
                          "] bytes, got " + std::to_string(label_len));
  if (h == 0) return argument_error("labels: no OPRF value per element");
  out->receiver_size = n_r;
  out->sender_size = n_s;
  out->values_per_element = h;
  out->label_len = uint32_t(label_len);
  out->tag_bytes = mask_bytes(sigma, n_r, uint64_t(h) * n_s);
  return Status::ok();
}

// ---------------------------------------------------------------------------------------------
void LabelDerive::init(const uint8_t instance[32], const std::string& domain) {
  uint8_t key[32];
  derive_key(instance, 32, "psi-flink labels v1 " + domain, key, 32);
  t_tag_ = derive_block(key, 32, "tag");
  t_k1_ = derive_block(key, 32, "key 1");
  t_k2_ = derive_block(key, 32, "key 2");
  t_c1_ = derive_block(key, 32, "content 1");
  secure_wipe(key, sizeof key);
}

void LabelDerive::derive(const Block* F, size_t n, Block* tags, Block* keys) const {
  Block in[3 * kDeriveBatch], o[3 * kDeriveBatch];
  for (size_t i0 = 0; i0 < n; i0 += kDeriveBatch) {
    const size_t c = std::min(kDeriveBatch, n - i0);
    const size_t per = keys ? 3 : 1;
    for (size_t i = 0; i < c; ++i) {
      in[per * i] = F[i0 + i] ^ t_tag_;
      if (keys) {
        in[3 * i + 1] = F[i0 + i] ^ t_k1_;
        in[3 * i + 2] = F[i0 + i] ^ t_k2_;
      }
    }
    hash_.hash_blocks(in, o, per * c);
    for (size_t i = 0; i < c; ++i) {
      tags[i0 + i] = o[per * i];
      if (keys) {
        keys[2 * (i0 + i)] = o[3 * i + 1];
        keys[2 * (i0 + i) + 1] = o[3 * i + 2];
      }
    }
  }
  secure_wipe(in, sizeof in);
  secure_wipe(o, sizeof o);
}

void LabelDerive::content_key(Block c, uint8_t key[16]) const {
  store_block(key, hash_.hash(c ^ t_c1_));
}

// ---------------------------------------------------------------------------------------------
LabelSender::~LabelSender() { clear(); }

Status LabelSender::set(const LabelLayout& layout, const uint8_t* labels, size_t count,
                        size_t label_len) {
  if (count != layout.sender_size)
    return input_error("labels: " + std::to_string(count) + " labels for " +
                       std::to_string(layout.sender_size) + " elements (one per element)");
  if (label_len != layout.label_len)
    return input_error("labels: label_len " + std::to_string(label_len) +
                       " but the run's label parameter is " + std::to_string(layout.label_len));
  clear();
  layout_ = layout;
  labels_.assign(labels, labels + count * label_len);
  set_ = true;
  return Status::ok();
}

void LabelSender::start(const uint8_t instance[32], const std::string& domain, Prg* rng) {
  derive_.init(instance, domain);
  if (!layout_.direct()) {
    content_.resize(layout_.sender_size);
    if (!content_.empty()) rng->fill(content_.data(), content_.size() * sizeof(Block));
  }
}

// The labels are read in the records' (secret, random) order: their first cache lines are
// prefetched a batch ahead, while the batch's keys are derived.
void LabelSender::direct_records(const Block* F, const uint32_t* elems, size_t n,
                                 uint8_t* out) const {
  const size_t T = layout_.tag_bytes, L = layout_.label_len, R = layout_.key_record_bytes();
  Block tags[kDeriveBatch], keys[2 * kDeriveBatch];
  uint8_t key[32];
  for (size_t i0 = 0; i0 < n; i0 += kDeriveBatch) {
    const size_t c = std::min(kDeriveBatch, n - i0);
    prefetch_labels(elems + i0, c);
    derive_.derive(F + i0, c, tags, keys);
    for (size_t i = 0; i < c; ++i) {
      uint8_t* rec = out + (i0 + i) * R;
      std::memcpy(rec, &tags[i], T);
      key_of(&keys[2 * i], key);
      seal(key, &labels_[size_t(elems[i0 + i]) * L], L, rec + T);
    }
  }
  secure_wipe(keys, sizeof keys);
  secure_wipe(key, sizeof key);
}

void LabelSender::key_records(const Block* F, const uint32_t* pos, size_t n, uint8_t* out) const {
  const size_t R = layout_.key_record_bytes();
  uint8_t* outs[kDeriveBatch];
  for (size_t i0 = 0; i0 < n; i0 += kDeriveBatch) {
    const size_t c = std::min(kDeriveBatch, n - i0);
    for (size_t i = 0; i < c; ++i) outs[i] = out + (i0 + i) * R;
    key_records_at(F + i0, pos + i0, c, outs);
  }
}

void LabelSender::key_records_at(const Block* F, const uint32_t* pos, size_t n,
                                 uint8_t* const* outs) const {
  const size_t T = layout_.tag_bytes;
  Block tags[kDeriveBatch], keys[2 * kDeriveBatch];
  uint8_t plain[32];
  for (size_t i0 = 0; i0 < n; i0 += kDeriveBatch) {
    const size_t c = std::min(kDeriveBatch, n - i0);
    // The content keys and the records are at random places: their misses overlap the derivation.
    for (size_t i = 0; i < c; ++i) {
      __builtin_prefetch(&content_[pos[i0 + i]]);
      __builtin_prefetch(outs[i0 + i], 1);
      __builtin_prefetch(outs[i0 + i] + layout_.key_record_bytes() - 1, 1);
    }
    derive_.derive(F + i0, c, tags, keys);
    for (size_t i = 0; i < c; ++i) {
      uint8_t* rec = outs[i0 + i];
      std::memcpy(rec, &tags[i], T);
      const uint32_t p = pos[i0 + i];
      uint8_t pad[32];
      key_of(&keys[2 * i], pad);
      store_block(plain, content_[p]);
      for (int b = 0; b < 4; ++b) plain[16 + b] = uint8_t(p >> (8 * b));
      for (size_t b = 0; b < kLabelKeyPlain; ++b) rec[T + b] = plain[b] ^ pad[b];
      secure_wipe(pad, sizeof pad);
    }
  }
  secure_wipe(keys, sizeof keys);
  secure_wipe(plain, sizeof plain);
}

void LabelSender::label_records(const uint32_t* elem_at, uint64_t first, size_t n,
                                uint8_t* out) const {
  const size_t L = layout_.label_len, R = layout_.label_record_bytes();
  constexpr size_t kAhead = 16;
  prefetch_labels(elem_at + first, std::min(kAhead, n));
  uint8_t key[32];
  for (size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) prefetch_labels(elem_at + first + k + kAhead, 1);
    derive_.content_key(content_[first + k], key);
    seal(key, &labels_[size_t(elem_at[first + k]) * L], L, out + k * R);
  }
  secure_wipe(key, sizeof key);
}

void LabelSender::clear() {
  secure_wipe(labels_.data(), labels_.size());
  std::vector<uint8_t>().swap(labels_);
  secure_wipe(content_.data(), content_.size() * sizeof(Block));
  std::vector<Block>().swap(content_);
}

// ---------------------------------------------------------------------------------------------
LabelReceiver::~LabelReceiver() {
  secure_wipe(item_key_.data(), item_key_.size() * sizeof(Block));
  for (Match& m : matches_) secure_wipe(&m.content, sizeof m.content);
}

void LabelReceiver::start(const LabelLayout& layout, const uint8_t instance[32],
                          const std::string& domain, const Block* own, size_t count) {
  layout_ = layout;
  derive_.init(instance, domain);
  const size_t T = layout.tag_bytes;
  std::vector<Block> tags(count);
  item_key_.resize(2 * count);
  derive_.derive(own, count, tags.data(), item_key_.data());
  item_tag_.assign(count * T, 0);
  for (size_t i = 0; i < count; ++i) std::memcpy(&item_tag_[i * T], &tags[i], T);
  uint64_t cap = 16;
  while (cap < 2 * count) cap <<= 1;
  lookup_.assign(cap, 0);
  lookup_mask_ = cap - 1;
  for (size_t i = 0; i < count; ++i) {
    uint64_t key = 0;
    std::memcpy(&key, &item_tag_[i * T], std::min<size_t>(8, T));
    uint64_t slot = key & lookup_mask_;
    while (lookup_[slot]) slot = (slot + 1) & lookup_mask_;
    lookup_[slot] = (key >> 32) << 32 | (i + 1);
  }
  item_match_.assign(count, 0);
  if (!layout.direct()) want_.assign(layout.sender_size, 0);
  matches_.clear();
  match_labels_.clear();
  records_seen_ = 0;
  carry_.assign(std::max(layout.key_record_bytes(), layout.label_record_bytes()), 0);
  carry_len_ = 0;
  result_.clear();
  labels_.clear();
}

int64_t LabelReceiver::find_item(const uint8_t* tag) const {
  const size_t T = layout_.tag_bytes;
  uint64_t key = 0;
  std::memcpy(&key, tag, std::min<size_t>(8, T));
  const uint64_t want = key >> 32;
  for (uint64_t slot = key & lookup_mask_; lookup_[slot]; slot = (slot + 1) & lookup_mask_) {
    const uint64_t e = lookup_[slot];
    if ((e >> 32) != want) continue;
    const uint64_t item = (e & 0xFFFFFFFF) - 1;
    if (ct_equal(&item_tag_[item * T], tag, T)) return int64_t(item);
  }
  return -1;
}

Status LabelReceiver::add_label(uint32_t match, const uint8_t key[32], const uint8_t* ct,
                                const std::string& at, uint64_t where) {
  const size_t L = layout_.label_len;
  if (!open(key, ct, L, &match_labels_[size_t(match) * L]))
    return peer_error(at + ": the label of record " + std::to_string(where) +
                      " matched an element of this party but does not authenticate");
  return Status::ok();
}

Status LabelReceiver::on_key_record(uint64_t index, const uint8_t* rec, const std::string& at) {
  const int64_t found = find_item(rec);
  if (found < 0) return Status::ok();
  const uint32_t item = uint32_t(found);
  if (item_match_[item])
    return peer_error(at + ": record " + std::to_string(index) + " matches element " +
                      std::to_string(item) + " a second time");
  const uint32_t m = uint32_t(matches_.size());
  item_match_[item] = m + 1;
  matches_.push_back(Match{item, zero_block()});
  match_labels_.resize(matches_.size() * size_t(layout_.label_len));
  const size_t T = layout_.tag_bytes;
  uint8_t key[32];
  key_of(&item_key_[2 * size_t(item)], key);
  if (layout_.direct()) {
    Status st = add_label(m, key, rec + T, at, index);
    secure_wipe(key, sizeof key);
    return st;
  }
  uint8_t plain[kLabelKeyPlain];
  for (size_t b = 0; b < kLabelKeyPlain; ++b) plain[b] = rec[T + b] ^ key[b];
  secure_wipe(key, sizeof key);
  matches_.back().content = load_block(plain);
  const uint32_t p = uint32_t(plain[16]) | uint32_t(plain[17]) << 8 | uint32_t(plain[18]) << 16 |
                     uint32_t(plain[19]) << 24;
  secure_wipe(plain, sizeof plain);
  if (p >= layout_.sender_size)
    return peer_error(at + ": key record " + std::to_string(index) +
                      " matched but names label position " + std::to_string(p) + " of " +
                      std::to_string(layout_.sender_size));
  if (want_[p])
    return peer_error(at + ": key records " + std::to_string(index) +
                      " and an earlier one name the same label position " + std::to_string(p));
  want_[p] = m + 1;
  return Status::ok();
}

Status LabelReceiver::on_label_record(uint64_t position, const uint8_t* rec,
                                      const std::string& at) {
  const uint32_t w = want_[position];
  if (!w) return Status::ok();
  uint8_t key[32];
  derive_.content_key(matches_[w - 1].content, key);
  Status st = add_label(w - 1, key, rec, at, layout_.key_records() + position);
  secure_wipe(key, sizeof key);
  return st;
}

Status LabelReceiver::on_record(const uint8_t* rec, const std::string& at) {
  const uint64_t k = records_seen_++;
  if (k < layout_.key_records()) return on_key_record(k, rec, at);
  return on_label_record(k - layout_.key_records(), rec, at);
}

Status LabelReceiver::absorb(ByteView chunk, const std::string& at) {
  const uint64_t nk = layout_.key_records(), total = nk + layout_.label_records();
  ByteReader rd(chunk);
  while (rd.remaining()) {
    if (records_seen_ == total)
      return peer_error(at + ": label message longer than the expected " +
                        std::to_string(layout_.message_bytes()) + " bytes");
    const size_t R = records_seen_ < nk ? layout_.key_record_bytes() : layout_.label_record_bytes();
    if (carry_len_ || rd.remaining() < R) {
      const size_t n = std::min(R - carry_len_, rd.remaining());
      rd.read(carry_.data() + carry_len_, n);
      carry_len_ += n;
      if (carry_len_ < R) break;
      carry_len_ = 0;
      PSI_RETURN_IF_ERROR(on_record(carry_.data(), at));
      continue;
    }
    // Whole records straight from the chunk, up to the end of the current section; the lookup
    // slots of a step of key records are prefetched first, so their cache misses overlap.
    const bool keys = records_seen_ < nk;
    const uint64_t section_end = keys ? nk : total;
    const uint64_t whole = std::min<uint64_t>(rd.remaining() / R, section_end - records_seen_);
    ByteView body;
    rd.take(size_t(whole) * R, &body);
    constexpr uint64_t kStep = 16;
    for (uint64_t k0 = 0; k0 < whole; k0 += kStep) {
      const uint64_t c = std::min(kStep, whole - k0);
      if (keys)
        for (uint64_t k = 0; k < c; ++k) {
          uint64_t key = 0;
          std::memcpy(&key, body.data + (k0 + k) * R, std::min<size_t>(8, layout_.tag_bytes));
          __builtin_prefetch(&lookup_[key & lookup_mask_]);
        }
      for (uint64_t k = 0; k < c; ++k) PSI_RETURN_IF_ERROR(on_record(body.data + (k0 + k) * R, at));
    }
  }
  return Status::ok();
}

Status LabelReceiver::finish(const std::string& at) {
  const uint64_t total = layout_.key_records() + layout_.label_records();
  if (records_seen_ != total || carry_len_ != 0)
    return peer_error(at + ": label message ended after " + std::to_string(records_seen_) + " of " +
                      std::to_string(total) + " records");
  const size_t L = layout_.label_len;
  // Ascending items: a scan of the per-item match index, no sort.
  result_.clear();
  result_.reserve(matches_.size());
  labels_.assign(matches_.size() * L, 0);
  for (size_t i = 0; i < item_match_.size(); ++i) {
    const uint32_t m = item_match_[i];
    if (!m) continue;
    std::memcpy(&labels_[result_.size() * L], &match_labels_[size_t(m - 1) * L], L);
    result_.push_back(i);
  }
  secure_wipe(match_labels_.data(), match_labels_.size());
  std::vector<uint8_t>().swap(match_labels_);
  secure_wipe(item_key_.data(), item_key_.size() * sizeof(Block));
  std::vector<Block>().swap(item_key_);
  for (Match& m : matches_) secure_wipe(&m.content, sizeof m.content);
  std::vector<Match>().swap(matches_);
  std::vector<uint64_t>().swap(lookup_);
  std::vector<uint8_t>().swap(item_tag_);
  std::vector<uint32_t>().swap(item_match_);
  std::vector<uint32_t>().swap(want_);
  return Status::ok();
}

}  // namespace psi
