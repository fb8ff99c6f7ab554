package io.psiflink.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.psiflink.api.HostPort;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job command lines written in deploy/ files: the local-cluster script's (run as bash, from
 * deploy/local-cluster/party-args.sh) and the Kubernetes job manifest's argument list. The job's
 * parser ({@link PartyConfiguration}) must accept each and read the configuration meant.
 */
class JobCommandLinesTest {
  private static final Path ROOT =
      Path.of(System.getProperty("psi.repo.root", "..")).toAbsolutePath().normalize();
  private static final Path DEPLOY = ROOT.resolve("deploy");
  private static final String PIN = "0123456789abcdef".repeat(4);

  @TempDir Path work;

  @Test
  void theLocalClusterScriptsCommandLinesParseToTheIntendedConfigurations() throws Exception {
    String sql = "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card WHERE a.spend > 23";
    Files.createDirectories(work.resolve("tables"));
    Files.writeString(work.resolve("tables/query.sql"), sql);
    for (Role role : List.of(Role.A, Role.B)) {
      List<String> args = scriptArgs(role.label(), false);
      String p = role.table();
      String peer = role.equals(Role.A) ? "party-b" : "party-a";
      PartyConfiguration intended =
          PartyConfiguration.empty()
              .with(PartyOptions.PARTY, role)
              .with(PartyOptions.TABLE, "hdfs://nn:8020/party-" + p + "/tables/" + p + ".csv")
              .with(PartyOptions.SQL, sql)
              .with(PartyOptions.OUT, role.equals(Role.A) ? "hdfs://nn:8020/party-a/out/j" : null)
              .with(PartyOptions.FORMAT, role.equals(Role.A) ? OutputFormat.AVRO : null)
              .with(PartyOptions.QUARANTINE, "hdfs://nn:8020/party-" + p + "/out/quarantine-e2e-1")
              .with(PartyOptions.SESSION, "e2e-1")
              .with(PartyOptions.BRIDGE, new HostPort("127.0.0.1", 7443))
              .with(PartyOptions.CERT, work.resolve("pki/party-" + p + ".pem"))
              .with(PartyOptions.KEY, work.resolve("pki/party-" + p + ".key"))
              .with(PartyOptions.CA, work.resolve("pki/ca.pem"))
              .with(PartyOptions.PEER, peer)
              .with(PartyOptions.PEER_CERT_SHA256, PIN)
              .with(PartyOptions.PARALLELISM, 3)
              .with(PartyOptions.WORK, work.resolve("client-" + p).toString())
              .with(PartyOptions.SUMMARY, work.resolve("summary-" + role.label() + ".json"));
      assertEquals(intended, PartyConfiguration.parse(args), String.join(" ", args));
      // run-e2e.sh's resume of a failed run: the same command line and --resume
      List<String> resumed = scriptArgs(role.label(), true);
      assertEquals(
          intended.with(PartyOptions.RESUME, true),
          PartyConfiguration.parse(resumed),
          String.join(" ", resumed));
    }
  }

  /**
   * Runs party_job_args of party-args.sh the way run-e2e.sh does (for a resumed run with {@code
   * resume}), and returns the array.
   */
  private List<String> scriptArgs(String party, boolean resume) throws Exception {
    String script =
        String.join(
            "\n",
            "set -euo pipefail",
            ". \"$1\"",
            "hdfs_uri=hdfs://nn:8020 session=e2e-1 relay_port=7443 parallelism=3",
            "work=\"$2\" out=hdfs://nn:8020/party-a/out/j resume=\"$5\"",
            "party_job_args \"$3\" \"$4\"",
            "printf '%s\\0' \"${party_args[@]}\"");
    Process proc =
        new ProcessBuilder(
                "bash",
                "-c",
                script,
                "bash",
                DEPLOY.resolve("local-cluster/party-args.sh").toString(),
                work.toString(),
                party,
                PIN,
                resume ? "1" : "0")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    byte[] out = proc.getInputStream().readAllBytes();
    assertTrue(proc.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, proc.exitValue());
    String text = new String(out, StandardCharsets.UTF_8);
    assertTrue(text.endsWith("\0"), text);
    return new ArrayList<>(Arrays.asList(text.substring(0, text.length() - 1).split("\0", -1)));
  }

  @Test
  void theKubernetesJobManifestsArgumentsParseToTheIntendedConfiguration() throws Exception {
    JsonNode job =
        new ObjectMapper(new YAMLFactory())
            .readTree(DEPLOY.resolve("kubernetes/job-run.yaml").toFile());
    List<String> args = new ArrayList<>();
    job.path("spec")
        .path("template")
        .path("spec")
        .path("containers")
        .get(0)
        .path("args")
        .forEach(a -> args.add(a.asText()));
    // the image's entrypoint: `run PARTYMAIN_ARGS...` (deploy/docker/entrypoint.sh)
    assertEquals("run", args.get(0));
    PartyConfiguration intended =
        PartyConfiguration.empty()
            .with(PartyOptions.PARTY, Role.A)
            .with(PartyOptions.TABLE, "hdfs://namenode.alice.example:8020/data/purchases")
            .with(
                PartyOptions.SQL,
                "SELECT b.email_domain, a.spend FROM a JOIN b ON a.card = b.card "
                    + "AND a.zip = b.zip WHERE a.spend > 23")
            .with(PartyOptions.OUT, "hdfs://namenode.alice.example:8020/psi/out/session-0001")
            .with(
                PartyOptions.QUARANTINE,
                "hdfs://namenode.alice.example:8020/psi/quarantine/session-0001")
            .with(PartyOptions.SESSION, "session-0001")
            .with(PartyOptions.BRIDGE, new HostPort("bridge.alice.example", 7443))
            .with(PartyOptions.CERT, Path.of("/opt/psi/secrets/bridge/bridge.pem"))
            .with(PartyOptions.KEY, Path.of("/opt/psi/secrets/bridge/bridge.key"))
            .with(PartyOptions.CA, Path.of("/opt/psi/secrets/bridge/ca-bundle.pem"))
            .with(PartyOptions.PEER, "bob")
            .with(PartyOptions.PEER_CERT_SHA256, "0".repeat(64))
            .with(PartyOptions.PUBLIC_SIZE, PublicSize.ROUNDED)
            .with(PartyOptions.EXPECTED_COLUMNS, "card:BIGINT,zip:STRING,spend:DOUBLE")
            .with(PartyOptions.PARALLELISM, 16);
    assertEquals(intended, PartyConfiguration.parse(args.subList(1, args.size())));
  }
}
