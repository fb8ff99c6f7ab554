#include "params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace psi {

Status Params::parse(const char* text, Params* out) {
  out->kv_.clear();
  if (text == nullptr) return Status::ok();
  std::string s(text);
  if (s.size() > 4096) return argument_error("parameter string longer than 4096 bytes");
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    std::string item = s.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return argument_error("parameter '" + item + "' is not of the form key=value");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (out->kv_.count(key)) return argument_error("parameter '" + key + "' given twice");
    out->kv_[key] = value;
  }
  return Status::ok();
}

Status Params::get_u64(const std::string& key, uint64_t def, uint64_t* out) const {
  auto it = kv_.find(key);
  used_.insert(key);
  if (it == kv_.end()) {
    *out = def;
    return Status::ok();
  }
  const std::string& v = it->second;
  if (v.empty() || v.size() > 20 || v.find_first_not_of("0123456789") != std::string::npos)
    return argument_error("parameter " + key + "=" + v + " is not an unsigned integer");
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
  if (errno == ERANGE) return argument_error("parameter " + key + "=" + v + " is out of range");
  *out = x;
  return Status::ok();
}

Status Params::get_double(const std::string& key, double def, double* out) const {
  auto it = kv_.find(key);
  used_.insert(key);
  if (it == kv_.end()) {
    *out = def;
    return Status::ok();
  }
  const std::string& v = it->second;
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(x))
    return argument_error("parameter " + key + "=" + v + " is not a number");
  *out = x;
  return Status::ok();
}

Status Params::get_instance(const std::string& key, uint8_t out[32]) const {
  for (int i = 0; i < 32; ++i) out[i] = 0;
  auto it = kv_.find(key);
  if (it == kv_.end()) {
    used_.insert(key);
    return Status::ok();
  }
  const std::string& v = it->second;
  if (v.size() == 64) {
    used_.insert(key);
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    for (size_t i = 0; i < 32; ++i) {
      const int hi = nibble(v[2 * i]), lo = nibble(v[2 * i + 1]);
      if (hi < 0 || lo < 0) {
        for (int k = 0; k < 32; ++k) out[k] = 0;
        return argument_error("parameter " + key + " is not 64 hex digits (bad digit at " +
                              std::to_string(hi < 0 ? 2 * i : 2 * i + 1) + ")");
      }
      out[i] = uint8_t(hi << 4 | lo);
    }
    return Status::ok();
  }
  uint64_t x = 0;
  Status st = get_u64(key, 0, &x);
  if (!st.is_ok())
    return argument_error("parameter " + key + "=" + v +
                          " is neither 64 hex digits (256 bits) nor an unsigned decimal u64");
  for (int i = 0; i < 8; ++i) out[31 - i] = uint8_t(x >> (8 * i));
  return Status::ok();
}

std::string instance_hex(const uint8_t instance[32]) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(64, '0');
  for (int i = 0; i < 32; ++i) {
    s[2 * i] = kDigits[instance[i] >> 4];
    s[2 * i + 1] = kDigits[instance[i] & 15];
  }
  return s;
}

Status Params::get_string(const std::string& key, const std::string& def, std::string* out) const {
  auto it = kv_.find(key);
  used_.insert(key);
  *out = it == kv_.end() ? def : it->second;
  return Status::ok();
}

Status Params::check_all_used() const {
  for (const auto& kv : kv_)
    if (!used_.count(kv.first)) return argument_error("unknown parameter '" + kv.first + "'");
  return Status::ok();
}

uint32_t mask_bytes(uint32_t sigma, uint64_t n_r, uint64_t n_s) {
  auto ceil_log2 = [](uint64_t x) {
    uint32_t r = 0;
    while ((uint64_t(1) << r) < x) ++r;
    return r;
  };
  const uint32_t bits = sigma + ceil_log2(n_r ? n_r : 1) + ceil_log2(n_s ? n_s : 1);
  return std::min<uint32_t>((bits + 7) / 8, 16);
}

}  // namespace psi
