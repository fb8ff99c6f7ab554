package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.coordinator.Tokens.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigAndTokensTest {
  @TempDir Path dir;

  @Test
  void tokensAreRandomAndStoredOnlyAsHashes() throws Exception {
    String t1 = Tokens.newToken();
    String t2 = Tokens.newToken();
    assertNotEquals(t1, t2);
    assertTrue(t1.length() >= 43, "256 bits in base64url");
    String line = Tokens.line(t1, Kind.PARTY, "alice-analyst");
    assertFalse(line.contains(t1));
    Path file = dir.resolve("tokens");
    Files.write(file, List.of("# comment", "", line, Tokens.line(t2, Kind.PEER, "bob")));
    Tokens tokens = Tokens.load(file);
    assertEquals(
        new Tokens.Principal(Kind.PARTY, "alice-analyst"), tokens.authenticate(t1).orElseThrow());
    assertEquals(Kind.PEER, tokens.authenticate(t2).orElseThrow().kind());
    assertTrue(tokens.authenticate(t1 + "x").isEmpty());
    assertTrue(tokens.authenticate("").isEmpty());
    assertFalse(Files.readString(file).contains(t1));
    Files.write(file, List.of("abc party x"));
    assertThrows(IllegalArgumentException.class, () -> Tokens.load(file));
    Files.write(file, List.of(Tokens.sha256Hex("x") + " admin x"));
    assertThrows(IllegalArgumentException.class, () -> Tokens.load(file));
  }

  @Test
  void mainRunsFromAYamlConfig() throws Exception {
    ThrowawayPki.create(dir.resolve("pki"), "alice");
    String token = Tokens.newToken();
    Files.write(dir.resolve("tokens"), List.of(Tokens.line(token, Kind.PARTY, "me")));
    Files.writeString(dir.resolve("peer-token"), Tokens.newToken());
    int port = Parties.freePort();
    Files.writeString(
        dir.resolve("coordinator.yaml"),
        String.join(
            "\n",
            "party: alice",
            "listen: {host: 127.0.0.1, port: " + port + "}",
            "tls: {certificate: pki/alice.pem, privateKey: pki/alice.key, trustedCa: pki/ca.pem}",
            "database: {url: 'jdbc:sqlite:state/coordinator.db'}",
            "tokensFile: tokens",
            "peer: {name: bob, url: 'https://localhost:1', tokenFile: peer-token}",
            "bridge: {endpoint: 'alice.example:7443', certificate: pki/alice.pem}",
            "approvalTtl: PT2H",
            ""));
    Files.createDirectories(dir.resolve("state"));
    CoordinatorConfig config = CoordinatorConfig.load(dir.resolve("coordinator.yaml"));
    assertEquals(Duration.ofHours(2), config.approvalTtl());
    assertEquals(40, config.defaults().sigma());
    assertEquals("rr22", config.defaults().protocol());
    assertEquals("jdbc:sqlite:" + dir.resolve("state/coordinator.db"), config.database().url());
    assertEquals(dir.resolve("tokens"), config.tokensFile());
    assertEquals(dir.resolve("results").toString(), config.output().directory());
    // a URI stays as it is (java.nio would make hdfs://nn/x hdfs:/nn/x)
    Files.writeString(
        dir.resolve("hdfs.yaml"),
        Files.readString(dir.resolve("coordinator.yaml"))
            + "output: {directory: 'hdfs://nn:8020/psi/results'}\n");
    assertEquals(
        "hdfs://nn:8020/psi/results",
        CoordinatorConfig.load(dir.resolve("hdfs.yaml")).output().directory());
    // a job section without a certificate presents the bridge's, and keeps its other settings
    Files.writeString(
        dir.resolve("job.yaml"),
        Files.readString(dir.resolve("coordinator.yaml"))
            + "job: {privateKey: pki/alice.key, trustedCa: pki/ca.pem, maxBadRows: 3%}\n");
    CoordinatorConfig.Job job = CoordinatorConfig.load(dir.resolve("job.yaml")).job();
    assertEquals(dir.resolve("pki/alice.pem"), job.certificate());
    assertEquals("3%", job.maxBadRows());
    assertEquals(List.of(), job.classpath());
    // the embedded party JVM's jars, relative to the file like the other paths
    Files.writeString(
        dir.resolve("jobcp.yaml"),
        Files.readString(dir.resolve("coordinator.yaml"))
            + "job: {privateKey: pki/alice.key, trustedCa: pki/ca.pem,"
            + " classpath: [lib/psi-flink-jobs.jar, /opt/flink/lib/flink-dist.jar]}\n");
    assertEquals(
        List.of(dir.resolve("lib/psi-flink-jobs.jar"), Path.of("/opt/flink/lib/flink-dist.jar")),
        CoordinatorConfig.load(dir.resolve("jobcp.yaml")).job().classpath());

    Thread main =
        new Thread(
            () -> {
              try {
                CoordinatorMain.main(
                    new String[] {"serve", dir.resolve("coordinator.yaml").toString()});
              } catch (InterruptedException e) {
                // stopped
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    main.setDaemon(true);
    main.start();
    Client c =
        new Client(
            Tls.context(
                dir.resolve("pki/alice.pem"),
                dir.resolve("pki/alice.key"),
                dir.resolve("pki/ca.pem")),
            "https://localhost:" + port,
            "Bearer " + token);
    Client.Reply r = null;
    for (int i = 0; i < 100; i++) {
      try {
        r = c.get("/v1/datasets");
        break;
      } catch (IllegalStateException e) {
        Thread.sleep(100);
      }
    }
    assertEquals(200, r == null ? -1 : r.status(), String.valueOf(r));
    assertTrue(Files.exists(dir.resolve("state/coordinator.db")));
    main.interrupt();
  }

  @Test
  void configErrorsNameTheSetting() throws Exception {
    Files.writeString(dir.resolve("c.yaml"), "party: alice\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> unwrap(() -> CoordinatorConfig.load(dir.resolve("c.yaml"))));
    assertTrue(e.getMessage().contains("listen"), e.getMessage());
  }

  @Test
  void aJobModeIsOneOfTheModesAndABadOneIsNamedByItsKey() throws Exception {
    Files.writeString(
        dir.resolve("m.yaml"),
        "party: alice\n" + "job: {mode: flink-rn, privateKey: k, trustedCa: ca}\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> unwrap(() -> CoordinatorConfig.load(dir.resolve("m.yaml"))));
    assertTrue(e.getMessage().startsWith("config: job.mode"), e.getMessage());
    assertTrue(
        e.getMessage().contains("'flink-rn'") && e.getMessage().contains("embedded or flink-run"),
        e.getMessage());
    // a bad format names its key too
    Files.writeString(dir.resolve("f.yaml"), "party: alice\noutput: {format: orc}\n");
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> unwrap(() -> CoordinatorConfig.load(dir.resolve("f.yaml"))));
    assertTrue(e.getMessage().startsWith("config: output.format"), e.getMessage());
    assertTrue(e.getMessage().contains("'orc'"), e.getMessage());
    Files.writeString(dir.resolve("p.yaml"), "party: alice\noutput: {format: parquet}\n");
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> unwrap(() -> CoordinatorConfig.load(dir.resolve("p.yaml"))));
    assertTrue(
        e.getMessage().startsWith("config: output.format must be avro or csv"), e.getMessage());
    // the configuration's words, both ways
    assertEquals(JobMode.FLINK_RUN, JobMode.parse("flink-run"));
    assertEquals(JobMode.EMBEDDED, JobMode.parse("embedded"));
    assertEquals("flink-run", JobMode.FLINK_RUN.text());
    assertEquals(
        JobMode.EMBEDDED,
        new CoordinatorConfig.Job(
                null,
                null,
                null,
                null,
                null,
                dir.resolve("k"),
                dir.resolve("ca"),
                null,
                null,
                null,
                null,
                null,
                null,
                null)
            .mode());
  }

  @Test
  void aBadRowLimitThatDoesNotParseIsRefusedAtLoad() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new CoordinatorConfig.Job(
                    null,
                    null,
                    null,
                    null,
                    null,
                    dir.resolve("k"),
                    dir.resolve("ca"),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    "lots"));
    assertTrue(e.getMessage().startsWith("config: job.maxBadRows"), e.getMessage());
    assertEquals(
        "2.5%",
        new CoordinatorConfig.Job(
                null,
                null,
                null,
                null,
                null,
                dir.resolve("k"),
                dir.resolve("ca"),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                "2.5%")
            .maxBadRows());
  }

  @Test
  void tokenCommandPrintsATokenAndItsHashLine() throws Exception {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      CoordinatorMain.main(new String[] {"token", "peer", "bob-coordinator"});
    } finally {
      System.setOut(old);
    }
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    String token = lines[0].substring("token: ".length()).strip();
    String fileLine = lines[1].substring("tokens-file line: ".length()).strip();
    assertEquals(Tokens.line(token, Kind.PEER, "bob-coordinator"), fileLine);
  }

  interface Call {
    Object run() throws Exception;
  }

  static void unwrap(Call c) throws Exception {
    try {
      c.run();
    } catch (Exception e) {
      Throwable t = e;
      while (t != null && !(t instanceof IllegalArgumentException)) {
        t = t.getCause();
      }
      if (t != null) {
        throw (IllegalArgumentException) t;
      }
      throw e;
    }
  }
}
