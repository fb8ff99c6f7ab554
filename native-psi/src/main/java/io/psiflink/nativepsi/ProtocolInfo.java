package io.psiflink.nativepsi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the native library says of one of its protocols ({@code psi_protocol_info} in {@code
 * psi_native.h}): the job, the coordinator and the command line select and validate protocols by
 * these descriptions, so a protocol registered in the library is selectable without a Java edit.
 *
 * <pre>{@code
 * ProtocolInfo p = ProtocolInfo.byName("ecdh");   // unknown name: the error lists the known ones
 * if (p.setupNeedsSenderSet()) { ... run the setup in every bin ... }
 * }</pre>
 *
 * <p>Immutable. The descriptions are read from the library once, on first use, and kept: the
 * library's table is static too.
 *
 * @param name the name {@link PsiSession#create} takes, e.g. {@code kkrt}
 * @param summary one line for help texts and error messages
 * @param parties the number of parties holding sets in one run; 0 for a multiparty protocol, where
 *     the {@code parties} parameter gives it
 * @param roles the protocol roles, {@link PsiRole#RECEIVER} first (two-party protocols: receiver,
 *     sender)
 * @param outputs the {@link PsiParams.Output} modes the protocol accepts; output bits this binding
 *     does not know are left out
 * @param defaultOutput the mode used when the {@code output} parameter is not given
 * @param setupNeedsSenderSet whether the sender's setup message is computed from its set (ECDH): a
 *     run does its own setup after {@link PsiSession#setInput}, and a setup cannot be shared by
 *     runs over different sets; false: the setup may run once and be imported by every bin (KKRT)
 * @param labels whether elements may carry labels (labelled PSI)
 * @param elementLenMin the shortest element length {@link PsiSession#setInput} accepts
 * @param elementLenMax the longest element length {@link PsiSession#setInput} accepts
 * @param maxSetSize each party's element count must be below this
 * @param params the parameter keys the protocol accepts ({@link PsiParams})
 */
public record ProtocolInfo(
    String name,
    String summary,
    int parties,
    List<PsiRole> roles,
    Set<PsiParams.Output> outputs,
    PsiParams.Output defaultOutput,
    boolean setupNeedsSenderSet,
    boolean labels,
    int elementLenMin,
    int elementLenMax,
    long maxSetSize,
    List<String> params) {

  public ProtocolInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(defaultOutput, "defaultOutput");
    roles = List.copyOf(roles);
    outputs = outputs.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(outputs));
    params = List.copyOf(params);
    if (!outputs.contains(defaultOutput)) {
      throw new IllegalArgumentException(
          name + ": default output " + defaultOutput + " is not among " + outputs);
    }
  }

  /**
   * Every two-party protocol of the library, in the library's order (the first is the default one):
   * the protocols a two-party join may use. The multiparty ones are {@link #multiparty()}.
   */
  public static List<ProtocolInfo> all() {
    return Registry.TWO_PARTY;
  }

  /**
   * The library's multiparty protocols (roles {@link PsiRole#PARTY} and {@link PsiRole#PROVIDER},
   * {@link #parties()} 0: any number, given by the {@code parties} parameter).
   */
  public static List<ProtocolInfo> multiparty() {
    return Registry.MULTIPARTY;
  }

  /** The default protocol: the library's first ({@code kkrt}). */
  public static ProtocolInfo defaultProtocol() {
    return all().get(0);
  }

  /** The protocol of that name, if the library has one. */
  public static Optional<ProtocolInfo> find(String name) {
    Objects.requireNonNull(name, "name");
    return all().stream().filter(p -> p.name.equals(name)).findFirst();
  }

  /**
   * The protocol of that name.
   *
   * @throws IllegalArgumentException naming the known protocols when the library has none of that
   *     name
   */
  public static ProtocolInfo byName(String name) {
    return find(name)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown protocol '" + name + "' (known: " + knownNames() + ")"));
  }

  /** The names of all protocols, comma-separated, for messages: {@code "rr22, kkrt, ecdh"}. */
  public static String knownNames() {
    return all().stream().map(ProtocolInfo::name).collect(Collectors.joining(", "));
  }

  /** Whether the {@code output} parameter accepts this mode. */
  public boolean supports(PsiParams.Output output) {
    return outputs.contains(output);
  }

  /** Whether the protocol can reveal only the size of the intersection. */
  public boolean supportsCardinality() {
    return supports(PsiParams.Output.CARDINALITY);
  }

  /**
   * Whether a setup may run once and be imported by every run: not {@link #setupNeedsSenderSet}.
   */
  public boolean setupReusable() {
    return !setupNeedsSenderSet;
  }

  /** Whether {@link PsiSession#setInput} accepts elements of this length. */
  public boolean acceptsElementLength(int length) {
    return length >= elementLenMin && length <= elementLenMax;
  }

  /** Reads the library's table once (lazily: the holder is loaded on first use). */
  private static final class Registry {
    static final List<ProtocolInfo> ALL = load();
    static final List<ProtocolInfo> TWO_PARTY = ALL.stream().filter(p -> p.parties() == 2).toList();
    static final List<ProtocolInfo> MULTIPARTY =
        ALL.stream().filter(p -> p.parties() != 2).toList();

    static List<ProtocolInfo> load() {
      long count = PsiNative.psi_protocol_count();
      List<ProtocolInfo> all = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        PsiNative.Description d = new PsiNative.Description();
        int rc = PsiNative.psi_protocol_info(i, d, d.size());
        if (rc != 0) {
          throw new PsiException(
              PsiSession.statusOf(rc),
              "psi_protocol_info("
                  + i
                  + ") of "
                  + count
                  + " failed (a library built with another psi_protocol_description?)");
        }
        d.read();
        all.add(of(d));
      }
      return List.copyOf(all);
    }

    static ProtocolInfo of(PsiNative.Description d) {
      if (d.roleCount < 0 || d.roleCount > PsiNative.MAX_ROLES) {
        throw new PsiException(PsiStatus.INTERNAL, d.name + ": role count " + d.roleCount);
      }
      List<PsiRole> roles = new ArrayList<>();
      for (int r = 0; r < d.roleCount; r++) {
        roles.add(PsiRole.of(d.roles[r]));
      }
      Set<PsiParams.Output> outputs = EnumSet.noneOf(PsiParams.Output.class);
      PsiParams.Output defaultOutput = null;
      for (PsiParams.Output o : PsiParams.Output.values()) {
        int bit = bit(o);
        if ((d.outputs & bit) != 0) {
          outputs.add(o);
        }
        if (d.defaultOutput == bit) {
          defaultOutput = o;
        }
      }
      if (defaultOutput == null) {
        throw new PsiException(
            PsiStatus.INTERNAL, d.name + ": unknown default output bits " + d.defaultOutput);
      }
      List<String> params =
          d.params == null || d.params.isEmpty() ? List.of() : List.of(d.params.split(","));
      return new ProtocolInfo(
          d.name,
          d.summary == null ? "" : d.summary,
          d.parties,
          roles,
          outputs,
          defaultOutput,
          d.setupNeedsSenderSet != 0,
          d.labels != 0,
          d.elementLenMin,
          d.elementLenMax,
          d.maxSetSize,
          params);
    }

    static int bit(PsiParams.Output o) {
      return switch (o) {
        case RECEIVER -> PsiNative.OUTPUT_RECEIVER;
        case BOTH -> PsiNative.OUTPUT_BOTH;
        case CARDINALITY -> PsiNative.OUTPUT_CARDINALITY;
        case LABELS -> PsiNative.OUTPUT_LABELS;
      };
    }
  }
}
