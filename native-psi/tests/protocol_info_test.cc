// psi_protocol_info: the registry's self-descriptions through the C ABI. Lookup by index and by
// name, status codes for unknown or malformed requests, the fields of kkrt, ecdh and rr22 as
// documented (docs/protocols.md), and — as an oracle independent of the table — that every
// description agrees with what psi_session_create / psi_set_input / the setup rounds actually
// accept.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "psi_driver.h"
#include "psi_native.h"

namespace {

psi_protocol_description info_at(size_t i) {
  psi_protocol_description d;
  EXPECT_EQ(PSI_OK, psi_protocol_info(i, &d, sizeof d)) << i;
  return d;
}

bool is_zero(const psi_protocol_description& d) {
  psi_protocol_description zero;
  std::memset(&zero, 0, sizeof zero);
  return std::memcmp(&d, &zero, sizeof d) == 0;
}

// Creates a session of `d` for `role` with the given params; returns the status (frees the
// session).
psi_status create(const psi_protocol_description& d, int role, const std::string& params) {
  std::vector<uint8_t> seed(32, 7);
  psi_session* s = nullptr;
  char err[256];
  psi_status st = psi_session_create(d.name, role, params.c_str(), seed.data(), seed.size(), &s,
                                     err, sizeof err);
  psi_session_free(s);
  return st;
}

// Element lengths of a session of `d` for `role`: min and max accepted, outside refused (distinct
// elements, count 8).
void expect_element_lengths(const psi_protocol_description& d, int role,
                            const std::string& params) {
  for (uint32_t len :
       {d.element_len_min, d.element_len_max, d.element_len_min - 1, d.element_len_max + 1}) {
    if (len == 0) continue;
    std::vector<uint8_t> seed(32, 3), elems(size_t(len) * 8, 0);
    for (size_t k = 0; k < 8; ++k) elems[k * len] = uint8_t(k + 1);
    psi_session* s = nullptr;
    ASSERT_EQ(PSI_OK,
              psi_session_create(d.name, role, params.c_str(), seed.data(), 32, &s, nullptr, 0));
    psi_status st = psi_set_input(s, elems.data(), 8, len);
    bool inside = len >= d.element_len_min && len <= d.element_len_max;
    EXPECT_EQ(inside, st == PSI_OK) << "element_len " << len << ": " << psi_status_name(st);
    psi_session_free(s);
  }
}

const char* output_value(uint32_t bit) {
  switch (bit) {
    case PSI_OUTPUT_RECEIVER:
      return "receiver";
    case PSI_OUTPUT_BOTH:
      return "both";
    case PSI_OUTPUT_CARDINALITY:
      return "cardinality";
    case PSI_OUTPUT_LABELS:
      return "labels,label=4";  // labels need their length
    default:
      return "?";
  }
}

}  // namespace

TEST(ProtocolInfo, IndexAndNameGiveTheSameEntries) {
  size_t n = psi_protocol_count();
  ASSERT_EQ(4u, n);
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    psi_protocol_description by_index = info_at(i);
    ASSERT_NE(nullptr, by_index.name);
    names.insert(by_index.name);
    psi_protocol_description by_name;
    ASSERT_EQ(PSI_OK, psi_protocol_info_by_name(by_index.name, &by_name, sizeof by_name));
    EXPECT_EQ(0, std::memcmp(&by_index, &by_name, sizeof by_name)) << by_index.name;
  }
  EXPECT_EQ((std::set<std::string>{"kkrt", "ecdh", "rr22", "mpsi"}), names);
  EXPECT_STREQ("rr22", info_at(0).name);  // the order is fixed: index 0 is the default protocol
}

TEST(ProtocolInfo, UnknownIndexOrNameIsAnArgumentErrorAndZeroesTheOutput) {
  psi_protocol_description d;
  std::memset(&d, 0xAB, sizeof d);
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(psi_protocol_count(), &d, sizeof d));
  EXPECT_TRUE(is_zero(d));
  std::memset(&d, 0xAB, sizeof d);
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(SIZE_MAX, &d, sizeof d));
  EXPECT_TRUE(is_zero(d));
  for (const char* name : {"", "KKRT", "kkrt ", "nope", "ecdh\x01"}) {
    std::memset(&d, 0xAB, sizeof d);
    EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info_by_name(name, &d, sizeof d)) << name;
    EXPECT_TRUE(is_zero(d)) << name;
  }
}

