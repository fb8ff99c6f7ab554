/*
 * psi_native.h — the plug-n-play PSI round API (C ABI), safe for a JVM caller.
 *
 * A protocol is a sequence of rounds in two phases: SETUP (once per pair of parties, reusable
 * across bins via psi_setup_export/psi_setup_import) and ONLINE (once per bin). Round r of a phase
 * is executed by exactly one party (psi_round_is_mine). The owner of round r consumes the message
 * the peer emitted in round r-1 (nothing for r == 0) and emits the message for round r+1 (empty for
 * the last round). The owner of round r+1 is always the other party.
 *
 * Driving one round that is mine:
 *   psi_round_feed(s, phase, r, chunk, len, last=0) ... zero or more times,
 *   psi_round_feed(s, phase, r, chunk, len, last=1) exactly once (len may be 0; for r == 0 feed
 * nothing but this call), psi_round_emit(s, phase, r, buf, cap, &written, &done) until done != 0.
 * Chunks may have any size (including 0); no call needs a whole message in one buffer.
 * Online rounds require psi_set_input first, and a completed (or imported) setup. A protocol whose
 * setup message is computed from a party's set ("ecdh": the sender) also requires psi_set_input
 * before that party's first setup round (else PSI_ERR_STATE).
 *
 * Contract for every function:
 *   - returns a psi_status; on failure psi_session_error() names the cause (for psi_session_create
 * the message goes to the caller's buffer, NUL-terminated and truncated to err_cap);
 *   - never aborts, never throws across the ABI, never reads or writes outside the given lengths,
 *     whatever the peer sent;
 *   - a session is not thread-safe; distinct sessions may be used concurrently from different
 * threads.
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
 * instance (256 bits as 64 hex digits, or a decimal u64 zero-extended to 256 bits for tests; MUST
 * be unique per online run under one setup: bin, attempt and both parties' nonce material; every
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
  PSI_ROLE_HELPER = 2,  /* third party of server-aided protocols */
  PSI_ROLE_PARTY = 3,   /* party i of n of a multiparty protocol (parameters parties, index) */
  PSI_ROLE_PROVIDER = 4 /* the outsourcing provider of a multiparty protocol: holds no set */
} psi_role;

typedef enum { PSI_PHASE_SETUP = 0, PSI_PHASE_ONLINE = 1 } psi_phase;

typedef struct psi_session psi_session;

/* Library version string, e.g. "psi-native 0.1.0 (abi 1)". Static storage. */
PSI_API const char* psi_version(void);
/* Name of a status code, e.g. "PSI_ERR_PEER_MESSAGE". Static storage. */
PSI_API const char* psi_status_name(int status);

/* ---------------------------------------------------------------------------------------------
 * Protocols describe themselves, so that a caller (the JVM binding, a CLI) selects and validates a
 * protocol by what the library says, not by a list of its own.
 *
 * The registered protocols are numbered 0 .. psi_protocol_count()-1 in a fixed order. The
 * description of each is a static, immutable entry of the library: its strings have static
 * storage, nothing is allocated, nothing needs freeing, and every function below is thread-safe and
 * needs no session, no libsodium initialisation and no particular CPU.
 *
 *   psi_protocol_info(index, out, out_size)          copies entry `index` into *out;
 *   psi_protocol_info_by_name(name, out, out_size)   the same for the entry named `name`
 *                                                     (exact, case-sensitive: "kkrt", "ecdh").
 * out_size must be sizeof(psi_protocol_description) (explicit length, so that a caller built
 * against another layout is refused rather than misread). Status: PSI_OK; PSI_ERR_ARGUMENT for a
 * NULL out or name, a wrong out_size, an index >= psi_protocol_count() or an unknown name (then
 * *out is zeroed when out and out_size are valid).
 *
 * Role conventions of every two-party protocol: roles[0] is PSI_ROLE_RECEIVER (learns the
 * intersection), roles[1] PSI_ROLE_SENDER. A protocol with a helper lists PSI_ROLE_HELPER too.
 */
#define PSI_PROTOCOL_MAX_ROLES 4

/* Output modes (values of the "output" parameter) as bits of psi_protocol_description.outputs. */
typedef enum {
  PSI_OUTPUT_RECEIVER = 1u << 0, /* output=receiver: only the receiver learns its indices */
  PSI_OUTPUT_BOTH = 1u << 1,     /* output=both: each party learns its own intersecting indices */
  PSI_OUTPUT_CARDINALITY = 1u << 2, /* output=cardinality: the receiver learns only the count */
  PSI_OUTPUT_LABELS = 1u << 3       /* output=labels: the receiver learns its intersecting indices
                                     * and the sender's label of each; the sender learns nothing */
} psi_output;

