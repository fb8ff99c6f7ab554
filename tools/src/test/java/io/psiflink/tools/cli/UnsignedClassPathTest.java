package io.psiflink.tools.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real signed jar of the class path (BouncyCastle's) becomes a copy with the same classes and
 * resources, its manifest's main section, and no signature; unsigned jars and other entries stay as
 * they are.
 */
class UnsignedClassPathTest {
  @TempDir Path dir;

  @Test
  void signedJarsAreReplacedByUnsignedCopiesOfTheSameContents() throws Exception {
    Path signed = jarOf(org.bouncycastle.asn1.ASN1Object.class);
    Path unsigned =
        jarOf(UnsignedClassPath.class.getClassLoader().loadClass("picocli.CommandLine"));
    assertTrue(UnsignedClassPath.signed(signed), signed + " is signed");
    assertFalse(UnsignedClassPath.signed(unsigned));
    Path copies = dir.resolve("copies");
    String classPath = unsigned + ":" + signed + ":" + dir.resolve("classes");
    String rewritten = UnsignedClassPath.rewrite(classPath, copies);
    Path copy = copies.resolve(signed.getFileName());
    assertEquals(unsigned + ":" + copy + ":" + dir.resolve("classes"), rewritten);
    assertFalse(UnsignedClassPath.signed(copy));

    try (JarFile original = new JarFile(signed.toFile(), true);
        JarFile stripped = new JarFile(copy.toFile(), true)) {
      assertEquals(
          original.getManifest().getMainAttributes(), stripped.getManifest().getMainAttributes());
      assertTrue(stripped.getManifest().getEntries().isEmpty(), "no per-entry digests");
      List<String> kept = new ArrayList<>();
      for (Enumeration<JarEntry> e = original.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        String name = entry.getName();
        if (name.equals(JarFile.MANIFEST_NAME)) {
          continue; // its main section, above
        }
        if (name.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)")) {
          assertNull(stripped.getEntry(name), name);
          continue;
        }
        kept.add(name);
        JarEntry c = stripped.getJarEntry(name);
        assertNotNull(c, name);
        try (InputStream a = original.getInputStream(entry);
            InputStream b = stripped.getInputStream(c)) {
          assertArrayEquals(a.readAllBytes(), b.readAllBytes(), name);
        }
        assertNull(c.getCodeSigners(), name + " is not signed in the copy");
      }
      assertTrue(kept.size() > 1000, "BouncyCastle's classes: " + kept.size());
    }
    // its classes load from the copy
    try (URLClassLoader l = new URLClassLoader(new URL[] {copy.toUri().toURL()}, null)) {
      Class<?> c = l.loadClass("org.bouncycastle.asn1.ASN1Object");
      assertEquals(copy.toUri().toURL(), c.getProtectionDomain().getCodeSource().getLocation());
      assertNull(c.getProtectionDomain().getCodeSource().getCodeSigners());
    }

    // a second run keeps the copy; a newer jar makes a new one
    long made = Files.getLastModifiedTime(copy).toMillis();
    Files.writeString(copy.resolveSibling("marker"), "");
    assertEquals(rewritten, UnsignedClassPath.rewrite(classPath, copies));
    assertEquals(made, Files.getLastModifiedTime(copy).toMillis());
    try (var files = Files.list(copies)) {
      assertEquals(2, files.count(), "the copy and the marker, no temporary file");
    }
  }

  private static Path jarOf(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
