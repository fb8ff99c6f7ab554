package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.coordinator.Tokens.Kind;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** CoordinatorMain's command lines as docs/operations.md and the image's entrypoint write them. */
class CoordinatorMainTest {
  @Test
  void serveAndTokenParseToTypedValues() {
    CoordinatorMain.Serve s =
        assertInstanceOf(
            CoordinatorMain.Serve.class, CoordinatorMain.parse("serve", "coordinator.yaml"));
    assertEquals(Path.of("coordinator.yaml"), s.config());
    CoordinatorMain.Token t =
        assertInstanceOf(
            CoordinatorMain.Token.class, CoordinatorMain.parse("token", "party", "alice-analyst"));
    assertEquals(Kind.PARTY, t.kind);
    assertEquals("alice-analyst", t.label);
    assertEquals(
        Kind.PEER, ((CoordinatorMain.Token) CoordinatorMain.parse("token", "peer", "bob")).kind);
  }

  @Test
  void helpListsTheCommandsAndTheirArguments() {
    CommandLine cl = CoordinatorMain.commandLine();
    String top = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertTrue(top.contains("serve") && top.contains("token"), top);
    String serve = cl.getSubcommands().get("serve").getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertTrue(serve.contains("CONFIG.yaml") && serve.contains("--help"), serve);
    String token = cl.getSubcommands().get("token").getUsageMessage(CommandLine.Help.Ansi.OFF);
    assertTrue(token.contains("party|peer") && token.contains("LABEL"), token);
  }

  @Test
  void wrongCommandLinesFailNamingTheArgument() {
    ParameterException kind =
        assertThrows(ParameterException.class, () -> CoordinatorMain.parse("token", "admin", "x"));
    assertTrue(
        kind.getMessage().contains("party|peer") && kind.getMessage().contains("admin"),
        kind.getMessage());
    ParameterException unknown =
        assertThrows(
            ParameterException.class,
            () -> CoordinatorMain.parse("serve", "c.yaml", "--port", "1"));
    assertTrue(unknown.getMessage().contains("--port"), unknown.getMessage());
    ParameterException missing =
        assertThrows(ParameterException.class, () -> CoordinatorMain.parse("serve"));
    assertTrue(missing.getMessage().contains("CONFIG.yaml"), missing.getMessage());
  }
}
