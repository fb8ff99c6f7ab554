package io.psiflink.jobs;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JobMetricNames;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.connectors.BadRowGate;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.QuarantineSink;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.connectors.SourceResult;
import io.psiflink.connectors.StagedOutput;
import io.psiflink.connectors.TableSink;
import io.psiflink.connectors.TableSource;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.RowView;
import io.psiflink.jobs.bin.BinBatcher;
import io.psiflink.jobs.bin.BinRouting;
import io.psiflink.jobs.filter.KeyExpressions;
import io.psiflink.jobs.filter.WhereFilter;
import io.psiflink.jobs.prefilter.BloomPartial;
import io.psiflink.jobs.prefilter.CandidateSelect;
import io.psiflink.jobs.prefilter.PrefilterExchange;
import io.psiflink.jobs.prefilter.PrefilterLink;
import io.psiflink.jobs.prefilter.PrefilterMetrics;
import io.psiflink.jobs.prefilter.PrefilterPlan;
import io.psiflink.jobs.psi.BinContext;
import io.psiflink.jobs.psi.BinPsiOperator;
import io.psiflink.jobs.psi.PairBins;
import io.psiflink.jobs.psi.ProtocolChoice;
import io.psiflink.jobs.read.PublicRowCount;
import io.psiflink.jobs.read.SizeEstimate;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.session.SessionHandshake;
import io.psiflink.jobs.session.SessionSecrets;
import io.psiflink.jobs.token.TokenizeOperator;
import io.psiflink.jobs.write.BinJournal;
import io.psiflink.query.ExpectedColumns;
import io.psiflink.query.JoinKey;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.OutputColumn;
import io.psiflink.query.PartyView;
import io.psiflink.query.ResolvedJoin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ResourceManagerOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.ExceptionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One party's private join job (phases 1-6 of DESIGN.md): handshake with the peer's job over the
 * bridge, then one Flink batch job: read and quarantine, WHERE with Flink SQL, tokenize, shuffle to
 * bins kept in a local spill file, PSI per bin with the peer, reverse lookup and payload, and
 * (party A) write the joined rows.
 */
public final class PrivateJoinJob {
  private static final Logger LOG = LoggerFactory.getLogger(PrivateJoinJob.class);

  /** System properties with this prefix are Flink options of the embedded MiniCluster. */
  public static final String FLINK_PROPERTY_PREFIX = "psi.flink.";

  private PrivateJoinJob() {}

  /**
   * Runs this party's side of the session, top to bottom: {@link #plan} (the query against the own
   * table, outputs staged), {@link #handshake} (the peer agrees and the session keys are derived),
   * {@link #pipeline} (the Flink job, its keys in a secret file of the distributed cache) and
   * {@link #execute} (the job runs; its outputs are committed or removed).
   */
  public static JobSummary run(PartyConfig cfg) throws Exception {
    return run(cfg, null);
  }

  /**
   * {@link #run(PartyConfig)} on {@code cluster}, shared with the peer's job in this JVM ({@code
   * ./psi local}); null for the cluster of its own that {@code env.execute} starts.
   */
  static JobSummary run(PartyConfig cfg, SharedMiniCluster cluster) throws Exception {
    if (cfg.group() != null) {
      return GroupJoinJob.run(cfg);
    }
    long start = System.currentTimeMillis();
    Plan plan = plan(cfg);
    RunResume resume = RunResume.prepare(cfg, plan.query().fingerprint());
    SessionSecrets secrets = handshake(cfg, plan, resume.handshake());
    secrets = resume.afterHandshake(secrets, plan.query().fingerprint());
    long handshakeDone = System.currentTimeMillis();
    // The keys reach the task managers in a file of the distributed cache, never in the job graph
    // (which the JobManager keeps, its HA store too); the file is deleted when the job ends.
    Path secretFile = JobSecrets.of(secrets).writeTo(secretDir(cfg));
    try {
      StreamExecutionEnvironment env =
          pipeline(
              cfg,
              plan.query(),
              plan.schema(),
              plan.view(),
              secrets,
              secretFile,
              plan.staged(),
              plan.quarantine(),
              resume.journal(),
              cluster);
      JobSummary summary;
      try {
        summary = execute(cfg, plan, env, secrets, start, handshakeDone);
      } catch (Exception e) {
        resume.failed();
        throw e;
      }
      resume.finish();
      return summary;
    } finally {
      try {
        Files.deleteIfExists(secretFile);
      } catch (java.io.IOException e) {
        LOG.warn("cannot delete the session's secret file {}: {}", secretFile, e.toString());
      }
    }
  }

