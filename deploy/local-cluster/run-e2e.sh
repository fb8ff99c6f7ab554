#!/usr/bin/env bash
# A private join between two real Flink 2.3 clusters on this machine, end to end:
#
#   1. Flink 2.3 from PyPI (apache-flink + apache-flink-libraries, cached under /tmp) as a distribution;
#   2. one HDFS (MiniDFSCluster in its own process) holding both parties' trees, /party-a and /party-b;
#   3. two generated tables put on HDFS; a bridge relay with certificates from a throwaway CA;
#   4. TWO standalone Flink clusters (bin/start-cluster.sh), one per party, each with its own conf dir
#      made from deploy/flink/config.yaml (own ports, directories, smaller memory);
#   5. `flink run` of the job jar for party A and party B at the same time: each reads its table from
#      hdfs://, A writes the joined table to hdfs:// as Avro;
#   6. the output read back and compared with a plaintext join computed without the job;
#   7. everything stopped (also on failure or Ctrl-C), and a summary printed.
#
# Usually run as `./psi cluster-e2e [--rows N]`, which builds the jars and passes them here.
# Direct use:
#   deploy/local-cluster/run-e2e.sh --jar deploy/target/psi-flink-job.jar \
#       --hadoop-lib deploy/target/hadoop-lib \
#       --classpath "it-tests/target/test-classes:$(cat it-tests/target/test-classpath.txt)" \
#       [--rows N] [--parallelism P] [--tm-memory SIZE] [--work DIR] [--report FILE] [--keep]
#
# --rows: rows per table (default 20000); --parallelism: slots per TaskManager and the jobs'
# parallelism (default 2); --tm-memory: taskmanager.memory.process.size of each cluster (default
# 1600m; give 10^6 rows 3g); --keep: keep HDFS data, tables and RocksDB directories after success
# (logs are always kept in the work directory).
#
# Environment: PSI_FLINK_CACHE (default /tmp/psi-flink-2.3.0): venv and assembled distribution;
# PSI_FLINK_HOME: use this Flink 2.3 distribution instead of the PyPI one.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

rows=20000
parallelism=2
tm_memory=1600m
jar=""
hadoop_lib=""
helper_cp=""
work=""
report=""
keep=0

say() { printf '[e2e %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'run-e2e: %s\n' "$*" >&2; exit 1; }
# the Flink distribution and the clusters: flink_distribution, start_clusters, stop_clusters
. "$HERE/flink-clusters.sh"
# each party's job command line: party_job_args
. "$HERE/party-args.sh"

while (($#)); do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --parallelism) parallelism="$2"; shift 2 ;;
    --tm-memory) tm_memory="$2"; shift 2 ;;
    --jar) jar="$2"; shift 2 ;;
    --hadoop-lib) hadoop_lib="$2"; shift 2 ;;
    --classpath) helper_cp="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,28p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$rows" =~ ^[0-9]+$ && "$rows" -gt 0 ]] || die "--rows must be a positive integer"
[[ "$parallelism" =~ ^[0-9]+$ && "$parallelism" -gt 0 ]] || die "--parallelism must be a positive integer"
[[ -f "$jar" ]] || die "--jar: job jar '$jar' not found (build: mvn -DskipTests install; it is deploy/target/psi-flink-job.jar)"
[[ -d "$hadoop_lib" ]] || die "--hadoop-lib: directory '$hadoop_lib' not found (deploy/target/hadoop-lib)"
[[ -n "$helper_cp" ]] || die "--classpath: the helpers' class path is required (it-tests/target/test-classes:\$(cat it-tests/target/test-classpath.txt))"
command -v java >/dev/null || die "java not found on PATH"
command -v openssl >/dev/null || die "openssl not found on PATH (it hashes the parties' certificates to pin them)"
jar="$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")"
hadoop_lib="$(cd "$hadoop_lib" && pwd)"

work="${work:-$(mktemp -d /tmp/psi-cluster-e2e-XXXXXX)}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
report="${report:-$work/report.json}"
t_start=$SECONDS

