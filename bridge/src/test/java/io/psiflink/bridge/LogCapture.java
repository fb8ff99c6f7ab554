package io.psiflink.bridge;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The formatted messages a logger (and the loggers below it) logs while this is open, for tests of
 * what a service writes to its log.
 */
public final class LogCapture implements AutoCloseable {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
  private final LoggerConfig config;
  private final String name;

  /** Starts capturing the logger {@code logger}, e.g. {@code io.psiflink.helper}. */
  public LogCapture(String logger) {
    this.config = ctx.getConfiguration().getLoggerConfig(logger);
    this.name = "capture-" + logger;
    AbstractAppender capture =
        new AbstractAppender(name, null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            lines.add(event.getMessage().getFormattedMessage());
          }
        };
    capture.start();
    config.addAppender(capture, Level.ALL, null);
    ctx.updateLoggers();
  }

  /** The messages so far. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    config.removeAppender(name);
    ctx.updateLoggers();
  }
}
