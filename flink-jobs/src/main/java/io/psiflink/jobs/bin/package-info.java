/**
 * The bin step: token records come in and are shuffled to the subtask that runs their bin ({@link
 * io.psiflink.jobs.bin.BinRouting}); a bin's records go out as a {@link
 * io.psiflink.jobs.bin.BinTable} (distinct tokens and the rows that carry each), padded to the
 * public bound of {@link io.psiflink.jobs.bin.BinPlan}.
 */
package io.psiflink.jobs.bin;
