// transpose.h — bit-matrix transpose, the core of OT extension (columns of PRG output become rows).
// Bit b of a row is (row[b / 8] >> (b % 8)) & 1.
#pragma once

#include <cstddef>
#include <cstdint>

namespace psi {

// `in` has in_rows rows of in_row_bytes bytes each (row-major). Writes in_row_bytes*8 rows of
// in_rows/8 bytes each to `out`: out row c, bit r == in row r, bit c.
// Requires in_rows % 32 == 0. in and out must not overlap.
void transpose_bits(const uint8_t* in, size_t in_rows, size_t in_row_bytes, uint8_t* out);

}  // namespace psi
