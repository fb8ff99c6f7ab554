package io.psiflink.jobs.filter;

import java.text.Normalizer;
import java.util.Arrays;
import java.util.Locale;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * The Unicode normalisation functions a query may use in ON and WHERE, which Flink SQL lacks:
 * {@code NFC(s)}, {@code NFD(s)}, {@code NFKC(s)} and {@code NFKD(s)}, each a STRING (NULL for
 * NULL) normalised by {@link java.text.Normalizer} to that form of Unicode Standard Annex #15.
 * ({@code NORMALIZE} itself is a reserved word of Flink's SQL parser.) Both parties register them
 * in the table environment that evaluates their keys and conditions, so a key {@code NFC(a.name)}
 * is computed by each party on its own rows, like any other expression.
 */
public final class UnicodeNormalization {
  private UnicodeNormalization() {}

  /** The function names, as queries write them. */
  public static final String[] NAMES = {"NFC", "NFD", "NFKC", "NFKD"};

  /** Registers the functions in {@code tEnv} (once: a second call changes nothing). */
  public static void register(TableEnvironment tEnv) {
    String[] present = tEnv.listUserDefinedFunctions();
    for (String name : NAMES) {
      boolean registered =
          Arrays.stream(present).anyMatch(p -> p.toUpperCase(Locale.ROOT).equals(name));
      if (!registered) {
        tEnv.createTemporarySystemFunction(name, function(name));
      }
    }
  }

  private static ScalarFunction function(String name) {
    return switch (name) {
      case "NFC" -> new Nfc();
      case "NFD" -> new Nfd();
      case "NFKC" -> new Nfkc();
      case "NFKD" -> new Nfkd();
      default -> throw new IllegalArgumentException(name);
    };
  }

  static String normalize(String s, Normalizer.Form form) {
    return s == null ? null : Normalizer.normalize(s, form);
  }

  /** NFC(s): canonical decomposition, then canonical composition. */
  public static final class Nfc extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    public String eval(String s) {
      return normalize(s, Normalizer.Form.NFC);
    }
  }

  /** NFD(s): canonical decomposition. */
  public static final class Nfd extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    public String eval(String s) {
      return normalize(s, Normalizer.Form.NFD);
    }
  }

  /** NFKC(s): compatibility decomposition, then canonical composition. */
  public static final class Nfkc extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    public String eval(String s) {
      return normalize(s, Normalizer.Form.NFKC);
    }
  }

  /** NFKD(s): compatibility decomposition. */
  public static final class Nfkd extends ScalarFunction {
    private static final long serialVersionUID = 1L;

    public String eval(String s) {
      return normalize(s, Normalizer.Form.NFKD);
    }
  }
}
