"""What PsiSubmitJoinOperator sends to the coordinator, from the parameters as the DAG's templates
render them (unset parameters render as ""). No coordinator runs: the client's HTTP call is
replaced by one that records the request and answers like a coordinator.

    PYTHONPATH=deploy/airflow python -m unittest discover -s deploy/airflow/tests

(with Apache Airflow 3 installed, e.g. the virtualenv AirflowDagIT keeps in /tmp/psi-airflow-venv).
"""

from __future__ import annotations

import unittest
from unittest import mock

from airflow.sdk.exceptions import AirflowFailException

from psi_flink_airflow import operators
from psi_flink_airflow.client import CoordinatorClient

SQL = "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card"


class SubmitOperatorTest(unittest.TestCase):
    def run_operator(self, **params):
        calls = []

        def call(client, method, path, body=None):
            calls.append((method, path, body))
            answer = {"id": "q-1", "approver": "bob", "mode": body.get("mode", "both")}
            if body.get("prefilter") == "helper":
                answer["prefiltering"] = {"prefilter": "helper", "helper": body["helper"]}
            return answer

        client = CoordinatorClient("https://coordinator:8443", "token", None, 5.0)
        with mock.patch.object(operators.PsiCoordinatorHook, "get_conn", return_value=client), \
                mock.patch.object(CoordinatorClient, "_call", call):
            op = operators.PsiSubmitJoinOperator(
                task_id="submit", sql=SQL, local_dataset="purchases", peer_dataset="customers",
                **params)
            self.assertEqual("q-1", op.execute({}))
        self.assertEqual(1, len(calls))
        self.assertEqual(("POST", "/v1/queries"), calls[0][:2])
        return calls[0][2]

    def test_a_prefilter_with_its_helper_and_filter_is_submitted(self):
        body = self.run_operator(prefilter="helper", helper="carol", filter_bits="24",
                                 filter_hashes="5", mode="", label_bytes="", protocol="")
        self.assertEqual(
            {"localDataset": "purchases", "peerDataset": "customers", "sql": SQL,
             "prefilter": "helper", "helper": "carol", "filterBits": 24, "filterHashes": 5},
            body)

    def test_auto_sends_its_expected_overlap_even_zero(self):
        body = self.run_operator(prefilter="auto", helper="carol", expected_overlap="0.05")
        self.assertEqual("auto", body["prefilter"])
        self.assertEqual(0.05, body["expectedOverlap"])
        self.assertEqual(0.0, self.run_operator(prefilter="auto", helper="carol",
                                                expected_overlap="0")["expectedOverlap"])
        self.assertNotIn("expectedOverlap",
                         self.run_operator(prefilter="auto", helper="carol", expected_overlap=""))

    def test_unset_filter_parameters_are_left_to_the_coordinator(self):
        body = self.run_operator(prefilter="helper", helper="carol", filter_bits="",
                                 filter_hashes=None)
        self.assertEqual("helper", body["prefilter"])
        self.assertNotIn("filterBits", body)
        self.assertNotIn("filterHashes", body)

    def test_without_a_prefilter_nothing_of_it_is_sent(self):
        body = self.run_operator(prefilter="", helper="", filter_bits="", filter_hashes="")
        for key in ("prefilter", "helper", "filterBits", "filterHashes"):
            self.assertNotIn(key, body)

    def test_a_filter_size_that_is_no_number_fails_naming_it(self):
        with self.assertRaises(AirflowFailException) as e:
            self.run_operator(prefilter="helper", helper="carol", filter_bits="big")
        self.assertIn("filter_bits", str(e.exception))
        self.assertIn("'big'", str(e.exception))


if __name__ == "__main__":
    unittest.main()


class DagTest(unittest.TestCase):
    def test_the_dag_takes_the_prefilter_parameters_and_passes_them_to_submit(self):
        import importlib.util
        import pathlib

        path = pathlib.Path(__file__).resolve().parents[1] / "dags" / "psi_flink_private_join.py"
        spec = importlib.util.spec_from_file_location("psi_flink_private_join", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        dag = module.dag
        for name in ("prefilter", "helper", "filter_bits", "filter_hashes", "expected_overlap"):
            self.assertIn(name, dag.params)
            self.assertIsNone(dag.params[name])
        submit = dag.get_task("submit")
        self.assertEqual("{{ params.prefilter or '' }}", submit.prefilter)
        self.assertEqual("{{ params.helper or '' }}", submit.helper)
        self.assertEqual("{{ params.filter_bits or '' }}", submit.filter_bits)
        self.assertEqual("{{ params.filter_hashes or '' }}", submit.filter_hashes)
