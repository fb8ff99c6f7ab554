// cuckoo.cc — random-walk cuckoo hashing with a stash (see cuckoo.h for the contract).
//
// Items are inserted in order 0..n-1. An item takes an empty slot of its candidate bins if there is
// one; otherwise a random walk evicts occupants (never back through the function the element in
// hand was just evicted from), with a one-step lookahead at every step (see insert_walk). After
// max_kicks evictions the element in hand goes to the stash. The hot loop is memory bound: what
// each item will read is prefetched a few items ahead, the table lives in huge pages, and a 24-bit
// fingerprint kept in Entry's padding screens duplicates without reading the caller's hash array
// for every occupant.
#include "cuckoo.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace psi {

namespace detail {
void* huge_page_alloc(size_t bytes) {
  constexpr size_t kHuge = size_t(2) << 20;
  void* p = nullptr;
  if (bytes >= 2 * kHuge) {
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    if (posix_memalign(&p, kHuge, rounded) != 0) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE);  // advisory: failure only costs speed
#endif
  } else {
    if (posix_memalign(&p, 64, bytes == 0 ? 64 : bytes) != 0) throw std::bad_alloc();
  }
  return p;
}
void huge_page_free(void* p) noexcept { std::free(p); }
}  // namespace detail

namespace {

using Entry = CuckooTable::Entry;
constexpr uint32_t kEmpty = CuckooTable::kEmpty;

inline uint64_t mulhi(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

// splitmix64: eviction choices only (not a security-relevant randomness source).
struct SplitMix {
  uint64_t s;
  explicit SplitMix(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Bin geometry shared by cuckoo_candidate_bin and the hot loops.
struct Geo {
  uint32_t hashes;
  uint64_t range;   // bins per table
  uint64_t stride;  // table offset per function (0 for one table)
  explicit Geo(const CuckooParams& p)
      : hashes(p.hashes),
        range(p.separate_tables ? p.bins / p.hashes : p.bins),
        stride(p.separate_tables ? p.bins / p.hashes : 0) {}
  uint64_t bin(const ItemHash& h, uint32_t i) const { return i * stride + mulhi(h.h[i], range); }
};

inline uint32_t fingerprint(const ItemHash& h) {
  // Low bits of the lanes: the bins depend on the high bits (multiply-high reduction).
  return static_cast<uint32_t>(h.h[0] ^ (h.h[1] >> 7) ^ (h.h[2] >> 13) ^ (h.h[3] >> 19)) &
         0xFFFFFFu;
}
inline bool fp_equal(const Entry& e, uint32_t fp) {
  return e.fp_lo == static_cast<uint8_t>(fp) && e.fp_hi == static_cast<uint16_t>(fp >> 8);
}
inline Entry make_entry(uint32_t item, uint32_t fn, uint32_t fp) {
  Entry e;
  e.item = item;
  e.hash_index = static_cast<uint8_t>(fn);
  e.fp_lo = static_cast<uint8_t>(fp);
  e.fp_hi = static_cast<uint16_t>(fp >> 8);
  return e;
}
inline uint32_t entry_fp(const Entry& e) { return e.fp_lo | (uint32_t(e.fp_hi) << 8); }
inline bool hash_equal(const ItemHash& a, const ItemHash& b) {
  return ((a.h[0] ^ b.h[0]) | (a.h[1] ^ b.h[1]) | (a.h[2] ^ b.h[2]) | (a.h[3] ^ b.h[3])) == 0;
}

// Inserts item x (fingerprint fpx, candidate bins b[]) into `slots`. Returns kEmpty when everything
// found a place, otherwise the index of the element left homeless after max_kicks evictions.
// bins_of(item, b) writes the candidate bins of an item already in the table to b[0..hashes);
// prefetch_item(item) hints that bins_of(item) comes next.
//
// x takes an empty slot of its candidate bins if there is one. Otherwise, with `cur` = x: look
// ahead at the occupants of cur's candidate slots (except in the bin cur was just evicted from),
// scanning from a random one; the first occupant with an empty slot in another of its candidate
// bins moves there and cur takes its place (one eviction). If none has, the random occupant the
// scan started from is evicted, cur takes its place, and the walk continues with it (it cannot have
// an empty candidate: the lookahead just saw them all full). Each step costs two rounds of
// independent memory reads (the occupants' hashes, then their bins), the same as a plain random
// walk, but finishes far more often. build() prefetches what the first step reads.
template <uint32_t S, class BinsOf, class PrefetchItem>
inline uint32_t insert_walk(Entry* slots, const Geo& g, uint32_t x, uint32_t fpx,
                            const uint64_t* xb, uint32_t max_kicks, SplitMix& rng,
                            const BinsOf& bins_of, const PrefetchItem& prefetch_item) {
  const uint32_t H = g.hashes;
  for (uint32_t i = 0; i < H; ++i) {
    Entry* bin = slots + xb[i] * S;
    for (uint32_t s = 0; s < S; ++s) {
      if (bin[s].item == kEmpty) {
        bin[s] = make_entry(x, i, fpx);
        return kEmpty;
      }
    }
  }
  uint64_t b[4];
  for (uint32_t i = 0; i < H; ++i) b[i] = xb[i];
  uint32_t cur = x, cur_fp = fpx;
  uint32_t last = H;  // function cur was just evicted from (its bin is full); H = none
  Entry* opt[8];      // cur's candidate slots, excluding bin `last`
  uint32_t ofn[8];    // the function of cur that leads to each
  uint64_t ob[8][4];  // candidate bins of their occupants
  for (uint32_t kicks = 0;;) {
    if (kicks == max_kicks) return cur;
    uint32_t count = 0;
    for (uint32_t i = 0; i < H; ++i) {
      if (i == last) continue;
      for (uint32_t s = 0; s < S; ++s) {
        opt[count] = slots + b[i] * S + s;
        ofn[count] = i;
        prefetch_item(opt[count]->item);
        ++count;
      }
    }
    for (uint32_t o = 0; o < count; ++o) {
      const Entry& e = *opt[o];
      bins_of(e.item, ob[o]);
      for (uint32_t k = 0; k < H; ++k)
        if (k != e.hash_index) __builtin_prefetch(slots + ob[o][k] * S, 1);
    }
    const uint32_t start = static_cast<uint32_t>(mulhi(rng.next(), count));
    for (uint32_t q = 0; q < count; ++q) {
      uint32_t o = start + q;
      if (o >= count) o -= count;
      Entry& e = *opt[o];
      for (uint32_t k = 0; k < H; ++k) {
        if (k == e.hash_index) continue;
        Entry* bin = slots + ob[o][k] * S;
        for (uint32_t t = 0; t < S; ++t) {
          if (bin[t].item == kEmpty) {
            bin[t] = make_entry(e.item, k, entry_fp(e));
            e = make_entry(cur, ofn[o], cur_fp);
            return kEmpty;
          }
        }
      }
    }
    // No occupant can step aside: evict the one the scan started from.
    Entry& e = *opt[start];
    const Entry old = e;
    e = make_entry(cur, ofn[start], cur_fp);
    ++kicks;
    cur = old.item;
    cur_fp = entry_fp(old);
    last = old.hash_index;
    for (uint32_t i = 0; i < H; ++i) b[i] = ob[start][i];
  }
}

std::string capacity_message(size_t n, const CuckooParams& p) {
  return "cuckoo hashing failed: stash overflow (n=" + std::to_string(n) +
         ", bins=" + std::to_string(p.bins) + ", slots_per_bin=" + std::to_string(p.slots_per_bin) +
         ", hashes=" + std::to_string(p.hashes) + ", stash=" + std::to_string(p.stash) + ")";
}

}  // namespace

Status validate_cuckoo_params(const CuckooParams& p) {
  if (p.hashes < 2 || p.hashes > 4) return argument_error("cuckoo: hashes must be 2, 3 or 4");
  if (p.slots_per_bin < 1 || p.slots_per_bin > 2)
    return argument_error("cuckoo: slots_per_bin must be 1 or 2");
  if (p.bins == 0) return argument_error("cuckoo: bins must be > 0");
  if (p.bins >= (uint64_t(1) << 32) || p.bins * p.slots_per_bin >= (uint64_t(1) << 32))
    return argument_error("cuckoo: bins * slots_per_bin must be < 2^32");
  if (p.separate_tables && p.bins % p.hashes != 0)
    return argument_error("cuckoo: with separate tables, bins must be a multiple of hashes");
  return Status::ok();
}

uint64_t cuckoo_candidate_bin(const CuckooParams& p, const ItemHash& h, uint32_t i) {
  return Geo(p).bin(h, i);
}

CuckooTable::CuckooTable(const CuckooParams& p) : p_(p) {
  if (validate_cuckoo_params(p).is_ok()) {
    slots_.assign(instance_count(), Entry());
    fresh_ = true;
  }
}

Status CuckooTable::build(const ItemHash* hashes, size_t n, uint64_t seed) {
  PSI_RETURN_IF_ERROR(validate_cuckoo_params(p_));
  if (n >= kEmpty) return argument_error("cuckoo: at most 2^32 - 2 items");
  if (n > 0 && hashes == nullptr) return argument_error("cuckoo: null hashes");
  if (!fresh_) slots_.assign(instance_count(), Entry());
  fresh_ = false;
  stash_.clear();
  stash_hashes_.clear();
  if (n > instance_count() + p_.stash) return Status(PSI_ERR_CAPACITY, capacity_message(n, p_));
  Status st = p_.slots_per_bin == 1 ? build_impl<1>(hashes, static_cast<uint32_t>(n), seed)
                                    : build_impl<2>(hashes, static_cast<uint32_t>(n), seed);
  stash_hashes_.clear();
  stash_hashes_.shrink_to_fit();
  return st;
}

template <uint32_t S>
Status CuckooTable::build_impl(const ItemHash* hashes, uint32_t n, uint64_t seed) {
  const Geo g(p_);
  const uint32_t H = p_.hashes;
  Entry* slots = slots_.data();
  SplitMix rng(mix64(seed ^ 0x6375636B6F6F2121ull));
  auto bins_of = [hashes, &g](uint32_t item, uint64_t* out) {
    const ItemHash& h = hashes[item];
    for (uint32_t i = 0; i < g.hashes; ++i) out[i] = g.bin(h, i);
  };
  // An ItemHash straddles two cache lines unless the caller's array is 32-byte aligned.
  auto prefetch_item = [hashes, H](uint32_t item) {
    __builtin_prefetch(hashes[item].h);
    __builtin_prefetch(hashes[item].h + H - 1);
  };
  // Software pipeline over the items ahead of x (each stage reads what the previous one fetched):
  //   x + kAhead1: prefetch the candidate bins;
  //   x + kAhead2: if they are all occupied, prefetch the occupants' hashes;
  //   x + kAhead3: if still all occupied, prefetch the occupants' other candidate bins,
  // so insert_walk's lookahead for x usually finds everything in cache.
  constexpr uint32_t kAhead1 = 20, kAhead2 = 12, kAhead3 = 5;
  auto all_full = [slots, S_ = S](const uint64_t* bb, uint32_t h) {
    for (uint32_t i = 0; i < h; ++i)
      for (uint32_t s = 0; s < S_; ++s)
        if (slots[bb[i] * S_ + s].item == kEmpty) return false;
    return true;
  };
  uint64_t b[4], pb[4];
  for (uint32_t x = 0; x < n; ++x) {
    if (x + kAhead1 < n) {
      const ItemHash& ha = hashes[x + kAhead1];
      for (uint32_t i = 0; i < H; ++i) __builtin_prefetch(slots + g.bin(ha, i) * S, 1);
    }
    if (x + kAhead2 < n) {
      bins_of(x + kAhead2, pb);
      if (all_full(pb, H))
        for (uint32_t i = 0; i < H; ++i)
          for (uint32_t s = 0; s < S; ++s) prefetch_item(slots[pb[i] * S + s].item);
    }
    if (x + kAhead3 < n) {
      bins_of(x + kAhead3, pb);
      if (all_full(pb, H)) {
        for (uint32_t i = 0; i < H; ++i) {
          for (uint32_t s = 0; s < S; ++s) {
            const Entry& e = slots[pb[i] * S + s];
            const ItemHash& hy = hashes[e.item];
            for (uint32_t k = 0; k < H; ++k)
              if (k != e.hash_index) __builtin_prefetch(slots + g.bin(hy, k) * S, 1);
          }
        }
      }
    }
    const ItemHash& hx = hashes[x];
    const uint32_t fpx = fingerprint(hx);
    // Duplicate check: an equal element can only be in one of these bins or in the stash.
    for (uint32_t i = 0; i < H; ++i) {
      b[i] = g.bin(hx, i);
      const Entry* bin = slots + b[i] * S;
      for (uint32_t s = 0; s < S; ++s) {
        const Entry& e = bin[s];
        if (e.item != kEmpty && fp_equal(e, fpx) && hash_equal(hashes[e.item], hx))
          return input_error("duplicate element: items " + std::to_string(e.item) + " and " +
                             std::to_string(x));
      }
    }
    for (size_t k = 0; k < stash_.size(); ++k) {
      if (hash_equal(stash_hashes_[k], hx))
        return input_error("duplicate element: items " + std::to_string(stash_[k]) + " and " +
                           std::to_string(x));
    }
    const uint32_t homeless =
        insert_walk<S>(slots, g, x, fpx, b, p_.max_kicks, rng, bins_of, prefetch_item);
    if (homeless != kEmpty) {
      if (stash_.size() >= p_.stash) return Status(PSI_ERR_CAPACITY, capacity_message(n, p_));
      stash_.push_back(homeless);
      stash_hashes_.push_back(hashes[homeless]);
    }
  }
  return Status::ok();
}

template Status CuckooTable::build_impl<1>(const ItemHash*, uint32_t, uint64_t);
template Status CuckooTable::build_impl<2>(const ItemHash*, uint32_t, uint64_t);

namespace {

// Random elements whose hashes are recomputed from (trial key, index): no hash array needed.
struct RandomHashes {
  uint64_t key;
  ItemHash operator()(uint32_t item) const {
    ItemHash h;
    const uint64_t base = key + uint64_t(item) * 4 * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 4; ++i) h.h[i] = mix64(base + uint64_t(i + 1) * 0x9E3779B97F4A7C15ull);
    return h;
  }
};

template <uint32_t S>
uint64_t max_load_trial(const CuckooParams& p, uint64_t trial_seed) {
  const Geo g(p);
  const uint64_t cap = uint64_t(p.bins) * S;
  std::vector<Entry> table(cap);
  SplitMix rng(mix64(trial_seed ^ 0x6d61786c6f6164ull));
  const RandomHashes hash_of{mix64(trial_seed)};
  auto bins_of = [&g, &hash_of](uint32_t item, uint64_t* out) {
    const ItemHash h = hash_of(item);
    for (uint32_t i = 0; i < g.hashes; ++i) out[i] = g.bin(h, i);
  };
  uint64_t b[4];
  for (uint64_t x = 0; x < cap; ++x) {
    const ItemHash hx = hash_of(static_cast<uint32_t>(x));
    for (uint32_t i = 0; i < p.hashes; ++i) b[i] = g.bin(hx, i);
    if (insert_walk<S>(table.data(), g, static_cast<uint32_t>(x), fingerprint(hx), b, p.max_kicks,
                       rng, bins_of, [](uint32_t) {}) != kEmpty)
      return x;  // x elements are in the table; the next one failed
  }
  return cap;
}

}  // namespace

double cuckoo_max_load(const CuckooParams& p, uint32_t trials, uint64_t seed) {
  if (!validate_cuckoo_params(p).is_ok() || trials == 0) return 0.0;
  const double cap = double(p.bins) * p.slots_per_bin;
  double sum = 0;
  for (uint32_t t = 0; t < trials; ++t) {
    const uint64_t ts = mix64(seed + 0x9E3779B97F4A7C15ull * (t + 1));
    const uint64_t placed =
        p.slots_per_bin == 1 ? max_load_trial<1>(p, ts) : max_load_trial<2>(p, ts);
    sum += double(placed) / cap;
  }
  return sum / trials;
}

double simple_hash_occupancy(uint64_t bins, uint64_t seed) {
  if (bins == 0) return 0.0;
  std::vector<uint8_t> used(bins, 0);
  SplitMix rng(mix64(seed ^ 0x73696d706c65ull));
  for (uint64_t k = 0; k < bins; ++k) used[mulhi(rng.next(), bins)] = 1;
  uint64_t nonempty = 0;
  for (uint8_t u : used) nonempty += u;
  return double(nonempty) / double(bins);
}

}  // namespace psi
