package io.psiflink.tools.local;

import java.util.ServiceLoader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

/**
 * Flink's RPC system (Pekko) from the class path: the tools' JVMs have {@code flink-rpc-akka} on
 * it, so a MiniCluster of theirs ({@code ./psi local}'s, on its threads or in the party JVMs it
 * starts on its class path; the insecure baseline's) loads Pekko's classes from there, through
 * class-data sharing, instead of Flink's own loader copying the 24 MB jar inside its loader jar to
 * io.tmp.dirs and loading it through a class loader of its own at every start (about 0.12 CPU-s of
 * a 10^6-row join's 7; docs/benchmarks.md). The coordinator's party JVMs and {@code flink run} keep
 * Flink's loader: their class path is the job's, which does not carry Pekko.
 */
public final class ClassPathRpcSystemLoader implements RpcSystemLoader {
  @Override
  public int getLoadPriority() {
    return -1; // before Flink's (0), which remains the fallback
  }

  @Override
  public RpcSystem loadRpcSystem(Configuration config) {
    return ServiceLoader.load(RpcSystem.class, ClassPathRpcSystemLoader.class.getClassLoader())
        .findFirst()
        .orElseThrow(() -> new RpcLoaderException("flink-rpc-akka is not on the class path"));
  }
}
