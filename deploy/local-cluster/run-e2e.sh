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
#       [--rows N] [--parallelism P] [--taskmanagers N] [--slots S] [--bins M] [--conf KEY=VALUE]...
#       [--kill-taskmanager a|b] [--runs R] [--recover resume|rerun] [--tm-memory SIZE] [--work DIR]
#       [--report FILE] [--keep]
#
# --rows: rows per table (default 20000); --parallelism: the jobs' parallelism (default 2);
# --taskmanagers: TaskManager processes per cluster (default 1) with --slots slots each (default
# ceil(P/N)); --bins: the bin count (default: the job chooses); --conf: a Flink option for both
# clusters (e.g. restart-strategy.type=fixed-delay); --tm-memory: taskmanager.memory.process.size of
# each TaskManager (default 1600m; give 10^6 rows 3g); --keep: keep HDFS data, tables and spill
# directories after success (logs are always kept in the work directory).
#
# After the join the script writes WORK/distribution.json: per party, where the PSI operator's
# subtasks ran (Flink's REST API: TaskManager id and attempt of each subtask) and, per TaskManager
# log, how many bins it finished over the bridge ("party X bin N done" lines).
#
# --runs R: when a run of the join fails, cancel what still runs of it on both clusters, wait for
# free slots, and run both jobs again, up to R runs in all (default 1). --recover says how:
#   resume (default): the same session id, client work directories and --out, with --resume: the
#     bins party A's job committed to its journal (beside --out, on HDFS) are skipped, the others
#     run with fresh randomness; when a party has no resume state (the run failed before its
#     handshake, or A succeeded) it falls back to a rerun;
#   rerun: a new session id and output, from scratch; the abandoned run's resume states and journal
#     are removed once the join succeeded.
# Every run is a line of WORK/runs.json (session, how it recovered, exit statuses, times, and for a
# resumed run the bins skipped: from each party's client log and from its TaskManagers' logs). Once
# the join succeeded, the script removes party B's resume state as a launcher does (party A's job
# removes its own state and journal) and fails if any resume state or journal is left.
#
# --kill-taskmanager PARTY: the TaskManager drill. Once one of that party's TaskManagers has logged a
# finished bin with more bins of its subtask to go (mid-PSI), it is killed with SIGKILL and, as a
# process supervisor would (Kubernetes, systemd), started again 5 s later (PSI_E2E_TM_RESTART_S);
# the join must still complete exactly (give --runs 2: by resume unless --recover rerun).
# WORK/kill.json records which one and when; the script fails if no TaskManager was killed (the join
# ended first).
#
# Environment: PSI_FLINK_CACHE (default /tmp/psi-flink-2.3.0): venv and assembled distribution;
# PSI_FLINK_HOME: use this Flink 2.3 distribution instead of the PyPI one.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

rows=20000
parallelism=2
taskmanagers=1
slots=""
bins=""
kill_party=""
runs=1
recover=resume
extra_conf=()
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
    --taskmanagers) taskmanagers="$2"; shift 2 ;;
    --slots) slots="$2"; shift 2 ;;
    --bins) bins="$2"; shift 2 ;;
    --conf) extra_conf+=("${2%%=*}: ${2#*=}"); shift 2 ;;
    --kill-taskmanager) kill_party="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --recover) recover="$2"; shift 2 ;;
    --tm-memory) tm_memory="$2"; shift 2 ;;
    --jar) jar="$2"; shift 2 ;;
    --hadoop-lib) hadoop_lib="$2"; shift 2 ;;
    --classpath) helper_cp="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --report) report="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,55p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$rows" =~ ^[0-9]+$ && "$rows" -gt 0 ]] || die "--rows must be a positive integer"
[[ "$parallelism" =~ ^[0-9]+$ && "$parallelism" -gt 0 ]] || die "--parallelism must be a positive integer"
[[ -z "$bins" || "$bins" =~ ^[1-9][0-9]*$ ]] || die "--bins must be a positive integer"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ "$recover" == resume || "$recover" == rerun ]] || die "--recover: resume or rerun, not '$recover'"
[[ -z "$kill_party" || "$kill_party" == a || "$kill_party" == b ]] || die "--kill-taskmanager: a or b, not '$kill_party'"
cluster_parallelism="$parallelism"
cluster_taskmanagers="$taskmanagers"
cluster_slots="$slots"
cluster_tm_memory="$tm_memory"
cluster_extra_conf=("${extra_conf[@]}")
check_cluster_shape
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
    rm -rf "$work/hdfs" "$work/tables" "$work"/flink-*/tmp
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
start_clusters "$work" a b
say "both clusters up ($((SECONDS - t_start)) s so far)"

