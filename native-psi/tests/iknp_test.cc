// iknp_test.cc — IKNP correlated OT extension with real base OTs (ot/base_ot.h): the oracle is the
// COT relation itself, q_j == t_j ^ r_j * Delta for every j, checked bit-wise from the choices.
#include "vole/iknp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "core/prg.h"
#include "ot/base_ot.h"

namespace psi {
namespace {

struct BaseOts {
  std::vector<std::array<Block, 2>> pairs;  // IKNP receiver = base-OT sender
  std::vector<Block> chosen;                // IKNP sender = base-OT receiver
  Block delta;                              // its choice bits
};

BaseOts run_base_ots(uint64_t seed) {
  Prg rs(make_block(seed, 1)), rr(make_block(seed, 2));
  BaseOts b;
  std::vector<uint8_t> choices(kIknpBaseOts);
  uint64_t d[2] = {rr.next_u64(), rr.next_u64()};
  for (size_t i = 0; i < kIknpBaseOts; ++i) choices[i] = (d[i / 64] >> (i % 64)) & 1;
  b.delta = make_block(d[1], d[0]);
  BaseOtSender snd(kIknpBaseOts, rs);
  BaseOtReceiver rcv(choices, rr);
  std::vector<uint8_t> reply;
  std::vector<uint8_t> a = snd.first_message();
  EXPECT_TRUE(rcv.respond(ByteView(a), &reply, &b.chosen).is_ok());
  EXPECT_TRUE(snd.finish(ByteView(reply), &b.pairs).is_ok());
  return b;
}

std::array<uint8_t, 32> instance(uint8_t x) {
  std::array<uint8_t, 32> i{};
  i.fill(x);
  return i;
}

bool choice(const std::vector<uint8_t>& r, size_t j) { return (r[j / 8] >> (j % 8)) & 1; }

TEST(Iknp, CorrelationHoldsForEveryOt) {
  BaseOts b = run_base_ots(11);
  auto inst = instance(7);
  IknpReceiver rcv(b.pairs.data(), inst.data());
  IknpSender snd(b.chosen.data(), b.delta, inst.data());
  EXPECT_TRUE(block_equal(snd.delta(), b.delta));
  Prg rng(make_block(9, 9));
  for (size_t count : {size_t(128), size_t(4096), size_t(4096 + 384), size_t(100096)}) {
    std::vector<uint8_t> r(count / 8), u(16 * count);
    rng.fill(r.data(), r.size());
    std::vector<Block> t(count), q(count);
    rcv.extend(0, count, r.data(), u.data(), t.data());
    snd.extend(0, count, u.data(), q.data());
    size_t ones = 0;
    for (size_t j = 0; j < count; ++j) {
      Block want = choice(r, j) ? t[j] ^ b.delta : t[j];
      ASSERT_TRUE(block_equal(q[j], want)) << count << " " << j;
      ones += choice(r, j);
    }
    EXPECT_GT(ones, count / 4);  // both kinds of choice were exercised
  }
}

TEST(Iknp, RangesAreAddressableAndConsistent) {
  // Extending [0, 8192) at once equals extending [0, 4224) and [4224, 8192) separately, on both
  // sides (the OT index is the CTR position).
  BaseOts b = run_base_ots(12);
  auto inst = instance(1);
  IknpReceiver rcv(b.pairs.data(), inst.data());
  IknpSender snd(b.chosen.data(), b.delta, inst.data());
  const size_t n = 8192, cut = 4224;
  std::vector<uint8_t> r(n / 8), u(16 * n), u1(16 * cut), u2(16 * (n - cut));
  Prg(make_block(5, 5)).fill(r.data(), r.size());
  std::vector<Block> t(n), t2(n), q(n);
  rcv.extend(0, n, r.data(), u.data(), t.data());
  rcv.extend(0, cut, r.data(), u1.data(), t2.data());
  rcv.extend(cut, n - cut, r.data() + cut / 8, u2.data(), t2.data() + cut);
  for (size_t j = 0; j < n; ++j) ASSERT_TRUE(block_equal(t[j], t2[j])) << j;
  snd.extend(cut, n - cut, u2.data(), q.data() + cut);
  snd.extend(0, cut, u1.data(), q.data());
  for (size_t j = 0; j < n; ++j)
    ASSERT_TRUE(block_equal(q[j], choice(r, j) ? t[j] ^ b.delta : t[j])) << j;
}

TEST(Iknp, InstancesGiveUnrelatedOutputs) {
  BaseOts b = run_base_ots(13);
  auto i1 = instance(1), i2 = instance(2);
  IknpReceiver r1(b.pairs.data(), i1.data()), r2(b.pairs.data(), i2.data());
  const size_t n = 1024;
  std::vector<uint8_t> r(n / 8, 0x5a), u1(16 * n), u2(16 * n);
  std::vector<Block> t1(n), t2(n);
  r1.extend(0, n, r.data(), u1.data(), t1.data());
  r2.extend(0, n, r.data(), u2.data(), t2.data());
  size_t same = 0, u_same = 0;
  for (size_t j = 0; j < n; ++j) same += block_equal(t1[j], t2[j]);
  for (size_t j = 0; j < 16 * n; ++j) u_same += u1[j] == u2[j];
  EXPECT_EQ(same, 0u);
  EXPECT_LT(u_same, 16 * n / 128);  // ~1/256 of bytes agree by chance
  // and the same instance twice is deterministic
  IknpReceiver r1b(b.pairs.data(), i1.data());
  std::vector<Block> t1b(n);
  r1b.extend(0, n, r.data(), u2.data(), t1b.data());
  for (size_t j = 0; j < n; ++j) ASSERT_TRUE(block_equal(t1[j], t1b[j]));
}

}  // namespace
}  // namespace psi

namespace psi {
namespace {

// IKNP extend of 100k OTs per side, single-threaded, median of 7; PSI_LARGE=1 to run.
TEST(IknpLarge, Timing) {
  if (!std::getenv("PSI_LARGE")) GTEST_SKIP() << "set PSI_LARGE=1";
  BaseOts b = run_base_ots(21);
  auto inst = instance(4);
  IknpReceiver rcv(b.pairs.data(), inst.data());
  IknpSender snd(b.chosen.data(), b.delta, inst.data());
  const size_t n = 100096;  // 100k rounded up to whole 128-OT blocks
  std::vector<uint8_t> r(n / 8, 0x3c), u(16 * n);
  std::vector<Block> t(n), q(n);
  std::vector<double> tr, ts;
  auto now = [] {  // thread CPU time: the machine is shared
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  };
  for (int rep = 0; rep < 7; ++rep) {
    const double t0 = now();
    rcv.extend(uint64_t(rep) * n, n, r.data(), u.data(), t.data());
    const double t1 = now();
    snd.extend(uint64_t(rep) * n, n, u.data(), q.data());
    const double t2 = now();
    tr.push_back(t1 - t0);
    ts.push_back(t2 - t1);
  }
  std::sort(tr.begin(), tr.end());
  std::sort(ts.begin(), ts.end());
  std::printf(
      "IKNP extend %zu OTs, thread CPU time, median of 7: receiver %.2f ms, sender %.2f ms\n", n,
      tr[3], ts[3]);
  EXPECT_TRUE(block_equal(q[5], t[5] ^ b.delta));  // r = 0x3c: bit 5 set
}

}  // namespace
}  // namespace psi
