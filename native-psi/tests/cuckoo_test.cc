// Tests for cuckoo/cuckoo.h: placement invariants for every variant, duplicate detection (including
// duplicates of elements that were evicted or stashed), stash overflow, parameter validation,
// determinism and the max-load bands of the variants.
#include "cuckoo/cuckoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace psi {
namespace {

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<ItemHash> random_hashes(size_t n, uint64_t seed) {
  std::vector<ItemHash> v(n);
  for (auto& h : v)
    for (auto& l : h.h) l = splitmix(seed);
  return v;
}

CuckooParams params(uint32_t hashes, uint32_t slots, bool separate, uint64_t bins, uint32_t stash) {
  CuckooParams p;
  p.hashes = hashes;
  p.slots_per_bin = slots;
  p.separate_tables = separate;
  p.bins = bins;
  p.stash = stash;
  return p;
}

// Total slots for n items at a comfortable load for the variant, rounded to valid bins.
uint64_t bins_for(uint32_t hashes, uint32_t slots, bool separate, size_t n) {
  double factor = hashes == 2 ? (slots == 1 ? 2.4 : 1.27) : (hashes == 3 ? 1.27 : 1.15);
  uint64_t total_slots = static_cast<uint64_t>(std::ceil(factor * double(n)));
  uint64_t bins = (total_slots + slots - 1) / slots;
  if (bins < hashes) bins = hashes;
  if (separate) bins = (bins + hashes - 1) / hashes * hashes;
  return bins;
}

// Every placed item sits in one of its candidate bins under the recorded function; every item is
// placed exactly once (table + stash); the stash respects its capacity.
void check_invariants(const CuckooTable& t, const std::vector<ItemHash>& h) {
  const CuckooParams& p = t.params();
  std::vector<int> seen(h.size(), 0);
  for (uint64_t inst = 0; inst < t.instance_count(); ++inst) {
    const auto& e = t.slot(inst);
    if (e.item == CuckooTable::kEmpty) continue;
    ASSERT_LT(e.item, h.size());
    ASSERT_LT(e.hash_index, p.hashes);
    ASSERT_EQ(cuckoo_candidate_bin(p, h[e.item], e.hash_index), inst / p.slots_per_bin)
        << "item " << e.item << " at instance " << inst;
    ++seen[e.item];
  }
  ASSERT_LE(t.stash().size(), p.stash);
  for (uint32_t s : t.stash()) {
    ASSERT_LT(s, h.size());
    ++seen[s];
  }
  for (size_t i = 0; i < h.size(); ++i) ASSERT_EQ(seen[i], 1) << "item " << i;
}

TEST(Cuckoo, ValidateParams) {
  EXPECT_TRUE(validate_cuckoo_params(params(3, 1, false, 100, 0)).is_ok());
  EXPECT_TRUE(validate_cuckoo_params(params(2, 2, false, 1, 0)).is_ok());
  EXPECT_TRUE(validate_cuckoo_params(params(4, 1, true, 8, 4)).is_ok());
  EXPECT_EQ(validate_cuckoo_params(params(1, 1, false, 100, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(5, 1, false, 100, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 0, false, 100, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 3, false, 100, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 1, false, 0, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 1, true, 100, 0)).code(), PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 1, false, uint64_t(1) << 32, 0)).code(),
            PSI_ERR_ARGUMENT);
  EXPECT_EQ(validate_cuckoo_params(params(3, 2, false, uint64_t(1) << 31, 0)).code(),
            PSI_ERR_ARGUMENT);
  EXPECT_TRUE(validate_cuckoo_params(params(3, 1, false, (uint64_t(1) << 32) - 1, 0)).is_ok());

  CuckooTable bad(params(3, 1, true, 100, 0));
  auto h = random_hashes(10, 1);
  EXPECT_EQ(bad.build(h.data(), h.size(), 1).code(), PSI_ERR_ARGUMENT);
  CuckooTable good(params(3, 1, false, 100, 0));
  EXPECT_EQ(good.build(nullptr, 5, 1).code(), PSI_ERR_ARGUMENT);
  EXPECT_TRUE(good.build(nullptr, 0, 1).is_ok());
}

TEST(Cuckoo, CandidateBins) {
  auto h = random_hashes(2000, 7);
  for (bool sep : {false, true}) {
    CuckooParams p = params(3, 1, sep, 999, 0);
    for (const auto& x : h) {
      for (uint32_t i = 0; i < 3; ++i) {
        uint64_t b = cuckoo_candidate_bin(p, x, i);
        ASSERT_LT(b, 999u);
        if (sep) {
          ASSERT_EQ(b / 333, i);
          ASSERT_EQ(b, i * 333 + uint64_t((unsigned __int128)x.h[i] * 333 >> 64));
        } else {
          ASSERT_EQ(b, uint64_t((unsigned __int128)x.h[i] * 999 >> 64));
        }
      }
    }
  }
  ItemHash extreme{{~0ull, 0, ~0ull, 0}};
  EXPECT_EQ(cuckoo_candidate_bin(params(2, 1, false, 10, 0), extreme, 0), 9u);
  EXPECT_EQ(cuckoo_candidate_bin(params(2, 1, false, 10, 0), extreme, 1), 0u);
}

