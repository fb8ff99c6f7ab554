package io.psiflink.provider;

import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One party's side of a session with the provider of the multiparty join.
 *
 * @param session the session id, the same at every party (1 to 200 printable ASCII characters
 *     without spaces, as the bridge requires)
 * @param provider the provider's name (CN of its certificate)
 * @param providerCertSha256 the SHA-256 (32 bytes) of the provider's certificate, or null to accept
 *     any certificate of {@code provider} that chains to this party's CA; copied in and out
 * @param parties every party's name (CN of its certificate) in index order, the same list at every
 *     party; 2 to {@value ProviderWire#MAX_PARTIES}, distinct, the provider not among them
 * @param index this party's index in {@code parties}
 * @param protocolParams extra mpsi parameters, the same at every party: {@code ""} or e.g. {@code
 *     "fpr=1e-12,fill=0.5"}; never parties, index, instance or set_size (the client sets those)
 */
public record ProviderRequest(
    String session,
    String provider,
    byte[] providerCertSha256,
    List<String> parties,
    int index,
    String protocolParams) {
  public ProviderRequest {
    ProviderWire.checkId(Objects.requireNonNull(session, "session"), "session");
    ProviderWire.checkId(Objects.requireNonNull(provider, "provider"), "provider");
    if (providerCertSha256 != null) {
      if (providerCertSha256.length != 32) {
        throw new IllegalArgumentException(
            "providerCertSha256 must be 32 bytes, not " + providerCertSha256.length);
      }
      providerCertSha256 = providerCertSha256.clone();
    }
    parties = List.copyOf(Objects.requireNonNull(parties, "parties"));
    if (parties.size() < 2 || parties.size() > ProviderWire.MAX_PARTIES) {
      throw new IllegalArgumentException(
          "a multiparty join has 2 to "
              + ProviderWire.MAX_PARTIES
              + " parties, not "
              + parties.size());
    }
    for (String p : parties) {
      ProviderWire.checkId(p, "a party name");
    }
    if (new HashSet<>(parties).size() != parties.size()) {
      throw new IllegalArgumentException("the parties " + parties + " name a party twice");
    }
    if (parties.contains(provider)) {
      throw new IllegalArgumentException(
          "the provider '" + provider + "' cannot be one of the parties " + parties);
    }
    if (index < 0 || index >= parties.size()) {
      throw new IllegalArgumentException(
          "index " + index + " is not one of the " + parties.size() + " parties");
    }
    ProviderWire.checkParams(Objects.requireNonNull(protocolParams, "protocolParams"));
  }

  @Override
  public byte[] providerCertSha256() {
    return providerCertSha256 == null ? null : providerCertSha256.clone();
  }

  /** This party's name, {@code parties().get(index())}. */
  public String party() {
    return parties.get(index);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProviderRequest r
        && session.equals(r.session)
        && provider.equals(r.provider)
        && Arrays.equals(providerCertSha256, r.providerCertSha256)
        && parties.equals(r.parties)
        && index == r.index
        && protocolParams.equals(r.protocolParams);
  }

  @Override
  public int hashCode() {
    return Objects.hash(session, provider, Arrays.hashCode(providerCertSha256), parties, index);
  }

  @Override
  public String toString() {
    return "ProviderRequest[session="
        + session
        + ", provider="
        + provider
        + (providerCertSha256 == null
            ? ""
            : ", providerCertSha256=" + HexFormat.of().formatHex(providerCertSha256))
        + ", parties="
        + parties
        + ", index="
        + index
        + ", protocolParams='"
        + protocolParams
        + "']";
  }
}