# --- the TaskManager drill -------------------------------------------------------------------------
# Lines of a party's TaskManager logs (every TaskManager it had, the killed one's too) with TEXT
# (and TEXT2 after it, if given).
tm_log_count() { # tm_log_count PARTY TEXT [TEXT2]
  local n
  n="$(cat "$work/flink-$1"/log/*taskexecutor-*.log* 2>/dev/null | grep -F -- "$2" |
    grep -cF -- "${3:-$2}" || true)"
  echo "${n:-0}"
}
# Kills (SIGKILL) the first TaskManager of PARTY whose log shows a finished bin with more bins of its
# subtask to go, so the kill lands mid-PSI. TaskManager i (0, 1, ...) is line i+1 of the pid file and
# writes log ...-taskexecutor-i-HOST.log (flink-daemon.sh numbers them in start order).
kill_taskmanager_mid_psi() { # kill_taskmanager_mid_psi PARTY T_RUN
  local dir="$work/flink-$1" i log pid line
  local -a tm_pids
  mapfile -t tm_pids <"$(ls "$dir"/pid/*taskexecutor.pid)"
  while true; do
    for ((i = 0; i < ${#tm_pids[@]}; i++)); do
      log="$(ls "$dir"/log/*taskexecutor-"$i"-*.log 2>/dev/null | head -n 1)"
      [[ -n "$log" ]] || continue
      # "party A bin 5 done (1 of 2 on this subtask)": k < n
      line="$(grep -oE 'bin [0-9]+ done \([0-9]+ of [0-9]+ on this subtask\)' "$log" |
        sed -E 's/.*\(([0-9]+) of ([0-9]+) on.*/\1 \2/' |
        while read -r k n; do if ((k < n)); then echo "$k of $n"; break; fi; done || true)"
      if [[ -n "$line" ]]; then
        pid="${tm_pids[$i]}"
        kill -9 "$pid"
        say "drill: killed TaskManager $i of party $1 (pid $pid, SIGKILL) $((SECONDS - $2)) s after flink run, mid-PSI"
        # a_bins_done: bins party A's TaskManagers had finished (and committed) at the kill
        printf '{"party":"%s","taskmanager":%d,"pid":%d,"log":"%s","seconds_after_run":%d,"resource_id":"%s","a_bins_done":%d}\n' \
          "$1" "$i" "$pid" "$log" "$((SECONDS - $2))" \
          "$(grep -m 1 -o 'ResourceID: [^ ]*' "$log" | cut -d' ' -f2)" \
          "$(tm_log_count a "party A bin " "done (")" >"$work/kill.json"
        sleep "${PSI_E2E_TM_RESTART_S:-5}"
        FLINK_CONF_DIR="$dir/conf" "$FLINK_HOME/bin/taskmanager.sh" start >>"$dir/start.log" 2>&1
        say "drill: started a TaskManager of party $1 again in place of the killed one"
        return 0
      fi
    done
    sleep 0.2
  done
}

# --- 5. flink run, both parties at once ---------------------------------------------------------
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
# One attempt at the join: both parties' `flink run` with the current $session and $out; sets
# rc_a and rc_b (0, the client's exit status, or "cancelled"/"killed").
join_once() { # join_once LAST (1: no other run follows)
  local last="$1"
  say "flink run: party A and party B (session $session)"
  run_party A & pid_a=$!; pids+=("$pid_a")
  run_party B & pid_b=$!; pids+=("$pid_b")
  rc_a="" rc_b=""
  while [[ -z "$rc_a" || -z "$rc_b" ]]; do
    if [[ -z "$rc_a" ]] && ! kill -0 "$pid_a" 2>/dev/null; then wait "$pid_a" && rc_a=0 || rc_a=$?; fi
    if [[ -z "$rc_b" ]] && ! kill -0 "$pid_b" 2>/dev/null; then wait "$pid_b" && rc_b=0 || rc_b=$?; fi
    if [[ "${rc_a:-0}" != 0 || "${rc_b:-0}" != 0 ]]; then
      # The other party notices through the bridge, but only when its bins run out of attempts
      # (pair timeouts). With another run to come (resume or rerun) its job is cancelled at once,
      # which ends its client; otherwise it gets a grace period, then its client is stopped.
      ((last)) || cancel_jobs
      for _ in $(seq 1 120); do
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
}

# Cancels the jobs still running on both clusters (REST: PATCH /jobs/ID?mode=cancel).
cancel_jobs() {
  python3 - "${rest[a]}" "${rest[b]}" <<'EOF' >&2 || true
import json, sys, urllib.request
for port in sys.argv[1:]:
    base = "http://localhost:%s" % port
    for j in json.load(urllib.request.urlopen(base + "/jobs/overview", timeout=10))["jobs"]:
        if j["state"] not in ("FINISHED", "FAILED", "CANCELED", "CANCELLING"):
            urllib.request.urlopen(urllib.request.Request(
                base + "/jobs/%s?mode=cancel" % j["jid"], method="PATCH"), timeout=10).read()
            print("[e2e] cancelled job %s (%s) on the cluster at %s" % (j["jid"], j["name"], base))
EOF
}

# Waits (up to 180 s) until each cluster has `parallelism` free slots and no longer lists the
# TaskManager the drill killed: the next run's slots come from live TaskManagers.
wait_capacity() {
  local killed=""
  [[ -s "$work/kill.json" ]] && killed="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resource_id"])' "$work/kill.json")"
  python3 - "$parallelism" "$killed" "${rest[a]}" "${rest[b]}" <<'EOF' >&2 || die "the clusters did not get $parallelism free slots each within 180 s"
import json, sys, time, urllib.request
need, killed, ports = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
deadline = time.time() + 180
while True:
    ok = True
    for port in ports:
        base = "http://localhost:%s" % port
        tms = json.load(urllib.request.urlopen(base + "/taskmanagers", timeout=10))["taskmanagers"]
        free = sum(t["freeSlots"] for t in tms if t["id"] != killed)
        ok = ok and free >= need and all(t["id"] != killed for t in tms)
    if ok:
        sys.exit(0)
    if time.time() > deadline:
        sys.exit(1)
    time.sleep(1)
EOF
}

# Whether party P's client work directory holds a resume state (written after its handshake).
has_resume_state() { compgen -G "$work/client-$1/resume/*.state" >/dev/null; }
# From a party's client log of a resumed run, "N M": N of the M bins were committed by the failed
# run and skipped (RunResume: "session S resumed: N of M bins committed earlier are skipped");
# "null null" when the log has no such line.
resumed_bins() { # resumed_bins CLIENT_LOG
  local nm
  nm="$(grep -F "session $session resumed: " "$1" 2>/dev/null | tail -n 1 |
    sed -E 's/.* resumed: ([0-9]+) of ([0-9]+) bins.*/\1 \2/' || true)"
  echo "${nm:-null null}"
}

