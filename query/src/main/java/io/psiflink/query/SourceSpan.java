package io.psiflink.query;

import java.io.Serializable;

/** A place in the query text: 1-based line and column of its start, and the text itself. */
public record SourceSpan(int line, int column, String text) implements Serializable {}
