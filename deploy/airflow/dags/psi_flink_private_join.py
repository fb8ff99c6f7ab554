"""A private join through this party's psi-flink coordinator, triggered with its parameters:

    airflow dags trigger psi_flink_private_join --conf '{"local_dataset": "purchases",
        "peer_dataset": "customers", "sql": "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card"}'

(add ``"mode": "labeled"`` so that the other party, B, learns nothing of the intersection; add
``"prefilter": "helper", "helper": "carol"`` so that the helper carol, registered with both
coordinators, pre-filters both tables when they share few keys).

The connection ``psi_coordinator`` names the coordinator (see docs/airflow.md). ``submit`` sends the
query for the other party's approval; ``wait_for_join`` waits for the decision and the job, and
fails with the coordinator's error when the query is refused or the job fails.
"""

from __future__ import annotations

import os
from datetime import timedelta

from airflow.sdk import DAG, Param

from psi_flink_airflow.operators import PsiJoinSensor, PsiSubmitJoinOperator

# How often the sensor asks the coordinator; approvals take minutes to hours, jobs minutes.
POKE_SECONDS = float(os.environ.get("PSI_FLINK_POKE_SECONDS", "30"))

with DAG(
    dag_id="psi_flink_private_join",
    schedule=None,
    catchup=False,
    tags=["psi-flink"],
    params={
        "local_dataset": Param(type="string", description="this party's registered dataset"),
        "peer_dataset": Param(type="string", description="the other party's dataset"),
        "sql": Param(type="string", description="SELECT ... FROM a JOIN b ON ... [WHERE ...]"),
        "output_location": Param(None, type=["null", "string"],
                                 description="where party A writes the joined table"),
        "output_format": Param(None, type=["null", "string"], enum=[None, "avro", "csv", "parquet"],
                               description="its format (default: the coordinator's)"),
        "protocol": Param(None, type=["null", "string"],
                          description="the PSI protocol, one both coordinators offer "
                                      "(default: the coordinator's)"),
        "mode": Param(None, type=["null", "string"], enum=[None, "both", "labeled"],
                      description="who learns the intersection: both (default) or labeled "
                                  "(only party A; party B learns nothing of it)"),
        "label_bytes": Param(None, type=["null", "integer"], minimum=8, maximum=1048576,
                             description="labeled mode: the size every key's rows from B are "
                                         "padded to (default 128)"),
        "prefilter": Param(None, type=["null", "string"], enum=[None, "none", "helper", "auto"],
                           description="helper: a helper both coordinators registered "
                                       "pre-filters both tables (server-aided sample filter); "
                                       "auto: the same if the jobs' cost model expects it to "
                                       "save time; none (default)"),
        "expected_overlap": Param(None, type=["null", "number"], minimum=0, maximum=1,
                                  description="prefilter auto: the share of the smaller table's "
                                              "keys expected in common (default: all)"),
        "helper": Param(None, type=["null", "string"],
                        description="prefilter helper: the helper's registered name"),
        "filter_bits": Param(None, type=["null", "integer"], minimum=16, maximum=36,
                             description="prefilter helper: the Bloom filter has 2^L bits "
                                         "(default: chosen by the jobs)"),
        "filter_hashes": Param(None, type=["null", "integer"], minimum=1, maximum=16,
                               description="prefilter helper: hash functions per key "
                                           "(default: chosen by the jobs)"),
    },
    default_args={"retries": 3, "retry_delay": timedelta(minutes=1)},
) as dag:
    submit = PsiSubmitJoinOperator(
        task_id="submit",
        local_dataset="{{ params.local_dataset }}",
        peer_dataset="{{ params.peer_dataset }}",
        sql="{{ params.sql }}",
        output_location="{{ params.output_location or '' }}",
        output_format="{{ params.output_format or '' }}",
        protocol="{{ params.protocol or '' }}",
        mode="{{ params.mode or '' }}",
        label_bytes="{{ params.label_bytes or '' }}",
        prefilter="{{ params.prefilter or '' }}",
        helper="{{ params.helper or '' }}",
        filter_bits="{{ params.filter_bits or '' }}",
        filter_hashes="{{ params.filter_hashes or '' }}",
        # not "or ''": an expected overlap of 0 is a value
        expected_overlap="{{ '' if params.expected_overlap is none else params.expected_overlap }}",
    )
    wait = PsiJoinSensor(
        task_id="wait_for_join",
        query_id="{{ ti.xcom_pull(task_ids='submit') }}",
        poke_interval=POKE_SECONDS,
        timeout=timedelta(days=2).total_seconds(),
        mode="reschedule",
    )
    submit >> wait
