package io.psiflink.api;

import java.util.List;
import java.util.Objects;

/**
 * One party job's options, typed ({@link PartyOptions}): the one value that {@code PartyMain}
 * parses its command line into and that every writer of a job command line prints. {@code
 * parse(c.toArgs())} equals {@code c}. Immutable.
 */
public final class PartyConfiguration {
  private final OptionValues values;

  private PartyConfiguration(OptionValues values) {
    this.values = values;
  }

  /** No option set: build one with {@link #with}. */
  public static PartyConfiguration empty() {
    return new PartyConfiguration(OptionValues.empty(PartyOptions.ALL));
  }

  /**
   * Parses a job command line ({@code --name value}, {@code --name=value}, flags alone).
   *
   * @throws UsageException naming the unknown, missing, repeated or malformed option
   */
  public static PartyConfiguration parse(String... args) {
    return new PartyConfiguration(PartyOptions.SYNTAX.parse(args));
  }

  /** {@link #parse(String...)} of a list. */
  public static PartyConfiguration parse(List<String> args) {
    return parse(args.toArray(String[]::new));
  }

  /** The job's generated help. */
  public static String usage() {
    return PartyOptions.SYNTAX.usage();
  }

  /** The command line {@link #parse} reads back as this value: only the options set, in order. */
  public List<String> toArgs() {
    return values.toArgs();
  }

  /** The value set, else the option's default (null if it has none). */
  public <T> T get(TypedOption<T> option) {
    return values.get(option);
  }

  public boolean has(TypedOption<?> option) {
    return values.has(option);
  }

  /** A copy with {@code option} set (null, or false for a flag: not set). */
  public <T> PartyConfiguration with(TypedOption<T> option, T value) {
    return new PartyConfiguration(values.with(option, value));
  }

  /** The role: {@link PartyOptions#PARTY}. */
  public Role role() {
    return get(PartyOptions.PARTY);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartyConfiguration c && c.values.equals(values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values);
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