  /**
   * What this party will do, settled before it talks to the peer: its role, the query and its view
   * of the own table, and the outputs, staged so that an existing one fails now.
   *
   * @param staged the joined rows' output (party A only, else null)
   * @param quarantine the quarantine output, or null
   */
  record Plan(
      Role role,
      JoinQuery query,
      TableSchema schema,
      PartyView view,
      StagedOutput staged,
      StagedOutput quarantine,
      List<Column> keys) {

    List<Column> kept() {
      return columns(schema, view.revealedColumns());
    }
  }

  /** Step 1: parses the query, checks it against the own table and stages the outputs. */
  static Plan plan(PartyConfig cfg) throws Exception {
    Role role = role(cfg);
    JoinQuery query = JoinQuery.parse(cfg.sql());
    TableSchema schema = SchemaDiscovery.discover(cfg.table(), cfg.csv());
    if (cfg.expectedColumns() != null) {
      // the files must still have exactly the registered columns: the approval was about those
      ExpectedColumns.check(cfg.expectedColumns(), schema, "of party " + cfg.party());
    }
    PartyView view = query.view(role, schema);
    // the keys' types, computed keys' by Flink: the handshake compares them with the peer's
    List<Column> keys = KeyExpressions.columns(schema, view.keys());
    // checked before the handshake, so that an existing output fails fast, not after the join
    StagedOutput staged = isOutputParty(role) ? StagedOutput.prepare(cfg.out()) : null;
    StagedOutput quarantine =
        cfg.quarantine() == null ? null : StagedOutput.prepare(cfg.quarantine(), true);
    ProtocolChoice.check(cfg.protocol(), query.countOnly(), cfg.mode(), view.kind().peerColumns());
    if (query.countOnly() && cfg.bins() > 1) {
      throw new IllegalArgumentException(
          "SELECT COUNT(DISTINCT ...) runs in one bin: per-bin "
              + "counts would tell A more than the total; leave --bins out");
    }
    checkPrefilter(cfg, query);
    LOG.info(
        "party {}: table {} {}; {}, keys {}, keeps {}, WHERE {}",
        cfg.party(),
        JdbcTable.redact(cfg.table()),
        schema,
        view.kind().text(),
        keys,
        view.revealedColumns(),
        view.wherePredicate().isEmpty() ? "(none)" : view.wherePredicate());
    for (String note : view.notes()) {
      LOG.info("party {}: {}", cfg.party(), note);
    }
    return new Plan(role, query, schema, view, staged, quarantine, keys);
  }

  /**
   * The prefilter is refused where it would tell a party more than the mode allows: in the labeled
   * mode B would learn its candidates (a superset of the intersection it must not learn), and with
   * COUNT A would learn its candidates (more than the count). Checked before the handshake.
   */
  static void checkPrefilter(PartyConfig cfg, JoinQuery query) {
    if (cfg.prefilter() == Prefilter.NONE) {
      return;
    }
    if (cfg.mode() == JoinMode.LABELED) {
      throw new IllegalArgumentException(
          "--prefilter "
              + cfg.prefilter().text()
              + " is refused with --mode labeled: B would learn its candidates, a superset of the"
              + " intersection, which the labeled mode hides from B");
    }
    if (query.countOnly()) {
      throw new IllegalArgumentException(
          "--prefilter "
              + cfg.prefilter().text()
              + " is refused with SELECT COUNT(...): A would learn its candidates, more than the"
              + " count");
    }
  }

