// okvs.h — an oblivious key-value store (OKVS) with binary rows and GF(2^128) values: encode()
// finds a vector P of size() Blocks with decode(P, k_i) = v_i for every key, decode(P, k) is the
// XOR of the P entries that row(k) selects. The row of a key is fixed by the key and the 128-bit
// seed only (both PSI parties build the same Okvs from the run's instance), so decoding is linear
// in P: decode(P ^ Q, k) = decode(P, k) ^ decode(Q, k), which VOLE-based PSI relies on.
//
// Failure: for any set of n distinct keys, encode() fails with probability <= 2^-40 over the seed
// (the bound, its source and the parameters are in docs/protocols.md, "OKVS"); failure is
// PSI_ERR_CAPACITY, never a wrong P. Keys are opaque 16-byte values (tokens); they are hashed under
// the seed, so adversarially chosen keys gain nothing without the seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/aes.h"
#include "../core/block.h"
#include "../core/prg.h"
#include "../core/status.h"

namespace psi {

class Okvs {
 public:
  // For up to n keys (n may be 0), rows keyed by seed.
  Okvs(uint64_t n, Block seed);
  // Number of Blocks in an encoding (public, from n alone): m <= 1.3 n + O(log n + 40).
  uint64_t size() const;
  uint64_t capacity() const;  // n
  // Writes P (size() Blocks) with decode(P, keys[i]) == values[i] for i < count (count <=
  // capacity()). Positions no equation fixes are drawn from rng. Two equal keys are
  // PSI_ERR_INPUT naming both indices; an unsolvable system PSI_ERR_CAPACITY.
  Status encode(const Block* keys, const Block* values, size_t count, Block* P, Prg& rng) const;
  // The same with values[i] = value_of.encrypt(keys[i]), computed as the rows are gathered, so no
  // array of count values is ever held (16 bytes per key less at the peak of VOLE-based PSI).
  Status encode(const Block* keys, const Aes128& value_of, size_t count, Block* P, Prg& rng) const;
  // out[i] = decode(P, keys[i]) for i < count; P has size() Blocks. Any count, any keys.
  // Memory-bound (3 random reads of P per key): pass large batches. Transparent huge pages
  // (detail::HugePageAllocator of cuckoo.h) save TLB misses but can cost more to fault in than
  // they save (rr22_psi.cc, BigBlocks). Thread-safe (const, no state).
  void decode(const Block* P, const Block* keys, size_t count, Block* out) const;
  // Keys go to bins() bins (fewer than 2^16) by a keyed hash; a key's row selects columns of its
  // bin only. out[i] = the bin of keys[i]. Decoding keys in bin order reads P one bin's columns at
  // a time, which is 2-3x faster than random order once P exceeds the caches.
  uint64_t bins() const;
  void bins_of(const Block* keys, size_t count, uint16_t* out) const;
  // Slow reference for tests: the row of `key` as the sorted list of selected positions.
  void row(Block key, uint64_t* positions, size_t cap, size_t* count) const;

  // Test-only: the same construction with `sparse_per_bin` sparse columns per bin instead of the
  // bound's (>= 3), so that tests can force unsolvable systems and see PSI_ERR_CAPACITY.
  static Okvs with_sparse_columns_for_test(uint64_t n, Block seed, uint64_t sparse_per_bin);

 private:
  Status encode_rows(const Block* keys, const Block* values, const Aes128* value_of, size_t count,
                     Block* P, Prg& rng) const;

  // Construction (okvs.cc): RR22's 3-hash garbled cuckoo table with clustering. Keys go to one of
  // bins_ bins; bin b owns sparse_ columns at b*sparse_ and dense_ (<= 64) columns at
  // bins_*sparse_ + b*dense_. A key's row: 3 distinct sparse columns of its bin + a uniform
  // dense_-bit mask. Everything below is a function of n, except the two AES keys (of the seed).
  uint64_t n_ = 0;
  uint64_t bins_ = 1;
  uint64_t bin_cap_ = 0;  // most keys a bin may hold (bin overflow beyond it: PSI_ERR_CAPACITY)
  uint64_t sparse_ = 0;   // sparse columns per bin
  uint64_t dense_ = 0;    // dense columns per bin
  Aes128 bin_hash_;       // key -> bin (low half) and dense mask (high half)
  Aes128 row_hash_;       // key -> the 3 sparse columns
};

}  // namespace psi
