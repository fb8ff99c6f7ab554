package io.psiflink.jobs;

import io.psiflink.api.Column;
import io.psiflink.api.JobMetricNames;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.connectors.StagedOutput;
import io.psiflink.connectors.TableSink;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinBatcher;
import io.psiflink.jobs.bin.BinRouting;
import io.psiflink.jobs.filter.KeyExpressions;
import io.psiflink.jobs.multiparty.GroupBins;
import io.psiflink.jobs.psi.BinPsiOperator;
import io.psiflink.jobs.read.SizeEstimate;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.session.MultipartyHandshake;
import io.psiflink.jobs.session.MultipartyHandshake.GroupSecrets;
import io.psiflink.jobs.session.SessionHandshake;
import io.psiflink.jobs.session.TaskKeys;
import io.psiflink.provider.ProviderClient;
import io.psiflink.provider.ProviderLink;
import io.psiflink.provider.ProviderRequest;
import io.psiflink.query.ExpectedColumns;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.OutputColumn;
import io.psiflink.query.PartyView;
import io.psiflink.query.ResolvedMultiJoin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One party's job of an n-party join (issue 15): the same phases as {@link PrivateJoinJob}, with
 * the group's handshake among the parties ({@link MultipartyHandshake}), the session with the
 * outsourcing provider ({@link ProviderClient}) and the bins of {@link GroupBins}. Party P1 (the
 * query's first table) writes the joined rows.
 */
final class GroupJoinJob {
  private static final Logger LOG = LoggerFactory.getLogger(GroupJoinJob.class);

  private GroupJoinJob() {}

  static JobSummary run(PartyConfig cfg) throws Exception {
    long start = System.currentTimeMillis();
    Role role = cfg.role();
    int me = role.index();
    PartyConfig.Group group = cfg.group();
    MultiJoinQuery query = MultiJoinQuery.parse(cfg.sql());
    if (query.parties() != group.size()) {
      throw new IllegalArgumentException(
          "the query joins "
              + query.parties()
              + " tables "
              + query.tables()
              + ", --parties names "
              + group.size()
              + " parties");
    }
    String name = query.tables().get(me);
    TableSchema schema = SchemaDiscovery.discover(cfg.table(), cfg.csv());
    if (cfg.expectedColumns() != null) {
      ExpectedColumns.check(cfg.expectedColumns(), schema, "of party " + cfg.party());
    }
    PartyView view = query.view(me, schema);
    List<Column> keys = KeyExpressions.columns(schema, view.keys());
    List<Column> kept = PrivateJoinJob.columns(schema, view.revealedColumns());
    StagedOutput staged = me == 0 ? StagedOutput.prepare(cfg.out()) : null;
    StagedOutput quarantine =
        cfg.quarantine() == null ? null : StagedOutput.prepare(cfg.quarantine(), true);
    LOG.info(
        "party {} of {} (table {}): {} {}; keys {}, keeps {}, WHERE {}",
        role.label(),
        group.size(),
        name,
        JdbcTable.redact(cfg.table()),
        schema,
        keys,
        view.revealedColumns(),
        view.wherePredicate().isEmpty() ? "(none)" : view.wherePredicate());

    PartyCredentials creds = cfg.bridge().credentials();
    GroupSecrets secrets;
    ProviderLink link;
    try (BridgeClient client = BridgeClient.connect(cfg.bridge().clientConfig())) {
      SessionHandshake.LocalFacts facts =
          new SessionHandshake.LocalFacts(
              role,
              group.parties().get(me == 0 ? 1 : 0),
              query.fingerprint(),
              cfg.protocol(),
              cfg.protocolParams(),
              JoinMode.BOTH,
              cfg.labelBytes(),
              cfg.sigma(),
              cfg.bins(),
              cfg.publicSize().estimate(SizeEstimate.rows(cfg.table())),
              cfg.parallelism(),
              keys,
              kept,
              PrivateJoinJob.namedColumns(schema, view),
              null,
              SessionHandshake.PrefilterRequest.NONE,
              new SessionHandshake.Multiparty(group.parties(), group.provider()));
      secrets = MultipartyHandshake.run(client, cfg.session(), creds, facts, group.pins());
      link =
          ProviderClient.connect(
              client,
              new ProviderRequest(
                  cfg.session(),
                  group.provider(),
                  group.providerPin(),
                  group.parties(),
                  me,
                  cfg.protocolParams()),
              creds);
    }
    long handshakeDone = System.currentTimeMillis();
    LOG.info(
        "party {}: session {} agreed with parties {} and provider '{}': {} bins, σ={}",
        role.label(),
        cfg.session(),
        group.parties(),
        group.provider(),
        secrets.bins(),
        cfg.sigma());

    Output output = me == 0 ? output(query, schema, view, kept, secrets) : null;
    Path secretFile =
        new JobSecrets(
                secrets.tokenKey(),
                secrets.binSeed(),
                null,
                null,
                null,
                new TaskKeys(secrets.groupSecret(), link.toBytes(), secrets.pairKeys()).encode())
            .writeTo(PrivateJoinJob.secretDir(cfg));
    try {
      StreamExecutionEnvironment env =
          pipeline(cfg, name, schema, view, kept, secrets, output, secretFile, staged, quarantine);
      return PrivateJoinJob.execute(
          cfg, staged, quarantine, name, secrets.bins(), null, env, start, handshakeDone);
    } finally {
      try {
        Files.deleteIfExists(secretFile);
      } catch (java.io.IOException e) {
        LOG.warn("cannot delete the session's secret file {}: {}", secretFile, e.toString());
      }
    }
  }

  /**
   * The output party's joined table: its schema, and per column the party supplying it and the
   * column's index among that party's revealed columns; and every other party's row encoding.
   */
  private record Output(TableSchema schema, int[] party, int[] column, List<RowCodec> peerCodecs) {}

  /**
   * The output party resolves the whole query against every party's named columns (from their
   * signed HELLOs): types across the tables, and unqualified names more than one table has.
   */
  private static Output output(
      MultiJoinQuery query,
      TableSchema schema,
      PartyView view,
      List<Column> kept,
      GroupSecrets secrets)
      throws Exception {
    int n = query.parties();
    List<TableSchema> schemas = new ArrayList<>();
    schemas.add(schema);
    List<RowCodec> peerCodecs = new ArrayList<>();
    peerCodecs.add(new RowCodec(kept.stream().map(Column::type).toList()));
    for (int j = 1; j < n; j++) {
      schemas.add(new TableSchema(secrets.named().get(j)));
      peerCodecs.add(new RowCodec(secrets.revealed().get(j).stream().map(Column::type).toList()));
    }
    ResolvedMultiJoin resolved = query.resolve(schemas);
    int[] party = new int[resolved.output().size()];
    int[] column = new int[party.length];
    List<Column> columns = new ArrayList<>();
    for (int i = 0; i < party.length; i++) {
      OutputColumn oc = resolved.output().get(i);
      int p = oc.side().index();
      List<Column> from = p == 0 ? kept : secrets.revealed().get(p);
      int c = from.stream().map(Column::name).toList().indexOf(oc.column());
      if (c < 0) {
        throw new IllegalStateException(
            "party P" + (p + 1) + " does not reveal " + query.tables().get(p) + "." + oc.column());
      }
      party[i] = p;
      column[i] = c;
      columns.add(new Column(oc.outputName(), from.get(c).type(), true));
    }
    return new Output(new TableSchema(columns), party, column, peerCodecs);
  }

  private static StreamExecutionEnvironment pipeline(
      PartyConfig cfg,
      String name,
      TableSchema schema,
      PartyView view,
      List<Column> kept,
      GroupSecrets secrets,
      Output output,
      Path secretFile,
      StagedOutput staged,
      StagedOutput quarantine)
      throws Exception {
    Role role = cfg.role();
    RowCodec keptCodec = new RowCodec(kept.stream().map(Column::type).toList());
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(PrivateJoinJob.flinkConfig(cfg));
    String secretsName = JobSecrets.ship(env, secretFile);
    PrivateJoinJob.Front front =
        PrivateJoinJob.front(
            cfg,
            env,
            name,
            schema,
            view,
            keptCodec,
            secrets.bins(),
            false,
            null,
            quarantine,
            secretsName);
    int maxParallelism = KeyGroupRangeAssignment.computeDefaultMaxParallelism(cfg.parallelism());
    BinRouting routing = new BinRouting(secrets.bins(), maxParallelism, cfg.parallelism());
    BinBatcher.Batched batched =
        BinBatcher.keyedBatches(front.tokenized(), routing, new java.util.BitSet());
    DataStream<Long> total = PrivateJoinJob.total(cfg, batched.rows(), front, false);
    GroupBins bins =
        new GroupBins(
            cfg.session(),
            role,
            secrets.bins(),
            cfg.sigma(),
            cfg.maxAttempts(),
            keptCodec,
            output == null ? List.of() : output.peerCodecs(),
            output == null ? new int[0] : output.party(),
            output == null ? new int[0] : output.column(),
            secretsName);
    DataStream<byte[]> joined =
        batched
            .batches()
            .connect(total.broadcast())
            .transform(
                JobMetricNames.PSI_OPERATOR,
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                new BinPsiOperator(bins, cfg.bridge(), routing))
            .setParallelism(cfg.parallelism())
            .setMaxParallelism(maxParallelism);
    if (output != null) {
      TableSink.writeEncoded(joined, output.schema(), staged.stagingDir(), cfg.outFormat());
    } else {
      joined.sinkTo(new DiscardingSink<>()).name("no output at party " + role.label());
    }
    return env;
  }
}
