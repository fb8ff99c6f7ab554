// silent_vole_test.cc — silent VOLE over GF(2^128): the GGM trees against a slow recursive
// reference, the punctured trees against the full ones, and end to end the VOLE relation
// c[i] == b[i] ^ a[i] * Delta checked with a shift-and-add GF(2^128) reference (independent of
// gf128.cc's PCLMUL code), plus hostile messages.
#include "vole/silent_vole.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "core/aes.h"
#include "core/gf128.h"
#include "ot/base_ot.h"
#include "vole/ggm.h"
#include "vole/iknp.h"

namespace psi {
namespace {

// a * b by shift-and-add: for each set bit of b, add a * X^k; a * X by a 128-bit shift and, if
// X^128 appeared, adding X^7 + X^2 + X + 1.
Block ref_mul(Block a, Block b) {
  uint64_t alo = block_lo(a), ahi = block_hi(a), blo = block_lo(b), bhi = block_hi(b);
  uint64_t rlo = 0, rhi = 0;
  for (int k = 0; k < 128; ++k) {
    if (((k < 64 ? blo >> k : bhi >> (k - 64)) & 1) != 0) {
      rlo ^= alo;
      rhi ^= ahi;
    }
    const bool top = (ahi >> 63) != 0;
    ahi = (ahi << 1) | (alo >> 63);
    alo <<= 1;
    if (top) alo ^= 0x87;
  }
  return make_block(rhi, rlo);
}

// ----- GGM -----

// The slow reference: node (level, index) by recursion from the root, one PRG half at a time.
Block ref_node(Block root, uint32_t level, uint64_t index) {
  if (level == 0) return root;
  static const Aes128 k0(ggm_fixed_key(0)), k1(ggm_fixed_key(1));
  const Block parent = ref_node(root, level - 1, index >> 1);
  return ((index & 1) ? k1 : k0).encrypt(parent) ^ parent;
}

// Both AES kernels (VAES where the CPU has it, AES-NI) are checked.
class SilentVoleGgmKernel : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!ggm_use_vaes(GetParam()) && GetParam()) GTEST_SKIP() << "no VAES on this CPU";
  }
  void TearDown() override { ggm_use_vaes(true); }
};
INSTANTIATE_TEST_SUITE_P(SilentVoleGgm, SilentVoleGgmKernel, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Vaes" : "AesNi");
                         });

TEST_P(SilentVoleGgmKernel, ExpansionMatchesRecursiveReference) {
  Prg rng(make_block(1, 1));
  for (uint32_t depth : {1u, 2u, 5u, 9u}) {
    for (size_t trees : {size_t(1), size_t(3), size_t(8), size_t(11), size_t(17)}) {
      std::vector<Block> roots(trees), leaves(trees << depth), sums(2 * trees * depth);
      for (auto& r : roots) r = rng.next_block();
      ggm_expand(roots.data(), trees, depth, leaves.data(), sums.data());
      for (size_t i = 0; i < trees; ++i) {
        for (uint64_t k = 0; k < (uint64_t(1) << depth); ++k)
          ASSERT_TRUE(block_equal(leaves[(i << depth) + k], ref_node(roots[i], depth, k)))
              << depth << " " << trees << " " << i << " " << k;
        for (uint32_t l = 0; l < depth; ++l) {
          Block s[2] = {zero_block(), zero_block()};
          for (uint64_t k = 0; k < (uint64_t(2) << l); ++k)
            s[k & 1] ^= ref_node(roots[i], l + 1, k);
          ASSERT_TRUE(block_equal(sums[2 * (i * depth + l)], s[0]));
          ASSERT_TRUE(block_equal(sums[2 * (i * depth + l) + 1], s[1]));
        }
      }
    }
  }
}

