// okvs.cc — RR22's garbled cuckoo table ("paxos", weight 3) with clustering ("baxos"); see okvs.h.
//
// Layout of P (m = bins * (sparse + dense) Blocks):
//   [bin 0 sparse | bin 1 sparse | ... | bin B-1 sparse | bin 0 dense | ... | bin B-1 dense]
// The dense parts of all bins sit together so that decode's dense XORs hit cache.
//
// Encode, per bin (everything of a bin fits in L2/L3): hash the bin's keys, peel the 3-uniform
// hypergraph (rows = keys, vertices = sparse columns) from its degree-1 columns, solve the rows
// left in the 2-core by Gaussian elimination over their sparse columns and the bin's dense columns,
// then back-substitute the peeled rows in reverse peeling order. Two equal keys have equal rows, so
// they can never be peeled (each of their columns keeps degree >= 2): duplicates are looked for
// among the 2-core rows only, which costs nothing on the common path.
//
// Parameters (a pure function of n) and the failure bound: see params_for() below and
// docs/protocols.md "OKVS".
#include "okvs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../cuckoo/cuckoo.h"  // detail::HugePageAllocator

namespace psi {

namespace {

// Target keys per bin: large enough that the max-load slack of the binning stays ~3.5 %, small
// enough that a bin's peeling state (~60 B per key) stays in the L2/L3 caches.
constexpr uint64_t kBinTarget = uint64_t(1) << 16;
// The total failure budget is 2^-40: 2^-41 for a bin overflow, 2^-41 for the B per-bin solves,
// each of which splits its share between "2-core larger than g" and "elimination rank-deficient".
constexpr int kSsp = 40;
// Elimination on the 2-core is cubic; a core above this many rows is already far beyond the bound
// (it happens w.p. << 2^-40 unless the system is over-full) and is reported as PSI_ERR_CAPACITY.
constexpr size_t kMaxCoreRows = 512;

struct Params {
  uint64_t bins, bin_cap, sparse, dense;
};

// ln P[Binomial(n, p) >= k] <= -n * D(k/n || p) (Chernoff-Hoeffding, k/n > p).
double log_chernoff_tail(double n, double p, double k) {
  const double a = k / n;
  if (a <= p) return 0.0;
  if (a >= 1.0) return n * std::log(p);
  return -n * (a * std::log(a / p) + (1 - a) * std::log((1 - a) / (1 - p)));
}

// Smallest cap with bins * P[load of one bin > cap] <= 2^-(kSsp+1).
uint64_t max_bin_load(uint64_t n, uint64_t bins) {
  if (bins == 1) return n;
  const double target = -(kSsp + 1) * std::log(2.0) - std::log(double(bins));
  const double p = 1.0 / double(bins);
  uint64_t lo = (n + bins - 1) / bins, hi = n;  // answer in [lo, hi]
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (log_chernoff_tail(double(n), p, double(mid + 1)) <= target)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// RR22 (Raghuraman, Rindal, CCS 2022, ePrint 2022/320), weight w = 3, fitted failure model as
// published with the paper's implementation: for N rows and expansion e (sparse = e N columns),
//   lambda(e) = lambdaVsE * (e - 1.223) - 9.2, log2 lambdaVsE = 0.555 log2 N + c_w,
//   c_w = 0.093 L^3 - 1.01 L^2 + 2.925 L - 0.133 with L = log2 w,
// and a 2-core of more than g rows has probability <= 2^-lambda for g = floor(lambda / ((w-2)
// log2(e N))). With binary dense columns, d = g + lambda random columns make the g core rows
// independent except with probability <= 2^(g-d) = 2^-lambda (union bound over the 2^g sums).
void paxos_params(uint64_t N, int lambda, uint64_t* sparse, uint64_t* dense) {
  const double L = std::log2(3.0);
  const double cw = 0.093 * L * L * L - 1.01 * L * L + 2.925 * L - 0.133;
  const double log_n = std::log2(double(N));
  const double lambda_vs_e = std::pow(2.0, 0.555 * log_n + cw);
  const double e = (double(lambda) + 9.2) / lambda_vs_e + 1.223;
  uint64_t s = static_cast<uint64_t>(std::ceil(e * double(N)));
  if (s < 3) s = 3;
  const uint64_t g = static_cast<uint64_t>(std::floor(double(lambda) / std::log2(e * double(N))));
  *sparse = s;
  *dense = g + uint64_t(lambda);
}

Params params_for(uint64_t n) {
  if (n > (uint64_t(1) << 32) - 1) throw std::invalid_argument("Okvs: n must be < 2^32");
  const uint64_t n1 = n == 0 ? 1 : n;  // n = 0 gets the smallest instance, so decode works
  Params p;
  p.bins = (n1 + kBinTarget - 1) / kBinTarget;
  p.bin_cap = max_bin_load(n1, p.bins);
  int log_bins = 0;
  while ((uint64_t(1) << log_bins) < p.bins) ++log_bins;
  // per bin: 2 events at 2^-lambda each, B bins, total <= 2^-41
  const int lambda = kSsp + 2 + log_bins;
  paxos_params(p.bin_cap, lambda, &p.sparse, &p.dense);
  if (p.dense > 64) throw std::logic_error("Okvs: dense part above 64 columns");
  return p;
}

inline uint64_t mulhi64(uint64_t x, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}
// x uniform in [0, 2^bits) -> [0, range), bias <= range / 2^bits (<= 2^-24 here).
inline uint64_t reduce_bits(uint64_t x, int bits, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> bits);
}

// The row of one key from its two hashes: bin, 3 distinct sparse columns (bin-local), dense mask.
struct Row {
  uint64_t bin;
  uint64_t dense;
  uint32_t col[3];
};

inline void make_row(Block h1, Block h2, uint64_t bins, uint64_t sparse, uint64_t dense_mask,
                     Row* r) {
  r->bin = mulhi64(block_lo(h1), bins);
  r->dense = block_hi(h1) & dense_mask;
  const uint64_t lo = block_lo(h2), hi = block_hi(h2);
  // three independent chunks of 42, 42 and 44 bits
  const uint64_t x0 = lo >> 22;
  const uint64_t x1 = (lo & ((uint64_t(1) << 22) - 1)) | ((hi & ((uint64_t(1) << 20) - 1)) << 22);
  const uint64_t x2 = hi >> 20;
  // a uniform ordered triple of distinct columns: c1 skips c0, c2 skips both
  const uint64_t c0 = reduce_bits(x0, 42, sparse);
  uint64_t c1 = reduce_bits(x1, 42, sparse - 1);
  c1 += (c1 >= c0);
  uint64_t c2 = reduce_bits(x2, 44, sparse - 2);
  const uint64_t a = c0 < c1 ? c0 : c1, b = c0 < c1 ? c1 : c0;
  c2 += (c2 >= a);
  c2 += (c2 >= b);
  r->col[0] = static_cast<uint32_t>(c0);
  r->col[1] = static_cast<uint32_t>(c1);
  r->col[2] = static_cast<uint32_t>(c2);
}

inline uint64_t dense_mask_of(uint64_t dense) {
  return dense >= 64 ? ~uint64_t(0) : (uint64_t(1) << dense) - 1;
}

// XOR of pd[j] over the set bits j of `bits`.
inline Block dense_dot(const Block* pd, uint64_t bits) {
  Block acc = zero_block();
  while (bits) {
    acc ^= pd[__builtin_ctzll(bits)];
    bits &= bits - 1;
  }
  return acc;
}

// Byte tables for the dense dot product of one bin: t[c][x] = XOR of pd[8c + j] over bits j of x.
struct DenseTables {
  Block t[8][256];
  void build(const Block* pd, uint64_t dense) {
    for (int c = 0; c < 8; ++c) {
      t[c][0] = zero_block();
      for (int x = 1; x < 256; ++x) {
        const uint64_t j = uint64_t(8 * c + __builtin_ctz(x));
        t[c][x] = t[c][x & (x - 1)] ^ (j < dense ? pd[j] : zero_block());
      }
    }
  }
  Block dot(uint64_t bits) const {
    Block a = t[0][bits & 255] ^ t[1][(bits >> 8) & 255];
    Block b = t[2][(bits >> 16) & 255] ^ t[3][(bits >> 24) & 255];
    Block c = t[4][(bits >> 32) & 255] ^ t[5][(bits >> 40) & 255];
    Block d = t[6][(bits >> 48) & 255] ^ t[7][bits >> 56];
    return (a ^ b) ^ (c ^ d);
  }
};

std::string index_pair(size_t i, size_t j) {
  if (i > j) std::swap(i, j);
  return std::to_string(i) + " and " + std::to_string(j);
}

// Reusable per-bin scratch of encode (sized for the largest bin once; no per-key allocation).
struct Cols3 {
  uint32_t c[3];
};
struct ColState {
  uint32_t deg;  // rows left that use the column
  uint32_t xr;   // XOR of their row ids: the row itself once deg == 1
};
constexpr uint32_t kPivot = UINT32_MAX;  // ColState::deg of a column a peeled row was solved on

// Large scratch: uninitialised (every element is written before it is read), in transparent huge
// pages (the group pass writes 4 streams per bin).
template <class T>
class HugeBuf {
 public:
  HugeBuf() = default;
  explicit HugeBuf(size_t n) { resize(n); }
  HugeBuf(const HugeBuf&) = delete;
  HugeBuf& operator=(const HugeBuf&) = delete;
  ~HugeBuf() { detail::huge_page_free(p_); }
  void resize(size_t n) {
    detail::huge_page_free(p_);
    p_ = nullptr;
    p_ = static_cast<T*>(detail::huge_page_alloc((n == 0 ? 1 : n) * sizeof(T)));
  }
  T* data() { return p_; }
  T& operator[](size_t i) { return p_[i]; }

