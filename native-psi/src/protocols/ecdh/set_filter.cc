#include "set_filter.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace psi {
namespace ecdh {
namespace {

constexpr char kFilterDomain[] = "psi-flink ecdh filter key v1";

uint64_t load_u64(const uint8_t* p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; --i) x = x << 8 | p[i];
  return x;
}

// LSB-first bit writer.
class BitWriter {
 public:
  explicit BitWriter(std::vector<uint8_t>* out) : out_(out) {}
  void put(uint64_t bits, unsigned n) {  // n <= 64
    while (n > 0) {
      unsigned take = std::min(n, 64 - fill_);
      uint64_t part = take == 64 ? bits : bits & ((uint64_t(1) << take) - 1);
      acc_ |= part << fill_;
      fill_ += take;
      n -= take;
      bits = take == 64 ? 0 : bits >> take;
      if (fill_ == 64) flush_word();
    }
  }
  void put_wide(u128 bits, unsigned n) {  // n <= 128
    if (n > 64) {
      put(uint64_t(bits), 64);
      put(uint64_t(bits >> 64), n - 64);
    } else {
      put(uint64_t(bits), n);
    }
  }
  void ones(u128 count) {
    while (count >= 64) {
      put(~uint64_t(0), 64);
      count -= 64;
    }
    if (count) put((uint64_t(1) << unsigned(count)) - 1, unsigned(count));
  }
  void finish() {
    for (unsigned i = 0; i < fill_; i += 8) out_->push_back(uint8_t(acc_ >> i));
    acc_ = 0;
    fill_ = 0;
  }

 private:
  void flush_word() {
    for (int i = 0; i < 8; ++i) out_->push_back(uint8_t(acc_ >> (8 * i)));
    acc_ = 0;
    fill_ = 0;
  }
  std::vector<uint8_t>* out_;
  uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

}  // namespace

FilterKey filter_key(const uint8_t point[32]) {
  uint8_t d[16];
  crypto_generichash(d, sizeof d, point, 32, reinterpret_cast<const uint8_t*>(kFilterDomain),
                     sizeof kFilterDomain - 1);
  FilterKey k;
  k.lo = load_u64(d);
  k.hi = load_u64(d + 8);
  return k;
}

u128 gcs_range(uint64_t n, uint64_t q, double fpr) {
  long double r = std::ceil((long double)std::max<uint64_t>(n, 1) *
                            (long double)std::max<uint64_t>(q, 1) / (long double)fpr);
  const long double cap = std::ldexp((long double)1, 120);
  if (!(r >= 1)) r = 1;
  if (r > cap) r = cap;
  uint64_t hi = uint64_t(std::floor(r / std::ldexp((long double)1, 64)));
  long double rest = r - (long double)hi * std::ldexp((long double)1, 64);
  return u128(hi) << 64 | u128(uint64_t(rest));
}

void put_varint(std::vector<uint8_t>* out, u128 x) {
  while (x >= 0x80) {
    out->push_back(uint8_t(x) | 0x80);
    x >>= 7;
  }
  out->push_back(uint8_t(x));
}

bool read_varint(ByteView v, size_t* pos, u128* x) {
  u128 r = 0;
  for (unsigned i = 0; i < 19; ++i) {
    if (*pos >= v.size) return false;
    const uint8_t byte = v.data[(*pos)++];
    const u128 part = u128(byte & 0x7f);
    if (i == 18 && (byte & 0x7f) > 0x03) return false;  // 7*18 + 2 = 128 bits at most
    r |= part << (7 * i);
    if (!(byte & 0x80)) {
      if (i > 0 && byte == 0) return false;  // overlong: a trailing zero group
      *x = r;
      return true;
    }
  }
  return false;
}

namespace {

unsigned ceil_log2(u128 m) {  // m >= 1; 128 for m > 2^127 (no shift by 128)
  unsigned b = 0;
  while (b < 128 && (u128(1) << b) < m) ++b;
  return b;
}

u128 ld_to_u128(long double x) {
  if (!(x >= 1)) return 1;
  const long double two64 = std::ldexp((long double)1, 64);
  const uint64_t hi = uint64_t(std::floor(x / two64));
  const long double lo = x - (long double)hi * two64;
  return u128(hi) << 64 | u128(uint64_t(lo));
}

// The Golomb divisor for `count` values spread over `range`: round(ln 2 * range / count), >= 1.
u128 golomb_divisor(u128 range, uint64_t count) {
  const long double r = (long double)uint64_t(range >> 64) * std::ldexp((long double)1, 64) +
                        (long double)uint64_t(range);
  return ld_to_u128(std::round(r / (long double)count * std::log((long double)2)));
}

}  // namespace

void gcs_encode(const std::vector<FilterKey>& keys, u128 range, std::vector<uint8_t>* out) {
  std::vector<u128> v(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) v[i] = keys[i].value() % range;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  const u128 m = v.empty() ? 1 : golomb_divisor(range, v.size());
  put_varint(out, v.size());
  put_varint(out, range);
  put_varint(out, m);
  const unsigned b = ceil_log2(m);
  const u128 u = (u128(1) << b) - m;
  BitWriter w(out);
  u128 prev = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const u128 gap = i == 0 ? v[0] : v[i] - prev - 1;
    prev = v[i];
    const u128 q = gap / m, r = gap - q * m;
    w.ones(q);
    w.put(0, 1);
    if (b == 0) continue;
    if (r < u) {
      w.put_wide(r, b - 1);
    } else {
      const u128 x = r + u;
      w.put_wide(x >> 1, b - 1);
      w.put(uint64_t(x & 1), 1);
    }
  }
  w.finish();
}

