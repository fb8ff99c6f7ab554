package io.psiflink.jobs.session;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the bins of an n-party join need of the session's secrets ({@link
 * io.psiflink.jobs.multiparty.GroupBins}), as they travel in the job's secret file ({@link
 * JobSecrets#group()}).
 *
 * @param groupSecret the parties' group secret of the protocol (32 bytes)
 * @param link the link to the provider ({@link io.psiflink.provider.ProviderLink#toBytes()})
 * @param pairKeys per party index the frame key this party shares with it, or null
 */
public record TaskKeys(byte[] groupSecret, byte[] link, List<byte[]> pairKeys) {
  private static final int MAX_FIELD = 16 << 20;

  public TaskKeys {
    pairKeys = Collections.unmodifiableList(new ArrayList<>(pairKeys));
  }

  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      JobSecrets.writeField(out, groupSecret);
      JobSecrets.writeField(out, link);
      out.writeInt(pairKeys.size());
      for (byte[] k : pairKeys) {
        JobSecrets.writeField(out, k);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  public static TaskKeys decode(byte[] bytes) throws IOException {
    if (bytes == null) {
      throw new IOException("the session secret file holds no keys of an n-party join");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte[] secret = JobSecrets.readField(in, MAX_FIELD);
      byte[] link = JobSecrets.readField(in, MAX_FIELD);
      int n = in.readInt();
      if (n < 0 || n > 1024) {
        throw new IOException("session secret file is corrupt (" + n + " pair keys)");
      }
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        keys.add(JobSecrets.readField(in, MAX_FIELD));
      }
      return new TaskKeys(secret, link, keys);
    }
  }
}
