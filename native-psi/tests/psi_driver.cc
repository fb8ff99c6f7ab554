#include "psi_driver.h"

#include <algorithm>
#include <array>
#include <random>
#include <set>

namespace psi_test {
namespace {

struct Sessions {
  psi_session* s[2] = {nullptr, nullptr};
  ~Sessions() {
    psi_session_free(s[0]);
    psi_session_free(s[1]);
  }
};

}  // namespace

Sets make_sets(size_t na, size_t nb, size_t common, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto rand_elem = [&]() {
    std::vector<uint8_t> e(16);
    for (auto& x : e) x = uint8_t(rng());
    return e;
  };
  std::vector<std::vector<uint8_t>> va, vb;
  for (size_t i = 0; i < common; ++i) {
    auto e = rand_elem();
    va.push_back(e);
    vb.push_back(e);
  }
  while (va.size() < na) va.push_back(rand_elem());
  while (vb.size() < nb) vb.push_back(rand_elem());
  std::shuffle(va.begin(), va.end(), rng);
  std::shuffle(vb.begin(), vb.end(), rng);
  Sets s;
  std::set<std::vector<uint8_t>> sa(va.begin(), va.end()), sb(vb.begin(), vb.end());
  for (size_t i = 0; i < va.size(); ++i) {
    s.a.insert(s.a.end(), va[i].begin(), va[i].end());
    if (sb.count(va[i])) s.expect_a.push_back(i);
  }
  for (size_t i = 0; i < vb.size(); ++i) {
    s.b.insert(s.b.end(), vb[i].begin(), vb[i].end());
    if (sa.count(vb[i])) s.expect_b.push_back(i);
  }
  return s;
}

std::string sizes(size_t na, size_t nb, const std::string& extra) {
  return "receiver_size=" + std::to_string(na) + ",sender_size=" + std::to_string(nb) +
         (extra.empty() ? "" : "," + extra);
}

Party party(int role, const std::vector<uint8_t>& elems, const std::string& params, uint8_t seed) {
  Party p;
  p.role = role;
  p.elements = elems;
  p.params = params;
  p.seed.assign(32, seed);
  return p;
}

Outcome run_psi(const std::string& protocol, const Party& receiver, const Party& sender,
                size_t chunk, const Tamper& tamper, bool export_setup) {
  Outcome out;
  Sessions ss;
  const Party* parties[2] = {&receiver, &sender};
  const char* names[2] = {"receiver", "sender"};
  char err[512];
  for (int i = 0; i < 2; ++i) {
    psi_status st = psi_session_create(protocol.c_str(), parties[i]->role,
                                       parties[i]->params.c_str(), parties[i]->seed.data(),
                                       parties[i]->seed.size(), &ss.s[i], err, sizeof err);
    if (st != PSI_OK) {
      out.status = st;
      out.error = std::string(names[i]) + ": " + err;
      return out;
    }
  }
  auto failed = [&](int i, psi_status st) {
    out.status = st;
    out.error = std::string(names[i]) + ": " + psi_session_error(ss.s[i]);
    return out;
  };
  for (int i = 0; i < 2; ++i) {
    if (!parties[i]->setup.empty()) {
      psi_status st = psi_setup_import(ss.s[i], parties[i]->setup.data(), parties[i]->setup.size());
      if (st != PSI_OK) return failed(i, st);
    }
    psi_status st =
        psi_set_input(ss.s[i], parties[i]->elements.data(), parties[i]->elements.size() / 16, 16);
    if (st != PSI_OK) return failed(i, st);
    if (i == 1 && parties[i]->label_len && !parties[i]->skip_set_labels) {
      st = psi_set_labels(ss.s[i], parties[i]->labels.data(), parties[i]->elements.size() / 16,
                          parties[i]->label_len);
      if (st != PSI_OK) return failed(i, st);
    }
  }
  std::vector<uint8_t> buf(chunk);
  for (int phase : {PSI_PHASE_SETUP, PSI_PHASE_ONLINE}) {
    if (phase == PSI_PHASE_SETUP && (!receiver.setup.empty() || !sender.setup.empty())) continue;
    uint32_t rounds = 0;
    psi_round_count(ss.s[0], phase, &rounds);
    for (uint32_t r = 0; r < rounds; ++r) {
      int mine = 0;
      psi_round_is_mine(ss.s[0], phase, r, &mine);
      const int owner = mine ? 0 : 1, peer = 1 - owner;
      if (r == 0) {
        psi_status st = psi_round_feed(ss.s[owner], phase, 0, nullptr, 0, 1);
        if (st != PSI_OK) return failed(owner, st);
      }
      const bool peer_feeds = r + 1 < rounds;
      for (;;) {
        size_t written = 0;
        int done = 0;
        psi_status st =
            psi_round_emit(ss.s[owner], phase, r, buf.data(), buf.size(), &written, &done);
        if (st != PSI_OK) return failed(owner, st);
        std::vector<uint8_t> piece(buf.begin(), buf.begin() + written);
        if (tamper) tamper(phase, r, owner == 0, &piece);
        (owner == 0 ? out.bytes_receiver_to_sender : out.bytes_sender_to_receiver) += piece.size();
        if (peer_feeds) {
          st = psi_round_feed(ss.s[peer], phase, r + 1, piece.data(), piece.size(), done);
          if (st != PSI_OK) return failed(peer, st);
        }
        if (done) break;
      }
    }
  }
  for (int i = 0; i < 2; ++i) {
    uint64_t n = 0;
    if (i == 1 && sender.label_len) {
      // The sender of a labelled run learns nothing: record what each result call says.
      std::vector<uint8_t> none(1);
      std::vector<uint64_t> idx(1);
      size_t w = 0;
      out.sender_size_status = psi_result_size(ss.s[i], &n);
      out.sender_indices_status = psi_result_indices(ss.s[i], idx.data(), 1, &w);
      out.sender_labels_status = psi_result_labels(ss.s[i], none.data(), 1, &w);
    }
    psi_status st = PSI_OK;
    if (!(i == 1 && sender.label_len)) {
      st = psi_result_size(ss.s[i], &n);
      if (st != PSI_OK) return failed(i, st);
      std::vector<uint64_t>& dst = i == 0 ? out.receiver : out.sender;
      dst.resize(n);
      size_t w = 0;
      st = psi_result_indices(ss.s[i], dst.data(), dst.size(), &w);
      if (st != PSI_OK) return failed(i, st);
      dst.resize(w);
    }
    if (i == 0 && receiver.label_len) {
      size_t len = 0;
      st = psi_result_labels(ss.s[i], nullptr, 0, &len);
      if (st != PSI_OK) return failed(i, st);
      out.labels.resize(len);
      st = psi_result_labels(ss.s[i], out.labels.data(), out.labels.size(), &len);
      if (st != PSI_OK) return failed(i, st);
      out.labels.resize(len);
    }
    if (export_setup) {
      size_t len = 0;
      psi_setup_export(ss.s[i], nullptr, 0, &len);
      std::vector<uint8_t>& blob = i == 0 ? out.receiver_setup : out.sender_setup;
      blob.resize(len);
      st = psi_setup_export(ss.s[i], blob.data(), blob.size(), &len);
      if (st != PSI_OK) return failed(i, st);
    }
  }
  return out;
}

}  // namespace psi_test
