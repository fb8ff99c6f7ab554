package io.psiflink.nativepsi;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.PointerByReference;

/**
 * JNA direct mapping of {@code psi_native.h}, one static native method per C function.
 *
 * <p>Direct mapping (not interface mapping) because per-bin sessions call feed/emit many times and
 * direct calls cost about 100 ns. Type mapping on linux-x86-64: {@code size_t} and {@code uint64_t}
 * are Java {@code long} (int64), {@code uint32_t} round numbers are Java {@code int}, enums are
 * {@code int}, {@code psi_session*} is a {@link Pointer}, out-parameters are small native buffers.
 * Primitive arrays are copied in and out by JNA, so they are used only off the hot path.
 *
 * <p>The shared library {@code libpsinative.so} is found on the class path under {@code
 * linux-x86-64/} (packaged in the jar) or through {@code jna.library.path}.
 */
final class PsiNative {
  static final String LIBRARY = "psinative";

  static {
    Native.register(PsiNative.class, LIBRARY);
  }

  private PsiNative() {}

  static native String psi_version();

  static native String psi_status_name(int status);

  /** {@code psi_protocol_description}: field for field, same order and widths (80 bytes). */
  @Structure.FieldOrder({
    "name",
    "summary",
    "parties",
    "roleCount",
    "roles",
    "outputs",
    "defaultOutput",
    "setupNeedsSenderSet",
    "labels",
    "elementLenMin",
    "elementLenMax",
    "maxSetSize",
    "params"
  })
  public static final class Description extends Structure {
    public String name;
    public String summary;
    public int parties;
    public int roleCount;
    public int[] roles = new int[MAX_ROLES];
    public int outputs;
    public int defaultOutput;
    public int setupNeedsSenderSet;
    public int labels;
    public int elementLenMin;
    public int elementLenMax;
    public long maxSetSize;
    public String params;
  }

  /** {@code PSI_PROTOCOL_MAX_ROLES}. */
  static final int MAX_ROLES = 4;

  /** {@code PSI_OUTPUT_*} bits. */
  static final int OUTPUT_RECEIVER = 1;

  static final int OUTPUT_BOTH = 2;
  static final int OUTPUT_CARDINALITY = 4;
  static final int OUTPUT_LABELS = 8;

  /** size_t psi_protocol_count(void). */
  static native long psi_protocol_count();

  /** out: a Description; outSize: its size(). */
  static native int psi_protocol_info(long index, Description out, long outSize);

  static native int psi_protocol_info_by_name(String name, Description out, long outSize);

  static native String psi_role_name(int role);

  static native int psi_session_create(
      String protocol,
      int role,
      String params,
      byte[] seed,
      long seedLen,
      PointerByReference out,
      byte[] err,
      long errCap);

  static native void psi_session_free(Pointer s);

  static native String psi_session_error(Pointer s);

  /** count: a 4-byte out buffer (uint32). */
  static native int psi_round_count(Pointer s, int phase, Pointer count);

  /** mine: a 4-byte out buffer (int). */
  static native int psi_round_is_mine(Pointer s, int phase, int round, Pointer mine);

  static native int psi_set_input(Pointer s, Pointer elements, long count, long elementLen);

  static native int psi_round_feed(
      Pointer s, int phase, int round, Pointer data, long len, int last);

  static native int psi_round_feed_from(
      Pointer s, int phase, int round, int peer, Pointer data, long len, int last);

  static native int psi_set_group_secret(Pointer s, byte[] key, long len);

  /** written: 8-byte out buffer (size_t); done: 4-byte out buffer (int). */
  static native int psi_round_emit(
      Pointer s, int phase, int round, Pointer out, long cap, Pointer written, Pointer done);

  /** out may be null to query the length only; len: 8-byte out buffer. */
  static native int psi_setup_export(Pointer s, byte[] out, long cap, Pointer len);

  static native int psi_setup_import(Pointer s, byte[] data, long len);

  /** count: 8-byte out buffer (uint64). */
  static native int psi_result_size(Pointer s, Pointer count);

  /** written: 8-byte out buffer (size_t). */
  static native int psi_result_indices(Pointer s, long[] out, long cap, Pointer written);

  static native int psi_set_labels(Pointer s, Pointer labels, long count, long labelLen);

  /** out may be null (cap 0) to query the length only; written: 8-byte out buffer (size_t). */
  static native int psi_result_labels(Pointer s, byte[] out, long cap, Pointer written);

  /** written: 8-byte out buffer (size_t). */
  static native int psi_aead_seal(
      byte[] key,
      long keyLen,
      byte[] nonce,
      long nonceLen,
      Pointer plain,
      long len,
      Pointer out,
      long cap,
      Pointer written);

  /** written: 8-byte out buffer (size_t). */
  static native int psi_aead_open(
      byte[] key,
      long keyLen,
      byte[] nonce,
      long nonceLen,
      Pointer sealed,
      long len,
      Pointer out,
      long cap,
      Pointer written);

  static native int psi_random_bytes(byte[] out, long len);

  /** err: a byte buffer for the NUL-terminated cause; out: the new object. */
  static native int psi_filter_positions_create(
      byte[] key,
      long keyLen,
      int filterBits,
      int hashes,
      PointerByReference out,
      byte[] err,
      long errCap);

  /** tokens: count * tokenLen bytes; out: outLen = count * hashes positions (uint64). */
  static native int psi_filter_positions_compute(
      Pointer f, byte[] tokens, long count, long tokenLen, long[] out, long outLen);

  static native String psi_filter_positions_error(Pointer f);

  static native void psi_filter_positions_free(Pointer f);

  static native int psi_token_prf_create(
      byte[] key, long keyLen, PointerByReference out, byte[] err, long errCap);

  /** data: dataLen bytes; ends: count message ends (uint32); out: outLen = count * 16 bytes. */
  static native int psi_token_prf_compute(
      Pointer t, byte[] data, long dataLen, int[] ends, long count, byte[] out, long outLen);

  static native int psi_token_bins(
      byte[] key, long keyLen, byte[] tokens, long count, int bins, int[] out, long outLen);

  static native String psi_token_prf_error(Pointer t);

  static native void psi_token_prf_free(Pointer t);
}
