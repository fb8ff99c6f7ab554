// ristretto_batch.h — scalar multiplications of ristretto255 (group/ristretto.h) in batches, eight
// at a time with AVX-512 IFMA (vpmadd52luq / vpmadd52huq) when the CPU has it, one at a time with
// the scalar code otherwise.
//
// Contracts:
//   - out[i] is the same group element as the scalar code's result for input i (point_equal; in
//     fact the same projective point, since the formulas are the same, though the limbs may
//     differ), so callers may mix the two freely. out may be points itself (in place), but no other
//     overlap.
//   - Scalars are 32 bytes each, little-endian, below 2^255 (as for point_mul / FixedBase::mul),
//     packed: scalar i at scalars + 32*i.
//   - Constant time in the scalars: no branch and no memory index depends on a scalar (table
//     entries are chosen per lane by a masked compare over every entry, as the scalar select_* do).
//     The number of points n is public.
//   - Any n (0 included); a last group of two to seven runs in padded lanes, a last single one with
//     the scalar code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ristretto.h"

namespace psi::group {

// out[i] = scalars[i] * base (as base.mul(scalars + 32*i)), i < n.
void fixed_base_mul_batch(const FixedBase& base, const uint8_t* scalars, size_t n, Point* out);

// out[i] = scalars[i] * points[i] (as point_mul(points[i], scalars + 32*i)), i < n.
void point_mul_batch(const Point* points, const uint8_t* scalars, size_t n, Point* out);

// true when the functions above use the AVX-512 IFMA code (AVX512F + AVX512IFMA, enabled by the
// OS).
bool batch_simd_available();

namespace batch_detail {
// The same with the path chosen by the caller (for tests and benchmarks): use_simd = false always
// loops over the scalar code; use_simd = true uses the IFMA code when batch_simd_available() (and
// the scalar code otherwise).
void fixed_base_mul_batch(const FixedBase& base, const uint8_t* scalars, size_t n, Point* out,
                          bool use_simd);
void point_mul_batch(const Point* points, const uint8_t* scalars, size_t n, Point* out,
                     bool use_simd);
}  // namespace batch_detail

}  // namespace psi::group
