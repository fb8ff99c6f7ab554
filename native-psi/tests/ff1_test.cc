// FF1 (SP 800-38G Rev. 1): the generic implementation against NIST's AES-128 samples (FF1samples),
// the radix-2 fast path against the generic one for every filter width, inverses and the
// permutation property.
#include "core/ff1.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace psi;

namespace {

const uint8_t kNistKey[16] = {0x2B, 0x7E, 0x15, 0x16, 0x28, 0xAE, 0xD2, 0xA6,
                              0xAB, 0xF7, 0x15, 0x88, 0x09, 0xCF, 0x4F, 0x3C};

// "0123456789abcdefghi" in radix 36 -> numerals.
std::vector<uint32_t> numerals(const std::string& s) {
  std::vector<uint32_t> v;
  for (char c : s) v.push_back(c <= '9' ? uint32_t(c - '0') : uint32_t(c - 'a' + 10));
  return v;
}

std::string text(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += char(x < 10 ? '0' + x : 'a' + (x - 10));
  return s;
}

struct Sample {
  uint32_t radix;
  std::vector<uint8_t> tweak;
  std::string plain, cipher;
};

// NIST, "FF1samples.pdf" (Examples of SP 800-38G), samples 1-3: AES-128 key above.
const Sample kSamples[] = {
    {10, {}, "0123456789", "2433477484"},
    {10, {0x39, 0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31, 0x30}, "0123456789", "6124200773"},
    {36,
     {0x37, 0x37, 0x37, 0x37, 0x70, 0x71, 0x72, 0x73, 0x37, 0x37, 0x37},
     "0123456789abcdefghi",
     "a9tv40mll9kdu509eum"},
};

// The generic FF1 on the L-bit string STR^L_2(x), returned as NUM_2.
uint64_t generic_binary(const Ff1& f, uint32_t bits, uint64_t x, bool enc) {
  std::vector<uint32_t> s(bits), o(bits);
  for (uint32_t i = 0; i < bits; ++i) s[i] = uint32_t(x >> (bits - 1 - i)) & 1;
  Status st = enc ? f.encrypt(2, s.data(), bits, nullptr, 0, o.data())
                  : f.decrypt(2, s.data(), bits, nullptr, 0, o.data());
  EXPECT_TRUE(st.is_ok()) << st.message();
  uint64_t r = 0;
  for (uint32_t i = 0; i < bits; ++i) r = (r << 1) | o[i];
  return r;
}

}  // namespace

TEST(Ff1, NistSamplesAes128) {
  Ff1 f(kNistKey);
  for (const Sample& s : kSamples) {
    auto in = numerals(s.plain);
    std::vector<uint32_t> out(in.size()), back(in.size());
    ASSERT_TRUE(f.encrypt(s.radix, in.data(), in.size(), s.tweak.data(), s.tweak.size(), out.data())
                    .is_ok());
    EXPECT_EQ(text(out), s.cipher) << "radix " << s.radix;
    ASSERT_TRUE(
        f.decrypt(s.radix, out.data(), out.size(), s.tweak.data(), s.tweak.size(), back.data())
            .is_ok());
    EXPECT_EQ(text(back), s.plain);
  }
}

TEST(Ff1, TweakAndKeyChangeTheOutput) {
  // A wrong tweak or key must not reproduce the sample (guards against ignoring either).
  Ff1 f(kNistKey);
  auto in = numerals("0123456789");
  std::vector<uint32_t> out(10);
  const uint8_t tweak[10] = {0x39, 0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31, 0x31};
  ASSERT_TRUE(f.encrypt(10, in.data(), 10, tweak, 10, out.data()).is_ok());
  EXPECT_NE(text(out), "6124200773");
  uint8_t key2[16];
  std::memcpy(key2, kNistKey, 16);
  key2[15] ^= 1;
  Ff1 g(key2);
  ASSERT_TRUE(g.encrypt(10, in.data(), 10, nullptr, 0, out.data()).is_ok());
  EXPECT_NE(text(out), "2433477484");
}

TEST(Ff1, GenericRoundTripsManyShapes) {
  std::mt19937_64 rng(7);
  Ff1 f(kNistKey);
  for (uint32_t radix : {2u, 3u, 10u, 26u, 36u, 255u, 256u, 65535u, 65536u}) {
    for (size_t n : {size_t(2), size_t(3), size_t(7), size_t(16), size_t(17)}) {
      std::vector<uint32_t> in(n), out(n), back(n);
      for (auto& x : in) x = uint32_t(rng() % radix);
      std::vector<uint8_t> tweak(rng() % 40);
      for (auto& t : tweak) t = uint8_t(rng());
      Status st = f.encrypt(radix, in.data(), n, tweak.data(), tweak.size(), out.data());
      uint64_t half = 1;
      bool fits = true;
      for (size_t i = 0; i < n - n / 2; ++i) {
        if (half > UINT64_MAX / radix) fits = false;
        half *= radix;
      }
      if (!fits) {
        EXPECT_EQ(st.code(), PSI_ERR_ARGUMENT) << radix << " " << n;
        continue;
      }
      ASSERT_TRUE(st.is_ok()) << st.message();
      for (uint32_t x : out) EXPECT_LT(x, radix);
      ASSERT_TRUE(f.decrypt(radix, out.data(), n, tweak.data(), tweak.size(), back.data()).is_ok());
      EXPECT_EQ(back, in) << "radix " << radix << " n " << n;
    }
  }
}

