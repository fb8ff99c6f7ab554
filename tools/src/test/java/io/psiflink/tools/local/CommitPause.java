package io.psiflink.tools.local;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Holds a party's JVM at the moment it starts committing one output ({@code
 * io.psiflink.connectors.StagedOutput#commit} of a given target), runs a fault there, then lets it
 * go on: the one moment a fault "at commit" must hit, which no log line can catch reliably (the
 * commit follows the job's end within milliseconds). Works through the JDK's debugger interface
 * (JDWP, loaded into the party's JVM by {@link #launchPrefix}); the party's code runs unchanged.
 */
final class CommitPause implements AutoCloseable {
  private static final String CLASS = "io.psiflink.connectors.StagedOutput";

  private final int port;
  private final String target;
  private final Runnable fault;
  private final CompletableFuture<Void> hit = new CompletableFuture<>();
  private volatile VirtualMachine vm;
  private Thread thread;

  /**
   * @param target the output path as the party was given it
   * @param fault what to do while the party waits at the commit of {@code target}
   */
  CommitPause(String target, Runnable fault) throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
    this.target = target;
    this.fault = fault;
  }

  /** What the party's command line starts with: the JDWP agent on a loopback port. */
  List<String> launchPrefix() {
    return List.of(
        "env",
        "JAVA_TOOL_OPTIONS=-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:"
            + port);
  }

  /** Attaches to the launched party (retrying until its agent listens) and waits for the commit. */
  void watch() {
    thread = new Thread(this::run, "commit pause");
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the fault ran at the commit, waiting up to {@code seconds} for it. */
  boolean hit(long seconds) {
    try {
      hit.get(seconds, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private void run() {
    try {
      vm = attach();
      ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
      prepare.addClassFilter(CLASS);
      prepare.enable();
      for (ReferenceType t : vm.classesByName(CLASS)) {
        breakAtCommit(t);
      }
      while (!hit.isDone()) {
        EventSet events = vm.eventQueue().remove();
        for (Event e : events) {
          if (e instanceof ClassPrepareEvent p) {
            breakAtCommit(p.referenceType());
          } else if (e instanceof BreakpointEvent b) {
            ObjectReference self = b.thread().frame(0).thisObject();
            String t =
                ((StringReference) self.getValue(self.referenceType().fieldByName("target")))
                    .value();
            if (t.equals(target)) {
              try {
                fault.run();
              } finally {
                hit.complete(null);
              }
            }
          } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
            hit.completeExceptionally(new IllegalStateException("the party ended first"));
          }
        }
        events.resume();
      }
    } catch (Exception e) {
      hit.completeExceptionally(e);
    } finally {
      close();
    }
  }

  private VirtualMachine attach() throws Exception {
    AttachingConnector socket =
        Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(c -> c.name().equals("com.sun.jdi.SocketAttach"))
            .findFirst()
            .orElseThrow();
    Map<String, Connector.Argument> args = socket.defaultArguments();
    args.get("hostname").setValue("127.0.0.1");
    args.get("port").setValue(Integer.toString(port));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        return socket.attach(args);
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private void breakAtCommit(ReferenceType type) {
    for (Method m : type.methodsByName("commit")) {
      BreakpointRequest b = vm.eventRequestManager().createBreakpointRequest(m.location());
      b.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      b.enable();
    }
  }

  /** Detaches: the breakpoints go, the party runs on. */
  @Override
  public void close() {
    VirtualMachine v = vm;
    vm = null;
    if (v != null) {
      try {
        v.dispose();
      } catch (RuntimeException e) {
        // already disconnected
      }
    }
  }
}
