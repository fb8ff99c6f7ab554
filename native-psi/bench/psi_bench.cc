// psi_bench — `./psi bench native|cuckoo`. Both roles run in one process, one thread each,
// connected by a bounded in-memory channel; every measured case runs in a forked child so its peak
// RSS is its own. Results are checked against the known intersection of the generated sets.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../tests/mpsi_driver.h"
#include "core/prg.h"
#include "cuckoo/cuckoo.h"
#include "protocols/ecdh/set_filter.h"
#include "psi_native.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One direction of the in-memory link: at most `cap` bytes in flight (back-pressure; a chunk is
// taken whenever the link is empty). In bytes, not chunks: emits return steps of any size.
class Channel {
 public:
  explicit Channel(size_t cap) : cap_(cap) {}
  void push(std::vector<uint8_t> chunk, bool last) {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return q_.empty() || in_flight_ + chunk.size() <= cap_ || closed_; });
    if (closed_) return;
    bytes_ += chunk.size();
    in_flight_ += chunk.size();
    q_.push_back({std::move(chunk), last});
    cv_.notify_all();
  }
  bool pop(std::vector<uint8_t>* chunk, bool* last) {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return false;
    *chunk = std::move(q_.front().data);
    *last = q_.front().last;
    in_flight_ -= chunk->size();
    q_.pop_front();
    cv_.notify_all();
    return true;
  }
  void close() {
    std::lock_guard<std::mutex> l(m_);
    closed_ = true;
    cv_.notify_all();
  }
  uint64_t bytes() const { return bytes_; }

 private:
  struct Item {
    std::vector<uint8_t> data;
    bool last;
  };
  size_t cap_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Item> q_;
  bool closed_ = false;
  uint64_t bytes_ = 0;
  size_t in_flight_ = 0;
};

struct PartyRun {
  psi_session* s = nullptr;
  std::string error;
  double setup_seconds = 0;
};

// Drives every round of one party: feeds what the peer sends, emits what it owes.
void drive(PartyRun* p, Channel* out, Channel* in, bool run_setup) {
  std::vector<uint8_t> buf(1 << 20), chunk;
  auto fail = [&](const std::string& what) {
    p->error = what + ": " + psi_session_error(p->s);
    out->close();
    in->close();
  };
  auto t0 = Clock::now();
  for (int phase : {PSI_PHASE_SETUP, PSI_PHASE_ONLINE}) {
    if (phase == PSI_PHASE_SETUP && !run_setup) continue;
    uint32_t rounds = 0;
    psi_round_count(p->s, phase, &rounds);
    for (uint32_t r = 0; r < rounds; ++r) {
      int mine = 0;
      psi_round_is_mine(p->s, phase, r, &mine);
      if (!mine) continue;
      if (r == 0) {
        if (psi_round_feed(p->s, phase, 0, nullptr, 0, 1) != PSI_OK) return fail("feed");
      } else {
        bool last = false;
        while (!last) {
          if (!in->pop(&chunk, &last)) {
            p->error = "peer stopped";
            out->close();
            return;
          }
          if (psi_round_feed(p->s, phase, r, chunk.data(), chunk.size(), last) != PSI_OK)
            return fail("feed");
        }
      }
      for (;;) {
        size_t w = 0;
        int done = 0;
        if (psi_round_emit(p->s, phase, r, buf.data(), buf.size(), &w, &done) != PSI_OK)
          return fail("emit");
        if (r + 1 < rounds) out->push(std::vector<uint8_t>(buf.begin(), buf.begin() + w), done);
        if (done) break;
      }
    }
    if (phase == PSI_PHASE_SETUP) p->setup_seconds = since(t0);
  }
}

struct Options {
  std::string protocol = "kkrt";
  std::vector<int> log2n = {16, 20};
  int runs = 3;
  bool json = false;
  double overlap = 0.5;
  std::string params;
  int trials = 20;
  uint64_t sender_n = 0, receiver_n = 0;  // unbalanced sizes (phased runs); 0: 2^log2n
  bool one_thread = false;                // both roles round after round on one thread (phased)
  std::string output = "both";            // output mode of the threaded runs (receiver, both)
  uint32_t labels = 0;                    // > 0: output=labels with labels of this many bytes
  std::vector<int> parties = {4};         // mpsi: the numbers of parties
  double fpr = std::ldexp(1.0, -40);      // mpsi: false-positive rate per element
};

struct Measure {
  double seconds = 0, setup = 0;
  uint64_t a_to_b = 0, b_to_a = 0, intersection = 0;
  bool correct = true;
  std::string error;
};

