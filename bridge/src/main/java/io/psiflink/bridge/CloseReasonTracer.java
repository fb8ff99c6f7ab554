package io.psiflink.bridge;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;

/**
 * Remembers the status with which gRPC itself closed a relay stream. A message over the transport
 * size limit is rejected inside gRPC, and the handler only sees a cancel; this tells the relay that
 * it was an oversize frame rather than a disconnect. gRPC reports the status here before the
 * handler's onCancel runs. The tracer reaches the handler through the call's {@link Context}.
 */
final class CloseReasonTracer extends ServerStreamTracer {
  private final Context.Key<CloseReasonTracer> key;
  private volatile Status closedWith;

  private CloseReasonTracer(Context.Key<CloseReasonTracer> key) {
    this.key = key;
  }

  /** The failure gRPC closed the stream with, or null. */
  Status closedWith() {
    return closedWith;
  }

  boolean rejectedOversizeMessage() {
    Status s = closedWith;
    return s != null && s.getCode() == Status.Code.RESOURCE_EXHAUSTED;
  }

  @Override
  public Context filterContext(Context context) {
    return context.withValue(key, this);
  }

  @Override
  public void streamClosed(Status status) {
    if (!status.isOk()) {
      closedWith = status;
    }
  }

  static final class Factory extends ServerStreamTracer.Factory {
    private final Context.Key<CloseReasonTracer> key;

    Factory(Context.Key<CloseReasonTracer> key) {
      this.key = key;
    }

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return new CloseReasonTracer(key);
    }
  }
}