typedef struct {
  const char* name;    /* the name psi_session_create takes, e.g. "kkrt" */
  const char* summary; /* one line for help texts and error messages */
  uint32_t parties;    /* parties holding sets in one run (2 for kkrt and ecdh); 0: any number >= 2,
                        * given by the "parties" parameter (mpsi) */
  uint32_t role_count; /* entries used in roles[] (<= PSI_PROTOCOL_MAX_ROLES) */
  int32_t roles[PSI_PROTOCOL_MAX_ROLES]; /* psi_role values, see the conventions above */
  uint32_t outputs;                      /* PSI_OUTPUT_* bits the "output" parameter accepts */
  uint32_t default_output; /* the one PSI_OUTPUT_* bit used when "output" is not given */
  /* 1: the sender's setup message is computed from its set ("ecdh"): each run does its own setup
   * after psi_set_input, and an exported setup is good for that same set only. 0: the setup is
   * independent of the sets ("kkrt": base OTs) and may be run once and imported by many runs. */
  int32_t setup_needs_sender_set;
  int32_t labels; /* 1: the sender's elements may carry labels (output=labels, psi_set_labels) */
  uint32_t element_len_min; /* psi_set_input's element_len must lie in [min, max] */
  uint32_t element_len_max;
  uint64_t max_set_size; /* receiver_size and sender_size must each be below this */
  const char* params;    /* parameter keys the protocol accepts, comma-separated, no spaces */
} psi_protocol_description;

/* Number of registered protocols. */
PSI_API size_t psi_protocol_count(void);
PSI_API psi_status psi_protocol_info(size_t index, psi_protocol_description* out, size_t out_size);
PSI_API psi_status psi_protocol_info_by_name(const char* name, psi_protocol_description* out,
                                             size_t out_size);
/* Name of a psi_role value: "receiver", "sender", "helper", "party", "provider"; "unknown" for
 * anything else. Static. */
PSI_API const char* psi_role_name(int role);

/* Creates a session. protocol: a registered name (psi_protocol_info), e.g. "kkrt" or "ecdh"
 * (receiver = client, sender = server).
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

/* count elements of element_len bytes each, contiguous. count must equal this party's declared
 * size. */
PSI_API psi_status psi_set_input(psi_session* s, const uint8_t* elements, size_t count,
                                 size_t element_len);

PSI_API psi_status psi_round_feed(psi_session* s, int phase, uint32_t round, const uint8_t* data,
                                  size_t len, int last);
/* Multiparty protocols ("mpsi"). Every message goes between one party and the provider. A party's
 * session is driven like a two-party one, with the provider as its peer (rounds alternate: the
 * party's are even, the provider's odd). The provider's rounds take one message from each of the n
 * parties: psi_round_feed_from(s, phase, round, peer, ...) as psi_round_feed, for the message of
 * party `peer` (0 .. n-1, its "index" parameter); the messages of different peers may be fed in
 * any order and interleaved by chunks; the round's emit may start when every peer's message is
 * complete (last=1 once per peer), and the message it emits goes unchanged to every party. The
 * provider never calls psi_set_input. psi_round_feed on a provider session and
 * psi_round_feed_from on any other session are PSI_ERR_ARGUMENT. */
PSI_API psi_status psi_round_feed_from(psi_session* s, int phase, uint32_t round, uint32_t peer,
                                       const uint8_t* data, size_t len, int last);
/* The 32-byte secret the parties of a multiparty run share with each other and with nobody else
 * (never with the provider): it keys the Bloom filter positions and the blinding of the joint
 * decryption. Every party of a run passes the same secret before its first online round. On the
 * provider's session, or on a two-party protocol's, it is PSI_ERR_STATE. */
#define PSI_GROUP_SECRET_BYTES 32
PSI_API psi_status psi_set_group_secret(psi_session* s, const uint8_t* key, size_t len);

/* Writes at most cap bytes to out; *written gets the count, *done becomes 1 when the message is
 * complete (the call that sets done may write 0 or more bytes). */
PSI_API psi_status psi_round_emit(psi_session* s, int phase, uint32_t round, uint8_t* out,
                                  size_t cap, size_t* written, int* done);

