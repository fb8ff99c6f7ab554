"""Airflow operators for psi-flink private joins (Airflow 3, the ``airflow.sdk`` task API).

Two tasks make a join, so that waiting (which may last for hours of approval and a long job) never
submits a query twice:

* ``PsiSubmitJoinOperator`` submits the SQL at this party's coordinator and returns the query id;
* ``PsiJoinSensor`` waits for the other party's approval and for the session's job, logs its
  progress, and returns the result's location (party A) or the session (party B).

A coordinator error that retrying cannot fix (an invalid query, a rejection) fails the task at once
with the coordinator's words (``AirflowFailException``: no retries); an unreachable coordinator is
retried. A session whose job failed is retried by **resuming** it (up to ``max_resumes`` times):
the bins party A's job committed are not run again (docs/operations.md).
"""

from __future__ import annotations

from typing import Any, Callable

from airflow.sdk import BaseHook, BaseOperator, BaseSensorOperator, PokeReturnValue
from airflow.sdk.exceptions import AirflowException, AirflowFailException

from psi_flink_airflow.client import CoordinatorClient, CoordinatorError

# Query states that end a query without a session (docs/coordinator.md).
_QUERY_ENDED = {"rejected", "expired", "refused", "failed"}


class PsiCoordinatorHook(BaseHook):
    """A coordinator from an Airflow connection: host (with or without https://) and port, the
    party API token as password, and ``{"ca": "/path/ca.pem"}`` in extra (omit for system CAs)."""

    conn_name_attr = "psi_conn_id"
    default_conn_name = "psi_coordinator"
    conn_type = "http"
    hook_name = "psi-flink coordinator"

    def __init__(self, psi_conn_id: str = default_conn_name, timeout: float = 30.0):
        super().__init__()
        self.psi_conn_id = psi_conn_id
        self.timeout = timeout

    def get_conn(self) -> CoordinatorClient:
        conn = self.get_connection(self.psi_conn_id)
        if not conn.host:
            raise AirflowFailException(f"connection {self.psi_conn_id} has no host")
        if not conn.password:
            raise AirflowFailException(
                f"connection {self.psi_conn_id} has no password: it must hold a party API token")
        host = conn.host if "://" in conn.host else f"https://{conn.host}"
        if host.startswith("http://"):
            raise AirflowFailException("the coordinator only speaks HTTPS; fix the connection host")
        url = f"{host}:{conn.port}" if conn.port else host
        return CoordinatorClient(url, conn.password, conn.extra_dejson.get("ca"), self.timeout)


def _fail_or_retry(e: CoordinatorError) -> AirflowException:
    return AirflowException(str(e)) if e.transient else AirflowFailException(str(e))


def _rendered(name: str, value: Any, parse: Callable[[str], Any], given: tuple[type, ...],
              what: str) -> Any:
    """A parameter as given (of the ``given`` types) or rendered from a template ("" or None: not
    given), read with ``parse``; text it cannot read fails the task naming the parameter."""
    if value is None or isinstance(value, given):
        return value
    text = str(value).strip()
    if not text:
        return None
    try:
        return parse(text)
    except ValueError:
        raise AirflowFailException(f"{name} must be {what}, not '{value}'") from None


def _whole_number(name: str, value: int | str | None, what: str) -> int | None:
    """An integer parameter as given or rendered from a template ("" or None: not given)."""
    return _rendered(name, value, int, (int,), what)


def _share(name: str, value: float | str | None) -> float | None:
    """A number in [0, 1] as given or rendered from a template ("" or None: not given)."""
    return _rendered(name, value, float, (int, float), "a number from 0 to 1")


def _label_bytes(value: int | str | None) -> int | None:
    """``label_bytes`` as given or rendered from a template ("" or None: not given)."""
    return _whole_number("label_bytes", value, "a whole number of bytes")