Status GcsReader::open(ByteView msg, u128 expected_range, uint64_t max_count) {
  size_t pos = 0;
  u128 count = 0;
  if (!read_varint(msg, &pos, &count) || !read_varint(msg, &pos, &h_.range) ||
      !read_varint(msg, &pos, &h_.m))
    return st_ = peer_error("gcs: header truncated or overlong");
  // Bounds before any arithmetic on peer values: every later step (2^b, gap = q*m + r, prev + 1 +
  // gap) relies on range <= 2^120 (what gcs_range produces), hence m <= 2^120 and b <= 120.
  if (h_.range == 0 || h_.range > kGcsMaxRange || expected_range == 0 ||
      expected_range > kGcsMaxRange)
    return st_ = peer_error("gcs: hash range 0 or above 2^120");
  if (h_.range != expected_range)
    return st_ = peer_error("gcs: hash range differs from the one the sizes and fpr give");
  if (count > max_count)
    return st_ = peer_error("gcs: more values than the " + std::to_string(max_count) + " expected");
  h_.count = uint64_t(count);
  if (h_.m == 0 || h_.m > h_.range) return st_ = peer_error("gcs: Golomb divisor out of range");
  b_ = ceil_log2(h_.m);
  u_ = (u128(1) << b_) - h_.m;
  // Every code takes at least b bits (b - 1 remainder bits and the unary terminator).
  const size_t body = msg.size - pos;
  if (u128(h_.count) * std::max(b_, 1u) > u128(body) * 8)
    return st_ = peer_error("gcs: message truncated");
  body_ = ByteView(msg.data + pos, body);
  bitpos_ = 0;
  done_ = 0;
  prev_ = 0;
  st_ = Status::ok();
  return Status::ok();
}

bool GcsReader::bits(unsigned n, u128* out) {
  if (n > body_.size * 8 - bitpos_) return false;
  u128 r = 0;
  unsigned got = 0;
  while (got < n) {
    const size_t byte = bitpos_ >> 3;
    const unsigned off = unsigned(bitpos_ & 7);
    unsigned take;
    uint64_t piece;
    if (byte + 8 <= body_.size) {  // a whole little-endian word is in bounds
      uint64_t w;
      std::memcpy(&w, body_.data + byte, 8);
      take = std::min(n - got, 64 - off);
      piece = w >> off;
      if (take < 64) piece &= (uint64_t(1) << take) - 1;
    } else {
      take = std::min<unsigned>(8 - off, n - got);
      piece = (body_.data[byte] >> off) & ((1u << take) - 1);
    }
    r |= u128(piece) << got;
    got += take;
    bitpos_ += take;
  }
  *out = r;
  return true;
}