TEST(ProtocolInfo, NullPointersAndWrongSizesAreArgumentErrors) {
  psi_protocol_description d;
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(0, nullptr, sizeof d));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(0, &d, sizeof d - 1));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(0, &d, sizeof d + 8));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info(0, &d, 0));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info_by_name(nullptr, &d, sizeof d));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info_by_name("kkrt", nullptr, sizeof d));
  EXPECT_EQ(PSI_ERR_ARGUMENT, psi_protocol_info_by_name("kkrt", &d, sizeof d - 1));
}

TEST(ProtocolInfo, KkrtFields) {
  psi_protocol_description d;
  ASSERT_EQ(PSI_OK, psi_protocol_info_by_name("kkrt", &d, sizeof d));
  EXPECT_STREQ("kkrt", d.name);
  EXPECT_GT(std::strlen(d.summary), 10u);
  EXPECT_EQ(2u, d.parties);
  ASSERT_EQ(2u, d.role_count);
  EXPECT_EQ(PSI_ROLE_RECEIVER, d.roles[0]);
  EXPECT_EQ(PSI_ROLE_SENDER, d.roles[1]);
  EXPECT_EQ(uint32_t(PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_LABELS), d.outputs);
  EXPECT_EQ(uint32_t(PSI_OUTPUT_RECEIVER), d.default_output);
  EXPECT_EQ(0, d.setup_needs_sender_set);
  EXPECT_EQ(1, d.labels);
  EXPECT_EQ(16u, d.element_len_min);
  EXPECT_EQ(16u, d.element_len_max);
  EXPECT_EQ(uint64_t(1) << 28, d.max_set_size);
  EXPECT_STREQ(
      "receiver_size,sender_size,instance,output,label,sigma,hashes,slots,separate_tables,"
      "bin_factor,stash",
      d.params);
}

TEST(ProtocolInfo, EcdhFields) {
  psi_protocol_description d;
  ASSERT_EQ(PSI_OK, psi_protocol_info_by_name("ecdh", &d, sizeof d));
  EXPECT_STREQ("ecdh", d.name);
  EXPECT_EQ(2u, d.parties);
  ASSERT_EQ(2u, d.role_count);
  EXPECT_EQ(PSI_ROLE_RECEIVER, d.roles[0]);
  EXPECT_EQ(PSI_ROLE_SENDER, d.roles[1]);
  EXPECT_EQ(
      uint32_t(PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_CARDINALITY | PSI_OUTPUT_LABELS),
      d.outputs);
  EXPECT_EQ(uint32_t(PSI_OUTPUT_RECEIVER), d.default_output);
  EXPECT_EQ(1, d.setup_needs_sender_set);
  EXPECT_EQ(1, d.labels);
  EXPECT_EQ(1u, d.element_len_min);
  EXPECT_EQ(4096u, d.element_len_max);
  EXPECT_EQ(uint64_t(1) << 32, d.max_set_size);
  EXPECT_STREQ("receiver_size,sender_size,instance,output,label,fpr,filter", d.params);
}

