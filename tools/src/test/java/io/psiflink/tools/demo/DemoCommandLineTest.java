package io.psiflink.tools.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.psiflink.api.OptionValues;
import io.psiflink.tools.cli.CommandLineAssertions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code ./psi demo}'s command line, as README.md and docs write it. */
class DemoCommandLineTest {
  @Test
  void parsesToTypedValues() {
    OptionValues o =
        Demo.SYNTAX.parse(
            "--rows",
            "1e5",
            "--overlap",
            "0.3",
            "--parallelism",
            "4",
            "--party-heap",
            "3g",
            "--work",
            "/tmp/demo");
    assertEquals(100_000L, o.get(Demo.ROWS));
    assertEquals(0.3, o.get(Demo.OVERLAP));
    assertEquals(4, o.get(Demo.PARALLELISM));
    assertEquals("3g", o.get(Demo.PARTY_HEAP));
    assertEquals(Path.of("/tmp/demo"), o.get(Demo.WORK));
    OptionValues d = Demo.SYNTAX.parse();
    assertEquals(100_000L, d.get(Demo.ROWS));
    assertEquals(0.5, d.get(Demo.OVERLAP));
    assertEquals(2, d.get(Demo.PARALLELISM));
    assertEquals("2g", d.get(Demo.PARTY_HEAP));
    assertFalse(d.has(Demo.WORK));
  }

  @Test
  void helpListsEveryOption() {
    CommandLineAssertions.assertHelpLists(
        Demo.SYNTAX, "--rows", "--overlap", "--parallelism", "--party-heap", "--work");
  }

  @Test
  void wrongCommandLinesFailNamingTheOption() {
    CommandLineAssertions.assertFails(Demo.SYNTAX, "--rows", "--rows", "0");
    CommandLineAssertions.assertFails(Demo.SYNTAX, "--overlap", "--overlap", "2");
    CommandLineAssertions.assertFails(Demo.SYNTAX, "--parallelism", "--parallelism", "x");
    CommandLineAssertions.assertFails(Demo.SYNTAX, "--port", "--port", "80");
  }
}
