// Prefilter positions p_j(t) = FF1_K1(h_j(t)) (prefilter/positions.h) against a slow reference
// composed from OpenSSL's AES (the hash) and the generic FF1 (tests/ff1_test.cc pins it to NIST's
// samples); range, determinism, key dependence and uniformity; the C ABI's argument checks.
#include "prefilter/positions.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/ff1.h"
#include "psi_native.h"

using namespace psi;

namespace {

void openssl_aes(const uint8_t key[16], const uint8_t in[16], uint8_t out[16]) {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  int n = 0;
  EXPECT_EQ(EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), nullptr, key, nullptr), 1);
  EVP_CIPHER_CTX_set_padding(c, 0);
  EXPECT_EQ(EVP_EncryptUpdate(c, out, &n, in, 16), 1);
  EXPECT_EQ(n, 16);
  EVP_CIPHER_CTX_free(c);
}

// The header's definition, literally: K2_i = AES_K2(i), H_i = AES_{K2_i}(t), h_j = bits
// [j*L, (j+1)*L) of H as a little-endian integer, p_j = NUM_2(FF1_K1(STR^L_2(h_j))).
std::vector<uint64_t> reference(const uint8_t key[32], uint32_t bits, uint32_t hashes,
                                const uint8_t token[16]) {
  const size_t nb = (size_t{hashes} * bits + 127) / 128;
  std::vector<uint8_t> h(16 * nb);
  for (size_t i = 0; i < nb; ++i) {
    uint8_t index[16] = {0}, subkey[16];
    index[15] = uint8_t(i);
    openssl_aes(key + 16, index, subkey);
    openssl_aes(subkey, token, &h[16 * i]);
  }
  Ff1 ff1(key);
  std::vector<uint64_t> out;
  for (uint32_t j = 0; j < hashes; ++j) {
    std::vector<uint32_t> s(bits), c(bits);
    for (uint32_t q = 0; q < bits; ++q) {  // STR^L_2: most significant bit first
      const size_t bit = size_t{j} * bits + (bits - 1 - q);
      s[q] = (h[bit / 8] >> (bit % 8)) & 1;
    }
    EXPECT_TRUE(ff1.encrypt(2, s.data(), bits, nullptr, 0, c.data()).is_ok());
    uint64_t p = 0;
    for (uint32_t q = 0; q < bits; ++q) p = (p << 1) | c[q];
    out.push_back(p);
  }
  return out;
}

std::unique_ptr<FilterPositions> make(const uint8_t key[32], uint32_t bits, uint32_t hashes) {
  std::unique_ptr<FilterPositions> f;
  Status st = FilterPositions::create(key, 32, bits, hashes, &f);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return f;
}

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(r());
  return v;
}

// The known-answer vector FilterPositionsJnaTest checks too: key bytes 0..31, tokens 16 bytes of
// (17*i + b) mod 256 for token i, byte b.
std::vector<uint8_t> kat_key() {
  std::vector<uint8_t> k(32);
  for (size_t i = 0; i < 32; ++i) k[i] = uint8_t(i);
  return k;
}
std::vector<uint8_t> kat_tokens(size_t n) {
  std::vector<uint8_t> t(16 * n);
  for (size_t i = 0; i < n; ++i)
    for (size_t b = 0; b < 16; ++b) t[16 * i + b] = uint8_t(17 * i + b);
  return t;
}

}  // namespace

TEST(FilterPositions, EqualsSlowReference) {
  struct Shape {
    uint32_t bits, hashes;
  };
  // one block (k*L <= 128), exactly 128 bits, and several blocks up to the maximum (5)
  const Shape shapes[] = {{16, 1}, {16, 3}, {16, 8}, {20, 7},  {28, 3},  {28, 5},
                          {33, 4}, {36, 3}, {36, 4}, {36, 16}, {17, 16}, {31, 9}};
  uint64_t seed = 1;
  for (const Shape& s : shapes) {
    auto key = random_bytes(32, seed++);
    auto f = make(key.data(), s.bits, s.hashes);
    ASSERT_TRUE(f);
    const size_t n = 75;  // more than one chunk of AES batches, plus a ragged tail
    auto tokens = random_bytes(16 * n, seed++);
    std::vector<uint64_t> got(n * s.hashes);
    f->positions(tokens.data(), n, got.data());
    for (size_t i = 0; i < n; i += (i < 10 ? 1 : 13)) {
      auto want = reference(key.data(), s.bits, s.hashes, &tokens[16 * i]);
      for (uint32_t j = 0; j < s.hashes; ++j)
        ASSERT_EQ(got[i * s.hashes + j], want[j])
            << "L=" << s.bits << " k=" << s.hashes << " token " << i << " j " << j;
    }
  }
}

