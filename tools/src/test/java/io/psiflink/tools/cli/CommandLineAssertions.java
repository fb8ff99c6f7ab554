package io.psiflink.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.CommandLineSyntax;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What every tool's command line promises: a complete --help and one-line errors, exit 2. */
public final class CommandLineAssertions {
  private CommandLineAssertions() {}

  /** {@code --help} exits 0 and lists exactly {@code options}. */
  public static void assertHelpLists(CommandLineSyntax syntax, String... options) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ToolOptions.Parsed p =
        ToolOptions.parse(
            syntax,
            "cmd",
            new String[] {"--help"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err);
    assertEquals(0, p.exitCode());
    String help = out.toString(StandardCharsets.UTF_8);
    for (String o : options) {
      assertTrue(
          help.contains(o + " ") || help.contains(o + "=") || help.contains(o + "\n"),
          o + " not in\n" + help);
    }
    assertEquals(options.length, syntax.options().size(), "an option the test does not name");
  }

  /** The command line exits 2 with one line on stderr that names {@code option}. */
  public static void assertFails(CommandLineSyntax syntax, String option, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ToolOptions.Parsed p =
        ToolOptions.parse(
            syntax, "cmd", args, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    assertEquals(2, p.exitCode(), e);
    assertTrue(e.contains(option), option + " not in " + e);
    assertEquals(1, e.strip().lines().count(), "one line: " + e);
  }
}
