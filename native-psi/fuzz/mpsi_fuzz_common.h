// mpsi_fuzz_common.h — fuzzes one parser of the multiparty PSI ("mpsi"): three parties and the
// provider run for real (small sets, a setup made once per process and imported for the online
// targets), and the message of one round between party 0 and the provider is replaced by one made
// of the fuzzer's bytes, so each target feeds hostile bytes to exactly one parser. Any status is
// fine except an internal error; a crash or a sanitizer report is a bug.
#pragma once

#include <cstdlib>
#include <vector>

#include "../tests/mpsi_driver.h"

namespace mpsi_fuzz {

inline psi_test::MpsiRun base_run() {
  psi_test::MpsiRun run;
  run.params = "set_size=4,fpr=0.05,instance=9";
  run.chunk = 1 << 20;  // every message in one chunk
  run.sets.resize(3);
  for (size_t p = 0; p < 3; ++p)
    for (uint8_t e = 0; e < 4; ++e) {
      std::vector<uint8_t> el(16, uint8_t(e < 2 ? e : 16 * p + e));
      run.sets[p].insert(run.sets[p].end(), el.begin(), el.end());
    }
  return run;
}

// The setups of the three parties and the provider, made once.
inline const psi_test::MpsiOutcome& setup() {
  static const psi_test::MpsiOutcome once = [] {
    psi_test::MpsiRun run = base_run();
    run.export_setup = true;
    psi_test::MpsiOutcome o = psi_test::run_mpsi(run);
    if (o.status != PSI_OK) std::abort();
    return o;
  }();
  return once;
}

// Whether a chunk in flight is the message of (phase, round) that party 0 sends (round odd: to the
// provider) or receives (round even: from the provider).
inline bool is_target(int ph, uint32_t r, int from, int to, int phase, uint32_t round) {
  return ph == phase && r == round && (from == 0 || to == 0);
}

// The message the target gets from the fuzzer's bytes: a first byte 0x01 xors the rest into the
// honest message (bytes beyond it are appended), so mutations stay close to valid points and
// hints; any other first byte: the bytes themselves.
inline std::vector<uint8_t> message(const std::vector<uint8_t>& honest, const uint8_t* data,
                                    size_t size) {
  if (size == 0 || data[0] != 0x01) return std::vector<uint8_t>(data, data + size);
  std::vector<uint8_t> m = honest;
  if (m.size() < size - 1) m.resize(size - 1, 0);
  for (size_t i = 1; i < size; ++i) m[i - 1] ^= data[i];
  return m;
}

// Replaces the message of (phase, round) that party 0 sends or receives by message(honest, data).
inline void fuzz_round(int phase, uint32_t round, const uint8_t* data, size_t size) {
  psi_test::MpsiRun run = base_run();
  if (phase == PSI_PHASE_ONLINE) {
    run.party_setups = setup().party_setups;
    run.provider_setup = setup().provider_setup;
  }
  bool replaced = false;
  run.tamper = [&](int ph, uint32_t r, int from, int to, std::vector<uint8_t>* chunk) {
    if (!is_target(ph, r, from, to, phase, round)) return;
    if (replaced) {  // one chunk per message (run.chunk), but be safe
      chunk->clear();
      return;
    }
    *chunk = message(*chunk, data, size);
    replaced = true;
  };
  const psi_test::MpsiOutcome o = psi_test::run_mpsi(run);
  if (o.status == PSI_ERR_INTERNAL || o.status == PSI_ERR_NO_MEMORY) std::abort();
}

}  // namespace mpsi_fuzz