TEST(FilterPositions, KnownAnswerSharedWithJava) {
  auto key = kat_key();
  auto tokens = kat_tokens(4);
  struct Kat {
    uint32_t bits, hashes;
    std::vector<uint64_t> want;
  };
  const Kat kats[] = {
      {20,
       3,
       {457638, 554785, 674711, 269311, 8350, 247097, 617160, 523977, 803678, 1001976, 650843,
        146641}},
      {36, 5, {31875587839, 31048157171, 28319323529, 41250104071, 50870088641,
               6502607093,  33126081934, 60246827752, 32676134593, 64233091411,
               28706240930, 27363938380, 21045900100, 39773666066, 34812275747,
               33800305936, 63761163982, 26513349521, 41454961247, 3248159735}},
  };
  for (const Kat& k : kats) {
    auto f = make(key.data(), k.bits, k.hashes);
    std::vector<uint64_t> got(4 * k.hashes);
    f->positions(tokens.data(), 4, got.data());
    for (size_t i = 0; i < 4; ++i) {
      auto want = reference(key.data(), k.bits, k.hashes, &tokens[16 * i]);
      for (uint32_t j = 0; j < k.hashes; ++j) EXPECT_EQ(got[i * k.hashes + j], want[j]);
    }
    EXPECT_EQ(got, k.want) << "L=" << k.bits << " k=" << k.hashes;
  }
}

TEST(FilterPositions, RangeDeterminismAndKeyDependence) {
  auto key = random_bytes(32, 99);
  const size_t n = 1000;
  auto tokens = random_bytes(16 * n, 100);
  for (uint32_t bits : {16u, 23u, 36u}) {
    auto f = make(key.data(), bits, 4);
    std::vector<uint64_t> a(4 * n), b(4 * n);
    f->positions(tokens.data(), n, a.data());
    for (uint64_t p : a) ASSERT_LT(p, uint64_t{1} << bits);
    f->positions(tokens.data(), n, b.data());
    EXPECT_EQ(a, b);
    // same tokens one at a time (unaligned source, chunks of 1) give the same positions
    std::vector<uint8_t> shifted(16 * n + 1);
    std::memcpy(shifted.data() + 1, tokens.data(), 16 * n);
    for (size_t i = 0; i < n; i += 97) {
      uint64_t one[4];
      f->positions(shifted.data() + 1 + 16 * i, 1, one);
      for (int j = 0; j < 4; ++j) EXPECT_EQ(one[j], a[4 * i + j]);
    }
    // flipping one bit of K1 (FF1) or of K2 (hash) changes almost every position
    for (size_t flip : {size_t(3), size_t(16 + 7)}) {
      auto key2 = key;
      key2[flip] ^= 0x10;
      auto g = make(key2.data(), bits, 4);
      g->positions(tokens.data(), n, b.data());
      size_t same = 0;
      for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
      // chance agreement is 4n / 2^L (61 at L = 16)
      EXPECT_LT(same, 4 * n / 100) << "L=" << bits << " flip byte " << flip;
    }
  }
}

