package io.psiflink.it.cluster;

import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.jobs.session.ResumeState;
import io.psiflink.jobs.write.BinJournal;
import io.psiflink.tools.bench.GeneratorSpec;
import io.psiflink.tools.bench.TableGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The helpers of {@code deploy/local-cluster/run-e2e.sh}, one per subcommand. They run on the
 * deploy module's test class path (never in the job jar):
 *
 * <ul>
 *   <li>{@code hdfs --dir DIR --uri-file F}: a standalone HDFS (MiniDFSCluster: one NameNode, one
 *       DataNode) in this process, standing in for a party's Hadoop cluster; writes its {@code
 *       hdfs://host:port} URI to F once it accepts clients and runs until killed;
 *   <li>{@code relay --pki DIR --port-file F}: a throwaway CA with certificates for {@code
 *       party-a}, {@code party-b} and {@code bridge} in DIR, and a bridge relay on loopback with
 *       them; writes its port to F and runs until killed;
 *   <li>{@code tables --rows N --hdfs URI --local DIR}: generates the benchmark tables (a, b) into
 *       DIR and copies each onto HDFS under its party's tree ({@code /party-a/tables/a.csv}, {@code
 *       /party-b/tables/b.csv}), and the query both run into DIR/query.sql;
 *   <li>{@code check --rows N --out URI --report F}: reads party A's Avro output from HDFS and
 *       compares it, as a multiset of rows, with {@link JoinOracle}; writes a JSON report and exits
 *       1 when they differ; the report also lists what is left to resume beside the output (hidden
 *       {@code .<name>.resume-*} journal directories in its parent);
 *   <li>{@code forget [--journal OUT SESSION]... WORKDIR...}: what a launcher does once the join
 *       succeeded at both parties: removes the resume state in each party's client work directory
 *       ({@link ResumeState#forget}; party B keeps it after its own success) and the journal of
 *       each abandoned run (a failed run that was rerun under a new session instead of resumed).
 * </ul>
 */
public final class E2eTool {
  private E2eTool() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      fail("usage: E2eTool hdfs|relay|tables|check|forget [options]");
    }
    if (args[0].equals("forget")) {
      forget(args);
      return;
    }
    Map<String, String> o = options(args);
    switch (args[0]) {
      case "hdfs" -> hdfs(Path.of(req(o, "dir")), Path.of(req(o, "uri-file")));
      case "relay" -> relay(Path.of(req(o, "pki")), Path.of(req(o, "port-file")));
      case "tables" ->
          tables(Long.parseLong(req(o, "rows")), req(o, "hdfs"), Path.of(req(o, "local")));
      case "check" ->
          System.exit(
              check(Long.parseLong(req(o, "rows")), req(o, "out"), Path.of(req(o, "report")))
                  ? 0
                  : 1);
      default -> fail("unknown subcommand " + args[0]);
    }
  }

  // ------------------------------------------------------------------------------------------------

  static void hdfs(Path dir, Path uriFile) throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.toAbsolutePath().toString());
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
    String uri = "hdfs://localhost:" + cluster.getNameNodePort();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown, "hdfs shutdown"));
    writeAtomically(uriFile, uri);
    System.out.println("HDFS at " + uri + " (data in " + dir + ")");
    new CountDownLatch(1).await();
  }

  static void relay(Path pkiDir, Path portFile) throws Exception {
    ThrowawayPki pki = ThrowawayPki.create(pkiDir, "party-a", "party-b", "bridge");
    BridgeRelay relay =
        BridgeRelay.start(
            RelayConfig.defaults(pki.credentials("bridge"), Set.of("party-a", "party-b")));
    Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "relay shutdown"));
    writeAtomically(portFile, Integer.toString(relay.port()));
    System.out.println(
        "bridge relay on port " + relay.port() + " (certificates in " + pkiDir + ")");
    new CountDownLatch(1).await();
  }

  static void tables(long rows, String hdfs, Path local) throws IOException {
    TableGenerator.generate(spec(rows), local);
    FileSystem fs = FileSystem.get(java.net.URI.create(hdfs), new Configuration());
    put(fs, local.resolve(TableGenerator.FILE_A), hdfs + "/party-a/tables/a.csv");
    put(fs, local.resolve(TableGenerator.FILE_B), hdfs + "/party-b/tables/b.csv");
    // the query both parties run, for the script
    Files.writeString(local.resolve("query.sql"), JoinOracle.SQL, StandardCharsets.UTF_8);
  }

  private static void put(FileSystem fs, Path src, String dst) throws IOException {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(dst);
    fs.mkdirs(p.getParent());
    try (InputStream in = Files.newInputStream(src);
        OutputStream out = fs.create(p, false)) {
      in.transferTo(out);
    }
    System.out.println(
        "put " + src + " -> " + dst + " (" + fs.getFileStatus(p).getLen() + " bytes)");
  }

  /**
   * The tables of the end-to-end run: equal sizes, half the keys shared, some repeated and NULL.
   */
  public static GeneratorSpec spec(long rows) {
    return new GeneratorSpec(rows, rows, 0.5, 0.05, 0.01, GeneratorSpec.DEFAULT_SEED);
  }

  static boolean check(long rows, String out, Path report) throws IOException {
    Map<String, Integer> expected = JoinOracle.expected(spec(rows));
    long expectedRows = expected.values().stream().mapToLong(Integer::longValue).sum();
    FileSystem fs = FileSystem.get(java.net.URI.create(out), new Configuration());
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(out);
    boolean success = fs.exists(new org.apache.hadoop.fs.Path(dir, "_SUCCESS"));
    Map<String, Integer> actual = new HashMap<>();
    long actualRows = 0;
    int parts = 0;
    List<String> fields = null;
    for (FileStatus st : fs.listStatus(dir)) {
      String name = st.getPath().getName();
      if (!st.isFile() || name.startsWith("_") || name.startsWith(".")) {
        continue;
      }
      parts++;
      try (InputStream in = fs.open(st.getPath());
          DataFileStream<GenericRecord> avro =
              new DataFileStream<>(in, new GenericDatumReader<>())) {
        if (fields == null) {
          fields = avro.getSchema().getFields().stream().map(f -> f.name()).toList();
        }
        for (GenericRecord r : avro) {
          List<Object> values = new ArrayList<>();
          for (int i = 0; i < r.getSchema().getFields().size(); i++) {
            Object v = r.get(i);
            values.add(v instanceof CharSequence cs ? cs.toString() : v);
          }
          actual.merge(JoinOracle.line(values), 1, Integer::sum);
          actualRows++;
        }
      }
    }
    int missing = 0;
    int unexpected = 0;
    List<String> examples = new ArrayList<>();
    for (Map.Entry<String, Integer> e : expected.entrySet()) {
      int d = e.getValue() - actual.getOrDefault(e.getKey(), 0);
      if (d > 0) {
        missing += d;
        if (examples.size() < 5) {
          examples.add("missing: " + e.getKey());
        }
      }
    }
    for (Map.Entry<String, Integer> e : actual.entrySet()) {
      int d = e.getValue() - expected.getOrDefault(e.getKey(), 0);
      if (d > 0) {
        unexpected += d;
        if (examples.size() < 10) {
          examples.add("unexpected: " + e.getKey());
        }
      }
    }
    boolean ok =
        success
            && missing == 0
            && unexpected == 0
            && JoinOracle.COLUMNS.equals(fields)
            && expectedRows > 0;
    Map<String, Object> rep = new LinkedHashMap<>();
    rep.put("match", ok);
    rep.put("rows_per_side", rows);
    rep.put("expected_rows", expectedRows);
    rep.put("output_rows", actualRows);
    rep.put("missing_rows", missing);
    rep.put("unexpected_rows", unexpected);
    rep.put("output_parts", parts);
    rep.put("success_marker", success);
    rep.put("columns", fields == null ? List.of() : fields);
    rep.put("examples", examples);
    rep.put("resume_journals", resumeJournals(fs, dir));
    String json = json(rep);
    writeAtomically(report, json);
    System.out.println(json);
    return ok;
  }

  /**
   * The resume journals beside {@code out}: hidden directories of its parent named {@code
   * .<name>.resume-<hash>} (docs/operations.md), of any session. Listed by name, not through the
   * job's BinJournal, so that a journal the job failed to remove, or put elsewhere, shows.
   */
  static List<String> resumeJournals(FileSystem fs, org.apache.hadoop.fs.Path out)
      throws IOException {
    List<String> left = new ArrayList<>();
    org.apache.hadoop.fs.Path parent = out.getParent();
    if (parent == null || !fs.exists(parent)) {
      return left;
    }
    for (FileStatus st : fs.listStatus(parent)) {
      String name = st.getPath().getName();
      if (st.isDirectory() && name.startsWith(".") && name.contains(".resume-")) {
        left.add(st.getPath().toString());
      }
    }
    return left;
  }

  /** {@code forget [--journal OUT SESSION]... WORKDIR...}: see the class comment. */
  static void forget(String[] args) throws IOException {
    List<Path> workDirs = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--journal")) {
        if (i + 2 >= args.length) {
          fail("--journal takes the output and the session of the abandoned run");
        }
        BinJournal journal = BinJournal.of(args[i + 1], args[i + 2]);
        journal.delete();
        System.out.println("removed the journal of abandoned session " + args[i + 2]);
        i += 2;
      } else {
        workDirs.add(Path.of(args[i]));
      }
    }
    for (Path w : workDirs) {
      if (ResumeState.forget(w)) {
        System.out.println("removed the resume state in " + w);
      }
    }
  }

  // ------------------------------------------------------------------------------------------------

  private static String json(Map<String, Object> m) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append(quote(e.getKey())).append(':').append(value(e.getValue()));
    }
    return b.append('}').toString();
  }

  private static String value(Object v) {
    if (v instanceof List<?> l) {
      List<String> items = new ArrayList<>();
      for (Object x : l) {
        items.add(value(x));
      }
      return "[" + String.join(",", items) + "]";
    }
    return v instanceof String s ? quote(s) : String.valueOf(v);
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 1; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        fail("bad argument '" + args[i] + "': options are --name value");
      }
      o.put(args[i].substring(2), args[i + 1]);
    }
    return o;
  }

  private static String req(Map<String, String> o, String k) {
    String v = o.get(k);
    if (v == null) {
      fail("--" + k + " is required");
    }
    return v;
  }

  private static void fail(String msg) {
    System.err.println("E2eTool: " + msg);
    System.exit(2);
  }
}
