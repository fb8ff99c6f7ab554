// c_api.cc — the C ABI of include/psi_native.h. This layer owns everything a protocol should not
// have to repeat: argument checks, the order of rounds (phase, round, feed-then-emit), the failed
// state, error text, and turning C++ exceptions into status codes so nothing unwinds into the JVM.
#include <sodium.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "../core/params.h"
#include "../core/status.h"
#include "../prefilter/positions.h"
#include "../protocols/protocol.h"
#include "../token/token_bins.h"
#include "../token/token_prf.h"
#include "cpu.h"
#include "psi_native.h"

struct psi_session {
  std::unique_ptr<psi::Protocol> proto;
  std::string error;
  bool failed = false;
  bool input_set = false;
  psi_phase phase = PSI_PHASE_SETUP;
  uint32_t round = 0;     // the next round of `phase` this party executes
  bool emitting = false;  // input of `round` complete, output being pulled
  bool setup_started = false;
  bool online_started = false;
  bool finished = false;  // all online rounds done
};

namespace {

using psi::Status;

// libsodium picks its fastest implementations in sodium_init; it must run before any other call.
bool sodium_ready() {
  static std::once_flag once;
  static int rc = 0;
  std::call_once(once, [] { rc = sodium_init(); });
  return rc >= 0;
}

// Moves to the next round this party executes, crossing from setup to online when setup ends.
void advance(psi_session* s, uint32_t from) {
  s->emitting = false;
  for (;;) {
    uint32_t count = s->proto->round_count(s->phase);
    uint32_t r = from;
    while (r < count && !s->proto->is_mine(s->phase, r)) ++r;
    if (r < count) {
      s->round = r;
      return;
    }
    if (s->phase == PSI_PHASE_ONLINE) {
      s->finished = true;
      return;
    }
    s->phase = PSI_PHASE_ONLINE;
    from = 0;
  }
}

psi_status fail(psi_session* s, const Status& st) {
  s->error = st.message();
  if (st.code() != PSI_ERR_ARGUMENT) s->failed = true;
  return st.code();
}

template <typename F>
psi_status guarded(psi_session* s, F&& body) {
  if (s == nullptr) return PSI_ERR_ARGUMENT;
  if (s->failed) return fail(s, Status(PSI_ERR_STATE, "session failed earlier: " + s->error));
  s->error.clear();
  try {
    Status st = body();
    return st.is_ok() ? PSI_OK : fail(s, st);
  } catch (const std::bad_alloc&) {
    return fail(s, Status(PSI_ERR_NO_MEMORY, "out of memory"));
  } catch (const std::exception& e) {
    return fail(s, Status(PSI_ERR_INTERNAL, std::string("internal error: ") + e.what()));
  } catch (...) {
    return fail(s, Status(PSI_ERR_INTERNAL, "internal error"));
  }
}

Status check_round(const psi_session* s, int phase, uint32_t round, bool emit) {
  if (phase != PSI_PHASE_SETUP && phase != PSI_PHASE_ONLINE)
    return psi::argument_error("phase must be 0 (setup) or 1 (online), not " +
                               std::to_string(phase));
  const char* pname = phase == PSI_PHASE_SETUP ? "setup" : "online";
  if (s->finished) return psi::state_error("all rounds are done");
  if (phase == PSI_PHASE_ONLINE && !s->input_set && s->phase == PSI_PHASE_ONLINE &&
      s->proto->needs_input())
    return psi::state_error("online round before psi_set_input");
  if (phase == PSI_PHASE_SETUP && s->phase == PSI_PHASE_SETUP && !s->input_set &&
      s->proto->setup_needs_input())
    return psi::state_error(std::string(pname) +
                            " round before psi_set_input: this party's setup "
                            "message is computed from its set");
  if (phase != s->phase || round != s->round || emit != s->emitting) {
    const char* next_pname = s->phase == PSI_PHASE_SETUP ? "setup" : "online";
    return psi::state_error(std::string(emit ? "emit" : "feed") + " of " + pname + " round " +
                            std::to_string(round) + " out of order: next is " +
                            (s->emitting ? "emit" : "feed") + " of " + next_pname + " round " +
                            std::to_string(s->round));
  }
  return Status::ok();
}

void copy_error(char* err, size_t cap, const std::string& msg) {
  if (err == nullptr || cap == 0) return;
  size_t n = msg.size() < cap - 1 ? msg.size() : cap - 1;
  std::memcpy(err, msg.data(), n);
  err[n] = '\0';
}

// Whether this CPU has the instructions psi-native is built for; if not, err names the missing
// ones.
bool cpu_supported(char* err, size_t err_cap) {
  if (const char* missing = psi::missing_cpu_feature()) {
    copy_error(
        err, err_cap,
        std::string("this CPU lacks the ") + missing + " instructions psi-native is built for");
    return false;
  }
  return true;
}

// The keyed objects without a session (psi_filter_positions, psi_token_prf) are a handle holding
// impl and the error text of its last failed call. create_handle is what creating one takes: out
// and the CPU checked, impl made by make(&impl) (a Status), exceptions turned into codes and err.
template <class Handle, class Make>
psi_status create_handle(Handle** out, char* err, size_t err_cap, Make&& make) {
  try {
    if (out == nullptr) {
      copy_error(err, err_cap, "out must not be NULL");
      return PSI_ERR_ARGUMENT;
    }
    *out = nullptr;
    if (!cpu_supported(err, err_cap)) {
      return PSI_ERR_ARGUMENT;
    }
    decltype(Handle::impl) impl;
    Status st = make(&impl);
    if (!st.is_ok()) {
      copy_error(err, err_cap, st.message());
      return st.code();
    }
    auto h = std::make_unique<Handle>();
    h->impl = std::move(impl);
    *out = h.release();
    return PSI_OK;
  } catch (const std::bad_alloc&) {
    copy_error(err, err_cap, "out of memory");
    return PSI_ERR_NO_MEMORY;
  } catch (...) {
    copy_error(err, err_cap, "internal error");
    return PSI_ERR_INTERNAL;
  }
}

// A call on such a handle: body() returns why its arguments are wrong (kept as the handle's error,
// prefixed with what), or does the work and returns "".
template <class Handle, class Body>
psi_status call_handle(const Handle* h, const char* what, Body&& body) {
  if (h == nullptr) return PSI_ERR_ARGUMENT;
  try {
    h->error.clear();
    std::string why = body();
    if (!why.empty()) {
      h->error = std::string(what) + ": " + why;
      return PSI_ERR_ARGUMENT;
    }
    return PSI_OK;
  } catch (const std::bad_alloc&) {
    return PSI_ERR_NO_MEMORY;
  } catch (...) {
    return PSI_ERR_INTERNAL;
  }
}

}  // namespace