// Elements of A are PRG outputs; B shares the first `common` of them, in a shuffled order.
Measure run_once(const Options& o, uint64_t n, uint64_t seed) {
  Measure m;
  const uint64_t common = uint64_t(double(n) * o.overlap);
  std::vector<uint8_t> a(n * 16), b(n * 16);
  psi::Prg prg(psi::make_block(seed, 77));
  prg.fill(a.data(), a.size());
  prg.fill(b.data(), b.size());
  std::vector<uint64_t> perm(n);
  for (uint64_t i = 0; i < n; ++i) perm[i] = i;
  for (uint64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[prg.uniform(i)]);
  // B's positions of the common elements, as a bitmap: n bits, not 8 bytes per common element
  // held through the run and counted in its peak RSS
  std::vector<uint64_t> common_b((n + 63) / 64, 0);
  for (uint64_t i = 0; i < common; ++i) {
    std::memcpy(&b[perm[i] * 16], &a[i * 16], 16);
    common_b[perm[i] / 64] |= uint64_t(1) << (perm[i] % 64);
  }
  // labelled runs: the sender's labels (random), and the receiver's expected ones (its element i <
  // common is the sender's element perm[i])
  const size_t L = o.labels;
  std::vector<uint8_t> labels(L ? n * L : 0), expect_labels(L ? common * L : 0);
  if (L) {
    prg.fill(labels.data(), labels.size());
    for (uint64_t i = 0; i < common; ++i)
      std::memcpy(&expect_labels[i * L], &labels[perm[i] * L], L);
  }
  std::vector<uint64_t>().swap(perm);

  const std::string output = L ? "labels,label=" + std::to_string(L) : o.output;
  std::string params = "receiver_size=" + std::to_string(n) + ",sender_size=" + std::to_string(n) +
                       ",output=" + output + (o.params.empty() ? "" : "," + o.params);
  PartyRun pa, pb;
  uint8_t sa[32], sb[32];
  prg.fill(sa, 32);
  prg.fill(sb, 32);
  char err[512];
  auto t0 = Clock::now();
  if (psi_session_create(o.protocol.c_str(), PSI_ROLE_RECEIVER, params.c_str(), sa, 32, &pa.s, err,
                         sizeof err) != PSI_OK ||
      psi_session_create(o.protocol.c_str(), PSI_ROLE_SENDER, params.c_str(), sb, 32, &pb.s, err,
                         sizeof err) != PSI_OK) {
    m.error = err;
    return m;
  }
  Channel ab(size_t(16) << 20), ba(size_t(16) << 20);  // 16 MiB each way
  // Each party gives its input in its own thread, as it would in its own process.
  auto party = [&](PartyRun* p, std::vector<uint8_t>* input, Channel* out, Channel* in) {
    if (psi_set_input(p->s, input->data(), n, 16) != PSI_OK ||
        (p == &pb && L && psi_set_labels(pb.s, labels.data(), n, L) != PSI_OK)) {
      p->error = std::string("input: ") + psi_session_error(p->s);
      out->close();
      in->close();
      return;
    }
    std::vector<uint8_t>().swap(*input);  // the session holds its own copy
    if (p == &pb) std::vector<uint8_t>().swap(labels);
    drive(p, out, in, true);
  };
  std::thread ta(party, &pa, &a, &ab, &ba), tb(party, &pb, &b, &ba, &ab);
  ta.join();
  tb.join();
  m.seconds = since(t0);
  m.setup = std::max(pa.setup_seconds, pb.setup_seconds);
  m.a_to_b = ab.bytes();
  m.b_to_a = ba.bytes();
  if (!pa.error.empty() || !pb.error.empty()) {
    m.error = "receiver: " + pa.error + " sender: " + pb.error;
  } else {
    for (int side = 0; side < 2; ++side) {
      if (side == 1 && output != "both") break;  // the sender learns nothing
      psi_session* s = side == 0 ? pa.s : pb.s;
      uint64_t cnt = 0;
      psi_result_size(s, &cnt);
      std::vector<uint64_t> got(cnt);
      size_t w = 0;
      psi_result_indices(s, got.data(), got.size(), &w);
      if (side == 0) {
        m.intersection = cnt;
        for (uint64_t i = 0; i < cnt && m.correct; ++i) m.correct = got[i] == i;
        m.correct = m.correct && cnt == common;
        if (L) {
          std::vector<uint8_t> got_labels(cnt * L);
          m.correct = m.correct &&
                      psi_result_labels(s, got_labels.data(), got_labels.size(), &w) == PSI_OK &&
                      got_labels == expect_labels;
        }
      } else {
        // exactly B's common positions, in increasing order
        m.correct = m.correct && cnt == common;
        for (uint64_t i = 0; i < cnt && m.correct; ++i)
          m.correct = got[i] < n && (common_b[got[i] / 64] >> (got[i] % 64) & 1) &&
                      (i == 0 || got[i] > got[i - 1]);
      }
    }
  }
  psi_session_free(pa.s);
  psi_session_free(pb.s);
  return m;
}

