package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.Serializable;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.StringJoiner;

/**
 * A PostgreSQL table as a source: {@code jdbc:postgresql://host:port/db?table=t[&user=..]
 * [&partition-column=c][&partitions=n]}. The parameters {@code table}, {@code partition-column} and
 * {@code partitions} are ours and are removed before the URL reaches the driver; every other
 * parameter (user, ssl, ...) is the driver's. A password may be given as the driver's {@code
 * password} parameter or, so that it does not show in process listings, in the environment variable
 * {@value #PASSWORD_ENV} of the processes that read. Immutable.
 *
 * <p>The table name is taken as stored in the catalog ({@code schema.table} or {@code table}, each
 * part quoted, so case and special characters are kept). Column types (from the result set metadata
 * of the table): boolean to BOOLEAN, smallint/integer to INT, bigint to BIGINT, real to FLOAT,
 * double precision to DOUBLE, numeric with scale 0 and precision up to 18 to BIGINT, bytea to
 * BYTES, text types to STRING, and every other type (other numerics, dates, timestamps, uuid, json,
 * arrays, ...) to STRING in PostgreSQL's text form, which is exact. Nullability comes from the
 * catalog.
 *
 * @param url the driver's URL, without our parameters
 * @param table the table name
 * @param partitionColumn the column to split reads by, or null: the integer primary key if there is
 *     one, else block ranges of the table's physical ctid
 * @param partitions the number of splits, or 0 for twice the reading parallelism
 */
