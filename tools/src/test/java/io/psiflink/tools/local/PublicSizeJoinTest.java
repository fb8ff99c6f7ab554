package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each party discloses of its size (issue 18 item 4), observed as the n its bins announced in
 * HELLO and padded to (the summary's rows_disclosed, recorded where the bins use it), over two
 * WHEREs: the same under rounded and declared, the filtered size under exact; results stay exact.
 */
class PublicSizeJoinTest {
  private static final String SQL_2 =
      "SELECT a.id, a.spend, b.email, b.id AS bid FROM a JOIN b "
          + "ON a.card = b.card AND a.zip = b.zip WHERE a.spend > 80 AND b.country = 'DE'";
  private static final Pattern DISCLOSED = Pattern.compile("\"rows_disclosed\":(\\d+)");

  @TempDir Path dir;
  private JoinFixture f;

  @BeforeEach
  void tables() {
    // 1500 and 2000 records; some with a NULL key (quarantined, still records of the table)
    f = JoinFixture.generate(1500, 2000, 0.5, 0.2, 0.05, 4242);
  }

  @Test
  void roundedAndDeclaredAnnounceTheSameNForAnyWhereExactTheFilteredSize() throws Exception {
    // 1500 = 0b101_1101_1100 rounded up to 3 leading binary digits: 0b110_0000_0000 = 1536
    long roundedA = 1536;
    long declaredB = 2500;

    Map<String, String> o = options("out1");
    o.put("a-public-size", "rounded");
    o.put("b-public-size", "declared:" + declaredB);
    LocalJoin.Result r1 = run(o);
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out1"), List.of("id", "spend", "email", "bid")));
    assertEquals(roundedA, disclosed(r1.summaryA()));
    assertEquals(declaredB, disclosed(r1.summaryB()));

    // another WHERE, as a count-only query (ECDH, one bin): the same n on both sides
    Map<String, String> o2 = options("out2");
    o2.put("a-public-size", "rounded");
    o2.put("b-public-size", "declared:" + declaredB);
    o2.put("protocol", "ecdh");
    o2.remove("bins");
    o2.put(
        "sql",
        SQL_2.replace(
            "SELECT a.id, a.spend, b.email, b.id AS bid",
            "SELECT COUNT(DISTINCT a.zip, a.card) AS common"));
    LocalJoin.Result r2 = run(o2);
    assertEquals(
        List.of(Long.toString(commonKeys())),
        JoinFixture.readAvro(dir.resolve("out2"), List.of("common")));
    assertEquals(roundedA, disclosed(r2.summaryA()));
    assertEquals(declaredB, disclosed(r2.summaryB()));

    // exact: the rows that passed each party's WHERE with a key, counted here from the fixture
    Map<String, String> o3 = options("out3");
    o3.put("public-size", "exact");
    o3.put("sql", SQL_2);
    LocalJoin.Result r3 = run(o3);
    assertEquals(
        f.expected(x -> x.spend() != null && x.spend() > 80, y -> "DE".equals(y.country())),
        JoinFixture.readAvro(dir.resolve("out3"), List.of("id", "spend", "email", "bid")));
    long filteredA =
        f.a.stream()
            .filter(x -> x.card() != null && x.zip() != null && x.spend() != null && x.spend() > 80)
            .count();
    long filteredB =
        f.b.stream()
            .filter(y -> y.card() != null && y.zip() != null && "DE".equals(y.country()))
            .count();
    assertEquals(filteredA, disclosed(r3.summaryA()));
    assertEquals(filteredB, disclosed(r3.summaryB()));
    assertTrue(filteredA < 1000 && filteredB < 1000, filteredA + " " + filteredB);
  }

  @Test
  void moreRowsThanDeclaredFailBeforeAnyPsiMessage() throws Exception {
    Map<String, String> o = options("out");
    o.put("b-public-size", "declared:100");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      assertThrows(Exception.class, () -> LocalJoin.run(o, ps));
    }
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("more than the 100 this party declared as its public size"), text);
    // no bin of either party got as far as its PSI
    assertFalse(text.contains(" done ("), text);
    assertFalse(java.nio.file.Files.exists(dir.resolve("out")));
  }

  private Map<String, String> options(String out) throws Exception {
    Map<String, String> o = f.localJoinOptions(dir, "csv", "2", "512m");
    o.put("out", dir.resolve(out).toString());
    o.put("pair-timeout", "20");
    return o;
  }

  private long commonKeys() {
    Set<String> inB = new HashSet<>();
    f.b.stream()
        .filter(y -> y.card() != null && y.zip() != null && "DE".equals(y.country()))
        .forEach(y -> inB.add(y.card() + "|" + y.zip()));
    Set<String> both = new HashSet<>();
    f.a.stream()
        .filter(
            x ->
                x.card() != null
                    && x.zip() != null
                    && x.spend() != null
                    && x.spend() > 80
                    && inB.contains(x.card() + "|" + x.zip()))
        .forEach(x -> both.add(x.card() + "|" + x.zip()));
    return both.size();
  }

  private static long disclosed(String summary) {
    Matcher m = DISCLOSED.matcher(summary);
    assertTrue(m.find(), summary);
    return Long.parseLong(m.group(1));
  }

  private static LocalJoin.Result run(Map<String, String> opts) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      return LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
  }
}
