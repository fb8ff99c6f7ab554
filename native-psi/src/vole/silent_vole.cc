#include "silent_vole.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "../core/aes.h"
#include "../core/gf128.h"
#include "ggm.h"

namespace psi {
namespace {

// Layout of a piece's correlated OTs: tree i's GGM OT of level l is OT i * depth + l; base VOLE
// i's 128 OTs follow all GGM OTs, at t * depth + 128 * i + k.
size_t ggm_ots(const LpnShape& s) { return size_t(s.t) * s.depth; }
size_t tree_msg_bytes(const LpnShape& s) { return size_t(s.depth) * 32 + 16; }

// pi: fixed-key AES, the permutation of the tweakable correlation-robust hash (key: further digits
// of pi, distinct from the GGM keys).
const Aes128& pi() {
  static const Aes128 aes(make_block(0x452821e638d01377ull, 0xbe5466cf34e90c6cull));
  return aes;
}

// Guo, Katz, Wang, Yu (S&P 2020), section 7.4: TCCR H(x, i) = pi(pi(x) ^ i) ^ pi(x). The tweak of
// OT j of a piece is pi(piece tweak) ^ j: distinct per (piece, OT) except with probability
// ~pieces^2 * 2^32 / 2^128. out[j] = H(x[j], tweak_j) for j < n.
void tccr(Block piece_key, const Block* x, Block* out, size_t n) {
  std::unique_ptr<Block[]> px(new Block[n]);
  pi().encrypt_blocks(x, px.get(), n);
  for (size_t j = 0; j < n; ++j) out[j] = px[j] ^ piece_key ^ make_block(0, j);
  pi().encrypt_blocks(out, out, n);
  for (size_t j = 0; j < n; ++j) out[j] ^= px[j];
}

// N-Block buffers: fresh anonymous mappings (zero-filled by the kernel, so the receiver's noise
// vector costs nothing to clear) with transparent huge pages requested, which turns the ~N/256
// page faults of a 4 KiB-page buffer into ~N/131072 (tens of milliseconds at N = 2^21).
class BlockBuf {
 public:
  explicit BlockBuf(size_t n) : bytes_((n ? n : 1) * sizeof(Block)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes_, MADV_HUGEPAGE);  // advisory: without THP, plain pages
    p_ = static_cast<Block*>(p);
  }
  ~BlockBuf() { munmap(p_, bytes_); }
  BlockBuf(const BlockBuf&) = delete;
  BlockBuf& operator=(const BlockBuf&) = delete;
  Block* get() const { return p_; }
  Block& operator[](size_t i) const { return p_[i]; }

