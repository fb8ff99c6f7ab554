// mpsi_driver.h — runs a whole multiparty PSI ("mpsi": n party sessions and a provider session in
// one process, one thread) through the C ABI, streaming every message chunk by chunk from its
// sender's emit into its receivers' feeds: a party's message into the provider's
// psi_round_feed_from, the provider's broadcast into every party. CPU time is counted per role, as
// if each role ran on its own thread and never waited (tests and psi_bench).
#pragma once

#include <time.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "psi_native.h"

namespace psi_test {

struct MpsiRun {
  // "set_size=W[,fpr=F][,instance=I]"; parties and index are added per session
  std::string params;
  std::vector<std::vector<uint8_t>> sets;  // one per party, count * element_len bytes
  size_t element_len = 16;
  std::vector<uint8_t> group_secret = std::vector<uint8_t>(32, 7);
  size_t chunk = 1 << 16;
  uint8_t seed = 1;  // seeds of the sessions: seed + role index
  // import these setups instead of running the setup rounds (all or none)
  std::vector<std::vector<uint8_t>> party_setups;
  std::vector<uint8_t> provider_setup;
  bool export_setup = false;
  // Every chunk in flight: (phase, round of its receiver, from (party index, -1 = provider),
  // to (party index, -1 = provider), chunk) -> may change the chunk.
  std::function<void(int, uint32_t, int, int, std::vector<uint8_t>*)> tamper;
};

struct MpsiOutcome {
  psi_status status = PSI_OK;
  std::string error;  // "<role>: <message>" of the failing call
  std::vector<std::vector<uint64_t>> results;
  std::vector<double> party_seconds;
  double provider_seconds = 0;
  uint64_t bytes_to_provider = 0;    // from one party (the same for every party)
  uint64_t bytes_from_provider = 0;  // to one party
  std::vector<std::vector<uint8_t>> party_setups;
  std::vector<uint8_t> provider_setup;
};

inline double thread_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

inline MpsiOutcome run_mpsi(const MpsiRun& run) {
  const size_t n = run.sets.size();
  MpsiOutcome out;
  out.party_seconds.assign(n, 0);
  out.results.resize(n);
  std::vector<psi_session*> party(n, nullptr);
  psi_session* provider = nullptr;
  auto role_name = [](int who) {
    return who < 0 ? std::string("provider") : "party " + std::to_string(who);
  };
  auto session = [&](int who) { return who < 0 ? provider : party[size_t(who)]; };
  // Runs call() as role `who`, counting its time; false (and out set) on failure.
  auto as = [&](int who, const std::function<psi_status()>& call) {
    const double t0 = thread_seconds();
    const psi_status st = call();
    (who < 0 ? out.provider_seconds : out.party_seconds[size_t(who)]) += thread_seconds() - t0;
    if (st != PSI_OK && out.status == PSI_OK) {
      out.status = st;
      psi_session* s = session(who);
      out.error = role_name(who) + ": " + (s ? psi_session_error(s) : "create failed");
    }
    return st == PSI_OK;
  };
  auto cleanup = [&]() {
    for (auto* s : party) psi_session_free(s);
    psi_session_free(provider);
  };

  const std::string common = "parties=" + std::to_string(n) + "," + run.params;
  std::vector<uint8_t> seed(32, 0);
  char err[256];
  seed[0] = run.seed;
  if (!as(-1, [&] {
        return psi_session_create("mpsi", PSI_ROLE_PROVIDER, common.c_str(), seed.data(), 32,
                                  &provider, err, sizeof err);
      })) {
    out.error = std::string("provider: ") + err;
    cleanup();
    return out;
  }
  for (size_t p = 0; p < n; ++p) {
    seed[0] = uint8_t(run.seed + 1 + p);
    const std::string params = common + ",index=" + std::to_string(p);
    if (!as(int(p), [&] {
          return psi_session_create("mpsi", PSI_ROLE_PARTY, params.c_str(), seed.data(), 32,
                                    &party[p], err, sizeof err);
        })) {
      out.error = "party " + std::to_string(p) + ": " + err;
      cleanup();
      return out;
    }
    const auto& set = run.sets[p];
    if (!as(int(p),
            [&] {
              return psi_set_input(party[p], set.data(), set.size() / run.element_len,
                                   run.element_len);
            }) ||
        !as(int(p), [&] {
          return psi_set_group_secret(party[p], run.group_secret.data(), run.group_secret.size());
        })) {
      cleanup();
      return out;
    }
  }
  const bool import = !run.party_setups.empty();
  if (import) {
    for (size_t p = 0; p < n; ++p)
      if (!as(int(p), [&] {
            return psi_setup_import(party[p], run.party_setups[p].data(),
                                    run.party_setups[p].size());
          })) {
        cleanup();
        return out;
      }
    if (!as(-1, [&] {
          return psi_setup_import(provider, run.provider_setup.data(), run.provider_setup.size());
        })) {
      cleanup();
      return out;
    }
  }

  std::vector<uint8_t> buf(run.chunk), chunk;
  for (int phase = import ? PSI_PHASE_ONLINE : PSI_PHASE_SETUP; phase <= PSI_PHASE_ONLINE;
       ++phase) {
    uint32_t rounds = 0;
    psi_round_count(provider, phase, &rounds);
    for (uint32_t r = 0; r < rounds; ++r) {
      int provider_round = 0;
      psi_round_is_mine(provider, phase, r, &provider_round);
      if (!provider_round) {
        // Each party emits its message of round r; it streams into the provider's round r + 1.
        for (size_t p = 0; p < n; ++p) {
          if (r == 0 &&
              !as(int(p), [&] { return psi_round_feed(party[p], phase, 0, nullptr, 0, 1); })) {
            cleanup();
            return out;
          }
          for (int done = 0; !done;) {
            size_t written = 0;
            if (!as(int(p), [&] {
                  return psi_round_emit(party[p], phase, r, buf.data(), buf.size(), &written,
                                        &done);
                })) {
              cleanup();
              return out;
            }
            if (r + 1 >= rounds) continue;  // the last round sends nothing
            chunk.assign(buf.begin(), buf.begin() + long(written));
            if (run.tamper) run.tamper(phase, r + 1, int(p), -1, &chunk);
            if (phase == PSI_PHASE_ONLINE) out.bytes_to_provider += p == 0 ? chunk.size() : 0;
            if (!as(-1, [&] {
                  return psi_round_feed_from(provider, phase, r + 1, uint32_t(p), chunk.data(),
                                             chunk.size(), done);
                })) {
              cleanup();
              return out;
            }
          }
        }
      } else {
        // The provider's message of round r goes to every party's round r + 1.
        for (int done = 0; !done;) {
          size_t written = 0;
          if (!as(-1, [&] {
                return psi_round_emit(provider, phase, r, buf.data(), buf.size(), &written, &done);
              })) {
            cleanup();
            return out;
          }
          for (size_t p = 0; p < n; ++p) {
            chunk.assign(buf.begin(), buf.begin() + long(written));
            if (run.tamper) run.tamper(phase, r + 1, -1, int(p), &chunk);
            if (phase == PSI_PHASE_ONLINE) out.bytes_from_provider += p == 0 ? chunk.size() : 0;
            if (!as(int(p), [&] {
                  return psi_round_feed(party[p], phase, r + 1, chunk.data(), chunk.size(), done);
                })) {
              cleanup();
              return out;
            }
          }
        }
      }
    }
    if (phase == PSI_PHASE_SETUP && run.export_setup) {
      out.party_setups.resize(n);
      for (size_t p = 0; p < n; ++p) {
        size_t len = 0;
        psi_setup_export(party[p], nullptr, 0, &len);
        out.party_setups[p].resize(len);
        psi_setup_export(party[p], out.party_setups[p].data(), len, &len);
      }
      size_t len = 0;
      psi_setup_export(provider, nullptr, 0, &len);
      out.provider_setup.resize(len);
      psi_setup_export(provider, out.provider_setup.data(), len, &len);
    }
  }
  for (size_t p = 0; p < n; ++p) {
    uint64_t count = 0;
    if (!as(int(p), [&] { return psi_result_size(party[p], &count); })) break;
    out.results[p].resize(count);
    size_t written = 0;
    if (!as(int(p),
            [&] { return psi_result_indices(party[p], out.results[p].data(), count, &written); }))
      break;
  }
  cleanup();
  return out;
}

}  // namespace psi_test