  /**
   * Step 2: the signed control handshake with the peer's job over the bridge; {@code resume} says
   * whether it resumes an earlier run.
   */
  static SessionSecrets handshake(PartyConfig cfg, Plan plan, SessionHandshake.Resume resume)
      throws Exception {
    PartyCredentials me = cfg.bridge().credentials();
    JoinQuery query = plan.query();
    SessionSecrets secrets;
    try (BridgeClient client = BridgeClient.connect(cfg.bridge().clientConfig())) {
      secrets =
          SessionHandshake.run(
              client,
              cfg.session(),
              me,
              new SessionHandshake.LocalFacts(
                  plan.role(),
                  cfg.peer(),
                  query.fingerprint(),
                  cfg.protocol(),
                  cfg.protocolParams(),
                  cfg.mode(),
                  cfg.labelBytes(),
                  cfg.sigma(),
                  query.countOnly() ? 1 : cfg.bins(),
                  cfg.publicSize().estimate(SizeEstimate.rows(cfg.table())),
                  cfg.parallelism(),
                  plan.keys(),
                  plan.kept(),
                  namedColumns(plan.schema(), plan.view()),
                  cfg.peerCertificateSha256(),
                  new SessionHandshake.PrefilterRequest(
                      cfg.prefilter(),
                      cfg.filterBits(),
                      cfg.filterHashes(),
                      cfg.helper(),
                      SessionHandshake.PrefilterRequest.ppm(cfg.expectedOverlap())),
                  null),
              resume);
    }
    LOG.info(
        "party {}: session {} agreed with '{}': {} bins, σ={}, protocol {}",
        cfg.party(),
        cfg.session(),
        secrets.peerParty(),
        secrets.bins(),
        cfg.sigma(),
        cfg.protocol());
    return secrets;
  }

  /** Where the job writes its session secret file: a directory only its user may enter. */
  static Path secretDir(PartyConfig cfg) throws java.io.IOException {
    Path dir = Path.of(cfg.workDir()).resolve("secrets");
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(
          dir,
          java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
    }
    return dir;
  }

  /**
   * Step 4: runs the job; commits the quarantine and the output when it succeeded, removes them
   * when it failed (keeping the quarantine when too many bad rows were the failure: it says why).
   */
  private static JobSummary execute(
      PartyConfig cfg,
      Plan plan,
      StreamExecutionEnvironment env,
      SessionSecrets secrets,
      long start,
      long handshakeDone)
      throws Exception {
    return execute(
        cfg,
        plan.staged(),
        plan.quarantine(),
        plan.role().table(),
        secrets.bins(),
        secrets.prefilter(),
        env,
        start,
        handshakeDone);
  }

  /**
   * {@link #execute(PartyConfig, Plan, StreamExecutionEnvironment, SessionSecrets, long, long)} for
   * any join: {@code name} is the party's table in the query, {@code prefilter} null without one.
   */
  static JobSummary execute(
      PartyConfig cfg,
      StagedOutput staged,
      StagedOutput quarantine,
      String name,
      int bins,
      PrefilterPlan prefilter,
      StreamExecutionEnvironment env,
      long start,
      long handshakeDone)
      throws Exception {
    long jobStart = System.currentTimeMillis();
    JobExecutionResult result;
    try {
      result = runToEnd(env, JobMetricNames.jobName(cfg.role(), cfg.session()));
    } catch (Exception e) {
      java.util.Optional<String> tooMany = BadRowGate.failure(e);
      if (tooMany.isPresent() && quarantine != null) {
        // the gate failed only after every quarantine file was complete: it says what is wrong
        quarantine.commit();
        abort(staged, null);
      } else {
        abort(staged, quarantine);
      }
      if (tooMany.isPresent()) {
        throw new TooManyBadRowsException(tooMany.get());
      }
      throw e;
    }
    if (quarantine != null) {
      quarantine.commit();
    }
    if (staged != null) {
      staged.commit();
    }
    long end = System.currentTimeMillis();
    return summarize(cfg, name, bins, prefilter, result, start, handshakeDone, jobStart, end);
  }

  /**
   * Runs the job to its end as {@code env.execute} does, except that an interrupt of the waiting
   * thread cancels the job, which {@code env.execute} would leave running: {@code ./psi local}
   * stops a party that runs on a thread of its JVM this way.
   */
  static JobExecutionResult runToEnd(StreamExecutionEnvironment env, String name) throws Exception {
    JobClient job = env.executeAsync(name);
    try {
      return job.getJobExecutionResult().get();
    } catch (InterruptedException e) {
      job.cancel();
      Thread.currentThread().interrupt();
      throw e;
    } catch (ExecutionException e) {
      // as env.execute: the job's own exception, not the future's wrapper
      ExceptionUtils.rethrowException(ExceptionUtils.stripExecutionException(e));
      throw e; // not reached
    }
  }

  /** This party's role in the session. */
  private static Role role(PartyConfig cfg) {
    return cfg.role();
  }

  /** The output party writes the joined rows: A, the PSI's receiver. */
  private static boolean isOutputParty(Role role) {
    return role.equals(Role.A);
  }