class PsiSubmitJoinOperator(BaseOperator):
    """Submits ``sql`` (the subset of docs/private-join.md, tables ``a`` and ``b``) joining this
    party's ``local_dataset`` with the peer's ``peer_dataset``. Returns the query id (XCom).

    ``mode``: who learns the intersection, ``both`` (the coordinator's default) or ``labeled`` (only
    party A; party B learns nothing of it); ``label_bytes``: in labeled mode, the public size every
    key's rows from B are padded to (default: the coordinator's, 128). The coordinator checks both,
    and refuses a mode that a dataset's ``revealIntersection: never`` forbids.

    ``prefilter``: ``helper`` has the registered helper ``helper`` pre-filter both tables (the
    server-aided sample filter: the PSI runs on candidates only, same output), ``auto`` lets the
    jobs use it when their cost model expects it to save time, assuming ``expected_overlap`` (the
    share of the smaller table's keys expected in common, 0..1; default: all), ``none`` (default)
    not;
    ``filter_bits`` (2^L bits, 16..36) and ``filter_hashes`` (1..16) size its Bloom filter
    (default: chosen by the jobs). The coordinators refuse a helper either has not registered (or
    registered with another pin), and a pre-filter with mode labeled, a COUNT query or a dataset
    registered with ``revealIntersection: never``."""

    template_fields = ("sql", "local_dataset", "peer_dataset", "output_location",
                       "output_format", "protocol", "mode", "label_bytes", "prefilter", "helper",
                       "filter_bits", "filter_hashes", "expected_overlap")
    template_fields_renderers = {"sql": "sql"}

    def __init__(self, *, sql: str, local_dataset: str, peer_dataset: str,
                 output_location: str | None = None, output_format: str | None = None,
                 protocol: str | None = None, mode: str | None = None,
                 label_bytes: int | str | None = None, prefilter: str | None = None,
                 helper: str | None = None, filter_bits: int | str | None = None,
                 filter_hashes: int | str | None = None,
                 expected_overlap: float | str | None = None,
                 psi_conn_id: str = "psi_coordinator", **kwargs):
        super().__init__(**kwargs)
        self.sql = sql
        self.local_dataset = local_dataset
        self.peer_dataset = peer_dataset
        self.output_location = output_location
        self.output_format = output_format
        self.protocol = protocol
        self.mode = mode
        self.label_bytes = label_bytes
        self.prefilter = prefilter
        self.helper = helper
        self.filter_bits = filter_bits
        self.filter_hashes = filter_hashes
        self.expected_overlap = expected_overlap
        self.psi_conn_id = psi_conn_id

    def execute(self, context: Any) -> str:
        client = PsiCoordinatorHook(self.psi_conn_id).get_conn()
        output = None
        if self.output_location:
            output = {"location": self.output_location}
            if self.output_format:
                output["format"] = self.output_format
        # a template renders an unset parameter as "": the coordinator's default
        protocol = (self.protocol or "").strip() or None
        mode = (self.mode or "").strip() or None
        label_bytes = _label_bytes(self.label_bytes)
        prefilter = (self.prefilter or "").strip() or None
        helper = (self.helper or "").strip() or None
        # 0 is the jobs' choice, as unset
        filter_bits = _whole_number("filter_bits", self.filter_bits, "a whole number (16..36)")
        filter_hashes = _whole_number("filter_hashes", self.filter_hashes,
                                      "a whole number (1..16)")
        try:
            q = client.submit(self.local_dataset, self.peer_dataset, self.sql, output,
                              protocol=protocol, mode=mode, labelBytes=label_bytes,
                              prefilter=prefilter, helper=helper, filterBits=filter_bits or None,
                              filterHashes=filter_hashes or None,
                              expectedOverlap=_share("expected_overlap", self.expected_overlap))
        except CoordinatorError as e:
            raise _fail_or_retry(e) from e
        shown = q.get("mode", "both")
        if q.get("labelBytes") is not None:
            shown += f", labels of {q['labelBytes']} bytes"
        pre = q.get("prefiltering") or {}
        if pre.get("prefilter") == "helper":
            shown += f", pre-filtered by helper {pre.get('helper')}"
        elif pre.get("prefilter") == "auto":
            shown += f", pre-filtered by helper {pre.get('helper')} if it pays"
        self.log.info("query %s submitted (mode %s); waiting for %s to approve it", q["id"], shown,
                      q.get("approver"))
        return q["id"]


