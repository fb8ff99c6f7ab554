package io.psiflink.api;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * A command's options, as picocli parses them and prints their help: built from {@link TypedOption}
 * declarations, so that the help, the parser and the printer ({@link OptionValues#toArgs}) come
 * from one place. Every option takes {@code --name value} or {@code --name=value}; flags take no
 * value. Immutable.
 */
public final class CommandLineSyntax {
  private final String command;
  private final String summary;
  private final List<TypedOption<?>> options;

  /**
   * @param command the name shown in the usage line, e.g. {@code PartyMain}
   * @param summary what the command does, for the help's first lines
   * @param options its options (unique names)
   */
  public CommandLineSyntax(String command, String summary, List<TypedOption<?>> options) {
    this.command = Objects.requireNonNull(command, "command");
    this.summary = Objects.requireNonNull(summary, "summary");
    this.options = List.copyOf(options);
    Set<String> names = new LinkedHashSet<>();
    for (TypedOption<?> o : this.options) {
      if (!names.add(o.name()) || o.name().equals("help")) {
        throw new IllegalArgumentException("option --" + o.name() + " declared twice");
      }
    }
  }

  public List<TypedOption<?>> options() {
    return options;
  }

  /** Whether {@code args} ask for the help ({@code --help} or {@code -h}). */
  public static boolean wantsHelp(String... args) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses a command line.
   *
   * @throws UsageException naming the option that is unknown, missing, repeated or malformed (its
   *     {@link UsageException#usage()} is the help)
   */
  public OptionValues parse(String... args) {
    CommandLine cl = commandLine();
    ParseResult r;
    try {
      r = cl.parseArgs(args);
    } catch (ParameterException e) {
      throw new UsageException(e.getMessage(), usage());
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (TypedOption<?> o : options) {
      if (!r.hasMatchedOption(o.flagName())) {
        continue;
      }
      try {
        values.put(
            o.name(),
            o.isFlag() ? Boolean.TRUE : o.parse(r.matchedOption(o.flagName()).getValue()));
      } catch (UsageException e) {
        throw e.withUsage(usage());
      }
    }
    return new OptionValues(options, values);
  }

  /** The generated help: usage line, summary, each option with its description and default. */
  public String usage() {
    return commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF);
  }

  private CommandLine commandLine() {
    CommandSpec spec = CommandSpec.create().name(command);
    spec.usageMessage().description(summary).sortOptions(false).width(100);
    spec.addOption(
        OptionSpec.builder("-h", "--help")
            .usageHelp(true)
            .description("print this help and exit")
            .build());
    for (TypedOption<?> o : options) {
      OptionSpec.Builder b = OptionSpec.builder(o.flagName()).required(o.required());
      String text = o.description();
      if (o.defaultValue() != null && !o.isFlag() && !o.print(o.defaultValue()).isEmpty()) {
        text += " (default: " + o.print(o.defaultValue()) + ")";
      }
      b.description(text.replace("%", "%%"));
      if (o.isFlag()) {
        b.arity("0").type(boolean.class);
      } else {
        b.arity("1").type(String.class).paramLabel(o.label());
      }
      spec.addOption(b.build());
    }
    CommandLine cl = new CommandLine(spec);
    // a table or SQL text starting with @ is a value, not a file of arguments
    cl.setExpandAtFiles(false);
    cl.setUnmatchedOptionsArePositionalParams(false);
    // every option takes exactly one value, so the text after it is that value even when it looks
    // like an option (a SQL text or a delimiter may start with a dash)
    cl.setAllowOptionsAsOptionParameters(true);
    return cl;
  }
}