extern "C" {

const char* psi_version(void) { return "psi-native 0.1.0 (abi 1)"; }

const char* psi_status_name(int status) {
  switch (status) {
    case PSI_OK:
      return "PSI_OK";
    case PSI_ERR_ARGUMENT:
      return "PSI_ERR_ARGUMENT";
    case PSI_ERR_STATE:
      return "PSI_ERR_STATE";
    case PSI_ERR_PEER_MESSAGE:
      return "PSI_ERR_PEER_MESSAGE";
    case PSI_ERR_INPUT:
      return "PSI_ERR_INPUT";
    case PSI_ERR_CAPACITY:
      return "PSI_ERR_CAPACITY";
    case PSI_ERR_NO_MEMORY:
      return "PSI_ERR_NO_MEMORY";
    case PSI_ERR_INTERNAL:
      return "PSI_ERR_INTERNAL";
    default:
      return "PSI_ERR_UNKNOWN";
  }
}

size_t psi_protocol_count(void) { return psi::protocol_count(); }

namespace {
psi_status copy_info(const psi_protocol_description* found, psi_protocol_description* out,
                     size_t out_size) {
  if (out == nullptr || out_size != sizeof(psi_protocol_description)) return PSI_ERR_ARGUMENT;
  if (found == nullptr) {
    std::memset(out, 0, sizeof *out);
    return PSI_ERR_ARGUMENT;
  }
  *out = *found;
  return PSI_OK;
}
}  // namespace

psi_status psi_protocol_info(size_t index, psi_protocol_description* out, size_t out_size) {
  return copy_info(psi::protocol_info_at(index), out, out_size);
}

psi_status psi_protocol_info_by_name(const char* name, psi_protocol_description* out,
                                     size_t out_size) {
  return copy_info(psi::find_protocol_info(name), out, out_size);
}

const char* psi_role_name(int role) {
  switch (role) {
    case PSI_ROLE_RECEIVER:
      return "receiver";
    case PSI_ROLE_SENDER:
      return "sender";
    case PSI_ROLE_HELPER:
      return "helper";
    case PSI_ROLE_PARTY:
      return "party";
    case PSI_ROLE_PROVIDER:
      return "provider";
    default:
      return "unknown";
  }
}

psi_status psi_session_create(const char* protocol, int role, const char* params,
                              const uint8_t* seed, size_t seed_len, psi_session** out, char* err,
                              size_t err_cap) {
  try {
    if (out == nullptr || protocol == nullptr || seed == nullptr) {
      copy_error(err, err_cap, "protocol, seed and out must not be NULL");
      return PSI_ERR_ARGUMENT;
    }
    *out = nullptr;
    if (!cpu_supported(err, err_cap)) {
      return PSI_ERR_ARGUMENT;
    }
    if (!sodium_ready()) {
      copy_error(err, err_cap, "libsodium failed to initialise");
      return PSI_ERR_INTERNAL;
    }
    if (seed_len != 32) {
      copy_error(err, err_cap, "seed must be 32 bytes, got " + std::to_string(seed_len));
      return PSI_ERR_ARGUMENT;
    }
    if (role < PSI_ROLE_RECEIVER || role > PSI_ROLE_PROVIDER) {
      copy_error(err, err_cap, "unknown role " + std::to_string(role));
      return PSI_ERR_ARGUMENT;
    }
    psi::Params p;
    Status st = psi::Params::parse(params, &p);
    std::unique_ptr<psi::Protocol> proto;
    if (st.is_ok()) proto = psi::make_protocol(protocol, psi_role(role), p, seed, &st);
    if (!st.is_ok() || !proto) {
      copy_error(err, err_cap, st.message());
      return st.is_ok() ? PSI_ERR_INTERNAL : st.code();
    }
    auto s = std::make_unique<psi_session>();
    s->proto = std::move(proto);
    advance(s.get(), 0);
    *out = s.release();
    return PSI_OK;
  } catch (const std::bad_alloc&) {
    copy_error(err, err_cap, "out of memory");
    return PSI_ERR_NO_MEMORY;
  } catch (...) {
    copy_error(err, err_cap, "internal error");
    return PSI_ERR_INTERNAL;
  }
}

void psi_session_free(psi_session* s) { delete s; }

const char* psi_session_error(const psi_session* s) { return s ? s->error.c_str() : ""; }

psi_status psi_round_count(const psi_session* s, int phase, uint32_t* count) {
  if (!s || !count || (phase != PSI_PHASE_SETUP && phase != PSI_PHASE_ONLINE))
    return PSI_ERR_ARGUMENT;
  *count = s->proto->round_count(psi_phase(phase));
  return PSI_OK;
}

psi_status psi_round_is_mine(const psi_session* s, int phase, uint32_t round, int* mine) {
  if (!s || !mine || (phase != PSI_PHASE_SETUP && phase != PSI_PHASE_ONLINE) ||
      round >= s->proto->round_count(psi_phase(phase)))
    return PSI_ERR_ARGUMENT;
  *mine = s->proto->is_mine(psi_phase(phase), round) ? 1 : 0;
  return PSI_OK;
}

psi_status psi_set_input(psi_session* s, const uint8_t* elements, size_t count,
                         size_t element_len) {
  return guarded(s, [&]() -> Status {
    if (elements == nullptr && count > 0) return psi::argument_error("elements is NULL");
    if (element_len == 0 || element_len > 4096)
      return psi::argument_error("element_len must be in [1, 4096]");
    if (count > SIZE_MAX / element_len) return psi::argument_error("count * element_len overflows");
    if (s->online_started) return psi::state_error("psi_set_input after the online rounds started");
    Status st = s->proto->set_input(elements, count, element_len);
    if (st.is_ok()) s->input_set = true;
    return st;
  });
}

psi_status psi_round_feed(psi_session* s, int phase, uint32_t round, const uint8_t* data,
                          size_t len, int last) {
  return guarded(s, [&]() -> Status {
    if (data == nullptr && len > 0) return psi::argument_error("data is NULL");
    PSI_RETURN_IF_ERROR(check_round(s, phase, round, false));
    (phase == PSI_PHASE_SETUP ? s->setup_started : s->online_started) = true;
    PSI_RETURN_IF_ERROR(
        s->proto->feed(psi_phase(phase), round, psi::ByteView(data, len), last != 0));
    if (last) s->emitting = true;
    return Status::ok();
  });
}

psi_status psi_round_feed_from(psi_session* s, int phase, uint32_t round, uint32_t peer,
                               const uint8_t* data, size_t len, int last) {
  return guarded(s, [&]() -> Status {
    if (data == nullptr && len > 0) return psi::argument_error("data is NULL");
    PSI_RETURN_IF_ERROR(check_round(s, phase, round, false));
    (phase == PSI_PHASE_SETUP ? s->setup_started : s->online_started) = true;
    bool complete = false;
    PSI_RETURN_IF_ERROR(s->proto->feed_from(psi_phase(phase), round, peer, psi::ByteView(data, len),
                                            last != 0, &complete));
    if (complete) s->emitting = true;
    return Status::ok();
  });
}

psi_status psi_set_group_secret(psi_session* s, const uint8_t* key, size_t len) {
  return guarded(s, [&]() -> Status {
    if (key == nullptr) return psi::argument_error("key is NULL");
    if (s->online_started)
      return psi::state_error("psi_set_group_secret after the online rounds started");
    return s->proto->set_group_secret(key, len);
  });
}

psi_status psi_round_emit(psi_session* s, int phase, uint32_t round, uint8_t* out, size_t cap,
                          size_t* written, int* done) {
  return guarded(s, [&]() -> Status {
    if (written == nullptr || done == nullptr || (out == nullptr && cap > 0))
      return psi::argument_error("out, written and done must not be NULL");
    *written = 0;
    *done = 0;
    PSI_RETURN_IF_ERROR(check_round(s, phase, round, true));
    bool d = false;
    PSI_RETURN_IF_ERROR(s->proto->emit(psi_phase(phase), round, out, cap, written, &d));
    if (d) {
      *done = 1;
      advance(s, round + 1);
    }
    return Status::ok();
  });
}

psi_status psi_setup_export(const psi_session* cs, uint8_t* out, size_t cap, size_t* len) {
  psi_session* s = const_cast<psi_session*>(cs);
  return guarded(s, [&]() -> Status {
    if (len == nullptr) return psi::argument_error("len must not be NULL");
    std::vector<uint8_t> blob;
    PSI_RETURN_IF_ERROR(s->proto->export_setup(&blob));
    *len = blob.size();
    if (out == nullptr) return Status::ok();
    if (cap < blob.size())
      return psi::argument_error("buffer of " + std::to_string(cap) + " bytes, setup needs " +
                                 std::to_string(blob.size()));
    std::memcpy(out, blob.data(), blob.size());
    psi::secure_wipe(blob.data(), blob.size());
    return Status::ok();
  });
}

psi_status psi_setup_import(psi_session* s, const uint8_t* data, size_t len) {
  return guarded(s, [&]() -> Status {
    if (data == nullptr && len > 0) return psi::argument_error("data is NULL");
    if (s->setup_started || s->phase != PSI_PHASE_SETUP)
      return psi::state_error("psi_setup_import after setup rounds started");
    PSI_RETURN_IF_ERROR(s->proto->import_setup(psi::ByteView(data, len)));
    s->phase = PSI_PHASE_ONLINE;
    advance(s, 0);
    return Status::ok();
  });
}

psi_status psi_result_size(const psi_session* cs, uint64_t* count) {
  psi_session* s = const_cast<psi_session*>(cs);
  return guarded(s, [&]() -> Status {
    if (count == nullptr) return psi::argument_error("count must not be NULL");
    if (!s->finished) return psi::state_error("result requested before the last online round");
    PSI_RETURN_IF_ERROR(s->proto->result_available());
    *count = s->proto->result_size();
    return Status::ok();
  });
}

psi_status psi_result_indices(const psi_session* cs, uint64_t* out, size_t cap, size_t* written) {
  psi_session* s = const_cast<psi_session*>(cs);
  return guarded(s, [&]() -> Status {
    if (written == nullptr || (out == nullptr && cap > 0))
      return psi::argument_error("out and written must not be NULL");
    if (!s->finished) return psi::state_error("result requested before the last online round");
    PSI_RETURN_IF_ERROR(s->proto->result_available());
    PSI_RETURN_IF_ERROR(s->proto->indices_available());
    const auto& r = s->proto->result();
    size_t n = r.size() < cap ? r.size() : cap;
    if (n) std::memcpy(out, r.data(), n * sizeof(uint64_t));
    *written = n;
    return Status::ok();
  });
}

psi_status psi_set_labels(psi_session* s, const uint8_t* labels, size_t count, size_t label_len) {
  return guarded(s, [&]() -> Status {
    if (labels == nullptr && count > 0) return psi::argument_error("labels is NULL");
    if (label_len == 0 || label_len > PSI_MAX_LABEL_BYTES)
      return psi::argument_error("label_len must be in [1, PSI_MAX_LABEL_BYTES]");
    if (count > SIZE_MAX / label_len) return psi::argument_error("count * label_len overflows");
    if (!s->input_set) return psi::state_error("psi_set_labels before psi_set_input");
    if (s->online_started)
      return psi::state_error("psi_set_labels after the online rounds started");
    return s->proto->set_labels(labels, count, label_len);
  });
}

psi_status psi_result_labels(const psi_session* cs, uint8_t* out, size_t cap, size_t* written) {
  psi_session* s = const_cast<psi_session*>(cs);
  return guarded(s, [&]() -> Status {
    if (written == nullptr || (out == nullptr && cap > 0))
      return psi::argument_error("out and written must not be NULL");
    if (!s->finished) return psi::state_error("result requested before the last online round");
    PSI_RETURN_IF_ERROR(s->proto->labels_available());
    const auto& l = s->proto->result_labels();
    if (out == nullptr) {
      *written = l.size();
      return Status::ok();
    }
    if (cap < l.size())
      return psi::argument_error("cap " + std::to_string(cap) + " is below the " +
                                 std::to_string(l.size()) + " bytes of the labels");
    if (!l.empty()) std::memcpy(out, l.data(), l.size());
    *written = l.size();
    return Status::ok();
  });
}

}  // extern "C"

