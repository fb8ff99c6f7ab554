package io.psiflink.query;

import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlTypeNameSpec;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.util.Litmus;

/**
 * The Calcite dialect in which predicates are written out for Flink SQL: identifiers quoted with
 * backticks (a backtick inside a name is doubled), string literals in single quotes (a quote inside
 * is doubled), identifiers case-sensitive. This is the lexical convention of Flink's own SQL
 * parser.
 */
public final class FlinkDialect extends SqlDialect {
  static final FlinkDialect INSTANCE = new FlinkDialect();

  private FlinkDialect() {
    super(
        EMPTY_CONTEXT
            .withDatabaseProduct(DatabaseProduct.UNKNOWN)
            .withIdentifierQuoteString("`")
            .withIdentifierEscapedQuoteString("``")
            .withLiteralQuoteString("'")
            .withLiteralEscapedQuoteString("''")
            .withUnquotedCasing(Casing.UNCHANGED)
            .withQuotedCasing(Casing.UNCHANGED)
            .withCaseSensitive(true));
  }

  /** Non-ASCII characters are written as they are: Flink reads its SQL text as Unicode. */
  @Override
  public void quoteStringLiteral(StringBuilder buf, String charsetName, String val) {
    if (charsetName != null) {
      buf.append('_').append(charsetName);
    }
    buf.append('\'').append(val.replace("'", "''")).append('\'');
  }

  /**
   * The text of {@code node} in this dialect, every identifier quoted, on one line where possible.
   */
  static String unparse(SqlNode node) {
    return node.toSqlString(
            c ->
                c.withDialect(INSTANCE)
                    .withQuoteAllIdentifiers(true)
                    .withAlwaysUseParentheses(false)
                    .withClauseStartsLine(false)
                    .withIndentation(0))
        .getSql();
  }

  /**
   * Parses an expression written in this dialect, such as {@link PartyView#wherePredicate()}, with
   * the lexical rules the query was read by.
   *
   * @throws SqlParseException when {@code text} is not one expression
   */
  public static SqlNode parseExpression(String text) throws SqlParseException {
    return SqlParser.create(text, SqlReader.CONFIG).parseExpression();
  }

  /** An identifier quoted for Flink SQL. */
  public static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * A type name written as a plain keyword, e.g. Flink's {@code STRING} or {@code BYTES}, which
   * Calcite's parser reads as a user-defined type and would otherwise write back quoted.
   */
  static final class KeywordTypeName extends SqlTypeNameSpec {
    private final String name;

    KeywordTypeName(String name, SqlParserPos pos) {
      super(new SqlIdentifier(name, pos), pos);
      this.name = name;
    }

    @Override
    public RelDataType deriveType(SqlValidator validator) {
      throw new UnsupportedOperationException("type " + name + " is resolved by Flink");
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
      writer.keyword(name);
    }

    @Override
    public boolean equalsDeep(SqlTypeNameSpec spec, Litmus litmus) {
      if (spec instanceof KeywordTypeName k && k.name.equals(name)) {
        return true;
      }
      return litmus.fail("{} != {}", this, spec);
    }
  }
}
