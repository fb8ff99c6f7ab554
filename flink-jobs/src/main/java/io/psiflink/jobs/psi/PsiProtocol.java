package io.psiflink.jobs.psi;

import java.util.Locale;

/**
 * What the job needs to know of a native PSI protocol beyond the round API: whether its setup can
 * run once per session (KKRT's base OTs) or depends on each bin's set (ECDH: the server's set is
 * the setup message), and whether it can reveal only the intersection's size.
 */
public enum PsiProtocol {
  KKRT(false, false),
  ECDH(true, true);

  private final boolean setupPerBin;
  private final boolean cardinality;

  PsiProtocol(boolean setupPerBin, boolean cardinality) {
    this.setupPerBin = setupPerBin;
    this.cardinality = cardinality;
  }

  /** The protocol's name in the native API. */
  public String nativeName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether every bin runs the setup rounds itself, after its input is set. */
  public boolean setupPerBin() {
    return setupPerBin;
  }

  /** Whether the protocol has a cardinality-only output. */
  public boolean supportsCardinality() {
    return cardinality;
  }

  /** @throws IllegalArgumentException naming the known protocols */
  public static PsiProtocol of(String name) {
    for (PsiProtocol p : values()) {
      if (p.nativeName().equals(name)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown protocol '" + name + "' (known: kkrt, ecdh)");
  }
}
