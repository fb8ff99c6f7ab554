#include "cpu.h"

#include <cpuid.h>

namespace psi {

const char* missing_cpu_feature() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("aes")) return "aes";
  if (!__builtin_cpu_supports("sse4.1")) return "sse4.1";
  if (!__builtin_cpu_supports("avx2")) return "avx2";
  if (!__builtin_cpu_supports("bmi2")) return "bmi2";
  if (!__builtin_cpu_supports("pclmul")) return "pclmul";
  return nullptr;
}

// CPUID leaf 7: VAES is ECX bit 9 (read directly: clang 14's __builtin_cpu_supports has no "vaes").
bool cpu_has_vaes() {
  static const bool v = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __builtin_cpu_init();
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 9)) != 0 &&
           __builtin_cpu_supports("avx2");
  }();
  return v;
}

}  // namespace psi
