/**
 * The job's part of the control plane, before any row is read: the signed handshake with the peer's
 * job over the bridge ({@link io.psiflink.jobs.session.SessionHandshake}) takes both parties' facts
 * and gives the agreed parameters and derived keys ({@link
 * io.psiflink.jobs.session.SessionSecrets}), which reach the task managers outside the job graph
 * ({@link io.psiflink.jobs.session.JobSecrets}).
 */
package io.psiflink.jobs.session;
