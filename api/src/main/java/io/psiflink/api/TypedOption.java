package io.psiflink.api;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * One command-line option, declared once with its type, description and default; the parser and the
 * printer of every command line that carries it ({@link CommandLineSyntax}) read this declaration,
 * so a writer and a reader cannot disagree about its name or its text form. Immutable.
 *
 * @param name the long name without the leading dashes, e.g. {@code sigma}
 * @param type the value's type
 * @param label what the value looks like in the help, e.g. {@code HOST:PORT}; null for a flag
 * @param description one sentence for the generated help
 * @param defaultValue the value when the option is absent, or null (none, or one the reader
 *     computes and the description explains)
 * @param required whether a command line without it is refused
 * @param parser text to value; throws IllegalArgumentException saying what is wrong (the caller
 *     adds the option's name)
 * @param printer value to the text {@code parser} reads back
 * @param <T> the value's type
 */
public record TypedOption<T>(
    String name,
    Class<T> type,
    String label,
    String description,
    T defaultValue,
    boolean required,
    Function<String, T> parser,
    Function<T, String> printer) {

  public TypedOption {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parser, "parser");
    Objects.requireNonNull(printer, "printer");
    if (name.startsWith("-") || name.isBlank()) {
      throw new IllegalArgumentException("an option's name has no dashes: '" + name + "'");
    }
    if (label == null && type != Boolean.class) {
      throw new IllegalArgumentException("only a flag has no value label: --" + name);
    }
  }

  /** A flag: present means true, absent false; it takes no value. */
  public static TypedOption<Boolean> flag(String name, String description) {
    return new TypedOption<>(
        name, Boolean.class, null, description, false, false, Boolean::valueOf, String::valueOf);
  }

  /** An option whose value is text, used as it is (an empty text is refused). */
  public static TypedOption<String> text(
      String name, String label, String description, String defaultValue) {
    return new TypedOption<>(
        name,
        String.class,
        label,
        description,
        defaultValue,
        false,
        TypedOption::nonEmpty,
        Function.identity());
  }

  /** A file or directory (an empty text is refused). */
  public static TypedOption<Path> path(String name, String label, String description) {
    return new TypedOption<>(
        name,
        Path.class,
        label,
        description,
        null,
        false,
        s -> Path.of(nonEmpty(s)),
        Path::toString);
  }

  /** An option with a non-negative or positive int value. */
  public static TypedOption<Integer> integer(
      String name, String label, String description, int defaultValue, int least) {
    return new TypedOption<>(
        name,
        Integer.class,
        label,
        description,
        defaultValue,
        false,
        s -> {
          int v;
          try {
            v = Integer.parseInt(s.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be an integer, not '" + s + "'");
          }
          if (v < least) {
            throw new IllegalArgumentException("must be at least " + least + ", not " + v);
          }
          return v;
        },
        String::valueOf);
  }

  /** This option, required on command lines that use the copy. */
  public TypedOption<T> asRequired() {
    return new TypedOption<>(name, type, label, description, defaultValue, true, parser, printer);
  }

  /** This option with another description (a command where it means something narrower). */
  public TypedOption<T> describedAs(String text) {
    return new TypedOption<>(name, type, label, text, defaultValue, required, parser, printer);
  }

  /** The same kind of option under another name (e.g. {@code a-delimiter} for party A's table). */
  public TypedOption<T> named(String otherName, String text) {
    return new TypedOption<>(otherName, type, label, text, defaultValue, required, parser, printer);
  }

  public boolean isFlag() {
    return label == null;
  }

  /** {@code --name}. */
  public String flagName() {
    return "--" + name;
  }

  /** Reads a value, naming this option when the text is not one. */
  public T parse(String text) {
    try {
      return Objects.requireNonNull(parser.apply(text), "parser of --" + name);
    } catch (IllegalArgumentException e) {
      throw new UsageException(flagName() + ": " + e.getMessage());
    }
  }

  /** The text {@link #parse} reads back as {@code value}. */
  public String print(Object value) {
    return printer.apply(type.cast(value));
  }

  private static String nonEmpty(String s) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("must not be empty");
    }
    return s;
  }
}
