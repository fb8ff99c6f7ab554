/**
 * One party's private join job: {@link io.psiflink.jobs.PartyMain} parses the command line into a
 * {@link io.psiflink.jobs.PartyConfig}, {@link io.psiflink.jobs.PrivateJoinJob} plans, runs the
 * {@code session} handshake and wires the data plane read → filter → token → bin → psi → payload →
 * write, one subpackage per step; a {@link io.psiflink.jobs.JobSummary} comes out.
 */
package io.psiflink.jobs;
