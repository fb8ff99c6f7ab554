package io.psiflink.jobs.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.jobs.session.MultipartyHandshake.GroupSecrets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The group handshake of an n-party join over a real relay (TLS on loopback): every party ends with
 * the same group keys, P1 shares one pair key with each other party, and a party naming another
 * group, another query or an unpinned certificate gets no keys at all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultipartyHandshakeTest {
  private static final List<String> NAMES = List.of("org-1", "org-2", "org-3", "org-4");
  private ThrowawayPki pki;
  private BridgeRelay relay;

  @BeforeAll
  void start() throws Exception {
    List<String> all = new ArrayList<>(NAMES);
    all.add("org-x");
    all.add("bridge");
    pki =
        ThrowawayPki.create(
            Files.createTempDirectory("psi-group-handshake-"), all.toArray(String[]::new));
    relay =
        BridgeRelay.start(
            RelayConfig.defaults(pki.credentials("bridge"), Set.copyOf(all))
                .withPairTimeout(Duration.ofSeconds(5)));
  }

  @AfterAll
  void stop() throws Exception {
    relay.close();
  }

  private byte[] sha256(String name) throws Exception {
    return MessageDigest.getInstance("SHA-256")
        .digest(pki.credentials(name).certificate().getEncoded());
  }

  private List<byte[]> pins(List<String> names) throws Exception {
    List<byte[]> pins = new ArrayList<>();
    for (String n : names) {
      pins.add(sha256(n));
    }
    return pins;
  }

  private static SessionHandshake.LocalFacts facts(
      int i, List<String> parties, String provider, String fingerprint, ColumnType keyType) {
    List<Column> keys = List.of(new Column("k", keyType, true));
    return new SessionHandshake.LocalFacts(
        Role.party(i, parties.size()),
        parties.get(i == 0 ? 1 : 0),
        fingerprint,
        "mpsi",
        "",
        JoinMode.BOTH,
        PartyOptions.DEFAULT_LABEL_BYTES,
        40,
        0,
        1000L * (i + 1),
        1 + i,
        keys,
        List.of(new Column("v" + i, ColumnType.STRING, true)),
        keys,
        null,
        SessionHandshake.PrefilterRequest.NONE,
        new SessionHandshake.Multiparty(parties, provider));
  }

  private CompletableFuture<GroupSecrets> party(
      String session, String name, SessionHandshake.LocalFacts facts, List<byte[]> pins) {
    PartyCredentials me = pki.credentials(name);
    return CompletableFuture.supplyAsync(
        () -> {
          try (BridgeClient client =
              BridgeClient.connect(BridgeClientConfig.defaults("127.0.0.1", relay.port(), me))) {
            return MultipartyHandshake.run(client, session, me, facts, pins);
          } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        });
  }

  @Test
  void everyPartyGetsTheSameGroupKeys() throws Exception {
    String session = UUID.randomUUID().toString();
    List<byte[]> pins = pins(NAMES);
    List<CompletableFuture<GroupSecrets>> fs = new ArrayList<>();
    for (int i = NAMES.size() - 1; i >= 0; i--) { // any arrival order
      fs.add(
          0, party(session, NAMES.get(i), facts(i, NAMES, "prov", "fp", ColumnType.STRING), pins));
    }
    List<GroupSecrets> s = new ArrayList<>();
    for (var f : fs) {
      s.add(f.get(60, TimeUnit.SECONDS));
    }
    GroupSecrets p1 = s.get(0);
    assertEquals(32, p1.groupSecret().length);
    assertFalse(Arrays.equals(new byte[32], p1.groupSecret()));
    for (int i = 1; i < NAMES.size(); i++) {
      GroupSecrets pi = s.get(i);
      assertArrayEquals(p1.tokenKey(), pi.tokenKey());
      assertArrayEquals(p1.binSeed(), pi.binSeed());
      assertArrayEquals(p1.groupSecret(), pi.groupSecret());
      assertEquals(p1.bins(), pi.bins());
      assertArrayEquals(p1.pairKeys().get(i), pi.pairKeys().get(0));
      assertNull(pi.pairKeys().get(1 == i ? 2 : 1), "a party shares no key with another party");
      // P1 has each party's revealed columns; the others have nobody's
      assertEquals(List.of("v" + i), p1.revealed().get(i).stream().map(Column::name).toList());
      assertTrue(pi.revealed().stream().allMatch(List::isEmpty));
    }
    // pair keys differ between pairs
    assertFalse(Arrays.equals(p1.pairKeys().get(1), p1.pairKeys().get(2)));
  }

  @Test
  void aPartyNamingAnotherGroupGetsNoKeys() throws Exception {
    String session = UUID.randomUUID().toString();
    List<String> parties = NAMES.subList(0, 3);
    List<byte[]> pins = pins(parties);
    var p1 = party(session, "org-1", facts(0, parties, "prov", "fp", ColumnType.STRING), pins);
    var p2 = party(session, "org-2", facts(1, parties, "prov", "fp", ColumnType.STRING), pins);
    // P3 expects another provider
    var p3 = party(session, "org-3", facts(2, parties, "other", "fp", ColumnType.STRING), pins);
    for (var f : List.of(p1, p2, p3)) {
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
      assertTrue(e.getCause().getMessage().length() > 0);
    }
    ExecutionException e1 = assertThrows(ExecutionException.class, () -> p1.get());
    assertTrue(
        e1.getCause().getMessage().contains("name different groups"), e1.getCause().getMessage());
  }

  @Test
  void keyTypesThatDoNotCompareAreNamed() throws Exception {
    String session = UUID.randomUUID().toString();
    List<String> parties = NAMES.subList(0, 3);
    List<byte[]> pins = pins(parties);
    var p1 = party(session, "org-1", facts(0, parties, "prov", "fp", ColumnType.STRING), pins);
    var p2 = party(session, "org-2", facts(1, parties, "prov", "fp", ColumnType.STRING), pins);
    var p3 = party(session, "org-3", facts(2, parties, "prov", "fp", ColumnType.BIGINT), pins);
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> p1.get(60, TimeUnit.SECONDS));
    assertTrue(e.getCause().getMessage().contains("party P3 k"), e.getCause().getMessage());
    assertThrows(ExecutionException.class, () -> p2.get(60, TimeUnit.SECONDS));
    assertThrows(ExecutionException.class, () -> p3.get(60, TimeUnit.SECONDS));
  }

  @Test
  void aCertificateTheSessionDoesNotPinIsRefused() throws Exception {
    String session = UUID.randomUUID().toString();
    List<String> parties = NAMES.subList(0, 3);
    List<byte[]> pins = pins(parties);
    List<byte[]> wrong = new ArrayList<>(pins);
    wrong.set(2, sha256("org-x")); // P1 pins another certificate for P3
    var p1 = party(session, "org-1", facts(0, parties, "prov", "fp", ColumnType.STRING), wrong);
    var p2 = party(session, "org-2", facts(1, parties, "prov", "fp", ColumnType.STRING), pins);
    var p3 = party(session, "org-3", facts(2, parties, "prov", "fp", ColumnType.STRING), pins);
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> p1.get(60, TimeUnit.SECONDS));
    assertTrue(
        e.getCause().getMessage().contains("is not the one the session names"),
        e.getCause().getMessage());
    assertThrows(ExecutionException.class, () -> p2.get(60, TimeUnit.SECONDS));
    assertThrows(ExecutionException.class, () -> p3.get(60, TimeUnit.SECONDS));
  }
}