/* Serialises this party's completed setup (secret key material: keep it like a key). With out ==
 * NULL only *len is set. psi_setup_import loads it into a fresh session of the same protocol and
 * role, which then skips the setup rounds. */
PSI_API psi_status psi_setup_export(const psi_session* s, uint8_t* out, size_t cap, size_t* len);
PSI_API psi_status psi_setup_import(psi_session* s, const uint8_t* data, size_t len);

/* After the last online round: the number of this party's elements in the intersection (or the
 * cardinality for cardinality-only outputs), and their indices (ascending). With a cardinality-only
 * output (ecdh output=cardinality) psi_result_indices is PSI_ERR_STATE: there are no indices. */
PSI_API psi_status psi_result_size(const psi_session* s, uint64_t* count);
PSI_API psi_status psi_result_indices(const psi_session* s, uint64_t* out, size_t cap,
                                      size_t* written);

/* Labelled PSI (output=labels; protocols whose description has labels = 1). The "label" parameter
 * (bytes, 1 .. PSI_MAX_LABEL_BYTES, public: both parties pass the same) is the length of every
 * label. The sender gives one label per element, in psi_set_input's order: count must equal
 * psi_set_input's count and label_len the "label" parameter (else PSI_ERR_INPUT); it is called
 * after psi_set_input and before the sender's first round whose message carries labels (its first
 * setup round for a protocol whose setup is made of the sender's set, else its first online round),
 * else PSI_ERR_STATE. Only the sender calls it (PSI_ERR_STATE for a receiver).
 *
 * Every label travels encrypted under a key derived from the sender's OPRF value of its element,
 * once per element, with a tag only a receiver holding that element can compute; message sizes
 * depend only on receiver_size, sender_size and label, never on the sets or their intersection.
 *
 * psi_result_labels, receiver after the last online round: the labels of its intersecting elements,
 * label bytes each, in the order of psi_result_indices. With out NULL and cap 0 only *written is
 * set (the bytes needed); a smaller non-zero cap is PSI_ERR_ARGUMENT. A label whose tag matched but
 * that does not authenticate is PSI_ERR_PEER_MESSAGE. The sender of a labelled run learns nothing:
 * psi_result_size, psi_result_indices and psi_result_labels are PSI_ERR_STATE for it. */
#define PSI_MAX_LABEL_BYTES (1u << 20)
PSI_API psi_status psi_set_labels(psi_session* s, const uint8_t* labels, size_t count,
                                  size_t label_len);
