// ristretto.h — the ristretto255 group (RFC 9496) with what the multiparty protocol needs and
// libsodium's API lacks: points kept in extended coordinates between operations, constant-time
// scalar multiplication by a variable base and by precomputed fixed bases (the generator and the
// joint public key), and encodings done in batches.
//
// Contracts:
//   - A Point is a representative of a ristretto255 element (a point of the curve's even subgroup;
//     equality is point_equal, never a comparison of coordinates).
//   - Scalars are 32 bytes, little-endian, below 2^255 (every scalar reduced mod the group order
//     is). Scalar multiplication is constant time in the scalar.
//   - decode* accept exactly the canonical encodings RFC 9496 accepts and nothing else; they take
//     hostile bytes and never read beyond their fixed lengths.
//   - Batched encodings encode 2*P for each input P (doubling first is what makes one field
//     inversion serve the whole batch); callers that want P on the wire compute P/2 instead, which
//     costs nothing when P is a scalar multiple (multiply the scalar by 1/2 mod the group order).
//   - A decoding hint (32 bytes) beside an encoding lets the receiver check the encoding with a few
//     multiplications instead of a field exponentiation. It is advisory: decode_hinted accepts
//     exactly the encodings decode accepts, gives the same element, and rejects an encoding with a
//     wrong hint (an honest sender's hint is always right). Each encoding has one valid hint: the
//     non-negative inverse square root of RFC 9496 DECODE, encoded like s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fe25519.h"

namespace psi::group {

constexpr size_t kPointBytes = 32;
constexpr size_t kHintBytes = 32;
constexpr size_t kScalarBytes = 32;

struct Point {
  Fe X, Y, Z, T;
};

// An affine point prepared for mixed addition: (y + x, y - x, 2dxy). Internal to FixedBase.
struct Precomp {
  Fe yplusx, yminusx, xy2d;
};

Point point_identity();
// The RFC 9496 generator (libsodium's crypto_scalarmult_ristretto255_base base).
Point point_generator();
Point point_add(const Point& a, const Point& b);
Point point_sub(const Point& a, const Point& b);
Point point_dbl(const Point& a);
Point point_neg(const Point& a);
// Ristretto equality (constant time).
bool point_equal(const Point& a, const Point& b);
bool point_is_identity(const Point& a);

// scalar * p, constant time (signed 4-bit windows).
Point point_mul(const Point& p, const uint8_t scalar[kScalarBytes]);

// scalar * base with a precomputed table (32 x 8 multiples, about 30 KiB), constant time.
class FixedBase {
 public:
  explicit FixedBase(const Point& base);
  Point mul(const uint8_t scalar[kScalarBytes]) const;
  // The precomputed table (for the batched code in ristretto_batch.cc): 256 entries, row-major.
  const std::vector<Precomp>& table() const { return table_; }

 private:
  std::vector<Precomp> table_;  // 32 rows of 8: row i, column j = (j + 1) * 256^i * base
};

// RFC 9496 ENCODE of one point (one field exponentiation).
void encode(const Point& p, uint8_t out[kPointBytes]);
// RFC 9496 DECODE; false for every non-canonical or invalid encoding.
bool decode(const uint8_t in[kPointBytes], Point* out);

// out + i*out_stride gets the encoding of 2*in[i], for i < n, with one field inversion for the
// batch. With hints != nullptr, hints + i*hint_stride gets the decoding hint of that encoding.
void double_encode_batch(const Point* in, size_t n, uint8_t* out, size_t out_stride, uint8_t* hints,
                         size_t hint_stride);

// DECODE checked with a hint: the same accepted set and result as decode when the hint is right;
// false when the encoding is invalid or the hint wrong.
bool decode_hinted(const uint8_t in[kPointBytes], const uint8_t hint[kHintBytes], Point* out);

}  // namespace psi::group
