#include "kkrt_config.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace psi {

uint32_t kkrt_default_stash(uint64_t n, uint32_t sigma) {
  // Failure model for 3 hash functions, 1.27 n slots, the insertion of cuckoo.cc
  // (docs/protocols.md, "Stash size"): P[fail] <= 2^7.3 * n^-3 * 4^-s, fitted where failures are
  // observable (n = 2^6, 3.2 million trials) and conservative against zero failures seen from n =
  // 2^8 to 2^16. A stash of n elements can never overflow.
  if (n == 0) return 0;
  const double bits = double(sigma) + 7.3 - 3.0 * std::log2(double(n));
  const uint64_t s = bits <= 0 ? 0 : uint64_t(std::ceil(bits / 2.0));
  return uint32_t(std::min<uint64_t>(std::min<uint64_t>(s, n), 64));
}

Status kkrt_config_from_params(const Params& params, KkrtConfig* c) {
  uint64_t sigma, hashes, slots, separate, label;
  double bin_factor;
  std::string output, stash;
  PSI_RETURN_IF_ERROR(params.get_u64("receiver_size", 0, &c->receiver_size));
  PSI_RETURN_IF_ERROR(params.get_u64("sender_size", 0, &c->sender_size));
  if (!params.has("receiver_size") || !params.has("sender_size"))
    return argument_error("kkrt needs receiver_size and sender_size");
  PSI_RETURN_IF_ERROR(params.get_u64("sigma", 40, &sigma));
  PSI_RETURN_IF_ERROR(params.get_u64("hashes", 3, &hashes));
  PSI_RETURN_IF_ERROR(params.get_u64("slots", 1, &slots));
  PSI_RETURN_IF_ERROR(params.get_u64("separate_tables", 0, &separate));
  PSI_RETURN_IF_ERROR(params.get_double("bin_factor", 1.27, &bin_factor));
  PSI_RETURN_IF_ERROR(params.get_string("stash", "auto", &stash));
  PSI_RETURN_IF_ERROR(params.get_instance("instance", c->instance.data()));
  PSI_RETURN_IF_ERROR(params.get_string("output", "receiver", &output));
  PSI_RETURN_IF_ERROR(params.get_u64("label", 0, &label));

  const uint64_t kMaxSize = uint64_t(1) << 28;
  if (c->receiver_size >= kMaxSize || c->sender_size >= kMaxSize)
    return argument_error("kkrt set sizes must be below 2^28 per side (bin larger inputs)");
  if (sigma < 16 || sigma > 80) return argument_error("sigma must be in [16, 80]");
  if (separate > 1) return argument_error("separate_tables must be 0 or 1");
  if (!(bin_factor >= 0.5 && bin_factor <= 16))
    return argument_error("bin_factor must be in [0.5, 16]");
  if (output != "receiver" && output != "both" && output != "labels")
    return argument_error("output must be 'receiver', 'both' or 'labels', not '" + output + "'");
  c->sigma = uint32_t(sigma);
  c->output_both = output == "both";
  c->output_labels = output == "labels";
  if (c->output_labels && !params.has("label"))
    return argument_error("output=labels needs the label parameter");
  if (!c->output_labels && params.has("label"))
    return argument_error("the label parameter goes with output=labels only");

  CuckooParams& p = c->cuckoo;
  p.hashes = uint32_t(hashes);
  p.slots_per_bin = uint32_t(slots);
  p.separate_tables = separate == 1;
  if (hashes < 2 || hashes > 4) return argument_error("hashes must be 2, 3 or 4");
  if (slots < 1 || slots > 2) return argument_error("slots must be 1 or 2");
  uint64_t bins = uint64_t(std::ceil(bin_factor * double(c->receiver_size) / double(slots)));
  if (bins < 4) bins = 4;
  if (p.separate_tables) bins = (bins + p.hashes - 1) / p.hashes * p.hashes;
  p.bins = bins;
  if (stash == "auto") {
    if (p.hashes < 3 || p.slots_per_bin != 1 || bin_factor < 1.27)
      return argument_error(
          "stash=auto is calibrated for 3 or 4 hash functions, 1 slot and bin_factor >= 1.27; "
          "give stash=N for other cuckoo variants");
    p.stash = kkrt_default_stash(c->receiver_size, c->sigma);
  } else {
    uint64_t s;
    if (stash.empty() || stash.size() > 3 ||
        stash.find_first_not_of("0123456789") != std::string::npos)
      return argument_error("stash must be 'auto' or a number in [0, 64]");
    s = std::strtoull(stash.c_str(), nullptr, 10);
    if (s > 64) return argument_error("stash must be 'auto' or a number in [0, 64]");
    p.stash = uint32_t(s);
  }
  PSI_RETURN_IF_ERROR(validate_cuckoo_params(p));
  if (c->rows() >= (uint64_t(1) << 31)) return argument_error("too many OPRF instances");

  c->mask_bytes = mask_bytes(c->sigma, c->receiver_size, c->sender_size);
  if (c->output_labels)
    PSI_RETURN_IF_ERROR(LabelLayout::make(c->sigma, c->receiver_size, c->sender_size,
                                          c->mask_tables(), label, &c->labels));
  return Status::ok();
}

}  // namespace psi