class PsiJoinSensor(BaseSensorOperator):
    """Waits for query ``query_id``: the peer's decision, then its session's job. Logs the job's
    phase and bins done. Returns the result (location, format, rowsOut) at party A, the session
    at party B. Up to ``max_unreachable`` consecutive pokes may fail to reach the coordinator
    before the task fails (and is retried by Airflow). A session that failed is resumed where it
    stopped, up to ``max_resumes`` times in all (the coordinator counts them, so a retried or
    rescheduled task does not start over); either party's sensor may resume it, and the other
    then sees it created again."""

    template_fields = ("query_id",)

    def __init__(self, *, query_id: str, psi_conn_id: str = "psi_coordinator",
                 max_unreachable: int = 10, max_resumes: int = 2, **kwargs):
        super().__init__(**kwargs)
        self.query_id = query_id
        self.psi_conn_id = psi_conn_id
        self.max_unreachable = max_unreachable
        self.max_resumes = max_resumes
        self._unreachable = 0

    def poke(self, context: Any) -> bool | PokeReturnValue:
        client = PsiCoordinatorHook(self.psi_conn_id).get_conn()
        try:
            done = self._check(client)
        except CoordinatorError as e:
            if not e.transient:
                raise AirflowFailException(str(e)) from e
            self._unreachable += 1
            if self._unreachable >= self.max_unreachable:
                raise AirflowException(f"{e} ({self._unreachable} attempts in a row)") from e
            self.log.warning("%s; trying again", e)
            return False
        self._unreachable = 0
        return done

    def _check(self, client: CoordinatorClient) -> bool | PokeReturnValue:
        q = client.query(self.query_id)
        status = q.get("status")
        if status == "pending":
            self.log.info("query %s: waiting for %s's decision", self.query_id, q.get("approver"))
            return False
        if status in _QUERY_ENDED:
            reason = q.get("statusReason") or "no reason given"
            raise AirflowFailException(f"query {self.query_id} was {status}: {reason}")
        session = q.get("session")
        if status != "approved" or not session:
            self.log.info("query %s: %s, no session yet", self.query_id, status)
            return False
        s = client.session(session["id"])
        job = s.get("status")
        if job in ("created", "running"):
            p = s.get("progress") or {}
            self.log.info("session %s: %s, phase %s, bins %s of %s", s["id"], job,
                          p.get("phase", "-"), p.get("binsDone", 0), p.get("binsTotal", "?"))
            return False
        if job == "succeeded":
            if q.get("localSide") == "A":
                result = client.result(s["id"])
                self.log.info("session %s succeeded: %s rows at %s", s["id"],
                              result.get("rowsOut"), result.get("location"))
                return PokeReturnValue(is_done=True, xcom_value=result)
            return PokeReturnValue(is_done=True, xcom_value=s)
        if job == "failed" and s.get("resumes", 0) < self.max_resumes:
            return self._resume(client, s)
        if job in ("failed", "cancelled"):
            raise AirflowFailException(
                f"session {s['id']} {job}: {s.get('error') or 'no error recorded'}")
        raise AirflowFailException(f"session {s['id']} has an unknown status '{job}'")

    def _resume(self, client: CoordinatorClient, s: dict[str, Any]) -> bool:
        n = s.get("resumes", 0) + 1
        self.log.warning("session %s failed (%s); resuming it (%d of at most %d)", s["id"],
                         s.get("error") or "no error recorded", n, self.max_resumes)
        try:
            client.resume(s["id"])
        except CoordinatorError as e:
            if e.transient:
                raise
            # the other party's sensor may have resumed it first: then it is no longer failed
            if client.session(s["id"]).get("status") == "failed":
                raise AirflowFailException(f"session {s['id']} failed and cannot be resumed: {e}") \
                    from e
        return False
