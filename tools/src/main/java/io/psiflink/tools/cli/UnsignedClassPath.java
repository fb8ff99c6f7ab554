package io.psiflink.tools.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

/**
 * Rewrites a class path file ({@code tools/target/runtime-classpath.txt}, jars separated by {@code
 * :}) so that its signed jars are copies without their signatures: {@code ./psi} runs this after
 * each build of the tools, whose JVMs start Flink's RPC system from the class path. Pekko reads the
 * manifest of every jar on the class path when an actor system starts (two per MiniCluster), and
 * reading from a signed jar makes the JDK verify its signature first: the five signed jars
 * (BouncyCastle's, Janino's) cost every {@code ./psi local} about 0.1 s of CPU, on the way to its
 * cluster's start (a 10^6-row join: 3.35 s against 3.41 s, docs/benchmarks.md).
 *
 * <p>A copy has every entry of the jar but its signature files, and its manifest's main section
 * (the per-entry digests go with the signature), as the deploy's shaded jars strip them. The
 * contents are the jars Maven checked on download; nothing of the tools relies on their signature
 * (no JCE provider is registered from them). Copies are made once: one whose jar has not changed
 * since is kept.
 */
public final class UnsignedClassPath {
  private static final Pattern SIGNATURE =
      Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)|META-INF/SIG-[^/]+");

  private UnsignedClassPath() {}

  /** {@code UnsignedClassPath CLASSPATH_FILE COPY_DIR}: rewrites the file in place. */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: UnsignedClassPath CLASSPATH_FILE COPY_DIR");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    String classPath = Files.readString(file, StandardCharsets.UTF_8).strip();
    Files.writeString(file, rewrite(classPath, Path.of(args[1])), StandardCharsets.UTF_8);
  }

  /** The class path with each signed jar replaced by its unsigned copy in {@code dir}. */
  static String rewrite(String classPath, Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    for (String entry : classPath.split(":")) {
      Path jar = Path.of(entry);
      if (!entry.isEmpty() && entry.endsWith(".jar") && Files.isRegularFile(jar) && signed(jar)) {
        out.add(unsignedCopy(jar, dir).toString());
      } else {
        out.add(entry);
      }
    }
    return String.join(":", out);
  }

  static boolean signed(Path jar) throws IOException {
    try (JarFile f = new JarFile(jar.toFile(), false)) {
      for (Enumeration<JarEntry> e = f.entries(); e.hasMoreElements(); ) {
        if (SIGNATURE.matcher(e.nextElement().getName()).matches()) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The unsigned copy of {@code jar} in {@code dir}, made unless one as new as the jar is there.
   * Two jars of one name in different directories would share it: the class path of a Maven build
   * has one version of each artifact.
   */
  static Path unsignedCopy(Path jar, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path copy = dir.resolve(jar.getFileName());
    FileTime made = Files.getLastModifiedTime(jar);
    if (Files.isRegularFile(copy) && Files.getLastModifiedTime(copy).equals(made)) {
      return copy;
    }
    Path tmp = Files.createTempFile(dir, ".unsigning-", ".jar");
    try (JarFile in = new JarFile(jar.toFile(), false);
        OutputStream file = Files.newOutputStream(tmp);
        JarOutputStream out = new JarOutputStream(file)) {
      Manifest manifest = in.getManifest();
      if (manifest != null) {
        Manifest main = new Manifest();
        main.getMainAttributes().putAll(manifest.getMainAttributes());
        out.putNextEntry(new ZipEntry(JarFile.MANIFEST_NAME));
        main.write(out);
        out.closeEntry();
      }
      for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements(); ) {
        JarEntry entry = e.nextElement();
        String name = entry.getName();
        if (name.equals(JarFile.MANIFEST_NAME) || SIGNATURE.matcher(name).matches()) {
          continue;
        }
        ZipEntry copied = new ZipEntry(name);
        copied.setTime(entry.getTime());
        out.putNextEntry(copied);
        try (InputStream data = in.getInputStream(entry)) {
          data.transferTo(out);
        }
        out.closeEntry();
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    // readable as the jar it copies (a temporary file is its owner's alone)
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setLastModifiedTime(tmp, made);
    Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return copy;
  }
}