 private:
  T* p_ = nullptr;
};

struct Scratch {
  HugeBuf<Cols3> cols;  // per row of the bin (of the group of bins)
  HugeBuf<uint64_t> dense;
  HugeBuf<Block> vals;
  std::vector<ColState> col;       // per sparse column
  std::vector<uint32_t> stack;     // columns of degree 1 to look at
  std::vector<uint32_t> peel_row;  // peeling order: row, and the column it was peeled on
  std::vector<uint32_t> peel_col;
  std::vector<uint8_t> peeled;
  std::vector<uint32_t> core;
  HugeBuf<uint32_t> idx;  // original key index of each row (several bins)
  DenseTables tables;
};

// The rows of one bin, in bin-local order: sparse columns, dense masks, values and the rows'
// original key indices (idx == nullptr: row r is key idx_base + r).
struct BinRows {
  uint64_t bin;
  uint64_t count;
  const Cols3* cols;
  const uint64_t* dense;
  const Block* vals;
  const uint32_t* idx;
  uint64_t idx_base;
  size_t key_index(uint32_t r) const { return idx ? size_t(idx[r]) : size_t(idx_base + r); }
};

// Two equal keys among `local` (rows of `in`, sorted here by key, then index): PSI_ERR_INPUT.
Status find_duplicates(const Block* keys, const BinRows& in, std::vector<uint32_t>& local) {
  std::sort(local.begin(), local.end(), [&](uint32_t x, uint32_t y) {
    const size_t ix = in.key_index(x), iy = in.key_index(y);
    const int c = std::memcmp(&keys[ix], &keys[iy], 16);
    return c != 0 ? c < 0 : ix < iy;
  });
  for (size_t i = 1; i < local.size(); ++i) {
    const size_t ix = in.key_index(local[i - 1]), iy = in.key_index(local[i]);
    if (std::memcmp(&keys[ix], &keys[iy], 16) == 0)
      return input_error("okvs: duplicate key at indices " + index_pair(ix, iy));
  }
  return Status::ok();
}

// Solves one bin: ps (sparse Blocks) and pd (ndense Blocks) of P. Positions no equation fixes
// get values from rng.
Status solve_bin(const Block* keys, const BinRows& in, uint64_t sparse, uint64_t ndense, Block* ps,
                 Block* pd, Prg& rng, Scratch& sc) {
  const uint64_t b = in.bin, c = in.count;
  if (c == 0) {  // nothing to fix: all random
    rng.fill(ps, sparse * sizeof(Block));
    rng.fill(pd, ndense * sizeof(Block));
    return Status::ok();
  }
  // 3. Peel: a column of degree 1 determines its only row, which then leaves the graph.
  ColState* col = sc.col.data();
  const Cols3* cols = in.cols;
  std::memset(static_cast<void*>(col), 0, sparse * sizeof(ColState));
  for (uint32_t i = 0; i < c; ++i)
    for (int j = 0; j < 3; ++j) {
      ColState& cs = col[cols[i].c[j]];
      ++cs.deg;
      cs.xr ^= i;
    }
  // FIFO rather than a stack, so that the rows of queued columns can be prefetched: each column
  // enters the queue at most once (when its degree reaches 1; degrees only fall).
  uint32_t* queue = sc.stack.data();
  size_t tail = 0;
  for (uint32_t k = 0; k < sparse; ++k)
    if (col[k].deg == 1) queue[tail++] = k;
  size_t npeeled = 0;
  std::memset(sc.peeled.data(), 0, c);
  for (size_t head = 0; head < tail; ++head) {
    if (head + 16 < tail) {
      _mm_prefetch(reinterpret_cast<const char*>(&cols[col[queue[head + 16]].xr]), _MM_HINT_T0);
      if (head + 8 < tail) {
        const Cols3& ahead = cols[col[queue[head + 8]].xr];
        for (int j = 0; j < 3; ++j)
          _mm_prefetch(reinterpret_cast<const char*>(&col[ahead.c[j]]), _MM_HINT_T0);
      }
    }
    const uint32_t k = queue[head];
    if (col[k].deg != 1) continue;
    const uint32_t i = col[k].xr;
    sc.peel_row[npeeled] = i;
    sc.peel_col[npeeled] = k;
    ++npeeled;
    sc.peeled[i] = 1;
    for (int j = 0; j < 3; ++j) {
      ColState& cs = col[cols[i].c[j]];
      cs.xr ^= i;
      if (--cs.deg == 1) queue[tail++] = cols[i].c[j];
    }
    col[k].deg = kPivot;  // no row left uses k: the mark cannot be disturbed
  }
  // Positions no peeled row fixes get random values (the 2-core's pivots are overwritten below),
  // so the PRG runs for ~(m - n) blocks rather than m.
  for (uint32_t k = 0; k < sparse; ++k)
    if (col[k].deg != kPivot) ps[k] = rng.next_block();
  rng.fill(pd, ndense * sizeof(Block));

  // 4. The 2-core: duplicates first (they always end up here), then elimination.
  if (npeeled < c) {
    sc.core.clear();
    for (uint32_t i = 0; i < c; ++i)
      if (!sc.peeled[i]) sc.core.push_back(i);
    {
      std::vector<uint32_t> dup = sc.core;
      PSI_RETURN_IF_ERROR(find_duplicates(keys, in, dup));
    }
    const size_t R = sc.core.size();
    if (R > kMaxCoreRows)
      return Status(PSI_ERR_CAPACITY, "okvs: 2-core of " + std::to_string(R) + " rows in bin " +
                                          std::to_string(b) +
                                          ", the system is not solvable; retry with a new seed");
    // Columns: the core's sparse columns (local ids through xr, free after peeling), then dense.
    for (uint32_t i : sc.core)
      for (int j = 0; j < 3; ++j) col[cols[i].c[j]].xr = UINT32_MAX;
    std::vector<uint32_t> core_cols;
    for (uint32_t i : sc.core)
      for (int j = 0; j < 3; ++j) {
        const uint32_t cj = cols[i].c[j];
        if (col[cj].xr == UINT32_MAX) {
          col[cj].xr = uint32_t(core_cols.size());
          core_cols.push_back(cj);
        }
      }
    const size_t K = core_cols.size(), ncols = K + ndense, W = (ncols + 63) / 64;
    std::vector<uint64_t> mat(R * W, 0);
    std::vector<Block> rhs(R);
    for (size_t k = 0; k < R; ++k) {
      const uint32_t i = sc.core[k];
      uint64_t* m = &mat[k * W];
      for (int j = 0; j < 3; ++j) {
        const uint32_t l = col[cols[i].c[j]].xr;
        m[l / 64] |= uint64_t(1) << (l % 64);
      }
      for (uint64_t j = 0; j < ndense; ++j)
        if ((in.dense[i] >> j) & 1) m[(K + j) / 64] |= uint64_t(1) << ((K + j) % 64);
      rhs[k] = in.vals[sc.core[k]];
    }
    std::vector<int64_t> pivot(R, -1);
    for (size_t k = 0; k < R; ++k) {
      uint64_t* m = &mat[k * W];
      size_t w = 0;
      while (w < W && m[w] == 0) ++w;
      if (w == W) {
        // A zero row: consistent only if its right-hand side is zero too.
        if (!block_equal(rhs[k], zero_block()))
          return Status(PSI_ERR_CAPACITY, "okvs: rank-deficient 2-core in bin " +
                                              std::to_string(b) + "; retry with a new seed");
        continue;
      }
      const size_t p = w * 64 + size_t(__builtin_ctzll(m[w]));
      pivot[k] = int64_t(p);
      for (size_t k2 = k + 1; k2 < R; ++k2) {
        uint64_t* m2 = &mat[k2 * W];
        if ((m2[p / 64] >> (p % 64)) & 1) {
          for (size_t x = 0; x < W; ++x) m2[x] ^= m[x];
          rhs[k2] ^= rhs[k];
        }
      }
    }
    auto var = [&](size_t l) -> Block& { return l < K ? ps[core_cols[l]] : pd[l - K]; };
    for (size_t k = R; k-- > 0;) {
      if (pivot[k] < 0) continue;
      const uint64_t* m = &mat[k * W];
      Block acc = rhs[k];
      for (size_t x = 0; x < W; ++x) {
        uint64_t bits = m[x];
        while (bits) {
          const size_t l = x * 64 + size_t(__builtin_ctzll(bits));
          bits &= bits - 1;
          if (l != size_t(pivot[k])) acc ^= var(l);
        }
      }
      var(size_t(pivot[k])) = acc;
    }
  }

  // 5. Back-substitution of the peeled rows, last peeled first.
  sc.tables.build(pd, ndense);
  for (size_t t = npeeled; t-- > 0;) {
    // two-stage prefetch: the row's data 16 ahead, then its P entries 8 ahead
    if (t >= 16) {
      const uint32_t i16 = sc.peel_row[t - 16];
      _mm_prefetch(reinterpret_cast<const char*>(&cols[i16]), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(&in.vals[i16]), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(&in.dense[i16]), _MM_HINT_T0);
    }
    if (t >= 8) {
      const Cols3& c8 = cols[sc.peel_row[t - 8]];
      for (int j = 0; j < 3; ++j)
        _mm_prefetch(reinterpret_cast<const char*>(&ps[c8.c[j]]), _MM_HINT_T0);
    }
    const uint32_t i = sc.peel_row[t], k = sc.peel_col[t];
    // XOR of all three, the pivot's (still random) value cancelled by xoring it in once more
    Block acc = in.vals[i] ^ sc.tables.dot(in.dense[i]) ^ ps[k];
    for (int j = 0; j < 3; ++j) acc ^= ps[cols[i].c[j]];
    ps[k] = acc;
  }
  return Status::ok();
}

}  // namespace

Okvs::Okvs(uint64_t n, Block seed) : n_(n) {
  const Params p = params_for(n);
  bins_ = p.bins;
  bin_cap_ = p.bin_cap;
  sparse_ = p.sparse;
  dense_ = p.dense;
  uint8_t s[16];
  store_block(s, seed);
  bin_hash_.set_key(derive_block(s, 16, "psi-flink okvs v1 bin+dense"));
  row_hash_.set_key(derive_block(s, 16, "psi-flink okvs v1 sparse columns"));
}

Okvs Okvs::with_sparse_columns_for_test(uint64_t n, Block seed, uint64_t sparse_per_bin) {
  Okvs o(n, seed);
  o.sparse_ = sparse_per_bin < 3 ? 3 : sparse_per_bin;
  return o;
}

uint64_t Okvs::size() const { return bins_ * (sparse_ + dense_); }
uint64_t Okvs::capacity() const { return n_; }
uint64_t Okvs::bins() const { return bins_; }

void Okvs::bins_of(const Block* keys, size_t count, uint16_t* out) const {
  Block h[64];
  for (size_t off = 0; off < count; off += 64) {
    const size_t nb = std::min<size_t>(64, count - off);
    bin_hash_.encrypt_blocks(keys + off, h, nb);
    for (size_t i = 0; i < nb; ++i)
      out[off + i] = static_cast<uint16_t>(mulhi64(block_lo(h[i]), bins_));
  }
}

void Okvs::row(Block key, uint64_t* positions, size_t cap, size_t* count) const {
  Row r;
  make_row(bin_hash_.encrypt(key), row_hash_.encrypt(key), bins_, sparse_, dense_mask_of(dense_),
           &r);
  uint64_t all[3 + 64];
  size_t k = 0;
  for (int j = 0; j < 3; ++j) all[k++] = r.bin * sparse_ + r.col[j];
  const uint64_t dbase = bins_ * sparse_ + r.bin * dense_;
  for (uint64_t j = 0; j < dense_; ++j)
    if ((r.dense >> j) & 1) all[k++] = dbase + j;
  std::sort(all, all + k);
  for (size_t i = 0; i < k && i < cap; ++i) positions[i] = all[i];
  *count = k;
}

void Okvs::decode(const Block* P, const Block* keys, size_t count, Block* out) const {
  constexpr size_t kBatch = 64;
  const uint64_t mask = dense_mask_of(dense_);
  const Block* pdense = P + bins_ * sparse_;
  // For large batches the dense dot product goes through 4-bit tables built once per call
  // (16 XORs per nibble and bin): ceil(dense/4) independent lookups instead of ~dense/2 dependent
  // XORs. Per bin and nibble c: tab[(bin * chunks + c) * 16 + x] = XOR of pd[4c + j], bit j of x.
  const uint64_t chunks = (dense_ + 3) / 4;
  std::vector<Block> tab;
  if (count >= bins_ * 64) {
    tab.resize(bins_ * chunks * 16);
    for (uint64_t b = 0; b < bins_; ++b) {
      const Block* pd = pdense + b * dense_;
      for (uint64_t c = 0; c < chunks; ++c) {
        Block* t = &tab[(b * chunks + c) * 16];
        t[0] = zero_block();
        for (int x = 1; x < 16; ++x) {
          const uint64_t j = 4 * c + uint64_t(__builtin_ctz(x));
          t[x] = t[x & (x - 1)] ^ (j < dense_ ? pd[j] : zero_block());
        }
      }
    }
  }
  // Software pipeline over batches: batch k+1 is hashed and its P lines prefetched before batch k
  // is consumed, so that the hashing overlaps the memory latency of the previous batch.
  struct Batch {
    uint64_t pos[kBatch][3];
    uint64_t bin[kBatch];
    uint64_t bits[kBatch];
  };
  Batch st[2];
  auto prepare = [&](size_t off, Batch& s) {
    const size_t nb = count - off < kBatch ? count - off : kBatch;
    Block h1[kBatch], h2[kBatch];
    bin_hash_.encrypt_blocks(keys + off, h1, nb);
    row_hash_.encrypt_blocks(keys + off, h2, nb);
    for (size_t i = 0; i < nb; ++i) {
      Row r;
      make_row(h1[i], h2[i], bins_, sparse_, mask, &r);
      const uint64_t base = r.bin * sparse_;
      for (int j = 0; j < 3; ++j) {
        s.pos[i][j] = base + r.col[j];
        _mm_prefetch(reinterpret_cast<const char*>(P + s.pos[i][j]), _MM_HINT_T0);
      }
      s.bin[i] = r.bin;
      s.bits[i] = r.dense;
    }
  };
  if (count > 0) prepare(0, st[0]);
  for (size_t off = 0, k = 0; off < count; off += kBatch, ++k) {
    const size_t nb = count - off < kBatch ? count - off : kBatch;
    if (off + kBatch < count) prepare(off + kBatch, st[(k + 1) & 1]);
    const Batch& s = st[k & 1];
    if (tab.empty()) {
      for (size_t i = 0; i < nb; ++i)
        out[off + i] = P[s.pos[i][0]] ^ P[s.pos[i][1]] ^ P[s.pos[i][2]] ^
                       dense_dot(pdense + s.bin[i] * dense_, s.bits[i]);
    } else {
      for (size_t i = 0; i < nb; ++i) {
        const Block* t = &tab[s.bin[i] * chunks * 16];
        uint64_t x = s.bits[i];
        Block a0 = P[s.pos[i][0]] ^ P[s.pos[i][1]], a1 = P[s.pos[i][2]];
        for (uint64_t c = 0; c + 1 < chunks; c += 2, x >>= 8, t += 32) {
          a0 ^= t[x & 15];
          a1 ^= t[16 + ((x >> 4) & 15)];
        }
        if (chunks & 1) a0 ^= t[x & 15];
        out[off + i] = a0 ^ a1;
      }
    }
  }
}

Status Okvs::encode(const Block* keys, const Block* values, size_t count, Block* P,
                    Prg& rng) const {
  return encode_rows(keys, values, nullptr, count, P, rng);
}

Status Okvs::encode(const Block* keys, const Aes128& value_of, size_t count, Block* P,
                    Prg& rng) const {
  return encode_rows(keys, nullptr, &value_of, count, P, rng);
}

// values, or (value_of not null) value_of applied to the keys.
Status Okvs::encode_rows(const Block* keys, const Block* values, const Aes128* value_of,
                         size_t count, Block* P, Prg& rng) const {
  if (count > n_)
    return argument_error("okvs: " + std::to_string(count) + " keys for an OKVS of capacity " +
                          std::to_string(n_));
  const uint64_t mask = dense_mask_of(dense_);
  const uint64_t B = bins_;
  Block* pdense_all = P + B * sparse_;
  // on the heap: DenseTables is 32 KiB, too much for the small stacks of JVM threads
  std::unique_ptr<Scratch> scratch(new Scratch);
  Scratch& sc = *scratch;
  sc.col.resize(sparse_);
  sc.stack.resize(sparse_);

  // Rows of keys[idx[r]] (or keys[base + r] when idx is null) for r < nb <= 32.
  auto hash_rows = [&](const uint32_t* idx, size_t base, size_t nb, Cols3* cols, uint64_t* dense) {
    Block h1[32], h2[32];
    if (idx) {
      for (size_t i = 0; i < nb; ++i) h1[i] = keys[idx[i]];
      bin_hash_.encrypt_blocks(h1, h2, nb);
      std::swap(h1, h2);                     // h1 = AES_1(key), h2 = key
      row_hash_.encrypt_blocks(h2, h2, nb);  // in place
    } else {
      bin_hash_.encrypt_blocks(keys + base, h1, nb);
      row_hash_.encrypt_blocks(keys + base, h2, nb);
    }
    for (size_t i = 0; i < nb; ++i) {
      Row r;
      make_row(h1[i], h2[i], B, sparse_, mask, &r);
      cols[i] = Cols3{{r.col[0], r.col[1], r.col[2]}};
      dense[i] = r.dense;
    }
  };

  if (B == 1) {
    // One bin: rows in key order; values are read in place. Scratch: 20 bytes per key (36 with
    // value_of; one bin is at most 2^16 keys).
    std::vector<Block> computed;
    if (value_of) {
      computed.resize(std::max<size_t>(count, 1));
      value_of->encrypt_blocks(keys, computed.data(), count);
      values = computed.data();
    }
    sc.cols.resize(std::max<size_t>(count, 1));
    sc.dense.resize(std::max<size_t>(count, 1));
    sc.peel_row.resize(std::max<size_t>(count, 1));
    sc.peel_col.resize(std::max<size_t>(count, 1));
    sc.peeled.resize(std::max<size_t>(count, 1));
    for (size_t off = 0; off < count; off += 32)
      hash_rows(nullptr, off, std::min<size_t>(32, count - off), &sc.cols[off], &sc.dense[off]);
    const BinRows in{0, count, sc.cols.data(), sc.dense.data(), values, nullptr, 0};
    return solve_bin(keys, in, sparse_, dense_, P, pdense_all, rng, sc);
  }

  // Several bins. Count pass: each key's bin (kept as u16: bins <= 2^16 since n < 2^32).
  std::vector<uint64_t> start(B + 1, 0);
  HugeBuf<uint16_t> kbin(count);
  {
    Block h[64];
    for (size_t off = 0; off < count; off += 64) {
      const size_t nb = std::min<size_t>(64, count - off);
      bin_hash_.encrypt_blocks(keys + off, h, nb);
      for (size_t i = 0; i < nb; ++i) {
        const uint64_t bin = mulhi64(block_lo(h[i]), B);
        kbin[off + i] = static_cast<uint16_t>(bin);
        ++start[bin + 1];
      }
    }
  }
  for (uint64_t b = 0; b < B; ++b) {
    const uint64_t c = start[b + 1];
    if (c > bin_cap_) {
      std::vector<uint32_t> idx, local;
      for (size_t i = 0; i < count; ++i)
        if (kbin[i] == b) idx.push_back(uint32_t(i));
      for (uint32_t r = 0; r < idx.size(); ++r) local.push_back(r);
      const BinRows in{b, c, nullptr, nullptr, nullptr, idx.data(), 0};
      PSI_RETURN_IF_ERROR(find_duplicates(keys, in, local));
      return Status(PSI_ERR_CAPACITY, "okvs: bin " + std::to_string(b) + " got " +
                                          std::to_string(c) + " keys, above its capacity " +
                                          std::to_string(bin_cap_) + "; retry with a new seed");
    }
  }
  for (uint64_t b = 0; b < B; ++b) start[b + 1] += start[b];

  // Groups of floor(B/8) bins (about an eighth of the keys each): one sequential pass over the
  // keys per group gathers the group's rows, values and indices (40 bytes per row) bin by bin, so
  // no key or value is ever read at random. Scratch: 2 (kbin) + ~5 (an eighth of the keys'
  // records) bytes per key, plus one bin's peeling state; eight passes over kbin and the keys
  // cost less than the 15 bytes per key of larger groups at the peak of VOLE-based PSI.
  const uint64_t per_group = std::max<uint64_t>(1, B / 8);
  uint64_t group_cap = 1;
  for (uint64_t g0 = 0; g0 < B; g0 += per_group) {
    const uint64_t g1 = std::min(B, g0 + per_group);
    group_cap = std::max(group_cap, start[g1] - start[g0]);
  }
  sc.cols.resize(group_cap);
  sc.dense.resize(group_cap);
  sc.vals.resize(group_cap);
  sc.idx.resize(group_cap);
  uint64_t largest = 1;
  for (uint64_t b = 0; b < B; ++b) largest = std::max(largest, start[b + 1] - start[b]);
  sc.peel_row.resize(largest);
  sc.peel_col.resize(largest);
  sc.peeled.resize(largest);
  std::vector<uint64_t> fill(B);
  for (uint64_t g0 = 0; g0 < B; g0 += per_group) {
    const uint64_t g1 = std::min(B, g0 + per_group), gbase = start[g0];
    for (uint64_t b = g0; b < g1; ++b) fill[b] = start[b] - gbase;
    uint32_t batch[32];
    size_t nb = 0;
    auto flush = [&]() {
      Cols3 cols[32];
      uint64_t dense[32];
      hash_rows(batch, 0, nb, cols, dense);
      Block v[32];
      if (value_of) {
        for (size_t i = 0; i < nb; ++i) v[i] = keys[batch[i]];
        value_of->encrypt_blocks(v, v, nb);
      } else {
        for (size_t i = 0; i < nb; ++i) v[i] = values[batch[i]];
      }
      for (size_t i = 0; i < nb; ++i) {
        const uint64_t at = fill[kbin[batch[i]]]++;
        sc.cols[at] = cols[i];
        sc.dense[at] = dense[i];
        sc.vals[at] = v[i];
        sc.idx[at] = batch[i];
      }
      nb = 0;
    };
    for (size_t i = 0; i < count; ++i) {
      if (kbin[i] < g0 || kbin[i] >= g1) continue;
      batch[nb++] = uint32_t(i);
      if (nb == 32) flush();
    }
    if (nb) flush();
    for (uint64_t b = g0; b < g1; ++b) {
      const uint64_t off = start[b] - gbase;
      const BinRows in{
          b, start[b + 1] - start[b], &sc.cols[off], &sc.dense[off], &sc.vals[off], &sc.idx[off],
          0};
      PSI_RETURN_IF_ERROR(
          solve_bin(keys, in, sparse_, dense_, P + b * sparse_, pdense_all + b * dense_, rng, sc));
    }
  }
  return Status::ok();
}

}  // namespace psi
