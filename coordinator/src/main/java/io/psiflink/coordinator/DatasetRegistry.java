package io.psiflink.coordinator;

import io.psiflink.connectors.JdbcTable;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.DatasetStatus;
import io.psiflink.coordinator.Model.PublishedColumn;
import io.psiflink.coordinator.Model.PublishedDataset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * This party's datasets: registration (with schema discovery), retirement, and what the peer may
 * know of them (published: name, usable columns with their types, the public size policy).
 */
final class DatasetRegistry {
  private final Context ctx;

  DatasetRegistry(Context ctx) {
    this.ctx = ctx;
  }

  Dataset register(Requests.NewDataset r) {
    List<ColumnSpec> schema =
        r.schema() != null
            ? r.schema()
            : Requests.NewDataset.schema(discover(r.location(), r.format()));
    Set<String> names = new HashSet<>();
    schema.forEach(c -> names.add(c.name()));
    List<String> keys = columnList(r.keyColumns(), "keyColumns", names, true);
    List<String> reveal = columnList(r.revealColumns(), "revealColumns", names, false);
    List<String> filter = columnList(r.filterColumns(), "filterColumns", names, false);
    Dataset d =
        new Dataset(
            r.name(),
            r.location(),
            r.format(),
            schema,
            keys,
            reveal,
            filter,
            DatasetStatus.ACTIVE,
            ctx.now(),
            null,
            r.publicSize(),
            r.revealIntersection());
    return ctx.db()
        .tx(
            c -> {
              if (Store.dataset(c, d.name()).isPresent()) {
                throw ApiException.conflict(
                        "dataset " + d.name() + " already exists (names are never reused)")
                    .with("field", "name");
              }
              Store.insertDataset(c, d);
              Store.audit(
                  c,
                  d.createdAt(),
                  ctx.party(),
                  "dataset.registered",
                  "dataset",
                  d.name(),
                  Store.json(
                      Map.of(
                          "location",
                          JdbcTable.redact(d.location()),
                          "format",
                          d.format().text(),
                          "publicSize",
                          d.publicSize(),
                          "revealIntersection",
                          d.revealIntersection().wire())));
              return shown(d);
            });
  }

  /**
   * A dataset as the API returns it: its location with any password hidden (the stored one keeps
   * it, for the job).
   */
  private static Dataset shown(Dataset d) {
    return new Dataset(
        d.name(),
        JdbcTable.redact(d.location()),
        d.format(),
        d.schema(),
        d.keyColumns(),
        d.revealColumns(),
        d.filterColumns(),
        d.status(),
        d.createdAt(),
        d.retiredAt(),
        d.publicSize(),
        d.revealIntersection());
  }

  /**
   * The schema of the files at {@code location} (flink-jobs' SchemaDiscovery: a CSV header with
   * inferred types, or an Avro writer schema), when a dataset is registered without one.
   */
  private com.fasterxml.jackson.databind.JsonNode discover(
      String location, io.psiflink.api.OutputFormat format) {
    if (format == io.psiflink.api.OutputFormat.PARQUET) {
      throw ApiException.badRequest(
          "schema", "is required for parquet datasets (discovery reads csv and avro files)");
    }
    io.psiflink.api.TableSchema found;
    try {
      // connectors' TableFormat and api's OutputFormat name the same formats
      String actual = io.psiflink.connectors.TableFiles.of(location).format().name();
      if (!actual.equals(format.name())) {
        throw ApiException.badRequest(
            "format",
            "is "
                + format.text()
                + " but the files at "
                + JdbcTable.redact(location)
                + " are "
                + actual);
      }
      found = io.psiflink.connectors.SchemaDiscovery.discover(location);
    } catch (io.psiflink.connectors.TableException
        | IllegalArgumentException
        | java.io.UncheckedIOException e) {
      throw ApiException.badRequest(
          "location",
          "no schema given, and none can be discovered: " + JdbcTable.redact(e.getMessage()));
    }
    List<ColumnSpec> cols = new ArrayList<>();
    for (io.psiflink.api.Column c : found.columns()) {
      cols.add(new ColumnSpec(c.name(), c.type().name(), c.nullable()));
    }
    // through the same checks as a given schema
    return ctx.json().valueToTree(cols);
  }

  private static List<String> columnList(
      List<String> given, String field, Set<String> names, boolean required) {
    if (given == null) {
      if (required) {
        throw ApiException.badRequest(field, "must list at least one column");
      }
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      String col = given.get(i);
      if (!names.contains(col)) {
        throw ApiException.badRequest(
            field + "[" + i + "]",
            "unknown column \"" + col + "\"; the schema has " + names.stream().sorted().toList());
      }
      if (!out.contains(col)) {
        out.add(col);
      }
    }
    return List.copyOf(out);
  }

  List<Dataset> list(boolean includeRetired) {
    return ctx.db().tx(c -> Store.datasets(c, includeRetired)).stream()
        .map(DatasetRegistry::shown)
        .toList();
  }

  Dataset get(String name) {
    return ctx.db()
        .tx(c -> Store.dataset(c, name))
        .map(DatasetRegistry::shown)
        .orElseThrow(() -> ApiException.notFound("dataset " + name));
  }

  /** The stored dataset (location unredacted, for the job) if it is active. */
  Optional<Dataset> active(String name) {
    return ctx.db().tx(c -> Store.dataset(c, name)).filter(d -> d.status() == DatasetStatus.ACTIVE);
  }

  Dataset retire(String name) {
    return ctx.db()
        .tx(
            c -> {
              Dataset d =
                  Store.dataset(c, name)
                      .orElseThrow(() -> ApiException.notFound("dataset " + name));
              long now = ctx.now();
              if (!Store.retireDataset(c, name, now)) {
                throw ApiException.conflict("dataset " + name + " is already retired");
              }
              Store.audit(c, now, ctx.party(), "dataset.retired", "dataset", name, null);
              return shown(Store.dataset(c, name).orElse(d));
            });
  }

  /** What the peer may know of an active dataset: name and usable columns with their types. */
  PublishedDataset published(String name) {
    return publish(active(name).orElseThrow(() -> ApiException.notFound("dataset " + name)));
  }

  List<PublishedDataset> publishedAll() {
    return list(false).stream().map(this::publish).toList();
  }

  PublishedDataset publish(Dataset d) {
    List<PublishedColumn> cols = new ArrayList<>();
    for (ColumnSpec c : d.schema()) {
      boolean k = d.keyColumns().contains(c.name());
      boolean r = d.revealColumns().contains(c.name());
      boolean f = d.filterColumns().contains(c.name());
      if (k || r || f) {
        cols.add(
            new PublishedColumn(c.name(), c.type(), c.nullable() == null || c.nullable(), k, r, f));
      }
    }
    // the peer learns the setting, so that a query it would refuse fails at submission
    return new PublishedDataset(
        ctx.party(), d.name(), cols, d.publicSize(), d.revealIntersection());
  }
}
