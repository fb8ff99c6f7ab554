// aes_gcm.h — AES-128-GCM (NIST SP 800-38D) for single-use keys, as labelled PSI uses it: the
// 96-bit nonce is 0 and there is no associated data, which is safe because every key seals exactly
// one message. AES-NI and PCLMULQDQ (GHASH in core/gf128.h's field, with GCM's bit order mapped
// onto it); about ten times faster than libsodium's ChaCha20-Poly1305 on the short messages of
// labels, whose per-message setup dominates. Known-answer tests against OpenSSL:
// tests/aes_gcm_test.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace psi {

constexpr size_t kGcmTagBytes = 16;

// out (len + 16 bytes) = AES-128-GCM_key(nonce 0, plain) | tag.
void aes128gcm_seal(const uint8_t key[16], const uint8_t* plain, size_t len, uint8_t* out);
// sealed: len + 16 bytes. Checks the tag in constant time; only then writes the len bytes of
// plaintext to out and returns true (false: out untouched).
bool aes128gcm_open(const uint8_t key[16], const uint8_t* sealed, size_t len, uint8_t* out);

}  // namespace psi
