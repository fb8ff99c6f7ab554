// params.h — the "key=value,key=value" parameter string of psi_session_create. Every key must be
// consumed by the protocol; check_all_used() turns a typo into a clear error instead of a silent default.
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
  // Error naming the first key no getter asked for.
  Status check_all_used() const;

 private:
  std::map<std::string, std::string> kv_;
  mutable std::set<std::string> used_;
};

}  // namespace psi
