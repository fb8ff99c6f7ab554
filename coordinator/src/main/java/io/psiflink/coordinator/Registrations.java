package io.psiflink.coordinator;

import io.psiflink.coordinator.CoordinatorConfig.Registered;
import java.util.List;

/**
 * The checks of a service a query names (a helper, a provider) against this party's registry: at
 * submission (registered?), on another party's offer (registered with the same pin?) and at launch
 * (still registered with the approved pin?). {@code kind} names the service in messages and is the
 * request field.
 */
final class Registrations {
  private Registrations() {}

  /** The registered service {@code name} (400, field {@code kind}, if it is not registered). */
  static <S extends Registered> S registered(
      String party, List<S> registry, String kind, String name) {
    return find(registry, name)
        .orElseThrow(
            () ->
                ApiException.badRequest(
                    kind,
                    kind
                        + " "
                        + name
                        + " is not registered at "
                        + party
                        + (registry.isEmpty()
                            ? " (it registers none)"
                            : "; it registers "
                                + registry.stream().map(Registered::name).toList())));
  }

  /**
   * An offer's service checked against this party's registry: unknown, or registered with another
   * pin, is refused (422, field {@code kind}) naming it.
   */
  static <S extends Registered> S approve(
      String party, List<S> registry, String kind, String name, String pin) {
    S s =
        find(registry, name)
            .orElseThrow(
                () ->
                    new ApiException(
                            422,
                            kind
                                + ": "
                                + kind
                                + " "
                                + name
                                + " is not registered at "
                                + party
                                + ": its coordinator approves only "
                                + kind
                                + "s it registered")
                        .with("field", kind));
    if (!s.certSha256().equals(pin)) {
      throw new ApiException(
              422,
              kind
                  + ": "
                  + kind
                  + " "
                  + name
                  + " is registered at "
                  + party
                  + " with another certificate pin ("
                  + s.certSha256()
                  + ", not "
                  + pin
                  + ")")
          .with("field", kind);
    }
    return s;
  }

  /**
   * The pin of an approved session's service as this party registers it now: a service removed
   * since the approval, or registered with another certificate, gets no job.
   *
   * @throws IllegalArgumentException naming the service
   */
  static String pinAtLaunch(
      List<? extends Registered> registry, String kind, String name, String pin) {
    Registered s =
        find(registry, name)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the session's " + kind + " " + name + " is no longer registered here"));
    if (!s.certSha256().equals(pin)) {
      throw new IllegalArgumentException(
          "the session's "
              + kind
              + " "
              + name
              + " is registered here with another certificate pin than the approved one");
    }
    return s.certSha256();
  }

  private static <S extends Registered> java.util.Optional<S> find(List<S> registry, String name) {
    return registry.stream().filter(s -> s.name().equals(name)).findFirst();
  }
}
