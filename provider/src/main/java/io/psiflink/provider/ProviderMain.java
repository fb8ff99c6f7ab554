package io.psiflink.provider;

import io.psiflink.bridge.CalleeMain;

/**
 * {@code ProviderMain CONFIG.yaml} ({@code ./psi provider CONFIG.yaml}): runs a {@link
 * ProviderService} until SIGTERM or SIGINT, then ends its sessions ("provider shutting down") and
 * exits (status 143 after SIGTERM). A bad config or unusable credentials: one line on stderr naming
 * the cause, exit 2; relay unreachable at start: exit 1 ({@link CalleeMain}).
 */
public final class ProviderMain {
  private ProviderMain() {}

  public static void main(String[] args) throws InterruptedException {
    CalleeMain.run(
        args,
        "provider",
        "io/psiflink/provider/provider-log4j2.properties",
        ProviderConfig::load,
        ProviderService::start);
  }
}