# --- cleanup: everything this script started, by pid, also on failure --------------------------
pids=()            # helper JVMs and flink run clients started here
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local p
  ((${#clusters[@]} == 0)) || stop_clusters "${clusters[@]}"
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$p" 2>/dev/null || true
  done
  if ((rc != 0)); then
    say "FAILED (exit $rc) after $((SECONDS - t_start)) s; logs in $work (flink-{a,b}/log, *.log)"
  elif ((keep == 0)); then
    rm -rf "$work/hdfs" "$work/tables" "$work"/flink-*/tmp "$work"/flink-*/rocksdb
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_file() { # wait_file FILE SECONDS PID WHAT
  local i
  for ((i = 0; i < $2 * 2; i++)); do
    [[ -s "$1" ]] && return 0
    kill -0 "$3" 2>/dev/null || die "$4 exited; see its log"
    sleep 0.5
  done
  die "$4 did not start within $2 s"
}

# --- 1. Flink distribution from PyPI ------------------------------------------------------------
flink_distribution
hadoop_classpath "$hadoop_lib"

helper() { # helper NAME SUBCOMMAND ARGS... : a helper JVM in the background, log in $work/NAME.log
  local name="$1"; shift
  java -Xmx"${PSI_E2E_HELPER_HEAP:-768m}" -cp "$helper_cp" io.psiflink.it.cluster.E2eTool "$@" \
    >"$work/$name.log" 2>&1 &
  pids+=($!)
}

# --- 2. HDFS ------------------------------------------------------------------------------------
say "starting HDFS (MiniDFSCluster) in $work/hdfs"
helper hdfs hdfs --dir "$work/hdfs" --uri-file "$work/hdfs.uri"
wait_file "$work/hdfs.uri" 120 "${pids[-1]}" "HDFS"
hdfs_uri="$(cat "$work/hdfs.uri")"
say "HDFS at $hdfs_uri"

# --- 3. tables and the bridge relay ---------------------------------------------------------------
say "bridge relay with a throwaway CA in $work/pki"
helper relay relay --pki "$work/pki" --port-file "$work/relay.port"
relay_pid="${pids[-1]}"
say "generating 2 x $rows rows and putting them on HDFS"
java -Xmx1g -cp "$helper_cp" io.psiflink.it.cluster.E2eTool tables --rows "$rows" --hdfs "$hdfs_uri" \
  --local "$work/tables" >"$work/tables.log" 2>&1 || { cat "$work/tables.log" >&2; die "table generation failed"; }
wait_file "$work/relay.port" 60 "$relay_pid" "the bridge relay"
relay_port="$(cat "$work/relay.port")"

# --- 4. two Flink clusters ------------------------------------------------------------------------
cluster_parallelism="$parallelism"
cluster_tm_memory="$tm_memory"
start_clusters "$work" a b
say "both clusters up ($((SECONDS - t_start)) s so far)"

# --- 5. flink run, both parties at once ---------------------------------------------------------
session="e2e-$(date -u +%Y%m%d%H%M%S)-$RANDOM"
out="$hdfs_uri/party-a/out/joined-$session"
cert_sha256() { # the SHA-256 (hex) of the first certificate in a PEM file, as --peer-cert-sha256 takes it
  openssl x509 -in "$1" -outform DER | sha256sum | cut -d' ' -f1
}
run_party() { # run_party A|B
  local P="$1" p peer pin; p="$(tr 'A-Z' 'a-z' <<<"$1")"
  if [[ "$P" == A ]]; then peer="party-b"; else peer="party-a"; fi
  pin="$(cert_sha256 "$work/pki/$peer.pem")" || die "cannot hash $work/pki/$peer.pem"
  local party_args
  party_job_args "$P" "$pin"
  FLINK_CONF_DIR="$work/flink-$p/conf" "$FLINK_HOME/bin/flink" run -c io.psiflink.jobs.PartyMain "$jar" \
    "${party_args[@]}" >"$work/run-$P.log" 2>&1
}
say "flink run: party A and party B (session $session)"
t_run=$SECONDS
run_party A & pid_a=$!; pids+=("$pid_a")
run_party B & pid_b=$!; pids+=("$pid_b")
# When one party fails, the other notices through the bridge; give it a grace period, then stop it.
rc_a="" rc_b=""
while [[ -z "$rc_a" || -z "$rc_b" ]]; do
  if [[ -z "$rc_a" ]] && ! kill -0 "$pid_a" 2>/dev/null; then wait "$pid_a" && rc_a=0 || rc_a=$?; fi
  if [[ -z "$rc_b" ]] && ! kill -0 "$pid_b" 2>/dev/null; then wait "$pid_b" && rc_b=0 || rc_b=$?; fi
  if [[ "${rc_a:-0}" != 0 || "${rc_b:-0}" != 0 ]]; then
    for _ in $(seq 1 60); do
      [[ -n "$rc_a" && -n "$rc_b" ]] && break
      if [[ -z "$rc_a" ]] && ! kill -0 "$pid_a" 2>/dev/null; then wait "$pid_a" && rc_a=0 || rc_a=$?; fi
      if [[ -z "$rc_b" ]] && ! kill -0 "$pid_b" 2>/dev/null; then wait "$pid_b" && rc_b=0 || rc_b=$?; fi
      sleep 0.5
    done
    [[ -z "$rc_a" ]] && { kill "$pid_a" 2>/dev/null || true; rc_a=killed; }
    [[ -z "$rc_b" ]] && { kill "$pid_b" 2>/dev/null || true; rc_b=killed; }
    break
  fi
  sleep 0.5
done
t_join=$((SECONDS - t_run))
for P in A B; do
  say "party $P: $(grep -E '^(party|psi party)' "$work/run-$P.log" | head -n 3 | tr '\n' ' ')"
done
if [[ "$rc_a" != 0 || "$rc_b" != 0 ]]; then
  for P in A B; do echo "----- flink run, party $P (last lines of $work/run-$P.log)" >&2; tail -n 30 "$work/run-$P.log" >&2; done
  die "the join failed (party A: $rc_a, party B: $rc_b)"
fi

# --- 6. compare with the plaintext join -----------------------------------------------------------
say "reading $out back and comparing it with the plaintext join"
java -Xmx2g -cp "$helper_cp" io.psiflink.it.cluster.E2eTool check --rows "$rows" --out "$out" \
  --report "$report" >"$work/check.log" 2>&1 || { cat "$work/check.log" >&2; die "the output differs from the plaintext join (report: $report)"; }

# --- 7. summary -----------------------------------------------------------------------------------
python3 - "$report" "$work/summary-A.json" "$work/summary-B.json" "$t_join" "$((SECONDS - t_start))" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
print("cluster e2e: OK - %d rows per side, %d joined rows equal the plaintext join; "
      "flink run of both parties %s s, whole run %s s" % (rep["rows_per_side"], rep["output_rows"],
      sys.argv[4], sys.argv[5]))
for name, s in (("A", a), ("B", b)):
    print("  party %s: %s" % (name, json.dumps(s, sort_keys=True)[:400]))
EOF