public record JdbcTable(String url, String table, String partitionColumn, int partitions)
    implements Serializable {
  /** The environment variable that may hold the database password. */
  public static final String PASSWORD_ENV = "PSI_JDBC_PASSWORD";

  public JdbcTable {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(table, "table");
    if (table.isBlank()) {
      throw new IllegalArgumentException("empty table name");
    }
    if (partitions < 0) {
      throw new IllegalArgumentException("partitions must be >= 0: " + partitions);
    }
  }

  /** Whether a table location is a JDBC URL rather than a path. */
  public static boolean isJdbc(String location) {
    return location != null && location.regionMatches(true, 0, "jdbc:", 0, 5);
  }

  /**
   * {@code url} with {@code table=name} added: what {@code --a-table} does to {@code --a}.
   *
   * @throws IllegalArgumentException if the URL already names a table
   */
  public static String withTable(String url, String table) {
    if (param(url, "table") != null) {
      throw new IllegalArgumentException(
          "the URL '"
              + redact(url)
              + "' already names a table ("
              + "table="
              + param(url, "table")
              + "); give it there or separately, not both");
    }
    return url + (url.contains("?") ? "&" : "?") + "table=" + table;
  }

  /**
   * Parses a location. Only PostgreSQL is supported (the partitioned reads use its SQL).
   *
   * @throws TableException naming what is wrong
   */
  public static JdbcTable parse(String location) throws TableException {
    if (!location.startsWith("jdbc:postgresql:")) {
      throw new TableException(
          "'"
              + redact(location)
              + "': only PostgreSQL tables "
              + "(jdbc:postgresql://host:port/database?table=name) can be read");
    }
    int q = location.indexOf('?');
    String base = q < 0 ? location : location.substring(0, q);
    StringJoiner rest = new StringJoiner("&");
    String table = null;
    String column = null;
    int partitions = 0;
    if (q >= 0) {
      for (String kv : location.substring(q + 1).split("&")) {
        if (kv.isEmpty()) {
          continue;
        }
        int eq = kv.indexOf('=');
        String k = eq < 0 ? kv : kv.substring(0, eq);
        String v =
            eq < 0
                ? ""
                : java.net.URLDecoder.decode(
                    kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8);
        switch (k) {
          case "table" -> table = v;
          case "partition-column" -> column = v.isEmpty() ? null : v;
          case "partitions" -> {
            try {
              partitions = Integer.parseInt(v);
            } catch (NumberFormatException e) {
              throw new TableException(
                  "'" + redact(location) + "': partitions=" + v + " is not an integer");
            }
            if (partitions < 1) {
              throw new TableException("'" + redact(location) + "': partitions must be >= 1");
            }
          }
          default -> rest.add(kv);
        }
      }
    }
    if (table == null || table.isBlank()) {
      throw new TableException(
          "'"
              + redact(location)
              + "' names no table: add table=NAME to the "
              + "URL (or give --a-table / --b-table)");
    }
    String url = rest.length() == 0 ? base : base + "?" + rest;
    return new JdbcTable(url, table, column, partitions);
  }

  private static String param(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return null;
    }
    for (String kv : url.substring(q + 1).split("&")) {
      if (kv.startsWith(name + "=")) {
        return kv.substring(name.length() + 1);
      }
    }
    return null;
  }

  /** A parameter whose name ends in "password" (password, sslpassword, ...), with its value. */
  private static final java.util.regex.Pattern PASSWORD_PARAM =
      java.util.regex.Pattern.compile("(?i)([?&;][A-Za-z0-9_.-]*password=)([^&;]*)");

  /** The password of a URI's user info ({@code scheme://user:secret@host}). */
  private static final java.util.regex.Pattern USERINFO_SECRET =
      java.util.regex.Pattern.compile("(//[^/?#@:]*:)([^/?#@]*)(@)");

  /**
   * A table location (a JDBC URL, a path or any URI) with every secret in it hidden: the values of
   * parameters named {@code password} or {@code ...password} ({@code sslpassword}), and the
   * password of a URI's user info. The one function used wherever a location is printed, logged,
   * audited or returned by an API.
   */
  public static String redact(String location) {
    if (location == null) {
      return null;
    }
    String r = PASSWORD_PARAM.matcher(location).replaceAll("$1***");
    return USERINFO_SECRET.matcher(r).replaceAll("$1***$3");
  }

  /**
   * The value of a JDBC URL's {@code password} parameter (URL-decoded, as the driver reads it), or
   * null if it has none.
   */
  public static String password(String location) {
    if (!isJdbc(location)) {
      return null;
    }
    String v = param(location, "password");
    return v == null
        ? null
        : java.net.URLDecoder.decode(v, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A JDBC URL without its {@code password} parameter: what goes on a command line, while the
   * password goes to the reading process's {@value #PASSWORD_ENV} (see {@link #connect}). Locations
   * that are not JDBC URLs are returned as they are.
   */
  public static String withoutPassword(String location) {
    if (!isJdbc(location)) {
      return location;
    }
    int q = location.indexOf('?');
    if (q < 0) {
      return location;
    }
    StringJoiner kept = new StringJoiner("&");
    for (String kv : location.substring(q + 1).split("&")) {
      if (!kv.isEmpty() && !kv.startsWith("password=")) {
        kept.add(kv);
      }
    }
    return location.substring(0, q) + (kept.length() == 0 ? "" : "?" + kept);
  }

  /** The table, quoted for SQL: each dot-separated part in double quotes. */
  public String quotedTable() {
    StringJoiner j = new StringJoiner(".");
    for (String part : table.split("\\.", -1)) {
      j.add(quote(part));
    }
    return j.toString();
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /** Opens a connection (password from {@value #PASSWORD_ENV} unless the URL has one). */
  public Connection connect() throws SQLException {
    Properties props = new Properties();
    String pw = System.getenv(PASSWORD_ENV);
    if (pw != null && param(url, "password") == null) {
      props.setProperty("password", pw);
    }
    return DriverManager.getConnection(url, props);
  }

  /** The table's columns, from the metadata of an empty query on it. */
  public TableSchema discover() throws TableException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + quotedTable() + " WHERE false")) {
      ResultSetMetaData md = rs.getMetaData();
      List<Column> columns = new ArrayList<>();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        columns.add(
            new Column(
                md.getColumnName(i),
                columnType(md, i),
                md.isNullable(i) != ResultSetMetaData.columnNoNulls));
      }
      return new TableSchema(columns);
    } catch (SQLException e) {
      throw new TableException("cannot read the columns of " + this + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new TableException(this + ": " + e.getMessage(), e);
    }
  }

  private static ColumnType columnType(ResultSetMetaData md, int i) throws SQLException {
    return switch (md.getColumnType(i)) {
      case Types.BIT, Types.BOOLEAN -> ColumnType.BOOLEAN;
      case Types.TINYINT, Types.SMALLINT, Types.INTEGER -> ColumnType.INT;
      case Types.BIGINT -> ColumnType.BIGINT;
      case Types.REAL -> ColumnType.FLOAT;
      case Types.FLOAT, Types.DOUBLE -> ColumnType.DOUBLE;
      case Types.NUMERIC, Types.DECIMAL ->
          md.getScale(i) == 0 && md.getPrecision(i) > 0 && md.getPrecision(i) <= 18
              ? ColumnType.BIGINT
              : ColumnType.STRING;
      case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> ColumnType.BYTES;
      default -> ColumnType.STRING;
    };
  }

  /** An estimate of the row count: the planner's statistics, or an exact count without them. */
  public long estimateRows() throws TableException {
    try (Connection c = connect()) {
      try (PreparedStatement p =
          c.prepareStatement("SELECT reltuples::bigint FROM pg_class WHERE oid = ?::regclass")) {
        p.setString(1, quotedTable());
        try (ResultSet rs = p.executeQuery()) {
          if (rs.next() && rs.getLong(1) > 0) {
            return rs.getLong(1);
          }
        }
      }
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM " + quotedTable())) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new TableException("cannot count the rows of " + this + ": " + e.getMessage(), e);
    }
  }

  /**
   * The splits reading the table, each one query's WHERE clause: ranges of the partition column (or
   * of the integer primary key) between its minimum and maximum, the first and last open ended,
   * plus one for NULLs when the column may hold them; hash buckets of a non-integer partition
   * column; or ranges of blocks ({@code ctid}) when there is no column to split by. Together they
   * cover every row exactly once, also rows added between planning and reading.
   *
   * @param parallelism the reading parallelism; without {@code partitions=} twice as many splits
   */
  List<JdbcSplit> plan(int parallelism) throws TableException {
    int k = partitions > 0 ? partitions : Math.max(1, 2 * parallelism);
    try (Connection c = connect()) {
      String column = partitionColumn;
      boolean integer;
      boolean nullable = true;
      if (column == null) {
        String[] pk = integerPrimaryKey(c);
        column = pk == null ? null : pk[0];
        integer = column != null;
        nullable = false;
      } else {
        integer = isIntegerColumn(c, column);
      }
      List<String> where = new ArrayList<>();
      if (column == null) {
        where.addAll(blockRanges(c, k));
      } else if (integer) {
        where.addAll(integerRanges(c, quote(column), k));
      } else {
        for (int j = 0; j < k; j++) {
          where.add("mod(abs(hashtext(" + quote(column) + "::text)::bigint), " + k + ") = " + j);
        }
      }
      if (column != null && nullable) {
        where.add(quote(column) + " IS NULL");
      }
      List<JdbcSplit> splits = new ArrayList<>();
      for (int j = 0; j < where.size(); j++) {
        splits.add(new JdbcSplit(Integer.toString(j), where.get(j)));
      }
      return splits;
    } catch (SQLException e) {
      throw new TableException("cannot plan the reads of " + this + ": " + e.getMessage(), e);
    }
  }

  /** The single-column primary key if it is an integer column: {name}, else null. */
  private String[] integerPrimaryKey(Connection c) throws SQLException {
    try (PreparedStatement p =
        c.prepareStatement(
            "SELECT a.attname, format_type(a.atttypid, NULL)"
                + " FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid"
                + " AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary")) {
      p.setString(1, quotedTable());
      try (ResultSet rs = p.executeQuery()) {
        List<String[]> cols = new ArrayList<>();
        while (rs.next()) {
          cols.add(new String[] {rs.getString(1), rs.getString(2)});
        }
        if (cols.size() == 1 && List.of("smallint", "integer", "bigint").contains(cols.get(0)[1])) {
          return cols.get(0);
        }
        return null;
      }
    }
  }

  private boolean isIntegerColumn(Connection c, String column) throws SQLException, TableException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT " + quote(column) + " FROM " + quotedTable() + " WHERE false")) {
      int t = rs.getMetaData().getColumnType(1);
      return t == Types.SMALLINT || t == Types.INTEGER || t == Types.BIGINT;
    } catch (SQLException e) {
      throw new TableException(
          this + ": partition-column '" + column + "' cannot be read: " + e.getMessage(), e);
    }
  }

  private List<String> integerRanges(Connection c, String column, int k) throws SQLException {
    BigInteger min;
    BigInteger max;
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT min("
                    + column
                    + ")::numeric, max("
                    + column
                    + ")::numeric FROM "
                    + quotedTable())) {
      rs.next();
      if (rs.getBigDecimal(1) == null) {
        return List.of(column + " IS NOT NULL"); // empty now; still read what may come
      }
      min = rs.getBigDecimal(1).toBigIntegerExact();
      max = rs.getBigDecimal(2).toBigIntegerExact();
    }
    BigInteger width = max.subtract(min).add(BigInteger.ONE);
    int n = width.compareTo(BigInteger.valueOf(k)) < 0 ? width.intValueExact() : k;
    List<String> where = new ArrayList<>();
    BigInteger lo = null;
    for (int j = 1; j <= n; j++) {
      BigInteger hi =
          j == n
              ? null
              : min.add(width.multiply(BigInteger.valueOf(j)).divide(BigInteger.valueOf(n)));
      String clause =
          lo == null && hi == null
              ? column + " IS NOT NULL"
              : lo == null
                  ? column + " < " + hi
                  : hi == null
                      ? column + " >= " + lo
                      : column + " >= " + lo + " AND " + column + " < " + hi;
      where.add(clause);
      lo = hi;
    }
    return where;
  }

  private List<String> blockRanges(Connection c, int k) throws SQLException {
    long blocks;
    try (PreparedStatement p =
        c.prepareStatement(
            "SELECT pg_relation_size(?::regclass) / current_setting('block_size')::bigint")) {
      p.setString(1, quotedTable());
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        blocks = rs.getLong(1);
      }
    }
    int n = (int) Math.max(1, Math.min(k, blocks));
    List<String> where = new ArrayList<>();
    long lo = -1;
    for (int j = 1; j <= n; j++) {
      long hi = j == n ? -1 : blocks * j / n;
      String clause =
          lo < 0 && hi < 0
              ? "true"
              : lo < 0
                  ? "ctid < '(" + hi + ",0)'::tid"
                  : hi < 0
                      ? "ctid >= '(" + lo + ",0)'::tid"
                      : "ctid >= '(" + lo + ",0)'::tid AND ctid < '(" + hi + ",0)'::tid";
      where.add(clause);
      lo = hi;
    }
    return where;
  }

  /** The query reading {@code columns} of one split. */
  String query(List<String> columns, JdbcSplit split) {
    StringJoiner cols = new StringJoiner(", ");
    columns.forEach(col -> cols.add(quote(col)));
    return "SELECT " + cols + " FROM " + quotedTable() + " WHERE " + split.where();
  }

  @Override
  public String toString() {
    return redact(url) + " table " + table;
  }
}
