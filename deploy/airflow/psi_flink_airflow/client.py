"""A small client of a psi-flink coordinator's REST API (docs/coordinator.md), without Airflow.

Every call is HTTPS with the coordinator's certificate checked against a CA file and a bearer
token. Failures raise CoordinatorError carrying the coordinator's own error JSON, worded for a
person, and whether retrying may help (``transient``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import requests

# The coordinator answers 502 when the other party's coordinator is unreachable; 503/504 come from
# proxies in front of it. All three may clear up on their own.
_TRANSIENT_STATUS = {502, 503, 504}


class CoordinatorError(Exception):
    """A failed coordinator call: ``status`` is the HTTP status (None: no answer at all)."""

    def __init__(self, message: str, status: int | None = None, transient: bool = False,
                 body: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.transient = transient
        self.body = body or {}


def describe_error(status: int, body: dict[str, Any]) -> str:
    """The coordinator's error JSON ({"error", "field", "clause", "line", "column", "text"}) in words."""
    parts = [str(body.get("error") or f"HTTP {status}")]
    where = []
    if body.get("field"):
        where.append(f"field {body['field']}")
    if body.get("clause"):
        where.append(f"{body['clause']} clause")
    if body.get("line") is not None and body.get("column") is not None:
        where.append(f"line {body['line']}, column {body['column']}")
    if body.get("text"):
        where.append(f"at '{body['text']}'")
    if where:
        parts.append("(" + ", ".join(where) + ")")
    return f"coordinator answered {status}: " + " ".join(parts)


def _root(e: BaseException) -> BaseException:
    """The innermost cause (e.g. "Connection refused" under requests' and urllib3's wrappers)."""
    while e.__cause__ is not None or e.__context__ is not None:
        e = e.__cause__ or e.__context__
    return e


@dataclass(frozen=True)
class CoordinatorClient:
    """``url``: https://host:port of this party's coordinator; ``token``: a party API token;
    ``ca``: PEM file of the CA that signed the coordinator's certificate (None: system CAs)."""

    url: str
    token: str
    ca: str | None = None
    timeout: float = 30.0

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            r = requests.request(
                method, self.url.rstrip("/") + path,
                headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json"},
                json=body, verify=self.ca if self.ca else True, timeout=self.timeout)
        except requests.ConnectionError as e:
            # Nothing reached the coordinator (refused, DNS, TLS handshake): safe to retry.
            raise CoordinatorError(f"cannot reach the coordinator at {self.url}: {_root(e)}",
                                   transient=True) from e
        except requests.Timeout as e:
            # The request may have been processed: a retry could submit a query twice.
            raise CoordinatorError(
                f"the coordinator at {self.url} did not answer within {self.timeout:g} s; "
                "check `./psi status` before submitting again") from e
        try:
            payload = r.json() if r.content else {}
        except json.JSONDecodeError:
            payload = {"error": r.text[:500]}
        if r.status_code >= 400:
            raise CoordinatorError(describe_error(r.status_code, payload), status=r.status_code,
                                   transient=r.status_code in _TRANSIENT_STATUS, body=payload)
        return payload

    def submit(self, local_dataset: str, peer_dataset: str, sql: str,
               output: dict[str, str] | None = None, **options: Any) -> dict[str, Any]:
        """Submits a SQL join; returns the query (status ``pending`` until the peer decides)."""
        body: dict[str, Any] = {"localDataset": local_dataset, "peerDataset": peer_dataset,
                                "sql": sql}
        if output:
            body["output"] = output
        body.update({k: v for k, v in options.items() if v is not None})
        return self._call("POST", "/v1/queries", body)

    def query(self, query_id: str) -> dict[str, Any]:
        return self._call("GET", f"/v1/queries/{query_id}")

    def session(self, session_id: str) -> dict[str, Any]:
        return self._call("GET", f"/v1/sessions/{session_id}")

    def result(self, session_id: str) -> dict[str, Any]:
        return self._call("GET", f"/v1/sessions/{session_id}/result")

    def cancel(self, session_id: str) -> dict[str, Any]:
        return self._call("POST", f"/v1/sessions/{session_id}/cancel")

    def resume(self, session_id: str) -> dict[str, Any]:
        return self._call("POST", f"/v1/sessions/{session_id}/resume")
