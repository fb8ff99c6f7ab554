package io.psiflink.bridge;

/**
 * One paired logical stream between this party and its peer, for one (session, channel, attempt).
 * Frames keep their boundaries: each {@link #send} arrives as one {@link #receive}.
 *
 * <p>Used by one thread at a time, except that one thread may send while another receives (full
 * duplex), and {@link #abort} and {@link #close} may come from any thread.
 */
public interface BridgeStream extends AutoCloseable {
  String session();

  String channel();

  /**
   * Assigned by the relay: 0 for the first pairing of (session, channel), 1 for the next, and so
   * on.
   */
  int attempt();

  /** The peer's party name (CN of its certificate), as authenticated by the relay. */
  String peerParty();

  /**
   * Sends one frame. Blocks while the peer is not taking data (back-pressure), up to the idle
   * timeout, then throws {@link BridgeTimeoutException}.
   *
   * @throws IllegalArgumentException if {@code len} exceeds maxFrameBytes (nothing is sent)
   * @throws IllegalStateException after {@link #finish}
   * @throws BridgePeerException if the peer aborted, disconnected or restarted the stream
   */
  void send(byte[] data, int off, int len) throws BridgeException;

  default void send(byte[] data) throws BridgeException {
    send(data, 0, data.length);
  }

  /**
   * The next frame from the peer; null once the peer finished (and on every later call). Blocks up
   * to the idle timeout, then throws {@link BridgeTimeoutException}.
   *
   * @throws BridgePeerException if the peer aborted, disconnected, restarted the stream or sent a
   *     malformed frame
   */
  byte[] receive() throws BridgeException;

  /**
   * Ends this direction; the peer's {@link #receive} returns null after the last frame. Idempotent.
   */
  void finish() throws BridgeException;

  /**
   * Best effort: the peer's receive()/send() then throw a {@link BridgePeerException} containing
   * {@code reason}.
   */
  void abort(String reason);

  /** DATA payload bytes sent so far. */
  long bytesSent();

  /** DATA payload bytes received so far. */
  long bytesReceived();

  /**
   * Releases the stream; unless it finished both ways, this is {@code abort("closed by <party>")}.
   */
  @Override
  void close();
}