TEST(Cuckoo, AllVariantsPlaceEveryItemOnce) {
  const size_t sizes[] = {0, 1, 2, 3, 5, 17, 100, 1000, 4096, 1 << 16};
  uint64_t seed = 100;
  for (uint32_t hashes : {2u, 3u, 4u}) {
    for (uint32_t slots : {1u, 2u}) {
      for (bool sep : {false, true}) {
        for (size_t n : sizes) {
          SCOPED_TRACE("h=" + std::to_string(hashes) + " slots=" + std::to_string(slots) +
                       " sep=" + std::to_string(sep) + " n=" + std::to_string(n));
          auto h = random_hashes(n, ++seed);
          CuckooTable t(params(hashes, slots, sep, bins_for(hashes, slots, sep, n), 8));
          Status st = t.build(h.data(), h.size(), seed);
          ASSERT_TRUE(st.is_ok()) << st.message();
          check_invariants(t, h);
        }
      }
    }
  }
}

TEST(Cuckoo, SlotsUsedInTwoSlotBins) {
  auto h = random_hashes(5000, 3);
  CuckooTable t(params(2, 2, false, 3200, 4));
  ASSERT_TRUE(t.build(h.data(), h.size(), 3).is_ok());
  size_t second = 0;
  for (uint64_t b = 0; b < 3200; ++b) second += t.slot(2 * b + 1).item != CuckooTable::kEmpty;
  EXPECT_GT(second, 1000u);
  check_invariants(t, h);
}

TEST(Cuckoo, DuplicateSimple) {
  auto h = random_hashes(100, 9);
  h[57] = h[12];
  CuckooTable t(params(3, 1, false, 127, 4));
  Status st = t.build(h.data(), h.size(), 1);
  EXPECT_EQ(st.code(), PSI_ERR_INPUT);
  EXPECT_NE(st.message().find("items 12 and 57"), std::string::npos) << st.message();
  h[57].h[3] ^= 1;  // differs in one lane only: not a duplicate
  EXPECT_TRUE(t.build(h.data(), h.size(), 1).is_ok());
  h[1] = h[0];
  st = t.build(h.data(), h.size(), 1);
  EXPECT_NE(st.message().find("items 0 and 1"), std::string::npos) << st.message();
}

// Adversarial: the earlier copy was moved by evictions (it no longer sits where it was first put)
// or was stashed, and the duplicate comes last.
TEST(Cuckoo, DuplicateOfEvictedOrStashedItem) {
  for (uint32_t hashes : {2u, 3u, 4u}) {
    for (uint32_t slots : {1u, 2u}) {
      for (bool sep : {false, true}) {
        SCOPED_TRACE("h=" + std::to_string(hashes) + " slots=" + std::to_string(slots) +
                     " sep=" + std::to_string(sep));
        const size_t n = 3000;
        // Heavy load (near each variant's threshold) and a small kick budget: long walks, a stash.
        double load = hashes == 2 ? (slots == 1 ? 0.47 : 0.86) : (hashes == 3 ? 0.9 : 0.95);
        uint64_t bins = uint64_t(double(n) / load / slots);
        if (sep) bins = (bins + hashes - 1) / hashes * hashes;
        CuckooParams p = params(hashes, slots, sep, bins, 64);
        p.max_kicks = 50;
        auto h = random_hashes(n, 1000 + hashes * 10 + slots * 2 + sep);
        CuckooTable full(p);
        ASSERT_TRUE(full.build(h.data(), n, 5).is_ok());
        std::vector<uint64_t> where(n, ~0ull);  // final instance, ~0 = stash
        for (uint64_t i = 0; i < full.instance_count(); ++i)
          if (full.slot(i).item != CuckooTable::kEmpty) where[full.slot(i).item] = i;
        std::vector<size_t> victims;
        if (!full.stash().empty()) victims.push_back(full.stash().front());
        // Items whose instance right after their own insertion differs from the final one.
        for (size_t j = 0; j < n && victims.size() < 6; j += 37) {
          CuckooTable prefix(p);
          ASSERT_TRUE(prefix.build(h.data(), j + 1, 5).is_ok());
          uint64_t first = ~0ull;
          for (uint64_t i = 0; i < prefix.instance_count(); ++i)
            if (prefix.slot(i).item == j) first = i;
          if (first != where[j]) victims.push_back(j);
        }
        ASSERT_GE(victims.size(), 3u);
        for (size_t j : victims) {
          auto hd = h;
          hd.push_back(h[j]);
          CuckooTable t(p);
          Status st = t.build(hd.data(), hd.size(), 5);  // same walk as `full`, then the duplicate
          EXPECT_EQ(st.code(), PSI_ERR_INPUT);
          EXPECT_NE(st.message().find("items " + std::to_string(j) + " and " + std::to_string(n)),
                    std::string::npos)
              << st.message();
        }
      }
    }
  }
}

