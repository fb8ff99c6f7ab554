/*
 * psi_native.h — the plug-n-play PSI round API (C ABI), safe for a JVM caller.
 *
 * A protocol is a sequence of rounds in two phases: SETUP (once per pair of parties, reusable across
 * bins via psi_setup_export/psi_setup_import) and ONLINE (once per bin). Round r of a phase is executed
 * by exactly one party (psi_round_is_mine). The owner of round r consumes the message the peer emitted
 * in round r-1 (nothing for r == 0) and emits the message for round r+1 (empty for the last round).
 * The owner of round r+1 is always the other party.
 *
 * Driving one round that is mine:
 *   psi_round_feed(s, phase, r, chunk, len, last=0) ... zero or more times,
 *   psi_round_feed(s, phase, r, chunk, len, last=1) exactly once (len may be 0; for r == 0 feed nothing
 *                                                    but this call),
 *   psi_round_emit(s, phase, r, buf, cap, &written, &done) until done != 0.
 * Chunks may have any size (including 0); no call needs a whole message in one buffer.
 * Online rounds require psi_set_input first, and a completed (or imported) setup. A protocol whose
 * setup message is computed from a party's set ("ecdh": the sender) also requires psi_set_input
 * before that party's first setup round (else PSI_ERR_STATE).
 *
 * Contract for every function:
 *   - returns a psi_status; on failure psi_session_error() names the cause (for psi_session_create the
 *     message goes to the caller's buffer, NUL-terminated and truncated to err_cap);
 *   - never aborts, never throws across the ABI, never reads or writes outside the given lengths,
 *     whatever the peer sent;
 *   - a session is not thread-safe; distinct sessions may be used concurrently from different threads.
 *   - after any error other than PSI_ERR_ARGUMENT the session is failed: further round calls return
 *     PSI_ERR_STATE. Free it and start a new attempt.
 *
 * Elements are opaque byte strings of a fixed length per session (the KKRT protocol takes 16-byte
 * tokens) and must be distinct: a duplicate is PSI_ERR_INPUT, reported by psi_set_input or by the
 * online round that finds it. Results are indices into this party's own psi_set_input array, in
 * ascending order.
 *
 * Parameters are "key=value" pairs separated by ',' (no spaces). Unknown keys are an error.
 * Common keys: receiver_size, sender_size (element counts, public, both parties pass the same),
 * instance (256 bits as 64 hex digits, or a decimal u64 zero-extended to 256 bits for tests; MUST be
 * unique per online run under one setup: bin, attempt and both parties' nonce material; every
 * per-run key is derived from it; a malformed value is PSI_ERR_ARGUMENT), output
 * (receiver|both: whether the sender also learns its intersecting indices; "ecdh" also takes
 * cardinality: the receiver learns only the count). With output=both the sender learns only
 * positions it can verify: KKRT claims carry a 64-bit proof per position, ECDH claims the matching
 * H(x)^k; a claim the sender cannot verify (wrong proof, repeated, out of range) is
 * PSI_ERR_PEER_MESSAGE and the sender gets no result. See docs/protocols.md.
 */
#ifndef PSI_NATIVE_H
#define PSI_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PSI_API __attribute__((visibility("default")))
#else
#define PSI_API
#endif

#define PSI_ABI_VERSION 1

typedef enum {
  PSI_OK = 0,
  PSI_ERR_ARGUMENT = 1,     /* null pointer, bad length, unknown protocol, role or parameter */
  PSI_ERR_STATE = 2,        /* call out of order, or the session already failed */
  PSI_ERR_PEER_MESSAGE = 3, /* the peer's message is malformed: wrong length, bad encoding */
  PSI_ERR_INPUT = 4,        /* this party's input is invalid: wrong count, duplicate element */
  PSI_ERR_CAPACITY = 5,     /* a probabilistic structure overflowed (e.g. cuckoo stash); retry */
  PSI_ERR_NO_MEMORY = 6,
  PSI_ERR_INTERNAL = 7
} psi_status;

typedef enum {
  PSI_ROLE_RECEIVER = 0, /* learns the intersection (KKRT: the cuckoo-hashing OPRF receiver) */
  PSI_ROLE_SENDER = 1,
  PSI_ROLE_HELPER = 2    /* third party of server-aided / multi-party protocols */
} psi_role;

typedef enum { PSI_PHASE_SETUP = 0, PSI_PHASE_ONLINE = 1 } psi_phase;