PSI_API psi_status psi_result_labels(const psi_session* s, uint8_t* out, size_t cap,
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

/* Fresh random bytes from the operating system (libsodium's randombytes_buf, which reads
 * getrandom(2)): fills out[0, len), e.g. the dummy elements that pad a party's set and must look
 * like tokens. Thread-safe. A NULL out with len > 0 is PSI_ERR_ARGUMENT; len 0 writes nothing. */
PSI_API psi_status psi_random_bytes(uint8_t* out, size_t len);

/* Bloom filter positions of the server-aided prefilter (docs/protocols.md, "Prefilter positions
 * (FF1)"): the k positions of a 16-byte token t in a filter of 2^L bits are
 * p_j(t) = FF1_K1(h_j(t)), j < k, with h a keyed hash (AES-128 under K2) of t to k L-bit values and
 * FF1 of NIST SP 800-38G (radix 2, AES-128). key: PSI_FILTER_KEY_BYTES = K1 (16) || K2 (16).
 *
 *   psi_filter_positions_create(key, key_len, filter_bits, hashes, &f, err, err_cap)
 *       key_len must be 32, filter_bits in [PSI_FILTER_BITS_MIN, PSI_FILTER_BITS_MAX] (L), hashes
 *       in [PSI_FILTER_HASHES_MIN, PSI_FILTER_HASHES_MAX] (k). On failure *f is NULL and err gets
 *       the cause (NUL-terminated, truncated to err_cap; err may be NULL).
 *   psi_filter_positions_compute(f, tokens, count, token_len, out, out_len)
 *       tokens: count * token_len bytes, token_len must be PSI_FILTER_TOKEN_BYTES (16); out_len
 * must equal count * hashes (no overflow); out[i*hashes + j] = p_j(token i) < 2^filter_bits. count
 * may be 0 (tokens and out may then be NULL). Deterministic: the same key, L, k and token give the
 * same positions on every machine. psi_filter_positions_error(f)   message of f's last failed call
 * ("" if none); valid until the next call on f. psi_filter_positions_free(f)    wipes the keys;
 * NULL allowed. Every function returns PSI_ERR_ARGUMENT for a NULL pointer or a bad length or range
 * (nothing written to out), PSI_ERR_ARGUMENT also for a CPU without the instructions the library
 * needs. An object is not thread-safe (its error text); use one per thread. */
#define PSI_FILTER_KEY_BYTES 32
#define PSI_FILTER_TOKEN_BYTES 16
#define PSI_FILTER_BITS_MIN 16
#define PSI_FILTER_BITS_MAX 36
#define PSI_FILTER_HASHES_MIN 1
#define PSI_FILTER_HASHES_MAX 16
typedef struct psi_filter_positions psi_filter_positions;
PSI_API psi_status psi_filter_positions_create(const uint8_t* key, size_t key_len,
                                               uint32_t filter_bits, uint32_t hashes,
                                               psi_filter_positions** out, char* err,
                                               size_t err_cap);
PSI_API psi_status psi_filter_positions_compute(const psi_filter_positions* f,
                                                const uint8_t* tokens, size_t count,
                                                size_t token_len, uint64_t* out, size_t out_len);
PSI_API const char* psi_filter_positions_error(const psi_filter_positions* f);
PSI_API void psi_filter_positions_free(psi_filter_positions* f);

/* The token PRF (docs/private-join.md, step 2): each canonical key encoding m becomes the first 16
 * bytes of HMAC-SHA256_k(m), k the session's 32-byte token key; batched, one call per few thousand
 * keys.
 *
 *   psi_token_prf_create(key, key_len, &t, err, err_cap)
 *       key_len must be PSI_TOKEN_KEY_BYTES (32). On failure *t is NULL and err gets the cause
 *       (NUL-terminated, truncated to err_cap; err may be NULL).
 *   psi_token_prf_compute(t, data, data_len, ends, count, out, out_len)
 *       message i is data[ends[i-1], ends[i]) with ends[-1] = 0: ends must be non-decreasing and
 *       ends[count-1] <= data_len; out_len must equal count * PSI_TOKEN_BYTES; out[16i, 16i+16)
 *       gets message i's value. count may be 0 (the pointers may then be NULL).
 *   psi_token_prf_error(t)   message of t's last failed call ("" if none); valid until the next
 *       call on t.
 *   psi_token_prf_free(t)    wipes the key's states; NULL allowed.
 * Every function returns PSI_ERR_ARGUMENT for a NULL pointer or a bad length (nothing written to
 * out). An object is not thread-safe (its error text); use one per thread. */
#define PSI_TOKEN_KEY_BYTES 32
#define PSI_TOKEN_BYTES 16
typedef struct psi_token_prf psi_token_prf;
PSI_API psi_status psi_token_prf_create(const uint8_t* key, size_t key_len, psi_token_prf** out,
                                        char* err, size_t err_cap);
PSI_API psi_status psi_token_prf_compute(const psi_token_prf* t, const uint8_t* data,
                                         size_t data_len, const uint32_t* ends, size_t count,
                                         uint8_t* out, size_t out_len);
PSI_API const char* psi_token_prf_error(const psi_token_prf* t);
PSI_API void psi_token_prf_free(psi_token_prf* t);

/* The bins of tokens (docs/private-join.md, step 3), batched beside the token PRF: token i is
 * tokens[16i, 16i+16) as psi_token_prf_compute wrote it; with hi its first 8 bytes big-endian, top
 * bit cleared, and lo its last 8 big-endian, out[i] = SipHash-2-4_key(le64(hi) || le64(lo)) mod
 * bins. key: PSI_BIN_KEY_BYTES (16), the session's bin key (SipHash's k0 || k1, little-endian).
 * key_len must be 16, bins > 0, out_len must equal count; count may be 0 (tokens and out may then
 * be NULL). PSI_ERR_ARGUMENT for a NULL pointer or a bad length (nothing written). Stateless and
 * thread-safe. */
#define PSI_BIN_KEY_BYTES 16
PSI_API psi_status psi_token_bins(const uint8_t* key, size_t key_len, const uint8_t* tokens,
                                  size_t count, uint32_t bins, uint32_t* out, size_t out_len);

#ifdef __cplusplus
}
#endif
#endif /* PSI_NATIVE_H */
