package io.psiflink.bridge;

/** What the relay pairs on: the same (session, channel) opened by two different parties. */
record StreamKey(String session, String channel) {
  /** "(session 's', channel 'c')", the form every message uses so that logs can be grepped. */
  String describe() {
    return "(session '" + session + "', channel '" + channel + "')";
  }

  String describe(int attempt) {
    return "(session '" + session + "', channel '" + channel + "', attempt " + attempt + ")";
  }

  @Override
  public String toString() {
    return describe();
  }
}