TEST(Cuckoo, ManyDuplicatesAllReported) {
  // Every pair (j, j + n/2) is equal; the first reported must be the first duplicate in order.
  auto h = random_hashes(2048, 11);
  for (size_t j = 0; j < 1024; ++j) h[1024 + j] = h[j];
  CuckooTable t(params(3, 2, true, 3 * 450, 8));
  Status st = t.build(h.data(), h.size(), 1);
  EXPECT_EQ(st.code(), PSI_ERR_INPUT);
  EXPECT_NE(st.message().find("items 0 and 1024"), std::string::npos) << st.message();
}

TEST(Cuckoo, StashOverflow) {
  auto h = random_hashes(10, 2);
  CuckooTable tiny(params(3, 1, false, 4, 2));
  Status st = tiny.build(h.data(), h.size(), 1);
  EXPECT_EQ(st.code(), PSI_ERR_CAPACITY);
  EXPECT_NE(st.message().find("n=10"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("bins=4"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("stash=2"), std::string::npos) << st.message();

  // Fits by count, but 2-way cuckoo at load 0.94 cannot place everything: the walk fails.
  auto h2 = random_hashes(60, 3);
  CuckooParams p = params(2, 1, false, 64, 1);
  p.max_kicks = 8;
  CuckooTable t(p);
  EXPECT_EQ(t.build(h2.data(), h2.size(), 1).code(), PSI_ERR_CAPACITY);

  // max_kicks = 0: anything that meets full candidates goes straight to the stash.
  p = params(3, 1, false, 16, 100);
  p.max_kicks = 0;
  CuckooTable t0(p);
  auto h3 = random_hashes(40, 4);
  ASSERT_TRUE(t0.build(h3.data(), h3.size(), 1).is_ok());
  EXPECT_GE(t0.stash().size(), 24u);
  check_invariants(t0, h3);
}

TEST(Cuckoo, DeterministicForSeed) {
  auto h = random_hashes(20000, 5);
  CuckooParams p = params(3, 1, false, 20000 * 1.1, 16);
  CuckooTable a(p), b(p), c(p);
  ASSERT_TRUE(a.build(h.data(), h.size(), 42).is_ok());
  ASSERT_TRUE(b.build(h.data(), h.size(), 42).is_ok());
  ASSERT_TRUE(c.build(h.data(), h.size(), 43).is_ok());
  bool differs = false;
  for (uint64_t i = 0; i < a.instance_count(); ++i) {
    ASSERT_EQ(a.slot(i).item, b.slot(i).item);
    ASSERT_EQ(a.slot(i).hash_index, b.slot(i).hash_index);
    differs |= a.slot(i).item != c.slot(i).item;
  }
  EXPECT_EQ(a.stash(), b.stash());
  EXPECT_TRUE(differs);
  // Rebuilding the same object starts from scratch.
  ASSERT_TRUE(a.build(h.data(), h.size(), 42).is_ok());
  for (uint64_t i = 0; i < a.instance_count(); ++i) ASSERT_EQ(a.slot(i).item, b.slot(i).item);
  check_invariants(a, h);
}

TEST(Cuckoo, MaxLoadBands) {
  const uint64_t n = 1 << 16;  // slots
  double l3 = cuckoo_max_load(params(3, 1, false, n, 0), 2, 1);
  double l3s = cuckoo_max_load(params(3, 1, true, 65535, 0), 2, 1);
  double l22 = cuckoo_max_load(params(2, 2, false, n / 2, 0), 2, 1);
  double l2 = cuckoo_max_load(params(2, 1, false, n, 0), 4, 1);
  double l4 = cuckoo_max_load(params(4, 1, false, n, 0), 1, 1);
  EXPECT_GT(l3, 0.88);
  EXPECT_LT(l3, 0.93);
  EXPECT_GT(l3s, 0.88);
  EXPECT_LT(l3s, 0.93);
  EXPECT_GT(l22, 0.84);
  EXPECT_LT(l22, 0.91);
  EXPECT_GT(l2, 0.40);
  EXPECT_LT(l2, 0.56);
  EXPECT_GT(l4, 0.95);
  EXPECT_LT(l4, 0.99);
  std::printf("max load: 3-way %.4f, 3-way sep %.4f, 2-way 2 slots %.4f, 2-way %.4f, 4-way %.4f\n",
              l3, l3s, l22, l2, l4);
  double simple = simple_hash_occupancy(n, 1);
  EXPECT_NEAR(simple, 1 - std::exp(-1.0), 0.01);
  EXPECT_EQ(cuckoo_max_load(params(3, 1, true, 100, 0), 1, 1), 0.0);  // invalid params
}

}  // namespace
}  // namespace psi