bool GcsReader::next(u128* v) {
  if (!st_.is_ok()) return false;
  if (done_ == h_.count) {
    // End: the rest of the body must be the zero padding of the last byte, nothing more.
    const size_t used_bytes = (bitpos_ + 7) / 8;
    if (used_bytes != body_.size) {
      st_ = peer_error("gcs: " + std::to_string(body_.size - used_bytes) + " trailing bytes");
    } else if (bitpos_ & 7) {
      if (body_.data[body_.size - 1] >> (bitpos_ & 7))
        st_ = peer_error("gcs: non-zero padding bits");
    }
    return false;
  }
  // Unary quotient, bounded by the range so a run of ones cannot run away.
  const u128 max_q = h_.range / h_.m;
  u128 q = 0;
  for (;;) {
    if (bitpos_ >= body_.size * 8) {
      st_ = peer_error("gcs: message truncated in value " + std::to_string(done_));
      return false;
    }
    // Count the ones left in the current byte at once.
    const uint32_t byte = body_.data[bitpos_ >> 3] >> (bitpos_ & 7);
    const unsigned avail = 8 - unsigned(bitpos_ & 7);
    const unsigned ones = unsigned(__builtin_ctz(~byte | (1u << avail)));
    q += ones;
    if (q > max_q) {
      st_ = peer_error("gcs: value out of range");
      return false;
    }
    if (ones < avail) {
      bitpos_ += ones + 1;  // the ones and the terminating zero
      break;
    }
    bitpos_ += avail;
  }
  u128 r = 0;
  if (b_ > 0) {
    u128 x = 0, bit = 0;
    if (!bits(b_ - 1, &x)) {
      st_ = peer_error("gcs: message truncated in value " + std::to_string(done_));
      return false;
    }
    if (x < u_) {
      r = x;
    } else {
      if (!bits(1, &bit)) {
        st_ = peer_error("gcs: message truncated in value " + std::to_string(done_));
        return false;
      }
      r = (x << 1 | bit) - u_;
    }
  }
  // q <= range / m and r < m: gap <= range + m <= 2^121; prev_ < range <= 2^120: no overflow.
  const u128 gap = q * h_.m + r;
  const u128 value = done_ == 0 ? gap : prev_ + 1 + gap;
  if (value >= h_.range) {
    st_ = peer_error("gcs: value out of range");
    return false;
  }
  prev_ = value;
  ++done_;
  *v = value;
  return true;
}

Status gcs_validate(ByteView msg, u128 expected_range, uint64_t max_count,
                    std::vector<GcsCheckpoint>* index) {
  GcsReader r;
  PSI_RETURN_IF_ERROR(r.open(msg, expected_range, max_count));
  if (index) index->clear();
  u128 v;
  for (uint64_t i = 0;; ++i) {
    GcsCheckpoint c = r.checkpoint();
    if (!r.next(&v)) break;
    if (index && i % kGcsCheckpointEvery == 0) {
      c.first = v;
      index->push_back(c);
    }
  }
  return r.status();
}

Status gcs_lookup_indexed(ByteView msg, u128 expected_range, uint64_t max_count,
                          const std::vector<GcsCheckpoint>& index,
                          const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits) {
  GcsReader r;
  PSI_RETURN_IF_ERROR(r.open(msg, expected_range, max_count));
  hits->assign(queries.size(), 0);
  for (size_t i = 0; i < queries.size(); ++i) {
    const u128 x = queries[i].value() % expected_range;
    // the last block whose first value is <= x
    auto it = std::upper_bound(index.begin(), index.end(), x,
                               [](u128 a, const GcsCheckpoint& c) { return a < c.first; });
    if (it == index.begin()) continue;
    r.seek(*(it - 1));
    u128 v;
    for (uint64_t k = 0; k < kGcsCheckpointEvery && r.next(&v) && v <= x; ++k)
      if (v == x) {
        (*hits)[i] = 1;
        break;
      }
    if (!r.status().is_ok()) return r.status();
  }
  return Status::ok();
}

