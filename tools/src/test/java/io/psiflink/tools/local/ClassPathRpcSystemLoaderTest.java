package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.junit.jupiter.api.Test;

class ClassPathRpcSystemLoaderTest {
  /**
   * Flink's own loader would hand out a wrapper that deletes the jar it extracted, its Pekko
   * classes in a class loader of their own.
   */
  @Test
  void flinkLoadsPekkoFromTheClassPath() throws Exception {
    try (RpcSystem rpc = RpcSystem.load(new Configuration())) {
      assertEquals("org.apache.flink.runtime.rpc.pekko.PekkoRpcSystem", rpc.getClass().getName());
      assertSame(ClassPathRpcSystemLoader.class.getClassLoader(), rpc.getClass().getClassLoader());
    }
  }
}