  /**
   * Step 3: builds this party's Flink job after the handshake. The job graph holds no secret: the
   * functions read the session's keys from the file {@code secretFile} ({@link JobSecrets#ship})
   * when they open.
   */
  static StreamExecutionEnvironment pipeline(
      PartyConfig cfg,
      JoinQuery query,
      TableSchema schema,
      PartyView view,
      SessionSecrets secrets,
      Path secretFile,
      StagedOutput staged,
      StagedOutput quarantine,
      BinJournal journal,
      SharedMiniCluster cluster)
      throws Exception {
    Role role = role(cfg);
    boolean outputParty = isOutputParty(role);
    List<Column> kept = columns(schema, view.revealedColumns());
    // Both parties resolve the whole query against their own schema and the columns the peer's half
    // references: this checks types across the tables and catches an unqualified name both tables
    // have, which each party alone would take for its own.
    TableSchema peerSchema = new TableSchema(secrets.peerNamed());
    ResolvedJoin resolved =
        role.equals(Role.A) ? query.resolve(schema, peerSchema) : query.resolve(peerSchema, schema);
    // The output party maps each output column to its own kept columns or the peer's revealed ones.
    int[] output = new int[0];
    TableSchema outSchema = null;
    if (outputParty && query.countOnly()) {
      outSchema = new TableSchema(List.of(new Column(resolved.count(), ColumnType.BIGINT, false)));
    } else if (outputParty) {
      List<String> peerRevealed = secrets.peerRevealed().stream().map(Column::name).toList();
      output = new int[resolved.output().size()];
      List<Column> outColumns = new ArrayList<>();
      for (int i = 0; i < output.length; i++) {
        OutputColumn oc = resolved.output().get(i);
        ColumnType type;
        if (oc.side().equals(role)) {
          output[i] = view.revealedColumns().indexOf(oc.column());
          type = kept.get(output[i]).type();
        } else {
          int j = peerRevealed.indexOf(oc.column());
          if (j < 0) {
            throw new IllegalStateException(
                "the peer does not reveal " + role.peer().table() + "." + oc.column());
          }
          output[i] = -1 - j;
          type = secrets.peerRevealed().get(j).type();
        }
        outColumns.add(new Column(oc.outputName(), type, true));
      }
      outSchema = new TableSchema(outColumns);
    }
    List<ColumnType> peerTypes =
        (outputParty ? secrets.peerRevealed() : List.<Column>of())
            .stream().map(Column::type).toList();
    RowCodec keptCodec = new RowCodec(kept.stream().map(Column::type).toList());
    BinContext ctx =
        new BinContext(
            cfg.session(),
            role,
            secrets.bins(),
            cfg.sigma(),
            cfg.protocol(),
            cfg.protocolParams(),
            keptCodec,
            new RowCodec(peerTypes),
            output,
            cfg.maxAttempts(),
            query.countOnly(),
            cfg.mode(),
            cfg.labelBytes(),
            view.kind());

    StreamExecutionEnvironment env =
        cluster == null
            ? StreamExecutionEnvironment.getExecutionEnvironment(flinkConfig(cfg))
            : cluster.environment(flinkConfig(cfg));
    String secretsName = JobSecrets.ship(env, secretFile);
    // the output party of a LEFT or anti-join outputs its rows whose key is NULL
    boolean keepNullKeys = outputParty && view.kind().emitsUnmatched();
    Front front =
        front(
            cfg,
            env,
            role.table(),
            schema,
            view,
            keptCodec,
            secrets.bins(),
            keepNullKeys,
            keepNullKeys && !query.countOnly() ? output : null,
            quarantine,
            secretsName);
    SingleOutputStreamOperator<byte[]> tokenized = front.tokenized();
    // With the prefilter only the candidates go on: they are the rows to intersect.
    DataStream<byte[]> toBins = tokenized;
    DataStream<byte[]> nonCandidates = null;
    PrefilterPlan prefilter = secrets.prefilter();
    if (prefilter != null) {
      SingleOutputStreamOperator<byte[]> candidates =
          prefilter(
              cfg, prefilter, tokenized, keptCodec, keepNullKeys ? output : null, secretsName);
      if (keepNullKeys) {
        nonCandidates = candidates.getSideOutput(CandidateSelect.UNMATCHED_ROWS);
      }
      toBins = candidates;
    }
    int maxParallelism = KeyGroupRangeAssignment.computeDefaultMaxParallelism(cfg.parallelism());
    BinRouting routing = new BinRouting(secrets.bins(), maxParallelism, cfg.parallelism());
    BitSet resumed = secrets.resumedBins() == null ? new BitSet() : secrets.resumedBins();
    // the rows of committed bins count in n (the padding must be the first run's) but go no
    // further: neither party spills or intersects them again
    BinBatcher.Batched batched = BinBatcher.keyedBatches(toBins, routing, resumed);
    DataStream<Long> total = total(cfg, batched.rows(), front, prefilter != null);
    DataStream<byte[]> joined =
        batched
            .batches()
            .connect(total.broadcast())
            .transform(
                JobMetricNames.PSI_OPERATOR,
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                new BinPsiOperator(
                    new PairBins(ctx, secretsName), cfg.bridge(), routing, journal, resumed))
            // explicit, so the adaptive batch scheduler cannot shrink the bins processed at once,
            // and the routing's assumptions hold
            .setParallelism(cfg.parallelism())
            .setMaxParallelism(maxParallelism);
    if (keepNullKeys) {
      joined = joined.union(tokenized.getSideOutput(TokenizeOperator.NULL_KEY_ROWS));
    }
    if (nonCandidates != null) {
      joined = joined.union(nonCandidates);
    }
    if (outputParty) {
      TableSink.writeEncoded(joined, outSchema, staged.stagingDir(), cfg.outFormat());
    } else {
      joined.sinkTo(new DiscardingSink<>()).name("no output at party " + role.label());
    }
    return env;
  }