TEST(FilterPositions, UniformOverPositions) {
  // 10^6 structured tokens (a counter: the worst case for a weak hash) at L = 16, k = 3: the 3*10^6
  // positions over 2^16 cells must pass a chi-square test, and the positions of one token must
  // look independent (collisions among its 3 at the rate of independent draws).
  const uint32_t bits = 16, k = 3;
  const size_t n = 1000000, cells = size_t{1} << bits;
  auto f = make(kat_key().data(), bits, k);
  std::vector<uint8_t> tokens(16 * n, 0);
  for (size_t i = 0; i < n; ++i) std::memcpy(&tokens[16 * i], &i, sizeof i);
  std::vector<uint64_t> pos(n * k);
  f->positions(tokens.data(), n, pos.data());
  std::vector<uint32_t> count(cells, 0), first(cells, 0);
  size_t inner = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t* p = &pos[i * k];
    for (uint32_t j = 0; j < k; ++j) ++count[p[j]];
    ++first[p[0]];
    inner += (p[0] == p[1]) + (p[0] == p[2]) + (p[1] == p[2]);
  }
  auto chi2 = [](const std::vector<uint32_t>& c, double expect) {
    double x = 0;
    for (uint32_t v : c) x += (v - expect) * (v - expect) / expect;
    return x;
  };
  // chi-square with cells-1 degrees of freedom: mean 65535, sd sqrt(2*65535) = 362; 6 sd either
  // way (a too-even count is as suspicious as a lumpy one)
  const double df = cells - 1, sd = std::sqrt(2 * df);
  const double all = chi2(count, double(n * k) / cells), j0 = chi2(first, double(n) / cells);
  EXPECT_LT(std::fabs(all - df), 6 * sd) << "chi2 all positions " << all;
  EXPECT_LT(std::fabs(j0 - df), 6 * sd) << "chi2 of p_0 " << j0;
  // expected 3n / 2^16 = 45.8 pairs, sd ~6.8
  EXPECT_GT(inner, 10u);
  EXPECT_LT(inner, 90u);
}

