package io.psiflink.query;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The registered columns of a party's dataset, as the launcher passes them to the job ({@code
 * --expected-columns NAME:TYPE,...}, each name URL-encoded so that any column name survives), and
 * the check that the table the job finds has exactly them: a column added to the files after
 * registration would otherwise reach the peer through {@code *} or a later query.
 */
public final class ExpectedColumns {
  private ExpectedColumns() {}

  /** The columns of {@code text}, or null for null (no registry: nothing to check). */
  public static List<Column> parse(String text) {
    if (text == null) {
      return null;
    }
    List<Column> out = new ArrayList<>();
    for (String item : text.split(",", -1)) {
      int colon = item.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "--expected-columns must be NAME:TYPE,... (names "
                + "URL-encoded), not '"
                + text
                + "'");
      }
      String name = URLDecoder.decode(item.substring(0, colon), StandardCharsets.UTF_8);
      String type = item.substring(colon + 1).toUpperCase(Locale.ROOT);
      try {
        out.add(new Column(name, ColumnType.valueOf(type), true));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--expected-columns: column '"
                + name
                + "' has unknown "
                + "type '"
                + type
                + "'; types are "
                + List.of(ColumnType.values()));
      }
    }
    return List.copyOf(out);
  }

  /** The form {@link #parse} reads. */
  public static String format(List<Column> columns) {
    return columns.stream()
        .map(c -> URLEncoder.encode(c.name(), StandardCharsets.UTF_8) + ":" + c.type().name())
        .collect(Collectors.joining(","));
  }

  /**
   * Fails, naming every column that was added, is missing or changed its type, when the table's
   * {@code found} columns differ from the registered {@code expected} ones (by name and type).
   */
  public static void check(List<Column> expected, TableSchema found, String table) {
    // names the table without its location (a JDBC URL may hold a password)
    Map<String, ColumnType> want = new LinkedHashMap<>();
    expected.forEach(c -> want.put(c.name(), c.type()));
    Map<String, ColumnType> have = new LinkedHashMap<>();
    found.columns().forEach(c -> have.put(c.name(), c.type()));
    List<String> problems = new ArrayList<>();
    have.forEach(
        (name, type) -> {
          if (!want.containsKey(name)) {
            problems.add("column '" + name + "' (" + type + ") was added");
          } else if (want.get(name) != type) {
            problems.add(
                "column '" + name + "' changed its type from " + want.get(name) + " to " + type);
          }
        });
    want.forEach(
        (name, type) -> {
          if (!have.containsKey(name)) {
            problems.add("column '" + name + "' (" + type + ") is missing");
          }
        });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "the table "
              + table
              + " does not have the registered "
              + "columns: "
              + String.join("; ", problems)
              + "; the join was refused before the "
              + "handshake (register the dataset anew to use the new columns)");
    }
  }
}
