// psi_driver.h — runs a whole PSI between two sessions of one process through the C ABI, streaming
// each message chunk by chunk from the owner's emit into the peer's feed (tests only).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "psi_native.h"

namespace psi_test {

struct Party {
  int role = PSI_ROLE_RECEIVER;
  std::string params;
  std::vector<uint8_t> elements;  // count * 16 bytes
  std::vector<uint8_t> seed = std::vector<uint8_t>(32, 0);
  std::vector<uint8_t> setup;  // import this setup instead of running the setup rounds
  // Labelled run (output=labels): the sender calls psi_set_labels(labels, count, label_len) after
  // psi_set_input (unless skip_set_labels), the receiver fetches psi_result_labels.
  size_t label_len = 0;
  std::vector<uint8_t> labels;
  bool skip_set_labels = false;
};

struct Outcome {
  psi_status status = PSI_OK;
  std::string error;  // "role: message" of the failing call
  std::vector<uint64_t> receiver, sender;
  uint64_t bytes_receiver_to_sender = 0, bytes_sender_to_receiver = 0;
  std::vector<uint8_t> receiver_setup, sender_setup;  // exported after the run when requested
  std::vector<uint8_t> labels;  // labelled run: the receiver's labels, in receiver's order
  // labelled run: what psi_result_size / psi_result_indices / psi_result_labels said to the sender
  psi_status sender_size_status = PSI_OK, sender_indices_status = PSI_OK,
             sender_labels_status = PSI_OK;
};

// Called on every chunk in flight: (phase, round, from_receiver, chunk) -> may modify the chunk.
using Tamper = std::function<void(int, uint32_t, bool, std::vector<uint8_t>*)>;

// Two sets of random 16-byte elements, `common` of them shared, shuffled independently on each
// side, with the intersection computed here as the oracle.
struct Sets {
  std::vector<uint8_t> a, b;                 // receiver (client), sender (server) elements
  std::vector<uint64_t> expect_a, expect_b;  // oracle: indices in the intersection
};
Sets make_sets(size_t na, size_t nb, size_t common, uint64_t seed);

// "receiver_size=na,sender_size=nb[,extra]"
std::string sizes(size_t na, size_t nb, const std::string& extra = "");

Party party(int role, const std::vector<uint8_t>& elems, const std::string& params, uint8_t seed);

Outcome run_psi(const std::string& protocol, const Party& receiver, const Party& sender,
                size_t chunk = 1 << 16, const Tamper& tamper = nullptr, bool export_setup = false);

}  // namespace psi_test