TEST(FilterPositions, CreateRejectsBadArguments) {
  auto key = kat_key();
  std::unique_ptr<FilterPositions> f;
  EXPECT_EQ(FilterPositions::create(key.data(), 31, 20, 3, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(FilterPositions::create(nullptr, 32, 20, 3, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(FilterPositions::create(key.data(), 32, 15, 3, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(FilterPositions::create(key.data(), 32, 37, 3, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(FilterPositions::create(key.data(), 32, 20, 0, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(FilterPositions::create(key.data(), 32, 20, 17, &f).code(), PSI_ERR_ARGUMENT);
  EXPECT_FALSE(f);
  Status st = FilterPositions::create(key.data(), 32, 37, 3, &f);
  EXPECT_NE(st.message().find("filter_bits 37"), std::string::npos) << st.message();
}

TEST(FilterPositionsCApi, SameAsTheClassAndChecksEveryLength) {
  auto key = kat_key();
  char err[256] = "unchanged";
  psi_filter_positions* f = nullptr;
  ASSERT_EQ(psi_filter_positions_create(key.data(), key.size(), 20, 3, &f, err, sizeof err),
            PSI_OK);
  ASSERT_NE(f, nullptr);
  const size_t n = 10;
  auto tokens = kat_tokens(n);
  std::vector<uint64_t> got(3 * n), want(3 * n);
  ASSERT_EQ(psi_filter_positions_compute(f, tokens.data(), n, 16, got.data(), got.size()), PSI_OK);
  EXPECT_STREQ(psi_filter_positions_error(f), "");
  make(key.data(), 20, 3)->positions(tokens.data(), n, want.data());
  EXPECT_EQ(got, want);
  for (size_t i = 0; i < 4; ++i) {
    auto ref = reference(key.data(), 20, 3, &tokens[16 * i]);
    EXPECT_EQ(std::vector<uint64_t>(got.begin() + 3 * i, got.begin() + 3 * i + 3), ref);
  }

  // every bad length is PSI_ERR_ARGUMENT with a message naming it, and writes nothing
  std::vector<uint64_t> untouched(3 * n, 7);
  auto rejected = [&](psi_status st, const char* needle) {
    EXPECT_EQ(st, PSI_ERR_ARGUMENT);
    EXPECT_NE(std::string(psi_filter_positions_error(f)).find(needle), std::string::npos)
        << psi_filter_positions_error(f);
    EXPECT_EQ(untouched, std::vector<uint64_t>(3 * n, 7));
  };
  rejected(psi_filter_positions_compute(f, tokens.data(), n, 32, untouched.data(), 3 * n),
           "token_len");
  rejected(psi_filter_positions_compute(f, tokens.data(), n, 16, untouched.data(), 3 * n - 1),
           "out_len must equal count * hashes = 30, got 29");
  rejected(psi_filter_positions_compute(f, tokens.data(), n, 16, untouched.data(), 3 * n + 1),
           "out_len");
  rejected(psi_filter_positions_compute(f, nullptr, n, 16, untouched.data(), 3 * n), "NULL");
  rejected(
      psi_filter_positions_compute(f, tokens.data(), SIZE_MAX / 2, 16, untouched.data(), 3 * n),
      "overflows");
  EXPECT_EQ(psi_filter_positions_compute(f, nullptr, 0, 16, nullptr, 0), PSI_OK);
  EXPECT_STREQ(psi_filter_positions_error(f), "");  // a good call clears the last error
  EXPECT_EQ(psi_filter_positions_compute(nullptr, tokens.data(), n, 16, got.data(), got.size()),
            PSI_ERR_ARGUMENT);
  psi_filter_positions_free(f);
  psi_filter_positions_free(nullptr);

  struct Bad {
    size_t key_len;
    uint32_t bits, hashes;
    const char* needle;
  };
  const Bad bad[] = {{31, 20, 3, "key must be 32 bytes"},
                     {32, 15, 3, "filter_bits 15 outside [16, 36]"},
                     {32, 37, 3, "filter_bits 37"},
                     {32, 20, 0, "hashes 0 outside [1, 16]"},
                     {32, 20, 17, "hashes 17"}};
  for (const Bad& b : bad) {
    f = reinterpret_cast<psi_filter_positions*>(&err);  // must be reset to NULL
    EXPECT_EQ(
        psi_filter_positions_create(key.data(), b.key_len, b.bits, b.hashes, &f, err, sizeof err),
        PSI_ERR_ARGUMENT);
    EXPECT_EQ(f, nullptr);
    EXPECT_NE(std::string(err).find(b.needle), std::string::npos) << err;
  }
  EXPECT_EQ(psi_filter_positions_create(nullptr, 32, 20, 3, &f, err, sizeof err), PSI_ERR_ARGUMENT);
  EXPECT_EQ(psi_filter_positions_create(key.data(), 32, 20, 3, nullptr, nullptr, 0),
            PSI_ERR_ARGUMENT);
  char tiny[4];
  EXPECT_EQ(psi_filter_positions_create(key.data(), 32, 99, 3, &f, tiny, sizeof tiny),
            PSI_ERR_ARGUMENT);
  EXPECT_STREQ(tiny, "fil");  // truncated, NUL-terminated
}

// Throughput at L = 28, k = 3 on one thread, median of 5 runs of 2^20 tokens (3 * 2^20 positions).
// PSI_LARGE=1 to run: PSI_LARGE=1 psi_tests --gtest_filter='FilterPositionsLarge*'
TEST(FilterPositionsLarge, ThroughputL28K3) {
  if (std::getenv("PSI_LARGE") == nullptr) GTEST_SKIP() << "set PSI_LARGE=1";
  const uint32_t bits = 28, k = 3;
  const size_t n = size_t{1} << 20, batch = 4096;  // batches as the JVM passes them
  auto f = make(kat_key().data(), bits, k);
  auto tokens = random_bytes(16 * n, 5);
  std::vector<uint64_t> out(n * k);
  std::vector<double> rates;
  for (int run = 0; run < 5; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; i += batch) f->positions(&tokens[16 * i], batch, &out[k * i]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(double(n * k) / s);
  }
  std::sort(rates.begin(), rates.end());
  std::printf("filter positions L=%u k=%u (%s): median %.1f M positions/s (min %.1f, max %.1f)\n",
              bits, k, f->uses_vaes() ? "VAES" : "AES-NI", rates[2] / 1e6, rates[0] / 1e6,
              rates[4] / 1e6);
  uint64_t any = 0;
  for (uint64_t p : out) any |= p;
  EXPECT_EQ(any >> bits, 0u);
}