TEST(SilentVoleGgm, KnownAnswer) {
  // Pins the PRG (keys, child order): leaf 1 of the depth-1 tree with root 0 is AES_k1(0) ^ 0, and
  // the fixed keys are the published constants.
  EXPECT_EQ(block_hi(ggm_fixed_key(0)), 0x243f6a8885a308d3ull);
  EXPECT_EQ(block_lo(ggm_fixed_key(1)), 0x082efa98ec4e6c89ull);
  Block root = zero_block(), leaves[2], sums[2];
  ggm_expand(&root, 1, 1, leaves, sums);
  EXPECT_TRUE(block_equal(leaves[1], Aes128(ggm_fixed_key(1)).encrypt(zero_block())));
  EXPECT_TRUE(block_equal(leaves[0], Aes128(ggm_fixed_key(0)).encrypt(zero_block())));
}

TEST_P(SilentVoleGgmKernel, PuncturedLeavesEqualSendersExceptAtAlpha) {
  Prg rng(make_block(2, 2));
  for (uint32_t depth : {1u, 3u, 8u}) {
    for (size_t trees : {size_t(1), size_t(9), size_t(16)}) {
      std::vector<Block> roots(trees), leaves(trees << depth), sums(2 * trees * depth);
      for (auto& r : roots) r = rng.next_block();
      ggm_expand(roots.data(), trees, depth, leaves.data(), sums.data());
      std::vector<uint64_t> alpha(trees);
      std::vector<Block> known(trees * depth), rleaves(trees << depth), leaf_xor(trees);
      for (size_t i = 0; i < trees; ++i) {
        alpha[i] = rng.uniform(uint64_t(1) << depth);
        if (i == 0) alpha[i] = 0;
        if (i == 1) alpha[i] = (uint64_t(1) << depth) - 1;
        for (uint32_t l = 0; l < depth; ++l) {
          const uint64_t not_taken = ((alpha[i] >> (depth - 1 - l)) & 1) ^ 1;
          known[i * depth + l] = sums[2 * (i * depth + l) + not_taken];
        }
      }
      ggm_expand_punctured(alpha.data(), known.data(), trees, depth, rleaves.data(),
                           leaf_xor.data());
      for (size_t i = 0; i < trees; ++i) {
        Block x = zero_block();
        for (uint64_t k = 0; k < (uint64_t(1) << depth); ++k) {
          const Block r = rleaves[(i << depth) + k], s = leaves[(i << depth) + k];
          if (k == alpha[i]) {
            ASSERT_TRUE(block_equal(r, zero_block()));
          } else {
            ASSERT_TRUE(block_equal(r, s)) << depth << " " << trees << " " << i << " " << k;
            x ^= s;
          }
        }
        ASSERT_TRUE(block_equal(leaf_xor[i], x));
      }
    }
  }
}

// ----- end to end -----

struct VoleRun {
  std::vector<Block> a, c, b;
  Block delta;
  Status status;
};

// One VOLE with simulated correlated OTs (t random, q = t ^ r * Delta: the COT definition),
// the message passed through `tamper`. With `x`, the receiver runs finish_masked on a copy of it
// and a, c are read back from its outputs (a = masked ^ x, c = the copy).
VoleRun run_vole(uint64_t m, uint64_t seed,
                 const std::function<void(std::vector<uint8_t>*)>& tamper = nullptr,
                 const std::vector<Block>* x = nullptr) {
  const LpnShape shape = lpn_shape(m);
  Prg rr(make_block(seed, 1)), rs(make_block(seed, 2)), ot(make_block(seed, 3));
  const Block code_seed = make_block(seed, 4), tweak = make_block(seed, 5);
  SilentVoleReceiver rcv(shape, code_seed, tweak, rr);
  SilentVoleSender snd(shape, code_seed, tweak, rs);
  EXPECT_EQ(rcv.cot_count(), snd.cot_count());
  EXPECT_EQ(rcv.cot_count(), shape.t * shape.depth + shape.t * 128);
  EXPECT_EQ(rcv.message_bytes(), snd.message_bytes());
  EXPECT_EQ(snd.message_bytes(), shape.t * (32 * shape.depth + 16));
  const size_t n = rcv.cot_count();
  std::vector<uint8_t> r((n + 7) / 8);
  rcv.choices(r.data());
  VoleRun out;
  out.delta = ot.next_block();
  std::vector<Block> t(n), q(n);
  for (size_t j = 0; j < n; ++j) {
    t[j] = ot.next_block();
    q[j] = ((r[j / 8] >> (j % 8)) & 1) ? t[j] ^ out.delta : t[j];
  }
  std::vector<uint8_t> msg(snd.message_bytes());
  out.b.resize(m);
  snd.run(q.data(), out.delta, msg.data(), out.b.data());
  if (tamper) tamper(&msg);
  out.a.resize(m);
  out.c.resize(m);
  if (x == nullptr) {
    out.status = rcv.finish(t.data(), ByteView(msg), out.a.data(), out.c.data());
    return out;
  }
  out.c = *x;
  out.status = rcv.finish_masked(t.data(), ByteView(msg), out.c.data(), out.a.data());
  for (size_t i = 0; i < m; ++i) out.a[i] ^= (*x)[i];
  return out;
}

