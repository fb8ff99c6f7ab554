/**
 * The tokenize step: filtered rows come in; each goes out as one token record (its 128-bit keyed
 * token of the canonical key encoding, its bin and the encoded columns the party keeps), made with
 * the session's token key and bin seed ({@link io.psiflink.jobs.token.TokenizeOperator}).
 */
package io.psiflink.jobs.token;
