package io.psiflink.coordinator;

import io.psiflink.connectors.PostgresServer;

/**
 * The API contract with each coordinator on its own database of a throwaway PostgreSQL server
 * ({@link PostgresServer}: Debian's postgresql, started for this class and stopped after it).
 */
class PostgresApiTest extends CoordinatorApiContract {
  private PostgresServer pg;

  @Override
  void setUpDatabase() throws Exception {
    pg = PostgresServer.start();
  }

  @Override
  void tearDownDatabase() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  @Override
  String databaseUrl(String name) throws Exception {
    return pg.createDatabase(name.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_"));
  }
}