// ---------------------------------------------------------------------------------------------------
// Payload AEAD: ChaCha20-Poly1305 (IETF). Stateless, so no session and no exception can occur.

namespace {

psi_status aead_args(const uint8_t* key, size_t key_len, const uint8_t* nonce, size_t nonce_len,
                     const void* in, size_t len, const uint8_t* out, size_t* written) {
  if (key == nullptr || nonce == nullptr || out == nullptr || written == nullptr ||
      (in == nullptr && len != 0) || key_len != PSI_AEAD_KEY_BYTES ||
      nonce_len != PSI_AEAD_NONCE_BYTES)
    return PSI_ERR_ARGUMENT;
  return sodium_ready() ? PSI_OK : PSI_ERR_INTERNAL;
}

}  // namespace

psi_status psi_aead_seal(const uint8_t* key, size_t key_len, const uint8_t* nonce, size_t nonce_len,
                         const uint8_t* plain, size_t len, uint8_t* out, size_t cap,
                         size_t* written) {
  psi_status st = aead_args(key, key_len, nonce, nonce_len, plain, len, out, written);
  if (st != PSI_OK) return st;
  if (len > SIZE_MAX - PSI_AEAD_TAG_BYTES || cap < len + PSI_AEAD_TAG_BYTES)
    return PSI_ERR_ARGUMENT;
  unsigned long long n = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(out, &n, plain, len, nullptr, 0, nullptr, nonce, key);
  *written = static_cast<size_t>(n);
  return PSI_OK;
}