TEST(ProtocolInfo, Rr22Fields) {
  psi_protocol_description d;
  ASSERT_EQ(PSI_OK, psi_protocol_info_by_name("rr22", &d, sizeof d));
  EXPECT_STREQ("rr22", d.name);
  EXPECT_EQ(2u, d.parties);
  ASSERT_EQ(2u, d.role_count);
  EXPECT_EQ(PSI_ROLE_RECEIVER, d.roles[0]);
  EXPECT_EQ(PSI_ROLE_SENDER, d.roles[1]);
  EXPECT_EQ(uint32_t(PSI_OUTPUT_RECEIVER | PSI_OUTPUT_BOTH | PSI_OUTPUT_LABELS), d.outputs);
  EXPECT_EQ(uint32_t(PSI_OUTPUT_RECEIVER), d.default_output);
  EXPECT_EQ(0, d.setup_needs_sender_set);
  EXPECT_EQ(1, d.labels);
  EXPECT_EQ(16u, d.element_len_min);
  EXPECT_EQ(16u, d.element_len_max);
  EXPECT_EQ(uint64_t(1) << 28, d.max_set_size);
  EXPECT_STREQ("receiver_size,sender_size,instance,output,label,sigma,piece,threads", d.params);
}

TEST(ProtocolInfo, RoleNames) {
  EXPECT_STREQ("receiver", psi_role_name(PSI_ROLE_RECEIVER));
  EXPECT_STREQ("sender", psi_role_name(PSI_ROLE_SENDER));
  EXPECT_STREQ("helper", psi_role_name(PSI_ROLE_HELPER));
  EXPECT_STREQ("party", psi_role_name(PSI_ROLE_PARTY));
  EXPECT_STREQ("provider", psi_role_name(PSI_ROLE_PROVIDER));
  EXPECT_STREQ("unknown", psi_role_name(5));
  EXPECT_STREQ("unknown", psi_role_name(-1));
}

// The oracle: each description is checked against the library's behaviour, not against the table.
TEST(ProtocolInfo, EveryDescriptionAgreesWithTheProtocolsBehaviour) {
  for (size_t i = 0; i < psi_protocol_count(); ++i) {
    psi_protocol_description d = info_at(i);
    SCOPED_TRACE(d.name);
    if (d.parties != 2) continue;  // MultipartyDescriptionAgreesWithTheProtocolsBehaviour
    const std::string base = psi_test::sizes(8, 8);
    // every listed role creates a session; HELPER only if listed
    bool helper = false;
    for (uint32_t r = 0; r < d.role_count; ++r) {
      EXPECT_EQ(PSI_OK, create(d, d.roles[r], base)) << psi_role_name(d.roles[r]);
      helper |= d.roles[r] == PSI_ROLE_HELPER;
    }
    if (!helper) {
      EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_HELPER, base));
    }
    // every output mode listed is accepted, every other is refused; the default one is a listed one
    EXPECT_NE(0u, d.default_output & d.outputs);
    for (uint32_t bit :
         {PSI_OUTPUT_RECEIVER, PSI_OUTPUT_BOTH, PSI_OUTPUT_CARDINALITY, PSI_OUTPUT_LABELS}) {
      psi_status want = (d.outputs & bit) ? PSI_OK : PSI_ERR_ARGUMENT;
      EXPECT_EQ(want, create(d, PSI_ROLE_RECEIVER, base + ",output=" + output_value(bit)))
          << output_value(bit);
    }
    // labels = 1 exactly for the protocols offering output=labels, which then take "label" (and
    // refuse it without output=labels)
    EXPECT_EQ(d.labels != 0, (d.outputs & PSI_OUTPUT_LABELS) != 0);
    if (d.labels) {
      EXPECT_NE(nullptr, std::strstr(d.params, ",label,"));
      EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_RECEIVER, base + ",output=labels"));
      EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_RECEIVER, base + ",output=labels,label=0"));
      EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_RECEIVER, base + ",label=4"));
      EXPECT_EQ(PSI_OK, create(d, PSI_ROLE_SENDER, base + ",output=labels,label=1048576"));
      EXPECT_EQ(PSI_ERR_ARGUMENT,
                create(d, PSI_ROLE_SENDER, base + ",output=labels,label=1048577"));
    }
    // a key outside `params` is refused; sizes at the maximum are refused
    EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_RECEIVER, base + ",no_such_key=1"));
    EXPECT_EQ(PSI_ERR_ARGUMENT,
              create(d, PSI_ROLE_RECEIVER, psi_test::sizes(size_t(d.max_set_size), 8)));
    EXPECT_EQ(PSI_ERR_ARGUMENT,
              create(d, PSI_ROLE_RECEIVER, psi_test::sizes(8, size_t(d.max_set_size))));
    expect_element_lengths(d, PSI_ROLE_SENDER, base);
    // setup_needs_sender_set: the sender's first setup round before psi_set_input is refused
    // exactly when the description says so (the receiver's never is)
    for (int role : {PSI_ROLE_RECEIVER, PSI_ROLE_SENDER}) {
      std::vector<uint8_t> seed(32, 5);
      psi_session* s = nullptr;
      ASSERT_EQ(PSI_OK,
                psi_session_create(d.name, role, base.c_str(), seed.data(), 32, &s, nullptr, 0));
      uint32_t rounds = 0;
      ASSERT_EQ(PSI_OK, psi_round_count(s, PSI_PHASE_SETUP, &rounds));
      uint32_t first = rounds;
      for (uint32_t r = 0; r < rounds && first == rounds; ++r) {
        int mine = 0;
        ASSERT_EQ(PSI_OK, psi_round_is_mine(s, PSI_PHASE_SETUP, r, &mine));
        if (mine) first = r;
      }
      if (first < rounds) {
        // empty message, last: a state refusal comes before any look at the (empty) message
        psi_status st = psi_round_feed(s, PSI_PHASE_SETUP, first, nullptr, 0, 1);
        bool refused = st == PSI_ERR_STATE;
        EXPECT_EQ(role == PSI_ROLE_SENDER && d.setup_needs_sender_set != 0, refused)
            << psi_role_name(role) << ": " << psi_status_name(st);
      }
      psi_session_free(s);
    }
  }
}

