// protocol.h — what a PSI protocol implements to plug into the C ABI. The ABI layer (src/api)
// checks call order (phases, rounds, feed-then-emit), catches exceptions and keeps the error text,
// so a protocol sees only well-ordered calls: for each of its rounds, feed() until last, then
// emit() until done. A protocol knows nothing of sockets, Flink or Java.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/bytes.h"
#include "../core/params.h"
#include "../core/status.h"
#include "psi_native.h"

namespace psi {

class Protocol {
 public:
  virtual ~Protocol() = default;
  virtual uint32_t round_count(psi_phase phase) const = 0;
  virtual bool is_mine(psi_phase phase, uint32_t round) const = 0;
  virtual Status set_input(const uint8_t* elements, size_t count, size_t element_len) = 0;
  virtual Status feed(psi_phase phase, uint32_t round, ByteView chunk, bool last) = 0;
  virtual Status emit(psi_phase phase, uint32_t round, uint8_t* out, size_t cap, size_t* written,
                      bool* done) = 0;
  virtual Status export_setup(std::vector<uint8_t>* out) const = 0;
  virtual Status import_setup(ByteView data) = 0;
  // Valid after the last online round, when result_available() (the sender of a labelled run has
  // no result at all: it learns nothing).
  virtual Status result_available() const { return Status::ok(); }
  virtual uint64_t result_size() const { return result().size(); }
  virtual const std::vector<uint64_t>& result() const = 0;
  // Whether psi_result_indices may be asked (a cardinality-only output has no indices to give).
  virtual Status indices_available() const { return Status::ok(); }
  // Labelled PSI (see psi_set_labels in psi_native.h). The ABI layer has checked labels != NULL
  // when count > 0 and that psi_set_input came first and no online round started; the protocol
  // checks count, label_len, its role and the round order it needs.
  virtual Status set_labels(const uint8_t* labels, size_t count, size_t label_len) {
    (void)labels, (void)count, (void)label_len;
    return state_error("this protocol does not take labels");
  }
  // Receiver of a labelled run, after the last online round: result().size() labels of
  // label_len() bytes, in result()'s order. Other cases: an error saying why there are none.
  virtual Status labels_available() const { return state_error("this run has no labels"); }
  virtual const std::vector<uint8_t>& result_labels() const {
    static const std::vector<uint8_t> none;
    return none;
  }
  // Whether this party's setup rounds need its input (a server whose setup message encodes its
  // set).
  virtual bool setup_needs_input() const { return false; }
  // Whether this role holds a set at all (the multiparty provider does not: its online rounds need
  // no psi_set_input).
  virtual bool needs_input() const { return true; }
  // Multiparty rounds whose owner takes one message from each of several peers (see
  // psi_round_feed_from): *complete becomes true with the last chunk of the last peer's message.
  virtual Status feed_from(psi_phase phase, uint32_t round, uint32_t peer, ByteView chunk,
                           bool last, bool* complete) {
    (void)phase, (void)round, (void)peer, (void)chunk, (void)last;
    *complete = false;
    return argument_error("this protocol's rounds take one peer's message: use psi_round_feed");
  }
  // The secret the parties of a multiparty run share with nobody else (psi_set_group_secret).
  virtual Status set_group_secret(const uint8_t* key, size_t len) {
    (void)key, (void)len;
    return state_error("this protocol takes no group secret");
  }
};

// The registry's self-descriptions (see psi_protocol_info in psi_native.h): static, immutable.
size_t protocol_count();
// nullptr when index >= protocol_count().
const psi_protocol_description* protocol_info_at(size_t index);
// nullptr for an unknown or NULL name.
const psi_protocol_description* find_protocol_info(const char* name);

// Creates the named protocol; on failure returns nullptr and sets *status.
std::unique_ptr<Protocol> make_protocol(const std::string& name, psi_role role,
                                        const Params& params, const uint8_t seed[32],
                                        Status* status);

// Copies the unsent tail of `buf` (from *pos) into out; sets done when all of it has gone.
inline void emit_from_buffer(const std::vector<uint8_t>& buf, size_t* pos, uint8_t* out, size_t cap,
                             size_t* written, bool* done) {
  size_t n = buf.size() - *pos < cap ? buf.size() - *pos : cap;
  if (n) std::memcpy(out, buf.data() + *pos, n);
  *pos += n;
  *written = n;
  *done = *pos == buf.size();
}

}  // namespace psi