Status gcs_lookup(ByteView msg, u128 expected_range, uint64_t max_count,
                  const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits) {
  GcsReader r;
  PSI_RETURN_IF_ERROR(r.open(msg, expected_range, max_count));
  std::vector<std::pair<u128, uint32_t>> q(queries.size());
  for (size_t i = 0; i < queries.size(); ++i)
    q[i] = {queries[i].value() % expected_range, uint32_t(i)};
  std::sort(q.begin(), q.end());
  hits->assign(queries.size(), 0);
  size_t i = 0;
  u128 v;
  bool have = r.next(&v);
  while (i < q.size() && have) {
    if (q[i].first < v) {
      ++i;
    } else if (q[i].first == v) {
      (*hits)[q[i].second] = 1;
      ++i;
    } else {
      have = r.next(&v);
    }
  }
  while (have) have = r.next(&v);  // validate to the end
  return r.status();
}

BloomShape bloom_shape(uint64_t n, uint64_t q, double fpr) {
  const double p = fpr / double(std::max<uint64_t>(q, 1));
  const double ln2 = std::log(2.0);
  BloomShape s;
  double bits = std::ceil(double(std::max<uint64_t>(n, 1)) * -std::log(p) / (ln2 * ln2));
  s.bits = std::max<uint64_t>(64, uint64_t(bits));
  double k = std::round(double(s.bits) / double(std::max<uint64_t>(n, 1)) * ln2);
  s.hashes = uint8_t(std::min(128.0, std::max(1.0, k)));
  return s;
}

namespace {
inline uint64_t bloom_pos(const FilterKey& k, uint32_t i, uint64_t bits) {
  const uint64_t h = k.lo + uint64_t(i) * (k.hi | 1);
  return uint64_t((u128(h) * bits) >> 64);
}
}  // namespace

void bloom_encode(const std::vector<FilterKey>& keys, BloomShape shape, std::vector<uint8_t>* out) {
  put_varint(out, shape.bits);
  out->push_back(shape.hashes);
  const size_t base = out->size();
  out->resize(base + (shape.bits + 7) / 8, 0);
  uint8_t* f = out->data() + base;
  for (const FilterKey& k : keys)
    for (uint32_t i = 0; i < shape.hashes; ++i) {
      const uint64_t p = bloom_pos(k, i, shape.bits);
      f[p >> 3] |= uint8_t(1u << (p & 7));
    }
}

Status bloom_validate(ByteView msg, BloomShape expected) {
  size_t pos = 0;
  u128 bits = 0;
  if (!read_varint(msg, &pos, &bits) || pos >= msg.size)
    return peer_error("bloom: header truncated or overlong");
  const uint8_t hashes = msg.data[pos++];
  if (bits != expected.bits || hashes != expected.hashes)
    return peer_error("bloom: shape (" + std::to_string(uint64_t(bits)) + " bits, " +
                      std::to_string(hashes) +
                      " hashes) differs from the one the sizes and fpr give (" +
                      std::to_string(expected.bits) + ", " + std::to_string(expected.hashes) + ")");
  const uint64_t body = (expected.bits + 7) / 8;
  if (msg.size - pos != body)
    return peer_error("bloom: expected " + std::to_string(body) + " filter bytes, got " +
                      std::to_string(msg.size - pos));
  if ((expected.bits & 7) && (msg.data[msg.size - 1] >> (expected.bits & 7)))
    return peer_error("bloom: non-zero padding bits");
  return Status::ok();
}

void bloom_lookup(ByteView msg, const std::vector<FilterKey>& queries, std::vector<uint8_t>* hits) {
  size_t pos = 0;
  u128 wide = 0;
  read_varint(msg, &pos, &wide);
  const uint64_t bits = uint64_t(wide);
  const uint8_t hashes = msg.data[pos++];
  const uint8_t* f = msg.data + pos;
  hits->assign(queries.size(), 0);
  for (size_t q = 0; q < queries.size(); ++q) {
    uint8_t all = 1;
    for (uint32_t i = 0; i < hashes && all; ++i) {
      const uint64_t p = bloom_pos(queries[q], i, bits);
      all = (f[p >> 3] >> (p & 7)) & 1;
    }
    (*hits)[q] = all;
  }
}

}  // namespace ecdh
}  // namespace psi