typedef struct psi_session psi_session;

/* Library version string, e.g. "psi-native 0.1.0 (abi 1)". Static storage. */
PSI_API const char* psi_version(void);
/* Name of a status code, e.g. "PSI_ERR_PEER_MESSAGE". Static storage. */
PSI_API const char* psi_status_name(int status);

/* Creates a session. protocol: "kkrt" or "ecdh" (receiver = client, sender = server).
 * role: psi_role. params: see above (may be NULL or "").
 * seed: 32 bytes of fresh randomness; all of the session's randomness is derived from it. */
PSI_API psi_status psi_session_create(const char* protocol, int role, const char* params,
                                      const uint8_t* seed, size_t seed_len, psi_session** out,
                                      char* err, size_t err_cap);
/* Frees a session and wipes its secrets. NULL is allowed. */
PSI_API void psi_session_free(psi_session* s);
/* Message of the last failed call on s ("" if none). Valid until the next call on s. */
PSI_API const char* psi_session_error(const psi_session* s);

PSI_API psi_status psi_round_count(const psi_session* s, int phase, uint32_t* count);
PSI_API psi_status psi_round_is_mine(const psi_session* s, int phase, uint32_t round, int* mine);

/* count elements of element_len bytes each, contiguous. count must equal this party's declared size. */
PSI_API psi_status psi_set_input(psi_session* s, const uint8_t* elements, size_t count,
                                 size_t element_len);

PSI_API psi_status psi_round_feed(psi_session* s, int phase, uint32_t round, const uint8_t* data,
                                  size_t len, int last);
/* Writes at most cap bytes to out; *written gets the count, *done becomes 1 when the message is
 * complete (the call that sets done may write 0 or more bytes). */
PSI_API psi_status psi_round_emit(psi_session* s, int phase, uint32_t round, uint8_t* out,
                                  size_t cap, size_t* written, int* done);

/* Serialises this party's completed setup (secret key material: keep it like a key). With out == NULL
 * only *len is set. psi_setup_import loads it into a fresh session of the same protocol and role,
 * which then skips the setup rounds. */
PSI_API psi_status psi_setup_export(const psi_session* s, uint8_t* out, size_t cap, size_t* len);
PSI_API psi_status psi_setup_import(psi_session* s, const uint8_t* data, size_t len);

/* After the last online round: the number of this party's elements in the intersection (or the
 * cardinality for cardinality-only outputs), and their indices (ascending). With a cardinality-only
 * output (ecdh output=cardinality) psi_result_indices is PSI_ERR_STATE: there are no indices. */
PSI_API psi_status psi_result_size(const psi_session* s, uint64_t* count);
PSI_API psi_status psi_result_indices(const psi_session* s, uint64_t* out, size_t cap,
                                      size_t* written);


/* Authenticated encryption of data a caller ships beside a protocol (e.g. the columns one party
 * reveals to the other), so that a relay in between sees none of it: ChaCha20-Poly1305 (IETF) from
 * libsodium, a 32-byte key, a 12-byte nonce and a 16-byte tag after the ciphertext. The caller must
 * never use a (key, nonce) pair twice. Stateless and thread-safe; out must not overlap the input.
 *   seal: cap >= len + PSI_AEAD_TAG_BYTES, *written = len + PSI_AEAD_TAG_BYTES.
 *   open: cap >= len - PSI_AEAD_TAG_BYTES; a short, altered or wrongly keyed message is
 *         PSI_ERR_PEER_MESSAGE and writes nothing usable (*written = 0).
 * Wrong key or nonce lengths, null pointers or a small cap are PSI_ERR_ARGUMENT. */
#define PSI_AEAD_KEY_BYTES 32
#define PSI_AEAD_NONCE_BYTES 12
#define PSI_AEAD_TAG_BYTES 16
PSI_API psi_status psi_aead_seal(const uint8_t* key, size_t key_len, const uint8_t* nonce,
                                 size_t nonce_len, const uint8_t* plain, size_t len, uint8_t* out,
                                 size_t cap, size_t* written);
PSI_API psi_status psi_aead_open(const uint8_t* key, size_t key_len, const uint8_t* nonce,
                                 size_t nonce_len, const uint8_t* sealed, size_t len, uint8_t* out,
                                 size_t cap, size_t* written);

#ifdef __cplusplus
}
#endif
#endif /* PSI_NATIVE_H */
