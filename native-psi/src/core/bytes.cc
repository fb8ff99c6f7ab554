#include "bytes.h"

#include <sodium.h>

namespace psi {

void secure_wipe(void* p, size_t n) { sodium_memzero(p, n); }

}  // namespace psi