uint64_t peak_rss_bytes() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return uint64_t(ru.ru_maxrss) * 1024;
}

// Runs `body` in a child process and relays its stdout; returns false if the child failed.
template <typename F>
bool in_child(F&& body) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int rc = body();
    std::fflush(stdout);
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int bench_phased(const Options& o);

int bench_native(const Options& o) {
  if (o.protocol == "ecdh" || o.one_thread) {
    if (o.labels) {
      std::fprintf(stderr, "psi_bench: --labels is for the threaded runs (rr22, kkrt)\n");
      return 2;
    }
    return bench_phased(o);
  }
  bool all_ok = true;
  if (!o.json)
    std::printf("%-9s %6s %4s %10s %10s %12s %12s %9s %12s %s\n", "protocol", "log2n", "runs",
                "seconds", "setup_s", "bytes_a2b", "bytes_b2a", "B/elem", "peak_rss_MiB", "check");
  for (int k : o.log2n) {
    const uint64_t n = uint64_t(1) << k;
    all_ok &= in_child([&]() {
      std::vector<double> secs, setups;
      Measure last;
      for (int r = 0; r < o.runs; ++r) {
        last = run_once(o, n, 1000 + r);
        if (!last.error.empty() || !last.correct) break;
        secs.push_back(last.seconds);
        setups.push_back(last.setup);
      }
      if (!last.error.empty() || !last.correct) {
        std::fprintf(stderr, "psi_bench: n=2^%d failed: %s\n", k,
                     last.error.empty() ? "wrong intersection" : last.error.c_str());
        return 1;
      }
      std::sort(secs.begin(), secs.end());
      std::sort(setups.begin(), setups.end());
      const double med = secs[secs.size() / 2], med_setup = setups[setups.size() / 2];
      const double per = double(last.a_to_b + last.b_to_a) / double(n);
      if (o.json)
        std::printf(
            "{\"protocol\":\"%s\",\"n\":%llu,\"log2n\":%d,\"runs\":%d,\"seconds\":%.4f,"
            "\"setup_seconds\":%.4f,\"online_seconds\":%.4f,\"bytes_a_to_b\":%llu,"
            "\"bytes_b_to_a\":%llu,\"bytes_per_element\":%.2f,\"peak_rss_bytes\":%llu,"
            "\"intersection\":%llu,\"correct\":true,\"output\":\"%s\",\"label_bytes\":%u,"
            "\"params\":\"%s\"}\n",
            o.protocol.c_str(), (unsigned long long)n, k, o.runs, med, med_setup, med - med_setup,
            (unsigned long long)last.a_to_b, (unsigned long long)last.b_to_a, per,
            (unsigned long long)peak_rss_bytes(), (unsigned long long)last.intersection,
            o.labels ? "labels" : o.output.c_str(), o.labels, o.params.c_str());
      else
        std::printf("%-9s %6d %4d %10.3f %10.3f %12llu %12llu %9.1f %12.0f %s\n",
                    o.protocol.c_str(), k, o.runs, med, med_setup, (unsigned long long)last.a_to_b,
                    (unsigned long long)last.b_to_a, per, double(peak_rss_bytes()) / (1 << 20),
                    (o.labels ? "ok output=labels label=" + std::to_string(o.labels)
                              : "ok output=" + o.output)
                        .c_str());
      return 0;
    });
  }
  return all_ok ? 0 : 1;
}

// ---- phased runs (ecdh): one thread drives both parties round by round, each message whole in
// memory, so every round's time is that of its owner alone (the shape of the OpenMined comparison).
double cpu_now() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Phased {
  double setup = 0, request = 0, response = 0, intersection = 0, total = 0;
  double setup_cpu = 0, request_cpu = 0, response_cpu = 0, intersection_cpu = 0;
  uint64_t setup_bytes = 0, request_bytes = 0, response_bytes = 0, other_bytes = 0;
  uint64_t intersection_size = 0;
  bool correct = true;
  std::string error;
};