psi_status psi_aead_open(const uint8_t* key, size_t key_len, const uint8_t* nonce, size_t nonce_len,
                         const uint8_t* sealed, size_t len, uint8_t* out, size_t cap,
                         size_t* written) {
  psi_status st = aead_args(key, key_len, nonce, nonce_len, sealed, len, out, written);
  if (st != PSI_OK) return st;
  if (len < PSI_AEAD_TAG_BYTES) return PSI_ERR_PEER_MESSAGE;
  if (cap < len - PSI_AEAD_TAG_BYTES) return PSI_ERR_ARGUMENT;
  unsigned long long n = 0;
  if (crypto_aead_chacha20poly1305_ietf_decrypt(out, &n, nullptr, sealed, len, nullptr, 0, nonce,
                                                key) != 0) {
    *written = 0;
    return PSI_ERR_PEER_MESSAGE;
  }
  *written = static_cast<size_t>(n);
  return PSI_OK;
}

psi_status psi_random_bytes(uint8_t* out, size_t len) {
  if (len == 0) return PSI_OK;
  if (out == nullptr) return PSI_ERR_ARGUMENT;
  if (!sodium_ready()) return PSI_ERR_INTERNAL;
  randombytes_buf(out, len);
  return PSI_OK;
}

// ---------------------------------------------------------------------------------------------------
// Prefilter positions. No session: a key, L and k; the object only adds the error text.

