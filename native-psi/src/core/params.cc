#include "params.h"

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

}  // namespace psi
