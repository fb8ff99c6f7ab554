#!/usr/bin/env bash
# Entry point of the psi-flink image (deploy/docker/Dockerfile):
#   jobmanager | taskmanager      a Flink session cluster process, in the foreground
#   run PARTYMAIN_ARGS...         `flink run` of the job jar (io.psiflink.jobs.PartyMain) against the
#                                 cluster named in the config (rest.address / rest.port)
#   coordinator [CONFIG]          the coordinator (default config /opt/psi/coordinator/coordinator.yaml)
#   token party|peer LABEL        a new coordinator API token and its tokens-file line
# FLINK_PROPERTIES (optional): "key: value" lines that replace the same keys in config.yaml, e.g. the
# memory sizes of the pod (deploy/kubernetes/flink.yaml).
set -euo pipefail
conf="${FLINK_HOME:-/opt/flink}/conf/config.yaml"

apply_flink_properties() {
  [[ -n "${FLINK_PROPERTIES:-}" ]] || return 0
  local over
  over="$(mktemp)"
  printf '%s\n' "$FLINK_PROPERTIES" >"$over"
  awk -F: 'NR == FNR { if ($0 !~ /^[[:space:]]*(#|$)/) over[$1] = 1; next }
           !($1 in over) { print }' "$over" "$conf" >"$conf.new"
  cat "$over" >>"$conf.new"
  mv "$conf.new" "$conf"
  rm -f "$over"
}

cmd="${1:-help}"
(($#)) && shift
case "$cmd" in
  jobmanager)
    apply_flink_properties
    exec "$FLINK_HOME/bin/jobmanager.sh" start-foreground "$@" ;;
  taskmanager)
    apply_flink_properties
    exec "$FLINK_HOME/bin/taskmanager.sh" start-foreground "$@" ;;
  run)
    apply_flink_properties
    exec "$FLINK_HOME/bin/flink" run -c io.psiflink.jobs.PartyMain /opt/psi/psi-flink-job.jar "$@" ;;
  coordinator)
    exec java -cp '/opt/psi/coordinator/lib/*' io.psiflink.coordinator.CoordinatorMain serve \
      "${1:-/opt/psi/coordinator/coordinator.yaml}" ;;
  token)
    exec java -cp '/opt/psi/coordinator/lib/*' io.psiflink.coordinator.CoordinatorMain token "$@" ;;
  help|*)
    sed -n '2,9p' "$0"
    [[ "$cmd" == help ]] ;;
esac
