package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.api.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The link of {@code --net} for real (root and iproute2 needed, else skipped): a namespace, tbf on
 * a veth pair and the delaying proxy give the round trip and the rate asked for, and closing
 * removes the namespace.
 */
@EnabledIf("rootWithTc")
class SlowNetworkTest {
  static boolean rootWithTc() {
    try {
      ShapedLink.tool("tc");
      ShapedLink.tool("ip");
      return "0".equals(ShapedLink.run(List.of("id", "-u")).trim());
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void theLinkHasTheRateAndDelayAskedForAndLeavesNothingBehind() throws Exception {
    ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
    NetSpec spec = NetSpec.parse("50mbit,15ms");
    String ns;
    try (SlowNetwork net = SlowNetwork.start(spec, log)) {
      ns = net.namespace();
      assertTrue(ShapedLink.run(List.of("ip", "netns", "list")).contains(ns), ns);
      assertEquals(
          List.of("ip", "netns", "exec", ns).size(), net.hooks().launchPrefix(Role.B).size());
      assertTrue(net.hooks().launchPrefix(Role.A).isEmpty());
      JsonNode m = net.measure(log);
      System.out.println("measured " + spec.text() + ": " + m);
      double rtt = m.path("rtt_ms").asDouble();
      // 2 x 15 ms, plus a little for the forwarder, the JVMs and a loaded machine
      assertTrue(rtt >= 30 && rtt < 30 + 40, "round trip " + rtt + " ms");
      for (String dir : List.of("a_to_b_bits_per_second", "b_to_a_bits_per_second")) {
        double r = m.path(dir).asDouble() / spec.rateBitsPerSecond();
        // goodput: TCP/IP headers take ~3 % of the link; above 1.05 the link would not limit
        assertTrue(r > 0.7 && r < 1.05, dir + ": " + r + " of the rate; " + logBytes);
      }
    }
    assertFalse(ShapedLink.run(List.of("ip", "netns", "list")).contains(ns), ns + " still there");
  }
}
