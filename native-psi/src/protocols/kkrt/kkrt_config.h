// kkrt_config.h — public parameters of one KKRT run, derived from the session parameters so both
// parties compute identical sizes. Choices and their sources are in docs/protocols.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "../../core/params.h"
#include "../../cuckoo/cuckoo.h"
#include "../labels.h"

namespace psi {

constexpr uint32_t kKkrtCodeBits = 512;  // pseudorandom-code width w (= number of base OTs)
constexpr uint32_t kKkrtCodeBlocks = kKkrtCodeBits / 128;
constexpr uint32_t kKkrtRowBytes = kKkrtCodeBits / 8;

struct KkrtConfig {
  uint64_t receiver_size = 0;
  uint64_t sender_size = 0;
  uint32_t sigma = 40;  // statistical security parameter
  CuckooParams cuckoo;  // receiver's table; the sender hashes into the same bins
  uint32_t mask_bytes =
      0;  // OPRF outputs compared, truncated to sigma + log2(n_r) + log2(n_s) bits
  // 256-bit run instance, unique per online run under one setup (bin, attempt, both parties' nonce
  // material); every per-run key is derived from it (kkrt_oprf.h).
  std::array<uint8_t, 32> instance{};
  bool output_both = false;  // the sender also learns its intersecting indices
  // output=labels: round 1 carries the label message of labels.h (indirect format, one OPRF value
  // per mask table and element) instead of the masks
  bool output_labels = false;
  LabelLayout labels;

  uint64_t cuckoo_rows() const { return cuckoo.bins * cuckoo.slots_per_bin; }
  uint64_t rows() const { return cuckoo_rows() + cuckoo.stash; }  // OPRF instances
  uint32_t hash_tables() const { return cuckoo.hashes * cuckoo.slots_per_bin; }
  uint32_t mask_tables() const { return hash_tables() + cuckoo.stash; }
};

// Reads receiver_size, sender_size, sigma, hashes, slots, separate_tables, bin_factor, stash,
// instance, output, label from params.
Status kkrt_config_from_params(const Params& params, KkrtConfig* out);

// Stash capacity for cuckoo failure <= 2^-sigma at 3 hash functions and bin_factor 1.27
// (docs/protocols.md, "Cuckoo parameters").
uint32_t kkrt_default_stash(uint64_t n, uint32_t sigma);

}  // namespace psi
