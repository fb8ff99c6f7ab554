// set_filter.h — the compressed encodings of the server's keyed set that make up the ecdh setup
// message: a Golomb-compressed set (GCS, Golomb-Rice coded gaps of sorted hashes) and a Bloom
// filter.
//
// Both are built from FilterKeys (128-bit digests of the server's points H(y)^k) and queried with
// the client's. Sizes follow from public values only: n (server elements), q (client queries the
// false-positive rate is spread over) and fpr, so the client derives the expected header itself and
// a header that disagrees is a peer error. Parsers take an explicit length, keep O(1) state (the
// GCS is decoded as a stream while merging with sorted queries), never read past the length, and
// reject truncation, trailing bytes, non-zero padding bits, non-increasing or out-of-range values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../core/bytes.h"
#include "../../core/status.h"

namespace psi {
namespace ecdh {

using u128 = unsigned __int128;

struct FilterKey {
  uint64_t lo = 0, hi = 0;
  u128 value() const { return u128(hi) << 64 | lo; }
  bool operator<(const FilterKey& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
  bool operator==(const FilterKey& o) const { return hi == o.hi && lo == o.lo; }
};

// BLAKE2b-128 of a 32-byte encoded point, domain-separated.
FilterKey filter_key(const uint8_t point[32]);

enum class FilterKind : uint8_t { kGcs = 1, kBloom = 2 };

// ---- GCS ------------------------------------------------------------------------------------
// Wire: varint count | varint range | varint m | codes, LSB first. Varints are LEB128, minimal (an
// overlong encoding is an error), at most 128 bits. Value v_i = key mod range, sorted, duplicates
// dropped; the gaps (v_0, v_i - v_{i-1} - 1) are Golomb coded with divisor m (m ~ ln 2 * range /
// count, optimal for the geometric gaps): gap / m one-bits, a zero-bit, then gap % m in truncated
// binary (b = ceil(log2 m) bits, u = 2^b - m: r < u as r in b-1 bits, else r + u as its top b-1
// bits then its low bit).

// The largest hash range (gcs_range caps there); a reader refuses a larger one before any
// arithmetic.
constexpr u128 kGcsMaxRange = u128(1) << 120;

// Hash range for n server elements, q queries and a total false-positive rate fpr:
// ceil(n * q / fpr), at least 1 and at most 2^120. Per query P(false positive) <= n / range.
u128 gcs_range(uint64_t n, uint64_t q, double fpr);

// Encodes the keys (any order, may repeat) as header + codes, appended to *out.
void gcs_encode(const std::vector<FilterKey>& keys, u128 range, std::vector<uint8_t>* out);

void put_varint(std::vector<uint8_t>* out, u128 x);
// Reads a minimal LEB128 varint of at most 128 bits; false on truncation or overlong encoding.
bool read_varint(ByteView v, size_t* pos, u128* x);

struct GcsHeader {
  uint64_t count = 0;
  u128 range = 0;
  u128 m = 0;
};

// Decoder state before value `done`, whose value is `first`: lets a reader resume mid-stream.
struct GcsCheckpoint {
  size_t bitpos = 0;
  uint64_t done = 0;
  u128 prev = 0, first = 0;
};
constexpr uint64_t kGcsCheckpointEvery = 64;

// Streaming decoder over a whole GCS message (header + codes).
class GcsReader {
 public:
  // Parses the header; `expected_range` must match, count <= max_count, 1 <= m <= range.
  Status open(ByteView msg, u128 expected_range, uint64_t max_count);
  const GcsHeader& header() const { return h_; }
  // The next value (strictly increasing), or false at the end. After false, check status().
  bool next(u128* v);
  // ok iff every value decoded so far was valid; at the end also that the codes were exactly used
  // up.
  const Status& status() const { return st_; }
  // The state before the next value (its `first` is filled in by the caller).
  GcsCheckpoint checkpoint() const { return {bitpos_, done_, prev_, 0}; }
  // Resumes at a checkpoint taken on the same (validated) message.
  void seek(const GcsCheckpoint& c) {
    bitpos_ = c.bitpos;
    done_ = c.done;
    prev_ = c.prev;
  }

 private:
  bool bits(unsigned n, u128* out);
  ByteView body_;
  GcsHeader h_;
  unsigned b_ = 0;     // ceil(log2 m)
  u128 u_ = 0;         // 2^b - m
  size_t bitpos_ = 0;  // next bit of body_
  uint64_t done_ = 0;
  u128 prev_ = 0;
  Status st_;
};

// Fully validates a GCS message (one decoding pass). With `index`, also records a checkpoint before
// every kGcsCheckpointEvery-th value (n/64 entries), for gcs_lookup_indexed.
Status gcs_validate(ByteView msg, u128 expected_range, uint64_t max_count,
                    std::vector<GcsCheckpoint>* index = nullptr);

// Like gcs_lookup on a message gcs_validate accepted with this index: each query decodes at most
// kGcsCheckpointEvery values from the nearest checkpoint (for few queries against a large set).
Status gcs_lookup_indexed(ByteView msg, u128 expected_range, uint64_t max_count,
                          const std::vector<GcsCheckpoint>& index,
                          const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits);

// For each query key (in any order), whether its value is in the set: hits[i] = 1/0.
Status gcs_lookup(ByteView msg, u128 expected_range, uint64_t max_count,
                  const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits);

// ---- Bloom ----------------------------------------------------------------------------------
// Wire: varint bits | u8 hashes | ceil(bits/8) bytes, bit j of the filter = byte j/8 bit j%8; bits
// past `bits` in the last byte are zero. Position i of a key: ((lo + i*(hi|1)) * bits) >> 64 (mod
// 2^64).

struct BloomShape {
  uint64_t bits = 0;
  uint8_t hashes = 0;
};
// Optimal shape for n elements at per-query false-positive rate fpr / q.
BloomShape bloom_shape(uint64_t n, uint64_t q, double fpr);

void bloom_encode(const std::vector<FilterKey>& keys, BloomShape shape, std::vector<uint8_t>* out);
// Checks the header against `expected` and the exact length and padding.
Status bloom_validate(ByteView msg, BloomShape expected);
// hits[i] = 1 iff query i passes the filter. The message must have been validated.
void bloom_lookup(ByteView msg, const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits);

}  // namespace ecdh
}  // namespace psi