t_run=$SECONDS
runs_log="$work/runs.json"
: >"$runs_log"
session="e2e-$(date -u +%Y%m%d%H%M%S)-$RANDOM"
out="$hdfs_uri/party-a/out/joined-$session"
resume=0             # party_job_args adds --resume
how=first            # how this run came about: first, resume or rerun
abandoned=()         # --journal OUT SESSION of each run given up for a rerun (for E2eTool forget)
for ((run = 1; run <= runs; run++)); do
  if ((run > 1)); then
    if [[ "$recover" == resume ]] && has_resume_state a && has_resume_state b; then
      # the same session, --work and --out: the jobs find their state and A's journal
      resume=1 how=resume
    else
      [[ "$recover" == rerun ]] ||
        say "a party has no resume state of session $session (failed before its handshake, or A succeeded): rerunning"
      abandoned+=(--journal "$out" "$session")
      session="e2e-$(date -u +%Y%m%d%H%M%S)-$RANDOM"
      out="$hdfs_uri/party-a/out/joined-$session"
      resume=0 how=rerun
    fi
  fi
  t_this=$SECONDS
  skipped_tm_a0="$(tm_log_count a "committed by an earlier run")"
  skipped_tm_b0="$(tm_log_count b "committed by an earlier run")"
  if [[ -n "$kill_party" && $run == 1 ]]; then
    kill_taskmanager_mid_psi "$kill_party" "$t_run" & pids+=($!)
  fi
  join_once "$((run == runs))"
  t_end=$((SECONDS - t_run))
  # flink run's own log (log4j-cli.properties: not appended) is where the job's client logs
  for P in A B; do
    p="$(tr 'A-Z' 'a-z' <<<"$P")"
    cp "$work/run-$P.log" "$work/run-$P.$run.log"
    cat "$work/flink-$p"/log/flink-*-client-*.log >"$work/client-$P.$run.log" 2>/dev/null || true
  done
  read -r skipped_a bins_a <<<"$(resumed_bins "$work/client-A.$run.log")"
  read -r skipped_b _ <<<"$(resumed_bins "$work/client-B.$run.log")"
  printf '{"run":%d,"session":"%s","recover":"%s","party_a":"%s","party_b":"%s","seconds":%d,"ended_after_run_s":%d,"bins":%s,"bins_skipped_a":%s,"bins_skipped_b":%s,"tm_bins_skipped_a":%d,"tm_bins_skipped_b":%d}\n' \
    "$run" "$session" "$how" "$rc_a" "$rc_b" "$((SECONDS - t_this))" "$t_end" "$bins_a" "$skipped_a" \
    "$skipped_b" "$(($(tm_log_count a "committed by an earlier run") - skipped_tm_a0))" \
    "$(($(tm_log_count b "committed by an earlier run") - skipped_tm_b0))" >>"$runs_log"
  [[ "$rc_a" == 0 && "$rc_b" == 0 ]] && break
  if ((run < runs)); then
    say "run $run failed (party A: $rc_a, party B: $rc_b) after $((SECONDS - t_this)) s; $([[ "$recover" == resume ]] && echo "resuming session $session" || echo "rerunning both jobs with a new session")"
    wait_capacity
  fi