bool output_given(const std::string& params) { return params.find("output=") != std::string::npos; }

Phased run_phased(const Options& o, uint64_t na, uint64_t nb, uint64_t seed) {
  Phased m;
  const uint64_t common = uint64_t(double(std::min(na, nb)) * o.overlap);
  std::vector<uint8_t> a(na * 16), b(nb * 16);
  psi::Prg prg(psi::make_block(seed, 78));
  prg.fill(a.data(), a.size());
  prg.fill(b.data(), b.size());
  std::vector<uint64_t> perm(nb);
  for (uint64_t i = 0; i < nb; ++i) perm[i] = i;
  for (uint64_t i = nb; i > 1; --i) std::swap(perm[i - 1], perm[prg.uniform(i)]);
  std::vector<uint64_t> expect_b;
  for (uint64_t i = 0; i < common; ++i) {
    std::memcpy(&b[perm[i] * 16], &a[i * 16], 16);
    expect_b.push_back(perm[i]);
  }
  std::sort(expect_b.begin(), expect_b.end());
  std::string out_mode = "receiver";
  if (output_given(o.params)) {
    size_t p = o.params.find("output=") + 7;
    out_mode = o.params.substr(p, o.params.find(',', p) - p);
  }
  std::string params =
      "receiver_size=" + std::to_string(na) + ",sender_size=" + std::to_string(nb) +
      (output_given(o.params) ? "" : ",output=receiver") + (o.params.empty() ? "" : "," + o.params);
  psi_session* s[2] = {nullptr, nullptr};
  uint8_t seeds[2][32];
  prg.fill(seeds[0], 32);
  prg.fill(seeds[1], 32);
  char err[512];
  for (int i = 0; i < 2; ++i)
    if (psi_session_create(o.protocol.c_str(), i, params.c_str(), seeds[i], 32, &s[i], err,
                           sizeof err) != PSI_OK) {
      m.error = err;
      for (auto* x : s) psi_session_free(x);
      return m;
    }
  auto t_all = Clock::now();
  if (psi_set_input(s[0], a.data(), na, 16) != PSI_OK ||
      psi_set_input(s[1], b.data(), nb, 16) != PSI_OK) {
    m.error = std::string("set_input: ") + psi_session_error(s[0]) + psi_session_error(s[1]);
  }
  std::vector<uint8_t>().swap(a);
  std::vector<uint8_t>().swap(b);
  std::vector<uint8_t> msg, next, buf(1 << 20);
  for (int phase : {PSI_PHASE_SETUP, PSI_PHASE_ONLINE}) {
    if (!m.error.empty()) break;
    uint32_t rounds = 0;
    psi_round_count(s[0], phase, &rounds);
    msg.clear();
    for (uint32_t r = 0; r < rounds && m.error.empty(); ++r) {
      int mine = 0;
      psi_round_is_mine(s[0], phase, r, &mine);
      psi_session* owner = mine ? s[0] : s[1];
      auto t0 = Clock::now();
      const double c0 = cpu_now();
      if (psi_round_feed(owner, phase, r, msg.data(), msg.size(), 1) != PSI_OK) {
        m.error = std::string("feed: ") + psi_session_error(owner);
        break;
      }
      next.clear();
      for (;;) {
        size_t w = 0;
        int done = 0;
        if (psi_round_emit(owner, phase, r, buf.data(), buf.size(), &w, &done) != PSI_OK) {
          m.error = std::string("emit: ") + psi_session_error(owner);
          break;
        }
        next.insert(next.end(), buf.begin(), buf.begin() + w);
        if (done) break;
      }
      const double secs = since(t0), cpu = cpu_now() - c0;
      if (phase == PSI_PHASE_SETUP) {
        m.setup += secs;
        m.setup_cpu += cpu;
        m.setup_bytes += next.size();
      } else if (r == 0) {
        m.request = secs;
        m.request_cpu = cpu;
        m.request_bytes = next.size();
      } else if (r == 1) {
        m.response = secs;
        m.response_cpu = cpu;
        m.response_bytes = next.size();
      } else {
        m.intersection += secs;
        m.intersection_cpu += cpu;
        m.other_bytes += next.size();
      }
      msg.swap(next);
    }
  }
  m.total = since(t_all);
  if (m.error.empty()) {
    uint64_t cnt = 0;
    psi_result_size(s[0], &cnt);
    m.intersection_size = cnt;
    m.correct = cnt == common;
    if (out_mode != "cardinality") {
      std::vector<uint64_t> got(cnt);
      size_t w = 0;
      psi_result_indices(s[0], got.data(), got.size(), &w);
      for (uint64_t i = 0; i < cnt && m.correct; ++i) m.correct = got[i] == i;
    }
    if (out_mode == "both") {
      uint64_t nbs = 0;
      psi_result_size(s[1], &nbs);
      std::vector<uint64_t> got(nbs);
      size_t w = 0;
      psi_result_indices(s[1], got.data(), got.size(), &w);
      m.correct = m.correct && got == expect_b;
    }
  }
  psi_session_free(s[0]);
  psi_session_free(s[1]);
  return m;
}

