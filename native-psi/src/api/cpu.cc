#include "cpu.h"

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

}  // namespace psi