done
t_join=$((SECONDS - t_run))
for P in A B; do
  say "party $P: $(grep -E '^(party|psi party)' "$work/run-$P.log" | head -n 3 | tr '\n' ' ')"
done
if [[ "$rc_a" != 0 || "$rc_b" != 0 ]]; then
  for P in A B; do echo "----- flink run, party $P (last lines of $work/run-$P.log)" >&2; tail -n 30 "$work/run-$P.log" >&2; done
  die "the join failed (party A: $rc_a, party B: $rc_b; $runs run(s))"
fi

if [[ -n "$kill_party" && ! -s "$work/kill.json" ]]; then
  die "the drill killed no TaskManager of party $kill_party: the join ended before one was mid-PSI (more rows or --bins)"
fi

# --- nothing left to resume -----------------------------------------------------------------------
# As a launcher does once the session succeeded at both: party B's job keeps its resume state after
# its own success (A commits after it), so it goes now; so do the states and journal of any run
# abandoned for a rerun. Party A's job removed its own state and journal.
java -Xmx256m -cp "$helper_cp" io.psiflink.it.cluster.E2eTool forget "${abandoned[@]}" \
  "$work/client-a" "$work/client-b" >"$work/forget.log" 2>&1 || { cat "$work/forget.log" >&2; die "cannot remove the resume states"; }
