package io.psiflink.jobs;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name value}, {@code --name=value} and {@code --flag} command-line arguments of psi-flink's
 * mains. Errors are IllegalArgumentExceptions whose message ends with the usage text.
 */
public final class Args {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> used = new HashSet<>();
  private final String usage;

  public Args(String[] args, String usage) {
    this(args, usage, Set.of());
  }

  public Args(String[] args, String usage, Set<String> flags) {
    this.usage = usage;
    for (int i = 0; i < args.length; i++) {
      String k = args[i];
      if (!k.startsWith("--")) {
        throw fail("unexpected argument '" + k + "'");
      }
      String v;
      int eq = k.indexOf('=');
      if (eq >= 0) {
        v = k.substring(eq + 1);
        k = k.substring(0, eq);
      } else if (flags.contains(k)) {
        v = "true";
      } else {
        if (i + 1 >= args.length) {
          throw fail(k + " needs a value");
        }
        v = args[++i];
      }
      if (values.put(k, v) != null) {
        throw fail(k + " given twice");
      }
    }
  }

  private IllegalArgumentException fail(String msg) {
    return new IllegalArgumentException(msg + "\n" + usage);
  }

  public String required(String k) {
    String v = values.get(k);
    if (v == null) {
      throw fail("missing " + k);
    }
    used.add(k);
    return v;
  }

  public String optional(String k, String dflt) {
    used.add(k);
    return values.getOrDefault(k, dflt);
  }

  public boolean flag(String k) {
    used.add(k);
    return values.containsKey(k);
  }

  public long requiredLong(String k) {
    return parseLong(k, required(k));
  }

  public long optionalLong(String k, long dflt) {
    String v = optional(k, null);
    return v == null ? dflt : parseLong(k, v);
  }

  public double optionalDouble(String k, double dflt) {
    String v = optional(k, null);
    try {
      return v == null ? dflt : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw fail(k + ": not a number: " + v);
    }
  }

  private long parseLong(String k, String v) {
    try {
      // accepts 1000000, 1_000_000 and 1e6
      String t = v.replace("_", "");
      if (t.contains("e") || t.contains("E")) {
        double d = Double.parseDouble(t);
        if (d != Math.rint(d) || Math.abs(d) > 9e18) {
          throw new NumberFormatException();
        }
        return (long) d;
      }
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw fail(k + ": not an integer: " + v);
    }
  }

  /**
   * The values given for {@code names} (without the leading dashes), keyed by name: for mains that
   * hand their options on as a map.
   */
  public Map<String, String> values(Set<String> names) {
    Map<String, String> m = new HashMap<>();
    for (String n : names) {
      String v = optional("--" + n, null);
      if (v != null) {
        m.put(n, v);
      }
    }
    return m;
  }

  /** Rejects arguments no one asked for. */
  public void finish() {
    for (String k : values.keySet()) {
      if (!used.contains(k)) {
        throw fail("unknown option " + k);
      }
    }
  }
}
