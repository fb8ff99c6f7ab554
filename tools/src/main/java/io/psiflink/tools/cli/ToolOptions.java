package io.psiflink.tools.cli;

import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.TypedOption;
import io.psiflink.api.UsageException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * Typed option kinds the tools' command lines share ({@code ./psi bench join}, {@code ./psi demo},
 * the table generator, the insecure Flink join), on top of {@link TypedOption}'s text, integer and
 * flag, and the one way those mains report a wrong command line.
 */
public final class ToolOptions {
  private ToolOptions() {}

  /**
   * A count such as a number of rows: {@code 1000000}, {@code 1_000_000} or {@code 1e6}, at least
   * {@code least}.
   */
  public static TypedOption<Long> count(
      String name, String label, String description, Long defaultValue, long least) {
    return new TypedOption<>(
        name,
        Long.class,
        label,
        description,
        defaultValue,
        false,
        s -> atLeast(parseLong(s), least),
        String::valueOf);
  }

  /** A fraction in [0, 1], or in (0, 1] when {@code zeroAllowed} is false. */
  public static TypedOption<Double> fraction(
      String name, String label, String description, Double defaultValue, boolean zeroAllowed) {
    return new TypedOption<>(
        name,
        Double.class,
        label,
        description,
        defaultValue,
        false,
        s -> inUnit(parseDouble(s), zeroAllowed),
        ToolOptions::printDouble);
  }

  /**
   * A fraction in [0, 1] kept as written ({@code 0.50} stays {@code 0.50}): for values that name
   * directories or are echoed in reports.
   */
  public static TypedOption<BigDecimal> decimalFraction(
      String name, String label, String description, BigDecimal defaultValue) {
    return new TypedOption<>(
        name,
        BigDecimal.class,
        label,
        description,
        defaultValue,
        false,
        s -> {
          BigDecimal d;
          try {
            d = new BigDecimal(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number, not '" + s + "'");
          }
          inUnit(d.doubleValue(), true);
          return d;
        },
        BigDecimal::toString);
  }

  /** Any long ({@code 1e6} and underscores accepted), e.g. a seed. */
  public static TypedOption<Long> anyLong(
      String name, String label, String description, long defaultValue) {
    return new TypedOption<>(
        name,
        Long.class,
        label,
        description,
        defaultValue,
        false,
        ToolOptions::parseLong,
        String::valueOf);
  }

  /**
   * Parses {@code args} or prints the outcome that ends the command: the help on {@code out} (exit
   * 0) or one line naming the option on {@code err} (exit 2).
   *
   * @param prefix the error lines' prefix, e.g. {@code psi bench join}
   * @return the values, or null when the command ends here with {@link Parsed#exitCode}
   */
  public static Parsed parse(
      CommandLineSyntax syntax, String prefix, String[] args, PrintStream out, PrintStream err) {
    if (CommandLineSyntax.wantsHelp(args)) {
      out.print(syntax.usage());
      return new Parsed(null, 0);
    }
    try {
      return new Parsed(syntax.parse(args), -1);
    } catch (UsageException e) {
      err.println(prefix + ": " + e.getMessage() + " (--help lists the options)");
      return new Parsed(null, 2);
    }
  }

  /** The values of a command line, or the exit code of a command that ends at its parsing. */
  public record Parsed(OptionValues values, int exitCode) {
    public boolean done() {
      return values == null;
    }
  }

  // accepts 1000000, 1_000_000 and 1e6
  static long parseLong(String v) {
    String t = v.trim().replace("_", "");
    try {
      if (t.contains("e") || t.contains("E")) {
        double d = Double.parseDouble(t);
        if (d != Math.rint(d) || Math.abs(d) > 9e18) {
          throw new NumberFormatException();
        }
        return (long) d;
      }
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be an integer, not '" + v + "'");
    }
  }

  private static double parseDouble(String v) {
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("must be a number, not '" + v + "'");
    }
  }

  private static long atLeast(long v, long least) {
    if (v < least) {
      throw new IllegalArgumentException("must be at least " + least + ", not " + v);
    }
    return v;
  }

  private static double inUnit(double v, boolean zeroAllowed) {
    if (!((zeroAllowed ? v >= 0 : v > 0) && v <= 1)) {
      throw new IllegalArgumentException(
          "must be in " + (zeroAllowed ? "[0" : "(0") + ", 1], not " + printDouble(v));
    }
    return v;
  }

  private static String printDouble(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? String.format(Locale.ROOT, "%d", (long) v)
        : Double.toString(v);
  }
}