struct psi_filter_positions {
  std::unique_ptr<psi::FilterPositions> impl;
  mutable std::string error;  // of the last failed call; the object is thread-confined anyway
};

psi_status psi_filter_positions_create(const uint8_t* key, size_t key_len, uint32_t filter_bits,
                                       uint32_t hashes, psi_filter_positions** out, char* err,
                                       size_t err_cap) {
  return create_handle(out, err, err_cap, [&](std::unique_ptr<psi::FilterPositions>* impl) {
    return psi::FilterPositions::create(key, key_len, filter_bits, hashes, impl);
  });
}

psi_status psi_filter_positions_compute(const psi_filter_positions* f, const uint8_t* tokens,
                                        size_t count, size_t token_len, uint64_t* out,
                                        size_t out_len) {
  return call_handle(f, "filter positions", [&]() -> std::string {
    const size_t k = f->impl->hashes();
    if (token_len != psi::FilterPositions::kTokenBytes) {
      return "token_len must be " + std::to_string(psi::FilterPositions::kTokenBytes) + ", got " +
             std::to_string(token_len);
    }
    if (count != 0 && (tokens == nullptr || out == nullptr)) {
      return "tokens and out must not be NULL";
    }
    if (count > SIZE_MAX / token_len || count > SIZE_MAX / k) {
      return "count " + std::to_string(count) + " overflows the buffer sizes";
    }
    if (out_len != count * k) {
      return "out_len must equal count * hashes = " + std::to_string(count * k) + ", got " +
             std::to_string(out_len);
    }
    if (count != 0) f->impl->positions(tokens, count, out);
    return {};
  });
}