class SilentVoleSizes : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SilentVoleSizes, CorrelationHoldsAtEveryIndex) {
  const uint64_t m = GetParam();
  VoleRun v = run_vole(m, m);
  ASSERT_TRUE(v.status.is_ok()) << v.status.message();
  // every index with gf128_mul_const, and with the reference on every index up to 5000 (a spread
  // sample of 4096 beyond)
  std::vector<Block> ad(m);
  gf128_mul_const(v.a.data(), v.delta, ad.data(), m);
  size_t zeros = 0;
  for (size_t i = 0; i < m; ++i) {
    ASSERT_TRUE(block_equal(v.c[i], v.b[i] ^ ad[i])) << i;
    zeros += block_equal(v.a[i], zero_block());
  }
  const uint64_t step = m <= 5000 ? 1 : m / 4096;
  for (uint64_t i = 0; i < m; i += step)
    ASSERT_TRUE(block_equal(v.c[i], v.b[i] ^ ref_mul(v.a[i], v.delta))) << i;
  EXPECT_LT(zeros, m);  // a is not all zero
}

// finish_masked (the PSI receiver's P + a and P := c in one pass) gives the same a and c as
// finish from the same randomness, whatever x holds.
TEST(SilentVole, FinishMaskedIsFinishWithTheMaskApplied) {
  for (uint64_t m : {uint64_t(1000), uint64_t(70000)}) {
    Prg prg(make_block(m, 99));
    std::vector<Block> x(m);
    prg.fill(x.data(), m * sizeof(Block));
    const VoleRun plain = run_vole(m, m + 7), fused = run_vole(m, m + 7, nullptr, &x);
    ASSERT_TRUE(plain.status.is_ok() && fused.status.is_ok());
    for (size_t i = 0; i < m; ++i) {
      ASSERT_TRUE(block_equal(plain.a[i], fused.a[i])) << i;
      ASSERT_TRUE(block_equal(plain.c[i], fused.c[i])) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SilentVole, SilentVoleSizes,
                         ::testing::Values(1, 2, 100, 1000, (1 << 12) + 3, 1 << 16, 1 << 20));

TEST(SilentVole, CorrelationHoldsWithAesNiKernel) {
  ggm_use_vaes(false);
  VoleRun v = run_vole(3000, 77);
  ggm_use_vaes(true);
  ASSERT_TRUE(v.status.is_ok());
  for (size_t i = 0; i < 3000; ++i)
    ASSERT_TRUE(block_equal(v.c[i], v.b[i] ^ ref_mul(v.a[i], v.delta))) << i;
}

TEST(SilentVole, OutputsDifferBetweenRunsAndAreNotZero) {
  VoleRun v1 = run_vole(1000, 101), v2 = run_vole(1000, 102);
  ASSERT_TRUE(v1.status.is_ok() && v2.status.is_ok());
  size_t same = 0, zero = 0;
  for (size_t i = 0; i < 1000; ++i) {
    same += block_equal(v1.a[i], v2.a[i]);
    zero += block_equal(v1.a[i], zero_block());
  }
  EXPECT_EQ(same, 0u);
  EXPECT_LT(zero, 10u);
}

TEST(SilentVole, WithRealIknpAndBaseOts) {
  // The integration the protocol will do: 128 base OTs, IKNP for the piece's COTs, one VOLE.
  Prg rs(make_block(7, 1)), rr(make_block(7, 2));
  std::vector<uint8_t> s_bits(kIknpBaseOts);
  uint64_t d[2] = {rr.next_u64(), rr.next_u64()};
  for (size_t i = 0; i < kIknpBaseOts; ++i) s_bits[i] = (d[i / 64] >> (i % 64)) & 1;
  const Block delta = make_block(d[1], d[0]);
  BaseOtSender bs(kIknpBaseOts, rs);
  BaseOtReceiver br(s_bits, rr);
  std::vector<uint8_t> reply, first = bs.first_message();
  std::vector<Block> chosen;
  std::vector<std::array<Block, 2>> pairs;
  ASSERT_TRUE(br.respond(ByteView(first), &reply, &chosen).is_ok());
  ASSERT_TRUE(bs.finish(ByteView(reply), &pairs).is_ok());
  uint8_t inst[32] = {3};
  IknpReceiver ir(pairs.data(), inst);
  IknpSender is(chosen.data(), delta, inst);

  const uint64_t m = 5000;
  const LpnShape shape = lpn_shape(m);
  SilentVoleReceiver vr(shape, make_block(1, 2), make_block(3, 4), rr);
  SilentVoleSender vs(shape, make_block(1, 2), make_block(3, 4), rs);
  const size_t n = (vr.cot_count() + 127) / 128 * 128;
  std::vector<uint8_t> choices(n / 8), u(16 * n), msg(vs.message_bytes());
  vr.choices(choices.data());
  std::vector<Block> t(n), q(n), a(m), b(m), c(m);
  ir.extend(0, n, choices.data(), u.data(), t.data());
  is.extend(0, n, u.data(), q.data());
  vs.run(q.data(), is.delta(), msg.data(), b.data());
  ASSERT_TRUE(vr.finish(t.data(), ByteView(msg), a.data(), c.data()).is_ok());
  for (size_t i = 0; i < m; ++i) ASSERT_TRUE(block_equal(c[i], b[i] ^ ref_mul(a[i], delta))) << i;
}

TEST(SilentVole, WrongSizeMessagesRejected) {
  for (int delta : {-1, +1, -16}) {
    VoleRun v = run_vole(1000, 5, [&](std::vector<uint8_t>* m) { m->resize(m->size() + delta); });
    EXPECT_EQ(v.status.code(), PSI_ERR_PEER_MESSAGE);
    EXPECT_NE(v.status.message().find("expected"), std::string::npos) << v.status.message();
  }
  VoleRun v = run_vole(100, 5, [](std::vector<uint8_t>* m) { m->clear(); });
  EXPECT_EQ(v.status.code(), PSI_ERR_PEER_MESSAGE);
}

TEST(SilentVole, FlippedByteBreaksCorrelationWithoutCrash) {
  const uint64_t m = 1000;
  const LpnShape shape = lpn_shape(m);
  const size_t tb = 32 * shape.depth + 16;
  // The first level of the first tree, the last level of a middle tree (one byte in both halves:
  // the receiver uses only the half of the side its path does not take), the d of the last tree.
  for (size_t pos : {size_t(0), (shape.t / 2) * tb + 32 * (shape.depth - 1) + 1,
                     (shape.t - 1) * tb + 32 * shape.depth + 3}) {
    VoleRun v = run_vole(m, 9, [&](std::vector<uint8_t>* msg) {
      (*msg)[pos] ^= 0x10;
      if (pos % tb < 32 * shape.depth) (*msg)[pos + 16] ^= 0x10;
    });
    ASSERT_TRUE(v.status.is_ok());
    size_t bad = 0;
    for (size_t i = 0; i < m; ++i) bad += !block_equal(v.c[i], v.b[i] ^ ref_mul(v.a[i], v.delta));
    EXPECT_GT(bad, 0u) << pos;
  }
}

}  // namespace
}  // namespace psi

