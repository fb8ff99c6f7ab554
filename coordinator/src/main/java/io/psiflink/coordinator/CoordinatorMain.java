package io.psiflink.coordinator;

import io.psiflink.coordinator.Tokens.Kind;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Runs a coordinator, or makes an API token.
 *
 * <pre>
 * CoordinatorMain serve &lt;config.yaml&gt;
 * CoordinatorMain token party|peer &lt;label&gt;   # prints the token, then its tokens-file line
 * </pre>
 */
public final class CoordinatorMain {
  private CoordinatorMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("serve")) {
      CoordinatorConfig config = CoordinatorConfig.load(Path.of(args[1]));
      CoordinatorServer server = CoordinatorServer.start(config);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          server.close();
        } catch (Exception e) {
          System.err.println("coordinator: error while stopping: " + e.getMessage());
        }
      }, "coordinator-shutdown"));
      System.out.println("coordinator of " + config.party() + " listening on https://"
          + config.listen().host() + ":" + server.port());
      server.join();
      return;
    }
    if (args.length == 3 && args[0].equals("token")) {
      Kind kind = Kind.valueOf(args[1].toUpperCase(Locale.ROOT));
      String token = Tokens.newToken();
      System.out.println("token: " + token);
      System.out.println("tokens-file line: " + Tokens.line(token, kind, args[2]));
      return;
    }
    System.err.println("usage: CoordinatorMain serve <config.yaml>\n"
        + "       CoordinatorMain token party|peer <label>");
    System.exit(2);
  }
}