// The multiparty entries (parties 0: any number, roles party and provider), against behaviour.
TEST(ProtocolInfo, MultipartyDescriptionAgreesWithTheProtocolsBehaviour) {
  size_t seen = 0;
  for (size_t i = 0; i < psi_protocol_count(); ++i) {
    psi_protocol_description d = info_at(i);
    if (d.parties == 2) continue;
    SCOPED_TRACE(d.name);
    ++seen;
    EXPECT_EQ(0u, d.parties);
    ASSERT_EQ(2u, d.role_count);
    EXPECT_EQ(PSI_ROLE_PARTY, d.roles[0]);
    EXPECT_EQ(PSI_ROLE_PROVIDER, d.roles[1]);
    const std::string party = "parties=3,index=0,set_size=8", provider = "parties=3,set_size=8";
    EXPECT_EQ(PSI_OK, create(d, PSI_ROLE_PARTY, party));
    EXPECT_EQ(PSI_OK, create(d, PSI_ROLE_PROVIDER, provider));
    for (int role : {PSI_ROLE_RECEIVER, PSI_ROLE_SENDER, PSI_ROLE_HELPER})
      EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, role, party)) << psi_role_name(role);
    for (uint32_t bit :
         {PSI_OUTPUT_RECEIVER, PSI_OUTPUT_BOTH, PSI_OUTPUT_CARDINALITY, PSI_OUTPUT_LABELS}) {
      const psi_status want = (d.outputs & bit) ? PSI_OK : PSI_ERR_ARGUMENT;
      EXPECT_EQ(want, create(d, PSI_ROLE_PARTY, party + ",output=" + output_value(bit)));
    }
    EXPECT_NE(0u, d.default_output & d.outputs);
    EXPECT_EQ(PSI_ERR_ARGUMENT, create(d, PSI_ROLE_PARTY, party + ",no_such_key=1"));
    EXPECT_EQ(PSI_ERR_ARGUMENT,
              create(d, PSI_ROLE_PROVIDER,
                     "parties=3,fpr=0.5,set_size=" + std::to_string(d.max_set_size)));
    EXPECT_EQ(PSI_OK, create(d, PSI_ROLE_PROVIDER,
                             "parties=3,fpr=0.5,set_size=" + std::to_string(d.max_set_size - 1)));
    expect_element_lengths(d, PSI_ROLE_PARTY, party);
  }
  EXPECT_EQ(1u, seen);
}
