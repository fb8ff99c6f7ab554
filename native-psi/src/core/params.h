// params.h — the "key=value,key=value" parameter string of psi_session_create. Every key must be
// consumed by the protocol; check_all_used() turns a typo into a clear error instead of a silent
// default.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "status.h"

namespace psi {

class Params {
 public:
  static Status parse(const char* text, Params* out);
  bool has(const std::string& key) const { return kv_.count(key) != 0; }
  Status get_u64(const std::string& key, uint64_t def, uint64_t* out) const;
  Status get_double(const std::string& key, double def, double* out) const;
  Status get_string(const std::string& key, const std::string& def, std::string* out) const;
  // A 256-bit run instance: exactly 64 hex digits (byte i = digits 2i, 2i+1; either case), or an
  // unsigned decimal u64 (at most 20 digits, for tests and benches) zero-extended to 256 bits, i.e.
  // big-endian in the last 8 bytes. Absent: all zero. Anything else is PSI_ERR_ARGUMENT.
  Status get_instance(const std::string& key, uint8_t out[32]) const;
  // Error naming the first key no getter asked for.
  Status check_all_used() const;

 private:
  std::map<std::string, std::string> kv_;
  mutable std::set<std::string> used_;
};

// Bytes of the OPRF outputs a two-party protocol compares: sigma + ceil(log2 n_r) + ceil(log2 n_s)
// bits (the receiver makes at most n_r * n_s comparisons, so a false match has probability
// <= 2^-sigma), rounded up to bytes, at most 16.
uint32_t mask_bytes(uint32_t sigma, uint64_t n_r, uint64_t n_s);

// The 64 lowercase hex digits of a 256-bit instance (for error messages and labels).
std::string instance_hex(const uint8_t instance[32]);

}  // namespace psi
