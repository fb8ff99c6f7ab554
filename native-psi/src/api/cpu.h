// cpu.h — the library is built for x86-64 with AES-NI, SSE4.1, AVX2 and BMI2. cpu.cc is compiled
// without those flags so this check itself runs anywhere and a missing feature is an error code,
// not SIGILL inside the JVM.
#pragma once

namespace psi {
// nullptr if the CPU has every instruction set the library uses, else the name of a missing one.
const char* missing_cpu_feature();
// Whether the CPU has VAES (256-bit AES instructions) and AVX2, for kernels chosen at run time.
bool cpu_has_vaes();
}  // namespace psi
