package io.psiflink.bridge;

/**
 * The relay's word to a listening party (see {@link BridgeClient#listen}): {@code caller} waits on
 * (session, channel) for this party to open the same stream with {@link BridgeClient#open}.
 *
 * @param session checked as {@link BridgeClient#open} checks it
 * @param channel checked as {@link BridgeClient#open} checks it
 * @param caller the caller's party name (CN of its certificate) as the relay authenticated it
 */
public record IncomingCall(String session, String channel, String caller) {}
