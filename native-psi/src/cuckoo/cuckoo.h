// cuckoo.h — cuckoo hashing for the PSI receiver and simple hashing for the sender, with the
// variants of "Cuckoo hashing variants in OT-based PSI" (shared/seeds): 2, 3 or 4 hash functions, 1
// or 2 slots per bin, one table or separate tables (one per hash function). Both parties compute
// candidate bins with cuckoo_candidate_bin() from the same ItemHash, so an element the receiver
// placed with function i is found by the sender in the same bin.
//
// An OT/OPRF "instance" is one slot: instance = bin * slots_per_bin + slot. The stash holds
// elements that could not be placed; its capacity is a parameter and overflowing it is
// PSI_ERR_CAPACITY.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../core/status.h"

namespace psi {

// 256 bits of keyed hash of an element; lane i (i < 4) drives hash function i.
struct ItemHash {
  uint64_t h[4];
};

struct CuckooParams {
  uint32_t hashes = 3;           // 2, 3 or 4
  uint32_t slots_per_bin = 1;    // 1 or 2
  bool separate_tables = false;  // bins split into `hashes` equal tables, function i uses table i
  uint64_t bins = 0;             // total bins over all tables (a multiple of `hashes` if separate)
  uint32_t stash = 0;            // stash capacity
  uint32_t max_kicks = 512;      // evictions before an element goes to the stash
};

// Validates a parameter set (ranges above, bins > 0, bins*slots < 2^32). OK or PSI_ERR_ARGUMENT.
Status validate_cuckoo_params(const CuckooParams& p);

// Candidate bin of hash function i (< hashes) for an element, in [0, bins).
uint64_t cuckoo_candidate_bin(const CuckooParams& p, const ItemHash& h, uint32_t i);

namespace detail {
// Memory for large tables: 2 MiB aligned and advised for transparent huge pages (random access over
// hundreds of MiB is otherwise dominated by TLB misses). Throws std::bad_alloc.
void* huge_page_alloc(size_t bytes);
void huge_page_free(void* p) noexcept;
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(huge_page_alloc(n * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { huge_page_free(p); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};
}  // namespace detail

class CuckooTable {
 public:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Entry {
    uint32_t item = kEmpty;  // index into the build() input, or kEmpty
    uint8_t hash_index = 0;  // which function placed it (meaningless in the stash)
    // Internal: a 24-bit fingerprint of the item's ItemHash kept in what would be padding (Entry
    // stays 8 bytes), so duplicate screening during build() rarely touches the caller's hash array.
    uint8_t fp_lo = 0;
    uint16_t fp_hi = 0;
  };

  explicit CuckooTable(const CuckooParams& p);
  // Places items 0..n-1 (n < 2^32 - 1). Randomness of the random-walk eviction comes from seed.
  // PSI_ERR_INPUT if two items have identical hashes (duplicate elements; message names both
  // indices), PSI_ERR_CAPACITY if the stash overflows. `hashes` is read only during the call; for
  // millions of items, allocating it with detail::HugePageAllocator makes the build ~20% faster.
  Status build(const ItemHash* hashes, size_t n, uint64_t seed);

  const CuckooParams& params() const { return p_; }
  uint64_t instance_count() const { return uint64_t(p_.bins) * p_.slots_per_bin; }
  const Entry& slot(uint64_t instance) const { return slots_[instance]; }
  // Stash entries actually used (size <= params().stash).
  const std::vector<uint32_t>& stash() const { return stash_; }

 private:
  template <uint32_t kSlots>
  Status build_impl(const ItemHash* hashes, uint32_t n, uint64_t seed);

  CuckooParams p_;
  bool fresh_ = false;  // slots_ is all empty (constructed, not built yet)
  std::vector<Entry, detail::HugePageAllocator<Entry>> slots_;
  std::vector<uint32_t> stash_;
  std::vector<ItemHash> stash_hashes_;  // copies, for duplicate checks against the stash
};

// Largest load before the first failure: inserts random elements one at a time into an empty table
// of `p` (stash ignored: the first element that would go to the stash ends the run) and returns
// placed / (bins * slots). Averaged over `trials` runs seeded from `seed`.
double cuckoo_max_load(const CuckooParams& p, uint32_t trials, uint64_t seed);

// Simple hashing baseline (the paper's "simple hash" row, ~1 - 1/e = 63.2%): hashes `bins` random
// elements into `bins` bins with one function and returns the fraction of non-empty bins.
double simple_hash_occupancy(uint64_t bins, uint64_t seed);

}  // namespace psi
