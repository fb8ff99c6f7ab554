package io.psiflink.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.coordinator.CoordinatorConfig;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the files of deploy/ that cannot run on the development machines (no Docker engine, no
 * Kubernetes cluster) as far as they can be checked without running them, and the ones that can.
 */
class DeployFilesTest {
  private static final Path ROOT =
      Path.of(System.getProperty("psi.repo.root", "..")).toAbsolutePath().normalize();
  private static final Path DEPLOY = ROOT.resolve("deploy");
  private static final String KUBERNETES_VERSION = "1.30.0";
  private static final String VALIDATOR = "kubernetes-validate==1.37.0";

  // ---- Flink -----------------------------------------------------------------------------------

  /**
   * Every key of deploy/flink/config.yaml is a Flink 2.3 option (not a deprecated name), and its
   * value parses as that option's type, read the way Flink's own scripts and processes read it.
   */
  @Test
  void flinkConfigUsesRealFlinkOptionsWithValidValues() throws Exception {
    Map<String, ConfigOption<?>> options = flinkOptions();
    assertTrue(options.size() > 300, "found only " + options.size() + " Flink options");
    Configuration conf = GlobalConfiguration.loadConfiguration(DEPLOY.resolve("flink").toString());
    Set<String> keys = conf.keySet();
    assertTrue(keys.size() > 20, "config.yaml read as " + keys);
    Pattern reporter = Pattern.compile("metrics\\.reporter\\.[a-z]+\\.(factory\\.class|port)");
    List<String> problems = new ArrayList<>();
    for (String key : new TreeSet<>(keys)) {
      if (reporter.matcher(key).matches()) {
        continue; // a reporter's own options (metrics.reporter.<name>.<option>), checked below
      }
      ConfigOption<?> option = options.get(key);
      if (option == null) {
        problems.add(key + ": no such Flink 2.3 option" + deprecatedHint(options, key));
        continue;
      }
      try {
        conf.get(option);
      } catch (RuntimeException e) {
        problems.add(key + ": bad value '" + conf.toMap().get(key) + "': " + e.getMessage());
      }
    }
    assertEquals(List.of(), problems);
    assertEquals(
        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
        conf.toMap().get("metrics.reporter.prom.factory.class"));
    // what the job relies on (PrivateJoinJob.flinkConfig leaves these to the cluster under flink
    // run)
    Map<String, String> m = conf.toMap();
    assertEquals("hashmap", m.get("state.backend.type"));
    assertEquals("false", m.get("execution.batch-state-backend.enabled"));
    assertEquals("none", m.get("restart-strategy.type"));
    assertTrue(m.containsKey("io.tmp.dirs"));
    assertTrue(
        Integer.parseInt(m.get("parallelism.default"))
            <= Integer.parseInt(m.get("taskmanager.numberOfTaskSlots")));
  }

  private static String deprecatedHint(Map<String, ConfigOption<?>> options, String key) {
    for (ConfigOption<?> o : options.values()) {
      for (FallbackKey f : o.fallbackKeys()) {
        if (f.getKey().equals(key)) {
          return " (an old name of " + o.key() + ")";
        }
      }
    }
    return "";
  }

