package io.psiflink.bridge;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.psiflink.bridge.proto.v1.BridgeGrpc;
import io.psiflink.bridge.proto.v1.Call;
import io.psiflink.bridge.proto.v1.Frame;
import io.psiflink.bridge.proto.v1.ListenRequest;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The gRPC contract between clients and relay: the Exchange and Listen methods of bridge.proto's
 * {@code psiflink.bridge.v1.Bridge} service (generated: {@link BridgeGrpc}), plus its headers and
 * timing. Each side sends with the generated marshaller and receives through {@link Frames#PARSED},
 * which turns a message that is no frame into a problem the receiver reports, instead of a call
 * reset.
 */
final class BridgeProtocol {
  static final String SERVICE = BridgeGrpc.SERVICE_NAME;

  /** The client's view of Exchange. */
  static final MethodDescriptor<Frame, Frames.Parsed> CLIENT_EXCHANGE =
      BridgeGrpc.getExchangeMethod().toBuilder(Frames.FRAME, Frames.PARSED).build();

  /** The relay's view of Exchange. */
  static final MethodDescriptor<Frames.Parsed, Frame> RELAY_EXCHANGE =
      BridgeGrpc.getExchangeMethod().toBuilder(Frames.PARSED, Frames.FRAME).build();

  static final Metadata.Key<String> SESSION =
      Metadata.Key.of("psi-session", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> CHANNEL =
      Metadata.Key.of("psi-channel", Metadata.ASCII_STRING_MARSHALLER);

  /** Optional on Exchange: the listening party the relay should call if no stream waits. */
  static final Metadata.Key<String> CALLEE =
      Metadata.Key.of("psi-callee", Metadata.ASCII_STRING_MARSHALLER);

  /** Listen, with the generated marshallers (both sides). */
  static final MethodDescriptor<ListenRequest, Call> LISTEN = BridgeGrpc.getListenMethod();

  /** Session and channel travel as ASCII headers: printable ASCII, bounded length. */
  static final Pattern ID = Pattern.compile("[\\x21-\\x7e]{1,200}");

  // Keepalive pings detect a vanished peer or relay even when no data flows.
  static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10); // the gRPC client minimum
  static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);
  static final Duration PERMIT_KEEPALIVE_TIME =
      Duration.ofSeconds(5); // must be below the clients' keepalive time

  private BridgeProtocol() {}

  static String checkId(String value, String what) {
    if (value == null || !ID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be 1 to 200 printable ASCII characters without spaces, got "
              + (value == null ? "null" : "'" + value + "'"));
    }
    return value;
  }
}
