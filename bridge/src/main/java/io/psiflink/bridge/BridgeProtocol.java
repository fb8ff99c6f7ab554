package io.psiflink.bridge;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.regex.Pattern;

/** The hand-written gRPC contract between clients and relay: one bidi method carrying framed byte[] messages. */
final class BridgeProtocol {
  static final String SERVICE = "psiflink.bridge.Bridge";

  static final MethodDescriptor<byte[], byte[]> EXCHANGE = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
      .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Exchange"))
      .setRequestMarshaller(BytesMarshaller.INSTANCE)
      .setResponseMarshaller(BytesMarshaller.INSTANCE)
      .build();

  static final Metadata.Key<String> SESSION = Metadata.Key.of("psi-session", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> CHANNEL = Metadata.Key.of("psi-channel", Metadata.ASCII_STRING_MARSHALLER);

  /** Session and channel travel as ASCII headers: printable ASCII, bounded length. */
  static final Pattern ID = Pattern.compile("[\\x21-\\x7e]{1,200}");

  // Keepalive pings detect a vanished peer or relay even when no data flows.
  static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10); // the gRPC client minimum
  static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);
  static final Duration PERMIT_KEEPALIVE_TIME = Duration.ofSeconds(5); // must be below the clients' keepalive time

  private BridgeProtocol() {}

  static String checkId(String value, String what) {
    if (value == null || !ID.matcher(value).matches()) {
      throw new IllegalArgumentException(what + " must be 1 to 200 printable ASCII characters without spaces, got "
          + (value == null ? "null" : "'" + value + "'"));
    }
    return value;
  }

  /** Messages are already byte[]: hand them to gRPC and take them back with one copy each way. */
  private enum BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        if (stream instanceof KnownLength) {
          byte[] bytes = new byte[stream.available()];
          int n = stream.readNBytes(bytes, 0, bytes.length);
          if (n == bytes.length && stream.read() == -1) {
            return bytes;
          }
          throw new IOException("message length differs from the announced " + bytes.length + " bytes");
        }
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Drainable so gRPC writes the array into its buffers in one go instead of through an 8 KiB bounce buffer. */
  private static final class ByteArrayStream extends ByteArrayInputStream implements Drainable, KnownLength {
    ByteArrayStream(byte[] bytes) {
      super(bytes);
    }

    @Override
    public synchronized int drainTo(OutputStream target) throws IOException {
      int n = count - pos;
      target.write(buf, pos, n);
      pos = count;
      return n;
    }
  }
}
