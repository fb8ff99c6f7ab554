"""psi-flink's Airflow integration: a coordinator client, a submit operator and a wait sensor."""
