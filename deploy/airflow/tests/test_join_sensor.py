"""How PsiJoinSensor follows a session: a failed job is resumed at the coordinator, up to
``max_resumes`` times as the coordinator counts them, and a session the other party resumed first
is waited for. No coordinator runs: the client's HTTP call is replaced by one that answers like a
coordinator whose session fails (its state below), and records the calls.

    PYTHONPATH=deploy/airflow python -m unittest discover -s deploy/airflow/tests
"""

from __future__ import annotations

import unittest
from unittest import mock

from airflow.sdk.exceptions import AirflowFailException

from psi_flink_airflow import operators
from psi_flink_airflow.client import CoordinatorClient, CoordinatorError


class FailingSession:
    """A coordinator's view of query q-1 and session s-1, which failed ``resumes`` times."""

    def __init__(self, resumes: int, peer_resumed_first: bool = False):
        self.status = "failed"
        self.resumes = resumes
        self.peer_resumed_first = peer_resumed_first
        self.calls: list[tuple[str, str]] = []

    def call(self, method, path, body=None):
        self.calls.append((method, path))
        if path == "/v1/queries/q-1":
            return {"id": "q-1", "status": "approved", "localSide": "A", "session": {"id": "s-1"}}
        if path == "/v1/sessions/s-1":
            return {"id": "s-1", "status": self.status, "resumes": self.resumes,
                    "error": "bin 3 failed after 3 attempt(s): the peer vanished"}
        if path == "/v1/sessions/s-1/resume":
            if self.peer_resumed_first:
                self.status = "created"
                raise CoordinatorError("409: only a failed session can be resumed", status=409)
            self.status = "created"
            self.resumes += 1
            return {"id": "s-1", "status": "created"}
        raise AssertionError(f"unexpected call {method} {path}")

    def poke(self, max_resumes: int = 2):
        client = CoordinatorClient("https://coordinator:8443", "token", None, 5.0)
        with mock.patch.object(operators.PsiCoordinatorHook, "get_conn", return_value=client), \
                mock.patch.object(CoordinatorClient, "_call",
                                  lambda _client, method, path, body=None:
                                  self.call(method, path, body)):
            sensor = operators.PsiJoinSensor(task_id="wait", query_id="q-1",
                                             max_resumes=max_resumes)
            return sensor.poke({})


class JoinSensorResumeTest(unittest.TestCase):
    def test_a_failed_session_is_resumed_and_waited_for(self):
        c = FailingSession(resumes=0)
        self.assertFalse(c.poke())
        self.assertIn(("POST", "/v1/sessions/s-1/resume"), c.calls)
        self.assertEqual(("created", 1), (c.status, c.resumes))

    def test_once_the_coordinator_counted_max_resumes_the_task_fails_with_the_error(self):
        c = FailingSession(resumes=2)
        with self.assertRaises(AirflowFailException) as e:
            c.poke(max_resumes=2)
        self.assertIn("the peer vanished", str(e.exception))
        self.assertNotIn(("POST", "/v1/sessions/s-1/resume"), c.calls)

    def test_zero_resumes_fails_at_once(self):
        with self.assertRaises(AirflowFailException):
            FailingSession(resumes=0).poke(max_resumes=0)

    def test_a_session_the_other_party_resumed_first_is_waited_for(self):
        c = FailingSession(resumes=0, peer_resumed_first=True)
        self.assertFalse(c.poke())
        self.assertEqual("created", c.status)


if __name__ == "__main__":
    unittest.main()