left="$(compgen -G "$work/client-[ab]/resume/*.state" || true)"
[[ -z "$left" ]] || die "resume state left after the join: $left"

# --- where the bins ran: the PSI operator's subtasks (REST) and each TaskManager's finished bins ----
python3 - "$work" "${rest[a]}" "${rest[b]}" >"$work/distribution.json" <<'EOF' || die "cannot read where the bins ran from the clusters' REST APIs"
import glob, json, os, re, sys, urllib.request
work = sys.argv[1]
def get(port, path):
    return json.load(urllib.request.urlopen("http://localhost:%s%s" % (port, path), timeout=10))
out = {}
for party, port in (("a", sys.argv[2]), ("b", sys.argv[3])):
    # the run that succeeded (earlier runs failed or were cancelled)
    jobs = [j for j in get(port, "/jobs/overview")["jobs"] if j["state"] == "FINISHED"]
    if len(jobs) != 1:
        sys.exit("party %s: expected one finished job on its cluster, found %d" % (party, len(jobs)))
    job = get(port, "/jobs/" + jobs[0]["jid"])
    psi = [v for v in job["vertices"] if "psi bins" in v["name"]]
    if len(psi) != 1:
        sys.exit("party %s: no single vertex with the PSI operator in %s" % (party, [v["name"] for v in job["vertices"]]))
    detail = get(port, "/jobs/%s/vertices/%s" % (job["jid"], psi[0]["id"]))
    subtasks = [{"subtask": s["subtask"], "taskmanager": s.get("taskmanager-id"),
                 "endpoint": s.get("endpoint"), "attempt": s.get("attempt"), "status": s.get("status")}
                for s in detail["subtasks"]]
    logs = []
    for log in sorted(glob.glob(os.path.join(work, "flink-" + party, "log", "*taskexecutor-*.log"))):
        text = open(log, errors="replace").read()
        rid = re.search(r"ResourceID: (\S+)", text)
        logs.append({"log": os.path.basename(log), "resource_id": rid.group(1) if rid else None,
                     # over the bridge; a resumed run's bins committed earlier are counted apart
                     "bins_done": len(re.findall(r"party \S+ bin \d+ done \((?!.*committed by an earlier run)", text)),
                     "bins_resumed": len(re.findall(r"party \S+ bin \d+ done \(.*committed by an earlier run", text)),
                     "bin_retries": len(re.findall(r"retrying the bin alone", text))})
    out[party] = {"job": job["jid"], "state": job["state"], "vertex": psi[0]["name"],
                  "parallelism": psi[0]["parallelism"], "subtasks": subtasks, "taskmanager_logs": logs,
                  "registered_taskmanagers": [t["id"] for t in get(port, "/taskmanagers")["taskmanagers"]]}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
EOF
python3 - "$work/distribution.json" <<'EOF' >&2
import json, sys
for party, d in sorted(json.load(open(sys.argv[1])).items()):
    tms = sorted({s["taskmanager"] for s in d["subtasks"]})
    print("[e2e] party %s: PSI subtasks on %d TaskManager(s) %s; bins done over the bridge (and taken "
          "from the journal) per TaskManager log %s" % (party, len(tms), tms,
          [(l["resource_id"], l["bins_done"], l["bins_resumed"]) for l in d["taskmanager_logs"]]))
EOF

# --- 6. compare with the plaintext join -----------------------------------------------------------
say "reading $out back and comparing it with the plaintext join"
java -Xmx2g -cp "$helper_cp" io.psiflink.it.cluster.E2eTool check --rows "$rows" --out "$out" \
  --report "$report" >"$work/check.log" 2>&1 || { cat "$work/check.log" >&2; die "the output differs from the plaintext join (report: $report)"; }
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["resume_journals"]; sys.exit("resume journal left beside the output: %s" % j if j else 0)' "$report" ||
  die "a resume journal is left on HDFS (report: $report)"

# --- 7. summary -----------------------------------------------------------------------------------
python3 - "$report" "$work/summary-A.json" "$work/summary-B.json" "$t_join" "$((SECONDS - t_start))" "$runs_log" "$work/kill.json" <<'EOF'
import json, os, sys
rep = json.load(open(sys.argv[1]))
a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
runs = [json.loads(l) for l in open(sys.argv[6]) if l.strip()]
print("cluster e2e: OK - %d rows per side, %d joined rows equal the plaintext join; "
      "flink run of both parties %s s (%d run(s)), whole run %s s" % (rep["rows_per_side"],
      rep["output_rows"], sys.argv[4], len(runs), sys.argv[5]))
if os.path.exists(sys.argv[7]) and os.path.getsize(sys.argv[7]) > 0:
    kill, last = json.load(open(sys.argv[7])), runs[-1]
    print("  drill: TaskManager %d of party %s killed %d s after flink run; %s: %d s, "
          "kill -> end %d s%s" % (kill["taskmanager"], kill["party"], kill["seconds_after_run"],
          last["recover"], last["seconds"], last["ended_after_run_s"] - kill["seconds_after_run"],
          "" if last["bins_skipped_a"] is None else
          ", %s of %s bins committed before were skipped" % (last["bins_skipped_a"], last["bins"])))
for name, s in (("A", a), ("B", b)):
    print("  party %s: %s" % (name, json.dumps(s, sort_keys=True)[:400]))
EOF