  /**
   * What phases 1 and 2 give the bins: the tokenized rows, the bad-row gate and the source's
   * counts.
   */
  record Front(
      SingleOutputStreamOperator<byte[]> tokenized,
      DataStream<Long> gate,
      SourceResult<?> source) {}

  /**
   * Phases 1 and 2 of one party's job, the same for every join: read and quarantine, judge the bad
   * rows, WHERE and computed keys with Flink SQL, tokenize.
   *
   * @param name the party's table in the query, for operator and metric names
   * @param keepNullKeys whether rows with a NULL key stay (the output party of a LEFT or
   *     anti-join): then {@code nullKeyOutput} maps them to output rows, or is null for a count
   */
  static Front front(
      PartyConfig cfg,
      StreamExecutionEnvironment env,
      String name,
      TableSchema schema,
      PartyView view,
      RowCodec keptCodec,
      int bins,
      boolean keepNullKeys,
      int[] nullKeyOutput,
      StagedOutput quarantine,
      String secretsName)
      throws Exception {
    List<Column> keys = KeyExpressions.columns(schema, view.keys());
    List<Column> kept = columns(schema, view.revealedColumns());
    // Rows with a NULL key column are quarantined while reading, where their file and line are
    // known; not at the output party of a LEFT or anti-join, whose output they belong to, and not
    // for the columns of a computed key (COALESCE(k, '') is not NULL).
    List<String> quarantineKeys =
        keepNullKeys
            ? List.of()
            : view.keys().stream().filter(JoinKey::plain).map(k -> k.columns().get(0)).toList();
    // Without WHERE or key expressions the tokenizer is the rows' only reader: it reads their
    // fields where they are (a CSV table's records stay packed as read, no object per field).
    boolean sqlOnRows = view.computedKeys() || !view.wherePredicate().isEmpty();
    SourceResult<?> source =
        sqlOnRows
            ? TableSource.read(env, name, cfg.table(), schema, cfg.csv(), quarantineKeys)
            : TableSource.readRecords(env, name, cfg.table(), schema, cfg.csv(), quarantineKeys);
    DataStream<Long> written =
        quarantine == null
            ? null
            : QuarantineSink.writeFiles(source.quarantined(), quarantine.stagingDir());
    // The table's bad rows are judged before the PSI starts (the bins wait for the row total, which
    // waits for the gate), so a party with a bad table never reveals anything of it to the peer.
    DataStream<Long> gate =
        BadRowGate.check(
            source.counts(),
            written,
            cfg.maxBadRows(),
            "party " + cfg.party() + ": table " + name,
            cfg.quarantine(),
            cfg.role().index() == 0 ? "; the output was not written" : "");
    SourceResult<?> records = source;
    if (sqlOnRows) {
      @SuppressWarnings("unchecked")
      DataStream<Row> rows = (DataStream<Row>) source.rows();
      Supplier<StreamTableEnvironment> tEnv =
          () ->
              StreamTableEnvironment.create(
                  env, EnvironmentSettings.newInstance().inBatchMode().build());
      rows =
          view.computedKeys()
              ? KeyExpressions.apply(
                  tEnv.get(), rows, schema, view.wherePredicate(), view.keys(), keys)
              : WhereFilter.apply(tEnv, rows, schema, view.wherePredicate());
      records = new SourceResult<>(rows, new RowView(), source.quarantined(), source.counts());
    }
    SingleOutputStreamOperator<byte[]> tokenized =
        tokenize(
            records,
            name,
            KeyExpressions.fields(schema, view.keys()),
            keys.stream().map(Column::type).toArray(ColumnType[]::new),
            indices(schema, kept),
            keptCodec,
            secretsName,
            bins,
            nullKeyOutput);
    return new Front(tokenized, gate, source);
  }

