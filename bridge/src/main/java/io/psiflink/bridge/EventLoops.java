package io.psiflink.bridge;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The network threads of one bridge client or relay, stopped when it closes. gRPC's shared event
 * loops outlive their last channel by a second or more, blocked in {@code epoll_wait}; and a JDK 17
 * JVM that exits while a thread is in native code waits about 300 ms for it (HotSpot's {@code
 * VM_Exit::wait_for_threads_in_native_to_block}). With the threads stopped, a party or the local
 * driver exits at once after its last connection closed.
 */
final class EventLoops implements AutoCloseable {
  /** How long {@link #close} waits for the threads to stop. */
  private static final long STOP_MILLIS = 2_000;

  private final EventLoopGroup group;
  private final boolean epoll;

  /** {@code threads} network threads named {@code name-N} (0: netty's default, 2 per core). */
  EventLoops(String name, int threads) {
    DefaultThreadFactory factory = new DefaultThreadFactory(name, true);
    this.epoll = Epoll.isAvailable();
    this.group =
        epoll ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
  }

  EventLoopGroup group() {
    return group;
  }

  Class<? extends Channel> socketChannel() {
    return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  Class<? extends ServerChannel> serverChannel() {
    return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** Stops the threads and waits (boundedly) until they have. */
  @Override
  public void close() {
    group
        .shutdownGracefully(0, STOP_MILLIS, TimeUnit.MILLISECONDS)
        .awaitUninterruptibly(STOP_MILLIS + 500);
  }
}
