// gf128.h — arithmetic in GF(2^128), the field of VOLE-based PSI (rr22): polynomial basis, bit k
// of a Block (bit k % 64 of 64-bit word k / 64, little-endian) is the coefficient of X^k, reduction
// modulo X^128 + X^7 + X^2 + X + 1 (the GCM polynomial, without GCM's bit reflection). Addition is
// XOR. Known-answer tests: tests/gf128_test.cc (against a bit-by-bit schoolbook reference).
#pragma once

#include <cstddef>

#include "block.h"

namespace psi {

// a * b (PCLMULQDQ, then reduction).
Block gf128_mul(Block a, Block b);
// out[i] = a[i] * b for i < n (b fixed: the VOLE's Delta). in and out may alias.
void gf128_mul_const(const Block* a, Block b, Block* out, size_t n);
// a * X (shift left by one with reduction).
Block gf128_mul_x(Block a);
// sum_{k < 128} bits[k] * X^k where bits[k] is a Block: the "packing" of 128 correlated OTs into
// one VOLE (Horner's rule with gf128_mul_x).
Block gf128_pack(const Block bits[128]);

}  // namespace psi