namespace psi {
namespace {

// Timing at the size rr22 uses for n = 2^20 (m = 1.3 * 2^20), single-threaded, median of 5; run
// with PSI_LARGE=1 (skipped otherwise): PSI_LARGE=1 psi_tests --gtest_filter='SilentVoleLarge*'
double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(SilentVoleLarge, Timing) {
  if (!std::getenv("PSI_LARGE")) GTEST_SKIP() << "set PSI_LARGE=1";
  const uint64_t m = uint64_t(1.3 * (1 << 20));
  const LpnShape shape = lpn_shape(m);
  std::printf("m=%llu N=%llu t=%llu depth=%u cots=%llu msg=%llu bytes\n", (unsigned long long)m,
              (unsigned long long)shape.N, (unsigned long long)shape.t, shape.depth,
              (unsigned long long)(shape.t * (shape.depth + 128)),
              (unsigned long long)(shape.t * (32 * shape.depth + 16)));
  // thread CPU time: the machine is shared, wall time would count other processes' slices
  struct clk {
    static double now() {
      timespec ts;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
    }
  };
  auto ms = [](double a, double b) { return b - a; };
  std::vector<double> ts, tr, tl1, tl2;
  for (int rep = 0; rep < 5; ++rep) {
    Prg rr(make_block(rep, 1)), rs(make_block(rep, 2)), ot(make_block(rep, 3));
    SilentVoleReceiver rcv(shape, make_block(1, 1), make_block(2, 2), rr);
    SilentVoleSender snd(shape, make_block(1, 1), make_block(2, 2), rs);
    const size_t n = rcv.cot_count();
    std::vector<uint8_t> r((n + 7) / 8);
    rcv.choices(r.data());
    const Block delta = ot.next_block();
    std::vector<Block> t(n), q(n), a(m), b(m), c(m);
    for (size_t j = 0; j < n; ++j) {
      t[j] = ot.next_block();
      q[j] = ((r[j / 8] >> (j % 8)) & 1) ? t[j] ^ delta : t[j];
    }
    std::vector<uint8_t> msg(snd.message_bytes());
    auto t0 = clk::now();
    snd.run(q.data(), delta, msg.data(), b.data());
    auto t1 = clk::now();
    ASSERT_TRUE(rcv.finish(t.data(), ByteView(msg), a.data(), c.data()).is_ok());
    auto t2 = clk::now();
    ts.push_back(ms(t0, t1));
    tr.push_back(ms(t1, t2));
    for (size_t i = 0; i < m; i += 997)
      ASSERT_TRUE(block_equal(c[i], b[i] ^ gf128_mul(a[i], delta)));
    // the LPN part alone, on buffers already touched
    LpnCode code(shape, make_block(1, 1));
    std::vector<Block> x(shape.N, make_block(1, 2)), y(shape.N, make_block(3, 4));
    auto t3 = clk::now();
    code.dual_encode(x.data());
    auto t4 = clk::now();
    code.dual_encode2(x.data(), y.data());
    auto t5 = clk::now();
    tl1.push_back(ms(t3, t4));
    tl2.push_back(ms(t4, t5));
  }
  std::printf(
      "thread CPU time, median of 5: sender run %.1f ms, receiver finish %.1f ms, LPN dual_encode "
      "%.1f ms, "
      "dual_encode2 %.1f ms\n",
      median_ms(ts), median_ms(tr), median_ms(tl1), median_ms(tl2));
}

}  // namespace
}  // namespace psi
