/**
 * The PSI step: a bin's table comes in; the bin's intersection with the peer's same bin goes out,
 * computed by the native protocol over a bridge stream sealed end to end ({@link
 * io.psiflink.jobs.psi.BinPsiOperator} runs the bins of a subtask, {@link
 * io.psiflink.jobs.psi.BinExchange} one attempt at one bin).
 */
package io.psiflink.jobs.psi;
