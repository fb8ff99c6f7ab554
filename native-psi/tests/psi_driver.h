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
  std::vector<uint8_t> setup;     // import this setup instead of running the setup rounds
};

struct Outcome {
  psi_status status = PSI_OK;
  std::string error;              // "role: message" of the failing call
  std::vector<uint64_t> receiver, sender;
  uint64_t bytes_receiver_to_sender = 0, bytes_sender_to_receiver = 0;
  std::vector<uint8_t> receiver_setup, sender_setup;  // exported after the run when requested
};

// Called on every chunk in flight: (phase, round, from_receiver, chunk) -> may modify the chunk.
using Tamper = std::function<void(int, uint32_t, bool, std::vector<uint8_t>*)>;

Outcome run_psi(const std::string& protocol, const Party& receiver, const Party& sender,
                size_t chunk = 1 << 16, const Tamper& tamper = nullptr, bool export_setup = false);

}  // namespace psi_test