  /**
   * n, the size the peers learn: by the party's public size policy, from the rows to intersect
   * ({@code rows}: the counts of {@link BinBatcher#keyedBatches}) and every record read (the bins
   * wait for it, and so for the bad-row gate).
   */
  static DataStream<Long> total(
      PartyConfig cfg, DataStream<Long> rows, Front front, boolean prefiltered) {
    return rows.union(front.gate())
        .global()
        .connect(front.source().counts().global())
        .transform(
            "public size " + cfg.publicSize(),
            Types.LONG,
            new PublicRowCount(cfg.publicSize(), prefiltered))
        .setParallelism(1)
        .setMaxParallelism(1);
  }

  /** Phase 2: {@link TokenizeOperator} over the records {@code source.view()} reads. */
  private static <T> SingleOutputStreamOperator<byte[]> tokenize(
      SourceResult<T> source,
      String name,
      int[] keyFields,
      ColumnType[] keyTypes,
      int[] keptFields,
      RowCodec keptCodec,
      String secretsName,
      int bins,
      int[] nullKeyOutput) {
    return source
        .rows()
        .transform(
            JobMetricNames.tokenizeOperator(name),
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            new TokenizeOperator<>(
                name,
                source.view(),
                keyFields,
                keyTypes,
                keptFields,
                keptCodec,
                secretsName,
                bins,
                nullKeyOutput));
  }

  /**
   * The server-aided sample filter between tokenize and the bins: per subtask a Bloom filter of the
   * tokens ({@link BloomPartial}, chained to the tokenizer, which passes the rows on in batches),
   * one exchange with the helper for the OR of them ({@link PrefilterExchange}), then the tokens
   * whose positions are all set in the combined filter ({@link CandidateSelect}).
   *
   * @param unmatchedOutput the output party's column sources when non-candidates belong to the
   *     output (LEFT and anti-joins), else null
   */
  static SingleOutputStreamOperator<byte[]> prefilter(
      PartyConfig cfg,
      PrefilterPlan plan,
      DataStream<byte[]> tokenized,
      RowCodec keptCodec,
      int[] unmatchedOutput,
      String secretsName) {
    String name = cfg.role().table();
    PrefilterLink link =
        new PrefilterLink(
            cfg.bridge(),
            cfg.session(),
            cfg.role(),
            cfg.peer(),
            cfg.helper(),
            cfg.helperCertificateSha256() == null
                ? null
                : java.util.HexFormat.of().formatHex(cfg.helperCertificateSha256()),
            cfg.maxAttempts());
    SingleOutputStreamOperator<byte[]> kept =
        tokenized
            .transform(
                "prefilter: Bloom filter of " + name,
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                new BloomPartial(plan, secretsName, link))
            .setParallelism(tokenized.getParallelism());
    DataStream<long[]> combined =
        kept.getSideOutput(BloomPartial.FILTER_PIECES)
            .global()
            .transform(
                "prefilter: exchange with helper " + cfg.helper(),
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO,
                new PrefilterExchange(plan, secretsName, link))
            .setParallelism(1)
            .setMaxParallelism(1);
    return kept.connect(combined.broadcast())
        .transform(
            "prefilter: candidates of " + name,
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            new CandidateSelect(plan, secretsName, keptCodec, unmatchedOutput))
        .setParallelism(tokenized.getParallelism());
  }

  /** The job failed because more rows were quarantined than {@code --max-bad-rows} allows. */
  public static final class TooManyBadRowsException extends Exception {
    private static final long serialVersionUID = 1L;

    TooManyBadRowsException(String message) {
      super(message);
    }
  }