 private:
  size_t bytes_;
  Block* p_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Receiver

SilentVoleReceiver::SilentVoleReceiver(const LpnShape& shape, Block code_seed, Block tweak,
                                       Prg& rng)
    : shape_(shape),
      code_(shape, code_seed),
      piece_key_(pi().encrypt(tweak)),
      alpha_(shape.t),
      beta_(shape.t) {
  for (auto& a : alpha_) a = rng.uniform(uint64_t(1) << shape.depth);
  rng.fill(beta_.data(), beta_.size() * sizeof(Block));
}

size_t SilentVoleReceiver::cot_count() const { return ggm_ots(shape_) + size_t(shape_.t) * 128; }

size_t SilentVoleReceiver::message_bytes() const {
  return size_t(shape_.t) * tree_msg_bytes(shape_);
}

void SilentVoleReceiver::choices(uint8_t* out) const {
  const size_t n = cot_count();
  std::memset(out, 0, (n + 7) / 8);
  const uint32_t d = shape_.depth;
  for (size_t i = 0; i < shape_.t; ++i)
    for (uint32_t l = 0; l < d; ++l) {
      const size_t j = i * d + l;
      const uint8_t bit = uint8_t(((alpha_[i] >> (d - 1 - l)) & 1) ^ 1);  // the side not taken
      out[j / 8] |= uint8_t(bit << (j % 8));
    }
  const size_t base = ggm_ots(shape_);
  for (size_t i = 0; i < shape_.t; ++i) {
    uint8_t bytes[16];
    store_block(bytes, beta_[i]);
    for (size_t k = 0; k < 128; ++k) {
      const size_t j = base + 128 * i + k;
      out[j / 8] |= uint8_t(((bytes[k / 8] >> (k % 8)) & 1) << (j % 8));
    }
  }
}

Status SilentVoleReceiver::finish(const Block* t, ByteView msg, Block* a, Block* c) {
  std::memset(c, 0, shape_.m * sizeof(Block));
  return finish_masked(t, msg, c, a);
}

Status SilentVoleReceiver::finish_masked(const Block* t, ByteView msg, Block* x, Block* masked) {
  if (msg.size != message_bytes())
    return peer_error("silent VOLE message: " + std::to_string(msg.size) + " bytes, expected " +
                      std::to_string(message_bytes()) + " (" + std::to_string(shape_.t) +
                      " trees of depth " + std::to_string(shape_.depth) + ")");
  const uint32_t d = shape_.depth;
  const size_t nt = shape_.t, ng = ggm_ots(shape_), tb = tree_msg_bytes(shape_);

  // Unmask the sum of the side not taken at each level: the OT's choice was that side, so t_j
  // is the mask's input. The message half is selected by a mask, not a branch.
  std::unique_ptr<Block[]> known(new Block[ng]);
  tccr(piece_key_, t, known.get(), ng);
  for (size_t i = 0; i < nt; ++i)
    for (uint32_t l = 0; l < d; ++l) {
      const size_t j = i * d + l;
      const uint8_t* m = msg.data + i * tb + size_t(l) * 32;
      const uint64_t side = ((alpha_[i] >> (d - 1 - l)) & 1) ^ 1;
      const Block mask = _mm_set1_epi64x(-static_cast<long long>(side));
      const Block m0 = load_block(m), m1 = load_block(m + 16);
      known[j] ^= _mm_or_si128(_mm_and_si128(mask, m1), _mm_andnot_si128(mask, m0));
    }

  const size_t N = size_t(shape_.N);
  BlockBuf w(N), e(N);
  std::unique_ptr<Block[]> leaf_xor(new Block[nt]);
  ggm_expand_punctured(alpha_.data(), known.get(), nt, d, w.get(), leaf_xor.get());

  // Base VOLE i: c_i = pack(t) = b_i ^ beta_i * Delta. The missing leaf becomes
  // d_i ^ (XOR of the other leaves) ^ c_i = v[alpha] ^ beta_i * Delta; the noise there is beta_i.
  for (size_t i = 0; i < nt; ++i) {
    const Block ci = gf128_pack(t + ng + 128 * i);
    const Block di = load_block(msg.data + i * tb + size_t(d) * 32);
    const size_t pos = (i << d) + alpha_[i];
    w[pos] = di ^ leaf_xor[i] ^ ci;
    e[pos] = beta_[i];
  }
  secure_wipe(alpha_.data(), alpha_.size() * sizeof(uint64_t));
  secure_wipe(beta_.data(), beta_.size() * sizeof(Block));
  code_.dual_encode2(e.get(), w.get());
  for (size_t i = 0; i < shape_.m; ++i) {
    masked[i] = x[i] ^ e[i];
    x[i] = w[i];
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Sender

SilentVoleSender::SilentVoleSender(const LpnShape& shape, Block code_seed, Block tweak, Prg& rng)
    : shape_(shape), code_(shape, code_seed), piece_key_(pi().encrypt(tweak)), roots_(shape.t) {
  rng.fill(roots_.data(), roots_.size() * sizeof(Block));
}

size_t SilentVoleSender::cot_count() const { return ggm_ots(shape_) + size_t(shape_.t) * 128; }

size_t SilentVoleSender::message_bytes() const { return size_t(shape_.t) * tree_msg_bytes(shape_); }

void SilentVoleSender::send(const Block* q, Block delta, uint8_t* msg) {
  const uint32_t d = shape_.depth;
  const size_t nt = shape_.t, ng = ggm_ots(shape_), tb = tree_msg_bytes(shape_);
  const size_t N = size_t(shape_.N);
  BlockBuf* buf = new BlockBuf(N);
  leaves_ = std::shared_ptr<Block>(buf->get(), [buf](Block*) { delete buf; });
  Block* v = leaves_.get();
  std::unique_ptr<Block[]> sums(new Block[2 * ng]);
  ggm_expand(roots_.data(), nt, d, v, sums.get());
  secure_wipe(roots_.data(), roots_.size() * sizeof(Block));

  // Level sums masked with H(q_j) (left) and H(q_j ^ Delta) (right), the two messages of COT j.
  std::unique_ptr<Block[]> x(new Block[ng]), h0(new Block[ng]), h1(new Block[ng]);
  tccr(piece_key_, q, h0.get(), ng);
  for (size_t j = 0; j < ng; ++j) x[j] = q[j] ^ delta;
  tccr(piece_key_, x.get(), h1.get(), ng);
  for (size_t i = 0; i < nt; ++i) {
    uint8_t* m = msg + i * tb;
    for (uint32_t l = 0; l < d; ++l) {
      const size_t j = i * d + l;
      store_block(m + 32 * l, sums[2 * j] ^ h0[j]);
      store_block(m + 32 * l + 16, sums[2 * j + 1] ^ h1[j]);
    }
    // d_i = XOR of all leaves ^ b_i, b_i = pack(q) of base VOLE i; the leaves' XOR is the XOR of
    // the last level's two side sums.
    const size_t last = i * d + d - 1;
    store_block(m + 32 * size_t(d),
                sums[2 * last] ^ sums[2 * last + 1] ^ gf128_pack(q + ng + 128 * i));
  }
  secure_wipe(h0.get(), ng * sizeof(Block));
  secure_wipe(h1.get(), ng * sizeof(Block));
  secure_wipe(x.get(), ng * sizeof(Block));
}

void SilentVoleSender::encode(Block* b) {
  code_.dual_encode(leaves_.get());
  std::memcpy(b, leaves_.get(), shape_.m * sizeof(Block));
  leaves_.reset();  // unmapped: the kernel wipes the pages
}

void SilentVoleSender::run(const Block* q, Block delta, uint8_t* msg, Block* b) {
  send(q, delta, msg);
  encode(b);
}

}  // namespace psi
