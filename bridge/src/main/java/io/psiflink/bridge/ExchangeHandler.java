package io.psiflink.bridge;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Frame;

/**
 * Starts a relay stream for each accepted Exchange call: checks the headers and hands the stream to
 * pairing.
 */
final class ExchangeHandler implements ServerCallHandler<Frames.Parsed, Frame> {
  private final PairingRegistry registry;
  private final Context.Key<String> partyKey;
  private final Context.Key<byte[]> certKey;

  /** Null: no session pins (the CA tie alone). */
  private final SessionPins pins;

  private final Context.Key<CloseReasonTracer> tracerKey;

  ExchangeHandler(
      PairingRegistry registry,
      Context.Key<String> partyKey,
      Context.Key<byte[]> certKey,
      SessionPins pins,
      Context.Key<CloseReasonTracer> tracerKey) {
    this.registry = registry;
    this.partyKey = partyKey;
    this.certKey = certKey;
    this.pins = pins;
    this.tracerKey = tracerKey;
  }

  @Override
  public ServerCall.Listener<Frames.Parsed> startCall(
      ServerCall<Frames.Parsed, Frame> call, Metadata headers) {
    String party = partyKey.get();
    if (party == null) { // only reachable if the interceptor was bypassed
      call.close(Status.UNAUTHENTICATED.withDescription("unauthenticated stream"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    String session = headers.get(BridgeProtocol.SESSION);
    String channel = headers.get(BridgeProtocol.CHANNEL);
    String problem = headerProblem(BridgeProtocol.SESSION, session);
    if (problem == null) {
      problem = headerProblem(BridgeProtocol.CHANNEL, channel);
    }
    String callee = headers.get(BridgeProtocol.CALLEE);
    if (problem == null && callee != null) {
      problem = headerProblem(BridgeProtocol.CALLEE, callee);
    }
    if (problem == null && party.equals(callee)) {
      problem = "header " + BridgeProtocol.CALLEE.name() + " names the caller itself";
    }
    if (problem != null) {
      call.close(Status.INVALID_ARGUMENT.withDescription(problem), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    if (pins != null && !pinned(session, party, certKey.get())) {
      // the session names the certificate of each party: another one of the same CA and CN is
      // refused
      call.close(
          Status.PERMISSION_DENIED.withDescription(
              "the certificate of '" + party + "' is not the one session " + session + " names"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    RelayStream stream =
        new RelayStream(
            call, party, new StreamKey(session, channel), callee, registry, tracerKey.get());
    call.sendHeaders(new Metadata());
    registry.register(stream);
    return stream;
  }

  /**
   * Whether the certificate is the one the session names for the party (or the session is unknown
   * here).
   */
  private boolean pinned(String session, String party, byte[] actual) {
    String pin;
    try {
      pin = pins.pin(session, party);
    } catch (RuntimeException e) {
      return false; // cannot tell: refuse rather than admit
    }
    if (pin == null) {
      return true;
    }
    if (pin.equals(SessionPins.NOT_IN_SESSION)) {
      return false;
    }
    try {
      return actual != null
          && java.security.MessageDigest.isEqual(actual, java.util.HexFormat.of().parseHex(pin));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String headerProblem(Metadata.Key<String> key, String value) {
    if (value == null) {
      return "missing header " + key.name();
    }
    if (!BridgeProtocol.ID.matcher(value).matches()) {
      return "header " + key.name() + " must be 1 to 200 printable ASCII characters without spaces";
    }
    return null;
  }
}
