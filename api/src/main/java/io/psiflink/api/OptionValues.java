package io.psiflink.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The options given on one command line, typed: each value is of its option's type. Only options
 * that were given are held; {@link #get} falls back to the declared default. Immutable; printing
 * ({@link #toArgs}) and parsing ({@link CommandLineSyntax#parse}) are inverse.
 */
public final class OptionValues {
  private final List<TypedOption<?>> options;
  private final Map<String, Object> values;

  OptionValues(List<TypedOption<?>> options, Map<String, Object> values) {
    this.options = List.copyOf(options);
    Map<String, Object> m = new LinkedHashMap<>();
    for (TypedOption<?> o : this.options) { // declaration order, for a stable print
      Object v = values.get(o.name());
      if (v != null) {
        m.put(o.name(), o.type().cast(v));
      }
    }
    for (String k : values.keySet()) {
      if (!m.containsKey(k)) {
        throw new IllegalArgumentException("no option --" + k + " is declared here");
      }
    }
    this.values = Collections.unmodifiableMap(m);
  }

  /** No option given yet, out of {@code options}. */
  public static OptionValues empty(List<TypedOption<?>> options) {
    return new OptionValues(options, Map.of());
  }

  /** The value given, else the option's default (null when it has none). */
  public <T> T get(TypedOption<T> option) {
    Object v = values.get(option.name());
    return v == null ? option.defaultValue() : option.type().cast(v);
  }

  /** Whether the command line gave the option. */
  public boolean has(TypedOption<?> option) {
    return values.containsKey(option.name());
  }

  /**
   * A copy with {@code option} set to {@code value} (null, or false for a flag: removed). The value
   * goes through the option's printer and parser, so it is checked and in the canonical form that a
   * command line would give.
   *
   * @throws UsageException naming the option when the value is not one it accepts
   */
  public <T> OptionValues with(TypedOption<T> option, T value) {
    Map<String, Object> m = new LinkedHashMap<>(values);
    if (value == null || (option.isFlag() && !(Boolean) value)) {
      m.remove(option.name());
    } else {
      m.put(option.name(), option.isFlag() ? Boolean.TRUE : option.parse(option.print(value)));
    }
    return new OptionValues(options, m);
  }

  /** The options these values may hold, in declaration order. */
  public List<TypedOption<?>> options() {
    return options;
  }

  /**
   * The command line that {@link CommandLineSyntax#parse} reads back as these values: {@code --name
   * value} pairs (a flag alone) in declaration order, only for the options given; a value that
   * starts with a dash is printed {@code --name=value}, so no parser takes it for an option.
   */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>();
    for (TypedOption<?> o : options) {
      Object v = values.get(o.name());
      if (v == null) {
        continue;
      }
      if (o.isFlag()) {
        args.add(o.flagName());
        continue;
      }
      String text = o.print(v);
      if (text.startsWith("-")) {
        args.add(o.flagName() + "=" + text);
      } else {
        args.add(o.flagName());
        args.add(text);
      }
    }
    return args;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OptionValues v
        && v.values.equals(values)
        && v.options.stream()
            .map(TypedOption::name)
            .toList()
            .equals(options.stream().map(TypedOption::name).toList());
  }

  @Override
  public int hashCode() {
    return Objects.hash(values);
  }

  @Override
  public String toString() {
    return String.join(" ", toArgs());
  }
}
