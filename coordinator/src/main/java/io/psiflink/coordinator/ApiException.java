package io.psiflink.coordinator;

import io.psiflink.query.QueryException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answered to the caller as JSON: {@code {"status", "error", "field", "clause", "line",
 * "column", "text"}}; {@code field} names the request field at fault, {@code clause}/{@code
 * line}/{@code column}/{@code text} the offending part of a query.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final Map<String, Object> details = new LinkedHashMap<>();

  public ApiException(int status, String message) {
    super(message);
    this.status = status;
  }

  public static ApiException badRequest(String field, String message) {
    return new ApiException(400, field + ": " + message).with("field", field);
  }

  public static ApiException notFound(String what) {
    return new ApiException(404, what + " not found");
  }

  public static ApiException conflict(String message) {
    return new ApiException(409, message);
  }

  /** A query that does not validate: 422 with the clause and the offending text. */
  public static ApiException invalidQuery(String field, QueryException e) {
    ApiException a =
        new ApiException(422, e.getMessage()).with("field", field).with("clause", e.clause());
    if (e.line() > 0) {
      a.with("line", e.line()).with("column", e.column()).with("text", e.offendingText());
    }
    return a;
  }

  public ApiException with(String key, Object value) {
    if (value != null) {
      details.put(key, value);
    }
    return this;
  }

  public int status() {
    return status;
  }

  public Map<String, Object> body() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status);
    m.put("error", getMessage());
    m.putAll(details);
    return m;
  }
}
