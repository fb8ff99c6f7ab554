package io.psiflink.jobs.psi;

import io.psiflink.api.Role;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiRole;
import java.util.List;
import java.util.Objects;

/**
 * Which protocol role ({@link PsiRole}, as the native protocol names it) each organisation role
 * ({@link Role}, who a party is in the join) plays: the one place this mapping is written.
 *
 * <ul>
 *   <li>Party {@code i} of {@code n} plays the protocol's {@code i}-th party role (its roles other
 *       than {@link PsiRole#HELPER}, in {@link ProtocolInfo#roles()} order), and {@code n} must be
 *       the number of those roles. For every two-party protocol this is: <b>party A (party 0, table
 *       {@code a}, which writes the joined rows) is the {@link PsiRole#RECEIVER}; party B is the
 *       {@link PsiRole#SENDER}</b>. The job asks for {@code output=both}, so both learn their
 *       intersecting keys either way; A is the receiver because a cardinality-only output goes to
 *       the receiver and A writes the result.
 *   <li>The helper plays {@link PsiRole#HELPER}, if the protocol has one.
 *   <li>The provider of a multiparty join plays no role in any protocol so far.
 * </ul>
 */
public final class ProtocolRoles {
  private ProtocolRoles() {}

  /**
   * The protocol role {@code org} plays in {@code protocol}.
   *
   * @throws IllegalArgumentException when the protocol has no role for {@code org}
   */
  public static PsiRole of(Role org, ProtocolInfo protocol) {
    Objects.requireNonNull(org, "org");
    Objects.requireNonNull(protocol, "protocol");
    List<PsiRole> partyRoles = protocol.roles().stream().filter(r -> r != PsiRole.HELPER).toList();
    switch (org.kind()) {
      case PARTY -> {
        if (org.parties() != partyRoles.size()) {
          throw new IllegalArgumentException(
              "protocol "
                  + protocol.name()
                  + " is for "
                  + partyRoles.size()
                  + " parties, not "
                  + org.parties()
                  + " (role "
                  + org
                  + ")");
        }
        return partyRoles.get(org.index());
      }
      case HELPER -> {
        if (protocol.roles().contains(PsiRole.HELPER)) {
          return PsiRole.HELPER;
        }
      }
      case PROVIDER -> {
        // no protocol has a provider role yet
      }
    }
    throw new IllegalArgumentException(
        "protocol "
            + protocol.name()
            + " has no role for the "
            + org
            + " (its roles: "
            + protocol.roles()
            + ")");
  }
}