const char* psi_filter_positions_error(const psi_filter_positions* f) {
  return f == nullptr ? "" : f->error.c_str();
}

void psi_filter_positions_free(psi_filter_positions* f) { delete f; }

struct psi_token_prf {
  std::unique_ptr<psi::TokenPrf> impl;
  mutable std::string error;  // of the last failed call; the object is thread-confined anyway
};

psi_status psi_token_prf_create(const uint8_t* key, size_t key_len, psi_token_prf** out, char* err,
                                size_t err_cap) {
  return create_handle(out, err, err_cap, [&](std::unique_ptr<psi::TokenPrf>* impl) {
    return psi::TokenPrf::create(key, key_len, impl);
  });
}

psi_status psi_token_prf_compute(const psi_token_prf* t, const uint8_t* data, size_t data_len,
                                 const uint32_t* ends, size_t count, uint8_t* out, size_t out_len) {
  return call_handle(t, "token PRF", [&]() -> std::string {
    constexpr size_t kOut = psi::TokenPrf::kOutBytes;
    if (count != 0 && (ends == nullptr || out == nullptr)) return "ends and out must not be NULL";
    if (count > SIZE_MAX / kOut) {
      return "count " + std::to_string(count) + " overflows the output size";
    }
    if (out_len != count * kOut) {
      return "out_len must equal count * 16 = " + std::to_string(count * kOut) + ", got " +
             std::to_string(out_len);
    }
    if (count != 0 && data == nullptr && ends[count - 1] != 0) return "data must not be NULL";
    uint32_t prev = 0;
    for (size_t i = 0; i < count; ++i) {
      if (ends[i] < prev || ends[i] > data_len) {
        return "ends[" + std::to_string(i) + "] = " + std::to_string(ends[i]) +
               " is below ends[i-1] = " + std::to_string(prev) + " or beyond data_len " +
               std::to_string(data_len);
      }
      prev = ends[i];
    }
    if (count != 0) t->impl->compute(data, ends, count, out);
    return {};
  });
}

psi_status psi_token_bins(const uint8_t* key, size_t key_len, const uint8_t* tokens, size_t count,
                          uint32_t bins, uint32_t* out, size_t out_len) {
  if (key == nullptr || key_len != PSI_BIN_KEY_BYTES || bins == 0 || out_len != count)
    return PSI_ERR_ARGUMENT;
  if (count == 0) return PSI_OK;
  if (tokens == nullptr || out == nullptr || count > SIZE_MAX / 16) return PSI_ERR_ARGUMENT;
  psi::token_bins(key, tokens, count, bins, out);
  return PSI_OK;
}

const char* psi_token_prf_error(const psi_token_prf* t) {
  return t == nullptr ? "" : t->error.c_str();
}

void psi_token_prf_free(psi_token_prf* t) { delete t; }
