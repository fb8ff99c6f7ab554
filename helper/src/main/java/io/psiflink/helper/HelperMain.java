package io.psiflink.helper;

import io.psiflink.bridge.CalleeMain;

/**
 * {@code HelperMain CONFIG.yaml} ({@code ./psi helper CONFIG.yaml}): runs a {@link HelperService}
 * until SIGTERM or SIGINT, then ends its sessions ("helper shutting down") and exits (status 143
 * after SIGTERM). A bad config or unusable credentials: one line on stderr naming the cause, exit
 * 2; relay unreachable at start: exit 1 ({@link CalleeMain}).
 */
public final class HelperMain {
  private HelperMain() {}

  public static void main(String[] args) throws InterruptedException {
    CalleeMain.run(
        args,
        "helper",
        "io/psiflink/helper/helper-log4j2.properties",
        HelperConfig::load,
        HelperService::start);
  }
}