TEST(Ff1, GenericRejectsBadArguments) {
  Ff1 f(kNistKey);
  std::vector<uint32_t> in = {1, 2, 3, 4}, out(4);
  EXPECT_EQ(f.encrypt(1, in.data(), 4, nullptr, 0, out.data()).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(f.encrypt(65537, in.data(), 4, nullptr, 0, out.data()).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(f.encrypt(10, in.data(), 1, nullptr, 0, out.data()).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(f.encrypt(4, in.data(), 4, nullptr, 0, out.data()).code(), PSI_ERR_ARGUMENT);  // 4>=4
  EXPECT_EQ(f.encrypt(10, in.data(), 4, nullptr, 3, out.data()).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(f.encrypt(10, nullptr, 4, nullptr, 0, out.data()).code(), PSI_ERR_ARGUMENT);
  std::vector<uint32_t> wide(40, 1), wout(40);  // 10^20 > 2^64
  EXPECT_EQ(f.encrypt(10, wide.data(), 40, nullptr, 0, wout.data()).code(), PSI_ERR_ARGUMENT);
  EXPECT_TRUE(f.encrypt(10, wide.data(), 38, nullptr, 0, wout.data()).is_ok());  // 10^19 < 2^64
}

TEST(Ff1Binary, EqualsGenericForEveryFilterWidth) {
  std::mt19937_64 rng(11);
  std::vector<uint32_t> widths;
  for (uint32_t l = 16; l <= 36; ++l) widths.push_back(l);
  for (uint32_t l : {2u, 3u, 8u, 15u, 40u, 57u, 63u, 64u}) widths.push_back(l);
  for (uint32_t l : widths) {
    for (auto kernel : {Ff1Binary::Kernel::kAuto, Ff1Binary::Kernel::kAesNi}) {
      uint8_t key[16];
      for (auto& k : key) k = uint8_t(rng());
      Ff1 slow(key);
      Ff1Binary fast(key, l, kernel);
      if (kernel == Ff1Binary::Kernel::kAesNi) {
        EXPECT_FALSE(fast.uses_vaes());
      }
      const uint64_t mask = l == 64 ? ~uint64_t{0} : (uint64_t{1} << l) - 1;
      std::vector<uint64_t> xs(67), batch(67);
      for (auto& x : xs) x = rng() & mask;
      xs[0] = 0;
      xs[1] = mask;
      fast.encrypt_batch(xs.data(), batch.data(), xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        const uint64_t want = generic_binary(slow, l, xs[i], true);
        EXPECT_EQ(fast.encrypt(xs[i]), want) << "L=" << l << " x=" << xs[i];
        EXPECT_EQ(batch[i], want) << "batch, L=" << l << " i=" << i;
        EXPECT_EQ(fast.decrypt(want), xs[i]) << "L=" << l;
        EXPECT_EQ(generic_binary(slow, l, want, false), xs[i]) << "L=" << l;
      }
    }
  }
}

TEST(Ff1Binary, KernelsAgreeOnLongBatches) {
  // 16 per VAES step, 8 per AES-NI step, and ragged tails of both
  uint8_t key[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
  Ff1Binary vaes(key, 28), aesni(key, 28, Ff1Binary::Kernel::kAesNi);
  if (!vaes.uses_vaes()) std::printf("(no VAES on this CPU: both kernels are AES-NI)\n");
  std::mt19937_64 rng(3);
  for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(17), size_t(24), size_t(31),
                   size_t(1000)}) {
    std::vector<uint64_t> in(n), a(n), b(n);
    for (auto& x : in) x = rng() & ((uint64_t{1} << 28) - 1);
    vaes.encrypt_batch(in.data(), a.data(), n);
    aesni.encrypt_batch(in.data(), b.data(), n);
    EXPECT_EQ(a, b) << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], aesni.encrypt(in[i])) << n << " " << i;
  }
}

TEST(Ff1Binary, BatchAliasesAndIsAPermutationAt16Bits) {
  uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  Ff1Binary f(key, 16);
  std::vector<uint64_t> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  f.encrypt_batch(v.data(), v.data(), v.size());  // in place
  std::vector<uint8_t> seen(1 << 16, 0);
  size_t fixed = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_LT(v[i], uint64_t{1} << 16);
    EXPECT_EQ(seen[v[i]]++, 0) << "output " << v[i] << " twice";
    fixed += v[i] == i;
    ASSERT_EQ(f.decrypt(v[i]), i);
  }
  // A random permutation of 2^16 points has ~1 fixed point (Poisson(1)); an identity-like bug has
  // thousands.
  EXPECT_LT(fixed, 12u);
}
