/**
 * The server-aided sample filter (issue 14, Table 1 of Chen et al.): each party's permuted Bloom
 * filter of its tokens, masked and combined by a helper, selects the candidates the PSI then runs
 * on.
 */
package io.psiflink.jobs.prefilter;
