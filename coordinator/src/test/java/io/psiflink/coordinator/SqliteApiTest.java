package io.psiflink.coordinator;

/** The API contract with each coordinator on its own SQLite file (the default database). */
class SqliteApiTest extends CoordinatorApiContract {
  @Override
  String databaseUrl(String name) {
    return "jdbc:sqlite:" + dir.resolve(name + ".db");
  }
}
