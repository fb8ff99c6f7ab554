package io.psiflink.provider;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.nativepsi.Aead;
import io.psiflink.nativepsi.PsiException;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import io.psiflink.provider.proto.v1.BinStart;
import io.psiflink.provider.proto.v1.LinkState;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A party's link to the provider after {@link ProviderClient#connect}: the session's facts, this
 * party's link key (agreed with the provider in the signed HELLOs) and its exported mpsi setup (its
 * key share and the joint key). Secret: it ships to the party's own Flink tasks as {@link #toBytes}
 * and must be kept like a key; {@link #toString} shows none of it.
 *
 * <p>Immutable and thread-safe: several tasks may run bins at once, each on its own {@link
 * BridgeClient}.
 */
public final class ProviderLink {
  private static final int VERSION = 1;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ProviderRequest request;
  private final byte[] linkKey;
  private final byte[] setup;

  ProviderLink(ProviderRequest request, byte[] linkKey, byte[] setup) {
    this.request = request;
    this.linkKey = linkKey.clone();
    this.setup = setup.clone();
  }

  /** The link as bytes (secret), for {@link #fromBytes}. */
  public byte[] toBytes() {
    LinkState.Builder b =
        LinkState.newBuilder()
            .setVersion(VERSION)
            .setSession(request.session())
            .setProvider(request.provider())
            .addAllParties(request.parties())
            .setIndex(request.index())
            .setParams(request.protocolParams())
            .setLinkKey(ByteString.copyFrom(linkKey))
            .setSetup(ByteString.copyFrom(setup));
    byte[] pin = request.providerCertSha256();
    if (pin != null) {
      b.setProviderCertSha256(ByteString.copyFrom(pin));
    }
    return b.build().toByteArray();
  }

  /**
   * The link of {@link #toBytes}.
   *
   * @throws ProviderException if the bytes are not a link of this version
   */
  public static ProviderLink fromBytes(byte[] b) throws ProviderException {
    Objects.requireNonNull(b, "b");
    LinkState s;
    try {
      s = LinkState.parseFrom(b);
    } catch (InvalidProtocolBufferException e) {
      throw new ProviderException("not a provider link: " + e.getMessage(), e);
    }
    if (s.getVersion() != VERSION) {
      throw new ProviderException(
          "a provider link of version "
              + Integer.toUnsignedString(s.getVersion())
              + ", this build reads "
              + VERSION);
    }
    if (s.getLinkKey().size() != Aead.KEY_BYTES || s.getSetup().isEmpty()) {
      throw new ProviderException("a provider link without its key or its setup");
    }
    try {
      ProviderRequest r =
          new ProviderRequest(
              s.getSession(),
              s.getProvider(),
              s.getProviderCertSha256().isEmpty() ? null : s.getProviderCertSha256().toByteArray(),
              s.getPartiesList(),
              s.getIndex(),
              s.getParams());
      return new ProviderLink(r, s.getLinkKey().toByteArray(), s.getSetup().toByteArray());
    } catch (IllegalArgumentException e) {
      throw new ProviderException("a provider link of an invalid request: " + e.getMessage(), e);
    }
  }

  /** n, the number of parties. */
  public int parties() {
    return request.parties().size();
  }

  /** This party's index. */
  public int index() {
    return request.index();
  }

  /** The session's request (no secret). */
  public ProviderRequest request() {
    return request;
  }

  /** The link key K (a copy): for the wire's tests, which play a party that misbehaves. */
  byte[] linkKey() {
    return linkKey.clone();
  }

  /**
   * One bin, on a task's own {@link BridgeClient}: pads the elements with random 16-byte dummies to
   * the agreed set size, runs the mpsi party session (group secret set, setup imported) with the
   * provider, and returns the indices of the elements every party holds. Blocks until all n parties
   * of the bin have arrived and the provider confirmed that every party finished it.
   *
   * @param bin the bin, at least 0; the same at every party
   * @param attempt the bin's attempt, at least 0; the same at every party (the provider refuses a
   *     run whose parties disagree)
   * @param setSizeDemand the most elements this party may hold in the bin (public, at least 1 and
   *     at least {@code count}); the run's set size is the largest demand of the n parties
   * @param groupSecret the 32 bytes the parties share with each other and never with the provider
   * @param elements {@code count} distinct elements of 16 bytes, back to back
   * @return indices (below {@code count}, ascending) of the elements every party holds
   * @throws BridgeException if the relay cannot give this party a stream to the provider
   * @throws ProviderException if the provider refuses or aborts the run (the reason names the party
   *     at fault), sends anything that does not verify or open, or the native session fails
   */
  public BinOutcome runBin(
      BridgeClient client,
      int bin,
      int attempt,
      long setSizeDemand,
      byte[] groupSecret,
      byte[] elements,
      int count)
      throws BridgeException, ProviderException {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(groupSecret, "groupSecret");
    Objects.requireNonNull(elements, "elements");
    if (bin < 0 || attempt < 0 || count < 0) {
      throw new IllegalArgumentException(
          "bin, attempt and count must be at least 0: " + bin + ", " + attempt + ", " + count);
    }
    if (setSizeDemand < Math.max(1, count) || setSizeDemand >= ProviderWire.NATIVE_SET_SIZE_LIMIT) {
      throw new IllegalArgumentException(
          "setSizeDemand "
              + setSizeDemand
              + " must be at least the count "
              + count
              + " (and 1) and below "
              + ProviderWire.NATIVE_SET_SIZE_LIMIT);
    }
    if (groupSecret.length != 32) {
      throw new IllegalArgumentException(
          "the group secret has 32 bytes, not " + groupSecret.length);
    }
    if ((long) count * ProviderWire.ELEMENT_BYTES != elements.length) {
      throw new IllegalArgumentException(
          count + " elements of 16 bytes are not " + elements.length + " bytes");
    }
    String self = ProviderWire.describe(request.index(), request.party());
    String provider = "provider '" + request.provider() + "'";
    String during = "bin " + bin + " attempt " + attempt;
    byte[] partyNonce = new byte[ProviderWire.NONCE_BYTES];
    RANDOM.nextBytes(partyNonce);
    BridgeStream stream =
        client.open(
            request.session(), ProviderWire.binChannel(bin, request.index()), request.provider());
    try (SealedLink link =
        new SealedLink(stream, bin, attempt, true, ProviderClient.MAX_PROVIDER_SILENCE, provider)
            .withKey(linkKey)) {
      link.keyOut(partyNonce, new byte[0]);
      byte[] prefix =
          ByteBuffer.allocate(4 + partyNonce.length).putInt(attempt).put(partyNonce).array();
      byte[] hello = ProviderWire.binHello(bin, attempt, setSizeDemand);
      link.sendRaw(link.seal(prefix, hello, 0, hello.length));
      byte[] first = link.receiveRaw();
      if (first == null) {
        throw new Rejected(provider + " ended the stream before its BIN_START");
      }
      if (first.length <= ProviderWire.NONCE_BYTES + Aead.TAG_BYTES) {
        throw new Rejected(provider + " sent a first frame of " + first.length + " bytes");
      }
      byte[] providerNonce = Arrays.copyOf(first, ProviderWire.NONCE_BYTES);
      link.keyIn(partyNonce, providerNonce);
      BinStart start = ProviderWire.parseBinStart(link.open(first, ProviderWire.NONCE_BYTES));
      link.keyOut(partyNonce, providerNonce);
      long setSize = start.getSetSize();
      List<byte[]> nonces = checkStart(start, setSizeDemand, partyNonce, provider);
      byte[] instance =
          ProviderWire.instance(request.session(), bin, attempt, setSize, providerNonce, nonces);
      long[] mine;
      try (PsiSession s =
          PsiSession.create(
              ProviderWire.PROTOCOL,
              PsiRole.PARTY,
              ProviderWire.sessionParams(
                  parties(), index(), setSize, instance, request.protocolParams()))) {
        s.importSetup(setup);
        s.setGroupSecret(groupSecret);
        byte[] padded = pad(elements, count, setSize);
        try {
          s.setInput(padded, setSize, ProviderWire.ELEMENT_BYTES);
        } finally {
          Arrays.fill(padded, (byte) 0);
        }
        Rounds.party(s, PsiPhase.ONLINE, link, provider);
        mine = ours(s.resultIndices(), count);
      }
      ProviderClient.finish(link, provider);
      return new BinOutcome(mine, setSize, stream.bytesSent(), stream.bytesReceived());
    } catch (Rejected | PsiException | BridgeException e) {
      throw ProviderClient.failure(stream, self, provider, during, e);
    } finally {
      stream.close();
    }
  }

  /** BIN_START's set size and nonces, checked; the nonces in index order. */
  private List<byte[]> checkStart(BinStart start, long demand, byte[] mine, String provider)
      throws Rejected {
    long setSize = start.getSetSize();
    if (setSize < demand || setSize >= ProviderWire.NATIVE_SET_SIZE_LIMIT) {
      throw new Rejected(
          provider
              + " set the bin's set size to "
              + Long.toUnsignedString(setSize)
              + ", not between this party's demand "
              + demand
              + " and the protocol's limit");
    }
    List<byte[]> nonces = start.getPartyNoncesList().stream().map(ByteString::toByteArray).toList();
    if (nonces.size() != parties()
        || nonces.stream().anyMatch(n -> n.length != ProviderWire.NONCE_BYTES)
        || !MessageDigest.isEqual(nonces.get(index()), mine)) {
      throw new Rejected(
          provider
              + " sent "
              + nonces.size()
              + " party nonces for "
              + parties()
              + " parties, or not this party's at its index");
    }
    return nonces;
  }

  /**
   * The elements, then random dummies up to {@code setSize} (they cannot match: 128 random bits).
   */
  private static byte[] pad(byte[] elements, int count, long setSize) {
    byte[] padded = new byte[Math.toIntExact(setSize * ProviderWire.ELEMENT_BYTES)];
    System.arraycopy(elements, 0, padded, 0, elements.length);
    byte[] dummies = new byte[padded.length - elements.length];
    RANDOM.nextBytes(dummies);
    System.arraycopy(dummies, 0, padded, elements.length, dummies.length);
    return padded;
  }

  /** The result's indices of real elements: a dummy the filters wrongly confirm is dropped. */
  private static long[] ours(long[] result, int count) {
    int n = 0;
    while (n < result.length && result[n] < count) {
      n++;
    }
    return Arrays.copyOf(result, n);
  }

  @Override
  public String toString() {
    return "ProviderLink[session="
        + request.session()
        + ", provider="
        + request.provider()
        + ", party "
        + ProviderWire.describe(request.index(), request.party())
        + " of "
        + parties()
        + "]";
  }
}
