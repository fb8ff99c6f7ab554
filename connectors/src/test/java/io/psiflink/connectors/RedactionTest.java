package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Secrets in table locations: hidden for display, moved off the URL for a command line. */
class RedactionTest {
  @Test
  void everyPasswordInALocationIsHidden() {
    assertEquals(
        "jdbc:postgresql://db:5432/crm?table=t&user=u&password=***",
        JdbcTable.redact("jdbc:postgresql://db:5432/crm?table=t&user=u&password=s3cret"));
    assertEquals(
        "jdbc:postgresql://db/crm?password=***&table=t&sslpassword=***",
        JdbcTable.redact("jdbc:postgresql://db/crm?password=a%26b&table=t&sslpassword=k"));
    assertEquals(
        "jdbc:sqlserver://h;user=u;Password=***;db=x",
        JdbcTable.redact("jdbc:sqlserver://h;user=u;Password=pw;db=x"));
    assertEquals("hdfs://user:***@nn:8020/data", JdbcTable.redact("hdfs://user:pw@nn:8020/data"));
    for (String plain :
        List.of(
            "/data/alice/purchases",
            "hdfs://nn:8020/x",
            "jdbc:postgresql://db/crm?table=t&user=u")) {
      assertEquals(plain, JdbcTable.redact(plain));
    }
    for (String loc :
        List.of(
            "jdbc:postgresql://db/crm?password=s3cret&table=t",
            "jdbc:postgresql://db/crm?table=t&PASSWORD=s3cret",
            "jdbc:postgresql://u:s3cret@db/crm?table=t")) {
      assertFalse(JdbcTable.redact(loc).contains("s3cret"), loc);
    }
  }

  @Test
  void thePasswordMovesOffTheUrlDecoded() {
    String loc = "jdbc:postgresql://db/crm?user=u&password=p%26w%3Dd&table=t";
    assertEquals("p&w=d", JdbcTable.password(loc));
    assertEquals("jdbc:postgresql://db/crm?user=u&table=t", JdbcTable.withoutPassword(loc));
    assertEquals(
        "jdbc:postgresql://db/crm",
        JdbcTable.withoutPassword("jdbc:postgresql://db/crm?password=x"));
    assertNull(JdbcTable.password("jdbc:postgresql://db/crm?table=t"));
    assertNull(JdbcTable.password("/data/password=x"));
    assertEquals("/data/password=x", JdbcTable.withoutPassword("/data/password=x"));
  }

  @Test
  void aTablesDescriptionHidesItsPassword() throws Exception {
    JdbcTable t = JdbcTable.parse("jdbc:postgresql://db/crm?table=t&password=s3cret");
    assertFalse(t.toString().contains("s3cret"), t.toString());
  }
}