int bench_phased(const Options& o) {
  bool all_ok = true;
  std::vector<std::pair<uint64_t, uint64_t>> sizes;
  if (o.sender_n || o.receiver_n) {
    sizes.push_back(
        {o.receiver_n ? o.receiver_n : o.sender_n, o.sender_n ? o.sender_n : o.receiver_n});
  } else {
    for (int k : o.log2n) sizes.push_back({uint64_t(1) << k, uint64_t(1) << k});
  }
  if (!o.json)
    std::printf("%-6s %9s %9s %4s %9s %9s %9s %9s %9s %11s %11s %11s %s\n", "proto", "receiver",
                "sender", "runs", "total_s", "setup_s", "request_s", "response_s", "inters_s",
                "setup_B", "request_B", "response_B", "check");
  for (auto [na, nb] : sizes) {
    all_ok &= in_child([&, na = na, nb = nb]() {
      std::vector<Phased> runs;
      for (int r = 0; r < o.runs; ++r) {
        Phased p = run_phased(o, na, nb, 3000 + r);
        if (!p.error.empty() || !p.correct) {
          std::fprintf(stderr, "psi_bench: receiver %llu x sender %llu failed: %s\n",
                       (unsigned long long)na, (unsigned long long)nb,
                       p.error.empty() ? "wrong intersection" : p.error.c_str());
          return 1;
        }
        runs.push_back(p);
      }
      auto med = [&](double Phased::*f) {
        std::vector<double> v;
        for (auto& p : runs) v.push_back(p.*f);
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      const Phased& last = runs.back();
      const double total = med(&Phased::total), setup = med(&Phased::setup);
      const uint64_t a2b = last.request_bytes + (last.other_bytes ? last.other_bytes : 0);
      const uint64_t b2a = last.setup_bytes + last.response_bytes;
      const uint64_t n = std::max(na, nb);
      if (o.json)
        std::printf(
            "{\"protocol\":\"%s\",\"n\":%llu,\"log2n\":%d,\"runs\":%d,\"seconds\":%.4f,"
            "\"setup_seconds\":%.4f,\"online_seconds\":%.4f,\"bytes_a_to_b\":%llu,"
            "\"bytes_b_to_a\":%llu,\"bytes_per_element\":%.2f,\"peak_rss_bytes\":%llu,"
            "\"intersection\":%llu,\"correct\":true,\"params\":\"%s\","
            "\"receiver_n\":%llu,\"sender_n\":%llu,\"request_seconds\":%.4f,"
            "\"response_seconds\":%.4f,\"intersection_seconds\":%.4f,\"setup_bytes\":%llu,"
            "\"request_bytes\":%llu,\"response_bytes\":%llu,\"setup_cpu_seconds\":%.4f,"
            "\"request_cpu_seconds\":%.4f,\"response_cpu_seconds\":%.4f,"
            "\"intersection_cpu_seconds\":%.4f}\n",
            o.protocol.c_str(), (unsigned long long)n, int(std::log2(double(n))), o.runs, total,
            setup, total - setup, (unsigned long long)a2b, (unsigned long long)b2a,
            double(a2b + b2a) / double(n), (unsigned long long)peak_rss_bytes(),
            (unsigned long long)last.intersection_size, o.params.c_str(), (unsigned long long)na,
            (unsigned long long)nb, med(&Phased::request), med(&Phased::response),
            med(&Phased::intersection), (unsigned long long)last.setup_bytes,
            (unsigned long long)last.request_bytes, (unsigned long long)last.response_bytes,
            med(&Phased::setup_cpu), med(&Phased::request_cpu), med(&Phased::response_cpu),
            med(&Phased::intersection_cpu));
      else
        std::printf("%-6s %9llu %9llu %4d %9.3f %9.3f %9.3f %9.3f %9.3f %11llu %11llu %11llu %s\n",
                    o.protocol.c_str(), (unsigned long long)na, (unsigned long long)nb, o.runs,
                    total, setup, med(&Phased::request), med(&Phased::response),
                    med(&Phased::intersection), (unsigned long long)last.setup_bytes,
                    (unsigned long long)last.request_bytes, (unsigned long long)last.response_bytes,
                    "ok");
      return 0;
    });
  }
  return all_ok ? 0 : 1;
}

struct Variant {
  const char* name;
  psi::CuckooParams table;  // for the occupancy run (bins set below)
  const char* psi_params;   // for the PSI run
  double paper;             // Table III of the cuckoo-variants paper, percent (0: not listed)
};

int bench_cuckoo(const Options& o) {
  std::vector<Variant> vs = {
      {"3-way", {3, 1, false, 0, 0, 512}, "hashes=3", 93.5},
      {"2-way-2-slots", {2, 2, false, 0, 0, 512}, "hashes=2,slots=2,stash=4", 88.0},
      {"3-way-separate", {3, 1, true, 0, 0, 512}, "hashes=3,separate_tables=1", 93.5},
      {"4-way", {4, 1, false, 0, 0, 512}, "hashes=4", 0},
      {"2-way", {2, 1, false, 0, 0, 512}, "hashes=2,bin_factor=2.4,stash=4", 0},
  };
  const uint64_t slots_total = uint64_t(1) << 20;
  if (!o.json)
    std::printf("%-16s %12s %10s %10s %12s\n", "variant", "max_load_%", "paper_%", "psi_s",
                "B/elem");
  bool ok = true;
  const int k = o.log2n.back();
  for (const Variant& v : vs) {
    psi::CuckooParams p = v.table;
    p.bins = slots_total / p.slots_per_bin;
    if (p.separate_tables) p.bins = p.bins / p.hashes * p.hashes;
    const double load = psi::cuckoo_max_load(p, uint32_t(o.trials), 42) * 100;
    Options po = o;
    po.params = v.psi_params;
    std::vector<double> secs;
    Measure last;
    for (int r = 0; r < o.runs; ++r) {
      last = run_once(po, uint64_t(1) << k, 2000 + r);
      if (!last.error.empty() || !last.correct) break;
      secs.push_back(last.seconds);
    }
    if (!last.error.empty() || !last.correct) {
      std::fprintf(stderr, "psi_bench: %s failed: %s\n", v.name, last.error.c_str());
      ok = false;
      continue;
    }
    std::sort(secs.begin(), secs.end());
    const double per = double(last.a_to_b + last.b_to_a) / double(uint64_t(1) << k);
    if (o.json)
      std::printf(
          "{\"variant\":\"%s\",\"table_slots\":%llu,\"trials\":%d,\"max_load\":%.4f,"
          "\"paper_load\":%.3f,\"psi_log2n\":%d,\"psi_seconds\":%.4f,\"bytes_per_element\":%.2f,"
          "\"params\":\"%s\"}\n",
          v.name, (unsigned long long)slots_total, o.trials, load / 100, v.paper / 100, k,
          secs[secs.size() / 2], per, v.psi_params);
    else
      std::printf("%-16s %12.2f %10s %10.3f %12.1f\n", v.name, load,
                  v.paper > 0 ? std::to_string(v.paper).substr(0, 4).c_str() : "-",
                  secs[secs.size() / 2], per);
  }
  const double simple = psi::simple_hash_occupancy(slots_total, 42) * 100;
  if (o.json)
    std::printf(
        "{\"variant\":\"simple\",\"table_slots\":%llu,\"max_load\":%.4f,\"paper_load\":0.632}\n",
        (unsigned long long)slots_total, simple / 100);
  else
    std::printf("%-16s %12.2f %10s %10s %12s\n", "simple", simple, "63.2", "-", "-");
  return ok ? 0 : 1;
}

// Size of the ecdh setup message for n server elements, q queries and fpr, without the group
// arithmetic: the filter digests of H(y)^k are pseudorandom, so random 128-bit digests give the
// same distribution of sizes. (Used to compare sizes at another party's effective false-positive
// rate.)
int bench_gcs_size(uint64_t n, uint64_t q, double fpr) {
  psi::Prg prg(psi::make_block(4242, 1));
  std::vector<psi::ecdh::FilterKey> keys(n);
  for (auto& k : keys) {
    k.lo = prg.next_u64();
    k.hi = prg.next_u64();
  }
  std::vector<uint8_t> msg(4 + 8 + 1);  // magic, setup id, filter kind
  psi::ecdh::put_varint(&msg, n);
  psi::ecdh::put_varint(&msg, q);
  const size_t at = msg.size();
  auto t0 = Clock::now();
  psi::ecdh::gcs_encode(keys, psi::ecdh::gcs_range(n, q, fpr), &msg);
  const double enc = since(t0);
  t0 = Clock::now();
  psi::Status st = psi::ecdh::gcs_validate(psi::ByteView(msg.data() + at, msg.size() - at),
                                           psi::ecdh::gcs_range(n, q, fpr), n);
  const double dec = since(t0);
  std::printf(
      "{\"n\":%llu,\"queries\":%llu,\"fpr\":%g,\"setup_bytes\":%zu,\"encode_seconds\":%.4f,"
      "\"decode_seconds\":%.4f,\"valid\":%s}\n",
      (unsigned long long)n, (unsigned long long)q, fpr, msg.size(), enc, dec,
      st.is_ok() ? "true" : "false");
  return 0;
}

// `psi_bench mpsi`: n parties and the provider in one process and one thread, every message
// streamed chunk by chunk; CPU seconds counted per role (each role's own work, no waiting: the
// paper's "pipeline mode" measure). Every party holds 2^k elements, overlap * 2^k of them common to
// all; each party must find every common one, and the others it reports are counted as false
// positives (expected: fpr per element).
int bench_mpsi(const Options& o) {
  for (int n : o.parties) {
    for (int k : o.log2n) {
      const uint64_t w = uint64_t(1) << k;
      const uint64_t common = uint64_t(double(w) * o.overlap);
      std::vector<double> provider, party_max, party_mean;
      uint64_t up = 0, down = 0, false_positives = 0, others = 0;
      bool correct = true;
      std::string error;
      for (int run = 0; run < o.runs; ++run) {
        psi::Prg prg(psi::make_block(uint64_t(run) * 1000003 + uint64_t(n), uint64_t(k)));
        psi_test::MpsiRun r;
        char fpr[32];
        std::snprintf(fpr, sizeof fpr, "%.17g", o.fpr);
        r.params = "set_size=" + std::to_string(w) + ",fpr=" + fpr +
                   ",instance=" + std::to_string(run + 1) +
                   (o.params.empty() ? "" : "," + o.params);
        std::vector<uint8_t> shared(common * 16);
        prg.fill(shared.data(), shared.size());
        r.sets.resize(size_t(n));
        for (auto& s : r.sets) {
          s.resize(w * 16);
          std::memcpy(s.data(), shared.data(), shared.size());
          prg.fill(s.data() + shared.size(), s.size() - shared.size());
        }
        r.seed = uint8_t(run * 31 + 1);
        psi_test::MpsiOutcome out = psi_test::run_mpsi(r);
        if (out.status != PSI_OK) {
          correct = false;
          error = out.error;
          break;
        }
        double mx = 0, sum = 0;
        for (size_t p = 0; p < size_t(n); ++p) {
          mx = std::max(mx, out.party_seconds[p]);
          sum += out.party_seconds[p];
          // the common elements are indices 0 .. common-1: all of them must be found; any other
          // index found is a false positive (rate fpr per element)
          const auto& got = out.results[p];
          const uint64_t found = uint64_t(
              std::count_if(got.begin(), got.end(), [&](uint64_t i) { return i < common; }));
          correct &= found == common && std::is_sorted(got.begin(), got.end());
          false_positives += got.size() - found;
          others += w - common;
        }
        provider.push_back(out.provider_seconds);
        party_max.push_back(mx);
        party_mean.push_back(sum / n);
        up = out.bytes_to_provider, down = out.bytes_from_provider;
      }
      auto median = [](std::vector<double> v) {
        if (v.empty()) return 0.0;
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      char params[64];
      std::snprintf(params, sizeof params, "set_size=%llu,fpr=%g", (unsigned long long)w, o.fpr);
      // the filter shape the sessions used (psi_protocol_info has no per-run figures)
      const uint64_t positions = up / 192;  // (u, v) and a share, each point with a hint
      if (o.json)
        std::printf(
            "{\"protocol\":\"mpsi\",\"parties\":%d,\"log2n\":%d,\"n\":%llu,\"fpr\":%g,"
            "\"positions\":%llu,\"runs\":%d,\"provider_seconds\":%.3f,"
            "\"party_seconds_max\":%.3f,\"party_seconds_mean\":%.3f,"
            "\"bytes_party_to_provider\":%llu,\"bytes_provider_to_party\":%llu,"
            "\"false_positives\":%llu,\"non_common_elements\":%llu,\"correct\":%s%s%s}\n",
            n, k, (unsigned long long)w, o.fpr, (unsigned long long)positions, o.runs,
            median(provider), median(party_max), median(party_mean), (unsigned long long)up,
            (unsigned long long)down, (unsigned long long)false_positives,
            (unsigned long long)others, correct ? "true" : "false",
            error.empty() ? "" : ",\"error\":\"", error.empty() ? "" : (error + "\"").c_str());
      else
        std::printf(
            "mpsi n=%-2d 2^%-2d %s: %llu positions, provider %.2f s, party %.2f s (max) %.2f s "
            "(mean), per party %.1f MB up %.1f MB down, median of %d, %s (%llu false positives "
            "among %llu non-common elements)%s\n",
            n, k, params, (unsigned long long)positions, median(provider), median(party_max),
            median(party_mean), double(up) / 1e6, double(down) / 1e6, o.runs,
            correct ? "correct" : "WRONG", (unsigned long long)false_positives,
            (unsigned long long)others, error.empty() ? "" : (": " + error).c_str());
      std::fflush(stdout);
      if (!correct) return 1;
    }
  }
  return 0;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: psi_bench native [--protocol P] [--log2n K[,K...]] [--runs R] [--overlap F]\n"
      "                        [--params k=v,...] [--json] [--one-thread]\n"
      "                        [--output receiver|both] [--labels L] (output=labels, L-byte\n"
      "                        labels, checked against the sender's)\n"
      "                        --one-thread (always for ecdh): both roles' rounds one after the\n"
      "                        other on one thread, per-phase times; then also [--sender-n N]\n"
      "                        [--receiver-n N] (unbalanced sizes)\n"
      "       psi_bench cuckoo [--log2n K] [--trials T] [--runs R] [--json]\n"
      "       psi_bench gcs-size N QUERIES FPR   (ecdh setup message size, no group arithmetic)\n"
      "       psi_bench mpsi [--parties N[,N...]] [--log2n K[,K...]] [--fpr F] [--overlap F]\n"
      "                      [--params fill=F] [--runs R] [--json]   (multiparty PSI, CPU seconds\n"
      "                      per role)\n");
  return 2;
}

// "K[,K...]", each in [lo, hi]; std::out_of_range or std::invalid_argument otherwise.
std::vector<int> int_list(const std::string& v, int lo, int hi) {
  std::vector<int> out;
  for (size_t p = 0; p < v.size();) {
    size_t c = v.find(',', p);
    if (c == std::string::npos) c = v.size();
    const int k = std::stoi(v.substr(p, c - p));
    if (k < lo || k > hi) throw std::out_of_range("list value");
    out.push_back(k);
    p = c + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string mode = argv[1];
  if (mode == "gcs-size" && argc == 5)
    return bench_gcs_size(std::stoull(argv[2]), std::stoull(argv[3]), std::stod(argv[4]));
  Options o;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "psi_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--protocol")
        o.protocol = next();
      else if (a == "--log2n")
        o.log2n = int_list(next(), 0, 28);
      else if (a == "--runs")
        o.runs = std::max(1, std::stoi(next()));
      else if (a == "--overlap")
        o.overlap = std::stod(next());
      else if (a == "--params")
        o.params = next();
      else if (a == "--trials")
        o.trials = std::max(1, std::stoi(next()));
      else if (a == "--json")
        o.json = true;
      else if (a == "--one-thread")
        o.one_thread = true;
      else if (a == "--output")
        o.output = next();
      else if (a == "--labels")
        o.labels = uint32_t(std::stoul(next()));
      else if (a == "--parties")
        o.parties = int_list(next(), 2, 64);
      else if (a == "--fpr")
        o.fpr = std::stod(next());
      else if (a == "--sender-n")
        o.sender_n = std::stoull(next());
      else if (a == "--receiver-n")
        o.receiver_n = std::stoull(next());
      else
        return usage();
    } catch (const std::exception&) {
      std::fprintf(stderr, "psi_bench: bad value for %s\n", a.c_str());
      return 2;
    }
  }
  if (o.overlap < 0 || o.overlap > 1 || o.log2n.empty()) return usage();
  if (mode == "native") return bench_native(o);
  if (mode == "mpsi") {
    if (o.log2n.size() == 2 && o.log2n[0] == 16 && o.log2n[1] == 20) o.log2n = {6, 8, 10};
    return bench_mpsi(o);
  }
  if (mode == "cuckoo") {
    if (o.log2n.size() == 2 && o.log2n[0] == 16 && o.log2n[1] == 20) o.log2n = {16};
    return bench_cuckoo(o);
  }
  return usage();
}
