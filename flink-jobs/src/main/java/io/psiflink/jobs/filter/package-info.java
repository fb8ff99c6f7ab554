/**
 * The filter step: the party's rows come in, the rows its WHERE predicate keeps go out, planned and
 * run by Flink's own SQL engine inside the DataStream batch job ({@link
 * io.psiflink.jobs.filter.WhereFilter}).
 */
package io.psiflink.jobs.filter;
