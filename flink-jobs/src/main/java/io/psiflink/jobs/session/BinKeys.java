package io.psiflink.jobs.session;

import io.psiflink.jobs.psi.SealedBinStream;

/**
 * The secrets a party's bins need: never serialised with the job (see {@code JobSecrets}), read by
 * the operator when it opens.
 *
 * @param frameKey 32-byte session key sealing every bin frame ({@link SealedBinStream})
 * @param setup this party's exported protocol setup (secret key material), or null for a protocol
 *     that runs its setup in every bin
 */
public record BinKeys(byte[] frameKey, byte[] setup) {}
