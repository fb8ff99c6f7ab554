// status.h — error values inside the native core. Code below the C ABI returns Status for every
// expected failure (bad peer message, bad input); exceptions are only for bugs and out-of-memory,
// and the ABI layer turns those into status codes too.
#pragma once

#include <string>
#include <utility>

#include "psi_native.h"

namespace psi {

class Status {
 public:
  Status() = default;
  Status(psi_status code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }
  bool is_ok() const { return code_ == PSI_OK; }
  psi_status code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  psi_status code_ = PSI_OK;
  std::string message_;
};

inline Status peer_error(std::string m) { return Status(PSI_ERR_PEER_MESSAGE, std::move(m)); }
inline Status input_error(std::string m) { return Status(PSI_ERR_INPUT, std::move(m)); }
inline Status argument_error(std::string m) { return Status(PSI_ERR_ARGUMENT, std::move(m)); }
inline Status state_error(std::string m) { return Status(PSI_ERR_STATE, std::move(m)); }

#define PSI_RETURN_IF_ERROR(expr)                         \
  do {                                                    \
    ::psi::Status psi_status_tmp_ = (expr);               \
    if (!psi_status_tmp_.is_ok()) return psi_status_tmp_; \
  } while (0)

}  // namespace psi