  private static void abort(StagedOutput... outputs) {
    for (StagedOutput o : outputs) {
      java.io.IOException e = o == null ? null : o.abort();
      if (e != null) {
        LOG.warn("cannot remove the staged output {}: {}", o, e.toString());
      }
    }
  }

  static Configuration flinkConfig(PartyConfig cfg) throws java.io.IOException {
    return flinkConfig(cfg, !StreamExecutionEnvironment.areExplicitEnvironmentsAllowed());
  }

  /**
   * The job's Flink configuration. {@code onCluster}: the job runs inside {@code flink run} (a
   * context environment submits it to a running cluster); then only job-level options are set, and
   * the cluster-level ones (spill directories, slots, network compression) come from the cluster's
   * config.yaml (deploy/flink/config.yaml): paths of the client's machine mean nothing on the task
   * managers, and a job cannot change a running task manager anyway.
   */
  static Configuration flinkConfig(PartyConfig cfg, boolean onCluster) throws java.io.IOException {
    return flinkConfig(cfg.parallelism(), Path.of(cfg.workDir()), onCluster);
  }

  /**
   * {@link #flinkConfig(PartyConfig, boolean)} of a job of {@code parallelism} whose embedded
   * cluster spills to {@code workDir} (unused {@code onCluster}); also a {@link
   * SharedMiniCluster}'s, with the parallelism of both its jobs.
   */
  static Configuration flinkConfig(int parallelism, Path workDir, boolean onCluster)
      throws java.io.IOException {
    Configuration conf = new Configuration();
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    // The bins' rows go to a spill file of their operator (BinSpill), not to keyed state: the
    // bins' input is keyed only to route each bin to its subtask. BATCH mode would sort a keyed
    // input first (all of it, on disk) unless told not to; a cluster configured for RocksDB would
    // load and open RocksDB for a state nobody uses.
    conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    conf.set(ExecutionOptions.USE_BATCH_STATE_BACKEND, false);
    conf.set(ExecutionOptions.SORT_INPUTS, false);
    // No operator keeps a record after passing it on, so chained operators need not copy them.
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    // Hybrid shuffle: the bins' operator takes rows (into its spill) while tokenization still runs,
    // instead of after it wrote and sorted every row on disk (a blocking exchange).
    conf.set(ExecutionOptions.BATCH_SHUFFLE_MODE, BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL);
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    // A failed bin is retried inside the job; a restarted task would replay bridge streams its
    // peer has closed, and a restarted output subtask commit its part files again
    // (docs/operations.md). The job fails instead and is resumed or rerun: on the embedded
    // MiniCluster too, whose default would restart it.
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    if (onCluster) {
      return conf;
    }
    Files.createDirectories(workDir.resolve("tmp"));
    conf.setString("io.tmp.dirs", workDir.resolve("tmp").toString());
    // Shuffled records are mostly random tokens and ciphertext: compressing them only costs CPU.
    conf.setString("taskmanager.network.compression.codec", "NONE");
    conf.setString("taskmanager.numberOfTaskSlots", Integer.toString(parallelism));
    // The embedded cluster's one task manager has every slot from its start: batching the jobs'
    // slot requests (20 ms) and their checks (50 ms), meant for clusters whose workers come and go,
    // only left both cores idle for about 60 ms before a job's tasks started (a 10^6-row join:
    // 3.64 against 3.71 s, issue 19).
    conf.set(JobManagerOptions.SLOT_REQUEST_MAX_INTERVAL, Duration.ZERO);
    conf.set(ResourceManagerOptions.REQUIREMENTS_CHECK_DELAY, Duration.ZERO);
    conf.set(ResourceManagerOptions.DECLARE_NEEDED_RESOURCE_DELAY, Duration.ZERO);
    // Delegation tokens carry a login to remote task managers; in this JVM's own MiniCluster the
    // tasks use the JVM's login itself, and obtaining tokens cost the start about 0.3 s.
    conf.set(SecurityOptions.DELEGATION_TOKENS_ENABLED, false);
    // Whoever launches this JVM may set further options of the embedded MiniCluster as system
    // properties psi.flink.<key>: the coordinator pins its REST endpoint to a loopback port it
    // chose, to read the job's status and metrics from Flink.
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(FLINK_PROPERTY_PREFIX)) {
        conf.setString(name.substring(FLINK_PROPERTY_PREFIX.length()), System.getProperty(name));
      }
    }
    return conf;
  }

  private static JobSummary summarize(
      PartyConfig cfg,
      String name,
      int bins,
      PrefilterPlan prefilter,
      JobExecutionResult r,
      long start,
      long handshakeDone,
      long jobStart,
      long end) {
    Map<String, Object> acc = r.getAllAccumulatorResults();
    long rowsRead = num(acc, Accumulators.rowsRead(name));
    long quarantined = num(acc, Accumulators.rowsQuarantined(name));
    long tokenized = num(acc, Accumulators.rowsTokenized(name));
    // NULL keys are quarantined while reading; the tokenizer's own check is a second line
    long tokenizerNullKeys = num(acc, Accumulators.rowsWithNullKey(name));
    long nullKeys = num(acc, Accumulators.rowsWithNullKeyQuarantined(name)) + tokenizerNullKeys;
    long tokenizeEnd = Math.max(num(acc, Accumulators.TOKENIZE_END), jobStart);
    long spillEnd = Math.max(num(acc, Accumulators.SPILL_END), tokenizeEnd);
    long psiEnd = Math.max(num(acc, Accumulators.PSI_END), spillEnd);
    double psiMs = num(acc, Accumulators.PSI_MS);
    double payloadMs = num(acc, Accumulators.PAYLOAD_MS);
    double binStage = (psiEnd - spillEnd) / 1000.0;
    double psiShare = psiMs + payloadMs > 0 ? psiMs / (psiMs + payloadMs) : 1.0;
    Map<String, Double> phases = new LinkedHashMap<>();
    phases.put("handshake", (handshakeDone - start) / 1000.0);
    phases.put("tokenize", (tokenizeEnd - jobStart) / 1000.0);
    phases.put("bin_spill", (spillEnd - tokenizeEnd) / 1000.0);
    phases.put("psi", binStage * psiShare);
    phases.put("lookup_payload", binStage * (1 - psiShare));
    phases.put("write", (end - psiEnd) / 1000.0);
    return new JobSummary(
        cfg.party(),
        cfg.publicSize().text(),
        num(acc, Accumulators.ROWS_ANNOUNCED),
        rowsRead,
        quarantined,
        Math.max(0, rowsRead - tokenized - tokenizerNullKeys),
        nullKeys,
        tokenized,
        bins,
        num(acc, Accumulators.BINS_DONE),
        num(acc, Accumulators.BIN_RETRIES),
        cfg.mode().revealsIntersectionTo(cfg.role()) ? num(acc, Accumulators.INTERSECTING) : null,
        num(acc, Accumulators.ROWS_OUT),
        num(acc, Accumulators.BYTES_SENT),
        num(acc, Accumulators.BYTES_RECEIVED),
        phases,
        (end - start) / 1000.0,
        peakRss(),
        prefilter == null
            ? null
            : new JobSummary.PrefilterSummary(
                cfg.helper(),
                prefilter.filterBits(),
                prefilter.hashes(),
                num(acc, PrefilterMetrics.CANDIDATES),
                num(acc, PrefilterMetrics.MILLIS) / 1000.0,
                num(acc, PrefilterMetrics.BYTES_TO_HELPER),
                num(acc, PrefilterMetrics.BYTES_FROM_HELPER),
                num(acc, PrefilterMetrics.BYTES_TO_PEER),
                num(acc, PrefilterMetrics.BYTES_FROM_PEER)));
  }

  private static long num(Map<String, Object> acc, String key) {
    Object v = acc.get(key);
    return v instanceof Number n ? n.longValue() : 0;
  }

  /** Peak resident set size of this JVM (VmHWM), or 0 where /proc is not available. */
  static long peakRss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      LOG.debug("no VmHWM: {}", e.toString());
    }
    return 0;
  }

  /** The columns of this party's table the query names, in table order (stars expand in it). */
  static List<Column> namedColumns(TableSchema schema, PartyView view) {
    Set<String> named = new HashSet<>(view.neededColumns());
    named.addAll(view.filterColumns());
    return schema.columns().stream().filter(c -> named.contains(c.name())).toList();
  }

  static List<Column> columns(TableSchema schema, List<String> names) {
    return names.stream().map(n -> schema.column(schema.indexOf(n).orElseThrow())).toList();
  }

  private static int[] indices(TableSchema schema, List<Column> columns) {
    return columns.stream().mapToInt(c -> schema.indexOf(c.name()).orElseThrow()).toArray();
  }
}