  /** All ConfigOption constants of Flink's *Options classes on the class path (Flink 2.3 jars). */
  private static Map<String, ConfigOption<?>> flinkOptions() throws Exception {
    Map<String, ConfigOption<?>> options = new HashMap<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("/org/apache/flink/") || !entry.endsWith(".jar")) {
        continue;
      }
      try (JarFile jar = new JarFile(entry)) {
        for (var e : java.util.Collections.list(jar.entries())) {
          String n = e.getName();
          if (!n.startsWith("org/apache/flink/")
              || !n.endsWith("Options.class")
              || n.contains("$")) {
            continue;
          }
          Class<?> c;
          try {
            c =
                Class.forName(
                    n.substring(0, n.length() - 6).replace('/', '.'),
                    false,
                    DeployFilesTest.class.getClassLoader());
          } catch (Throwable t) {
            continue; // classes whose dependencies are not on this class path
          }
          for (Field f : fields(c)) {
            if (Modifier.isStatic(f.getModifiers())
                && ConfigOption.class.isAssignableFrom(f.getType())) {
              try {
                f.setAccessible(true);
                ConfigOption<?> o = (ConfigOption<?>) f.get(null);
                options.put(o.key(), o);
              } catch (Throwable t) {
                break; // the class cannot initialise without modules not on this class path
              }
            }
          }
        }
      }
    }
    return options;
  }

  private static Field[] fields(Class<?> c) {
    try {
      return c.getDeclaredFields();
    } catch (Throwable t) {
      return new Field[0];
    }
  }

  // ---- coordinator ------------------------------------------------------------------------------

  /**
   * The coordinator's config loads with CoordinatorConfig, and every file it names is one the
   * Kubernetes Secret mounts.
   */
  @Test
  void coordinatorConfigLoadsAndMatchesTheSecretMounts() throws Exception {
    CoordinatorConfig c = CoordinatorConfig.load(DEPLOY.resolve("coordinator/coordinator.yaml"));
    assertEquals("alice", c.party());
    assertEquals("bob", c.peer().name());
    assertTrue(
        c.database().url().startsWith("jdbc:postgresql://psi-postgres:5432/"), c.database().url());
    assertEquals(8443, c.listen().port());

    JsonNode deployment =
        documents(DEPLOY.resolve("kubernetes/coordinator.yaml")).stream()
            .filter(d -> d.path("kind").asText().equals("Deployment"))
            .findFirst()
            .orElseThrow();
    JsonNode pod = deployment.path("spec").path("template").path("spec");
    String mount =
        pod.path("containers").get(0).path("volumeMounts").get(0).path("mountPath").asText();
    Set<String> mounted = new HashSet<>();
    for (JsonNode item : pod.path("volumes").get(0).path("secret").path("items")) {
      mounted.add(mount + "/" + item.path("path").asText());
    }
    for (Path p :
        List.of(
            c.tls().certificate(),
            c.tls().privateKey(),
            c.tls().trustedCa(),
            c.tokensFile(),
            c.peer().tokenFile(),
            c.bridge().certificate())) {
      assertTrue(
          mounted.contains(p.toString()), p + " is not mounted; the Secret gives " + mounted);
    }
    assertTrue(mounted.contains(pod.path("containers").get(0).path("args").get(1).asText()));
  }

  // ---- certificates -----------------------------------------------------------------------------

  /**
   * make-certs.sh makes what the bridge loads: each party's job accepts the other's certificate
   * with both CAs in its bundle, and not without the peer's CA.
   */
  @Test
  void certificateScriptMakesCredentialsTheBridgeAccepts(@TempDir Path dir) throws Exception {
    for (String party : List.of("alice", "bob")) {
      run(
          dir,
          "bash",
          DEPLOY.resolve("certs/make-certs.sh").toString(),
          "--party",
          party,
          "--out",
          dir.resolve(party).toString());
    }
    Path bundle = dir.resolve("ca-bundle.pem");
    Files.writeString(
        bundle,
        Files.readString(dir.resolve("alice/ca.pem"))
            + Files.readString(dir.resolve("bob/ca.pem")));
    PartyCredentials alice =
        PartyCredentials.load(
            dir.resolve("alice/bridge.pem"), dir.resolve("alice/bridge.key"), bundle);
    PartyCredentials bob =
        PartyCredentials.load(dir.resolve("bob/bridge.pem"), dir.resolve("bob/bridge.key"), bundle);
    alice.verifyPeer(bob.certificate(), "bob");
    bob.verifyPeer(alice.certificate(), "alice");
    assertThrows(BridgeException.class, () -> alice.verifyPeer(bob.certificate(), "mallory"));
    PartyCredentials aliceOwnCaOnly =
        PartyCredentials.load(
            dir.resolve("alice/bridge.pem"),
            dir.resolve("alice/bridge.key"),
            dir.resolve("alice/ca.pem"));
    assertThrows(BridgeException.class, () -> aliceOwnCaOnly.verifyPeer(bob.certificate(), "bob"));
    // fingerprints for the out-of-band comparison, and no second CA over the first
    String fp = Files.readString(dir.resolve("alice/fingerprints.txt"));
    assertTrue(fp.matches("(?s)ca +([0-9A-F]{2}:){31}[0-9A-F]{2}\n.*"), fp);
    Process again =
        new ProcessBuilder(
                "bash",
                DEPLOY.resolve("certs/make-certs.sh").toString(),
                "--party",
                "alice",
                "--out",
                dir.resolve("alice").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertNotEquals(0, again.waitFor(), out);
    assertTrue(out.contains("refusing"), out);
  }

  // ---- Kubernetes -------------------------------------------------------------------------------

  /**
   * Every manifest is valid against the Kubernetes API schemas (kubernetes-validate from PyPI, in a
   * throwaway venv under /tmp; strict: unknown fields fail), and the validator does catch a bad
   * one.
   */
  @Test
  void kubernetesManifestsMatchTheApiSchemas(@TempDir Path tmp) throws Exception {
    Path validator = kubernetesValidate();
    List<String> cmd =
        new ArrayList<>(List.of(validator.toString(), "-k", KUBERNETES_VERSION, "--strict"));
    List<Path> manifests = manifests();
    manifests.forEach(p -> cmd.add(p.toString()));
    String out = run(tmp, cmd.toArray(String[]::new));
    for (Path p : manifests) {
      assertTrue(out.contains(p.getFileName() + " passed"), out);
    }
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(
        bad,
        Files.readString(DEPLOY.resolve("kubernetes/flink.yaml"))
            .replace("replicas: 2", "replica: 2"));
    Process p =
        new ProcessBuilder(
                validator.toString(), "-k", KUBERNETES_VERSION, "--strict", bad.toString())
            .redirectErrorStream(true)
            .start();
    String badOut = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertNotEquals(0, p.waitFor(), "the validator accepted a misspelt field:\n" + badOut);
  }

  /**
   * What the schemas cannot see: kustomization resources exist, every Secret and port a pod names
   * is defined, one image everywhere.
   */
  @Test
  void kubernetesManifestsAreConsistent() throws Exception {
    JsonNode kustomization = documents(DEPLOY.resolve("kubernetes/kustomization.yaml")).get(0);
    String namespace = kustomization.path("namespace").asText();
    for (JsonNode r : kustomization.path("resources")) {
      assertTrue(Files.isRegularFile(DEPLOY.resolve("kubernetes").resolve(r.asText())), r.asText());
    }
    Set<String> secrets = new HashSet<>();
    Map<String, Set<String>> secretKeys = new LinkedHashMap<>();
    Set<String> images = new TreeSet<>();
    List<JsonNode> pods = new ArrayList<>();
    for (Path m : manifests()) {
      for (JsonNode d : documents(m)) {
        String kind = d.path("kind").asText();
        if (d.path("metadata").has("namespace")) {
          assertEquals(namespace, d.path("metadata").path("namespace").asText(), m.toString());
        }
        if (kind.equals("Secret")) {
          secrets.add(d.path("metadata").path("name").asText());
          Set<String> keys = new HashSet<>();
          d.path("stringData").fieldNames().forEachRemaining(keys::add);
          secretKeys.put(d.path("metadata").path("name").asText(), keys);
        }
        JsonNode pod =
            kind.equals("Job")
                ? d.path("spec").path("template").path("spec")
                : d.path("spec").path("template").path("spec");
        if (pod.has("containers")) {
          pods.add(pod);
          for (JsonNode c : pod.path("containers")) {
            images.add(c.path("image").asText());
          }
        }
      }
    }
    assertEquals(1, images.size(), "one image for all: " + images);
    for (JsonNode pod : pods) {
      for (JsonNode v : pod.path("volumes")) {
        if (v.has("secret")) {
          String name = v.path("secret").path("secretName").asText();
          assertTrue(secrets.contains(name), "secret " + name + " is not in secrets.example.yaml");
          for (JsonNode item : v.path("secret").path("items")) {
            assertTrue(
                secretKeys.get(name).contains(item.path("key").asText()),
                name + " has no key " + item.path("key").asText());
          }
        }
      }
      Set<String> volumes = new HashSet<>();
      pod.path("volumes").forEach(v -> volumes.add(v.path("name").asText()));
      for (JsonNode c : pod.path("containers")) {
        for (JsonNode vm : c.path("volumeMounts")) {
          assertTrue(volumes.contains(vm.path("name").asText()), vm.toString());
        }
      }
    }
    // the job's bridge files are where the Secret is mounted, on the client and the task managers
    JsonNode job = documents(DEPLOY.resolve("kubernetes/job-run.yaml")).get(0);
    String args =
        job.path("spec")
            .path("template")
            .path("spec")
            .path("containers")
            .get(0)
            .path("args")
            .toString();
    for (String f : List.of("bridge.pem", "bridge.key", "ca-bundle.pem")) {
      assertTrue(args.contains("/opt/psi/secrets/bridge/" + f), args);
      assertTrue(secretKeys.get("psi-bridge-tls").contains(f), f);
    }
  }

  private static List<Path> manifests() throws IOException {
    try (var s = Files.list(DEPLOY.resolve("kubernetes"))) {
      return s.filter(p -> p.toString().endsWith(".yaml"))
          .filter(p -> !p.getFileName().toString().equals("kustomization.yaml"))
          .sorted()
          .toList();
    }
  }

  private static List<JsonNode> documents(Path yaml) throws IOException {
    ObjectMapper mapper = new ObjectMapper(new YAMLFactory());
    ObjectReader reader = mapper.readerFor(JsonNode.class);
    List<JsonNode> docs = new ArrayList<>();
    try (var it = reader.<JsonNode>readValues(yaml.toFile())) {
      while (it.hasNext()) {
        JsonNode d = it.next();
        if (d != null && !d.isNull() && !d.isMissingNode()) {
          docs.add(d);
        }
      }
    }
    return docs;
  }

  /** kubernetes-validate in a venv under /tmp, made once per machine (it then runs offline). */
  private static Path kubernetesValidate() throws Exception {
    Path venv = Path.of(System.getProperty("java.io.tmpdir"), "psi-kubernetes-validate-1.37.0");
    Path exe = venv.resolve("bin/kubernetes-validate");
    if (!Files.isExecutable(exe)) {
      Path tmp = Files.createTempDirectory("psi-kv-");
      run(tmp, "python3", "-m", "venv", venv.toString());
      run(
          tmp,
          venv.resolve("bin/pip").toString(),
          "install",
          "-q",
          "--disable-pip-version-check",
          VALIDATOR);
    }
    return exe;
  }

  // ---- Docker -----------------------------------------------------------------------------------

  /**
   * The Dockerfile, linted by structure: known instructions, FROM first, base images from Debian,
   * every stage it copies from defined, every file it copies from the build context present, the
   * Flink version the one the build uses, an entry point that exists and parses.
   */
  @Test
  void dockerfileIsWellFormed() throws Exception {
    List<String> lines = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String raw : Files.readAllLines(DEPLOY.resolve("docker/Dockerfile"))) {
      String line = raw.strip();
      if (cur.length() == 0 && (line.isEmpty() || line.startsWith("#"))) {
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      if (line.endsWith("\\")) {
        cur.append(line, 0, line.length() - 1).append(' ');
      } else {
        cur.append(line);
        lines.add(cur.toString());
        cur.setLength(0);
      }
    }
    assertEquals(0, cur.length(), "a continuation line at the end");
    Set<String> known =
        Set.of(
            "FROM",
            "RUN",
            "COPY",
            "ADD",
            "ARG",
            "ENV",
            "WORKDIR",
            "USER",
            "EXPOSE",
            "ENTRYPOINT",
            "CMD",
            "LABEL",
            "VOLUME",
            "HEALTHCHECK",
            "STOPSIGNAL",
            "SHELL",
            "ONBUILD");
    Set<String> stages = new HashSet<>();
    Map<String, String> args = new HashMap<>();
    boolean seenFrom = false;
    String entrypoint = null;
    for (String l : lines) {
      String instr = l.split("\\s+", 2)[0];
      String rest = l.substring(instr.length()).strip();
      assertTrue(known.contains(instr), "unknown instruction: " + l);
      if (!seenFrom) {
        assertTrue(instr.equals("FROM") || instr.equals("ARG"), "must start with FROM: " + l);
      }
      switch (instr) {
        case "ARG" -> {
          String[] kv = rest.split("=", 2);
          if (kv.length > 1) {
            args.put(kv[0], kv[1]); // a later bare ARG only brings the value into its stage
          }
        }
        case "FROM" -> {
          seenFrom = true;
          Matcher m = Pattern.compile("(\\S+)(?:\\s+AS\\s+(\\S+))?").matcher(rest);
          assertTrue(m.matches(), l);
          String image = m.group(1);
          assertTrue(
              image.matches("debian:12(-slim)?") || stages.contains(image),
              "base images come from Debian: " + l);
          if (m.group(2) != null) {
            stages.add(m.group(2));
          }
        }
        case "COPY", "ADD" -> {
          assertEquals("COPY", instr, "ADD fetches URLs and unpacks archives: use COPY: " + l);
          List<String> parts = new ArrayList<>(List.of(rest.split("\\s+")));
          String from = null;
          while (parts.get(0).startsWith("--")) {
            String flag = parts.remove(0);
            if (flag.startsWith("--from=")) {
              from = flag.substring("--from=".length());
            }
          }
          assertTrue(parts.size() >= 2, l);
          if (from != null) {
            assertTrue(stages.contains(from), "unknown stage " + from + ": " + l);
          } else {
            for (String src : parts.subList(0, parts.size() - 1)) {
              assertTrue(Files.exists(ROOT.resolve(src)), "not in the build context: " + src);
            }
          }
        }
        case "ENTRYPOINT" -> {
          assertTrue(rest.startsWith("["), "exec form, so signals reach the process: " + l);
          entrypoint = rest;
        }
        default -> {}
      }
    }
    String pomFlink = pomProperty("flink.version");
    assertEquals(pomFlink, args.get("FLINK_VERSION"), "the image's Flink must be the build's");
    String text = Files.readString(DEPLOY.resolve("docker/Dockerfile"));
    assertTrue(
        text.contains("\"apache-flink==${FLINK_VERSION}\"")
            && text.contains("\"apache-flink-libraries==${FLINK_VERSION}\""),
        "pinned PyPI versions");
    assertTrue(entrypoint != null && entrypoint.contains("/opt/psi/entrypoint.sh"), entrypoint);
    Path script = DEPLOY.resolve("docker/entrypoint.sh");
    assertTrue(Files.isExecutable(script));
    run(DEPLOY, "bash", "-n", script.toString());
    String ignore = Files.readString(DEPLOY.resolve("docker/Dockerfile.dockerignore"));
    assertTrue(ignore.contains("**/target"), "build outputs stay out of the context");
  }

  @Test
  void scriptsParse() throws Exception {
    for (String s :
        List.of(
            "local-cluster/run-e2e.sh",
            "local-cluster/flink-clusters.sh",
            "local-cluster/party-args.sh",
            "certs/make-certs.sh",
            "docker/entrypoint.sh")) {
      Path p = DEPLOY.resolve(s);
      assertTrue(Files.isExecutable(p), s + " must be executable");
      run(DEPLOY, "bash", "-n", p.toString());
    }
  }

  private static String pomProperty(String name) throws IOException {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertTrue(m.find(), name);
    return m.group(1);
  }

  private static String run(Path dir, String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      fail(String.join(" ", cmd) + " timed out");
    }
    if (p.exitValue() != 0) {
      fail(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "):\n" + out);
    }
    return out;
  }
}
