#!/usr/bin/env bash
# Standalone Flink 2.3 clusters on this machine, one per party, each with its own conf dir made from
# deploy/flink/config.yaml (own ports, directories, smaller memory), and the Flink distribution they
# run (apache-flink + apache-flink-libraries from PyPI, cached under /tmp).
#
# Sourced by run-e2e.sh for its functions (flink_distribution, start_clusters, stop_clusters), and run
# directly by tests that need clusters without the rest of the end-to-end script:
#
#   deploy/local-cluster/flink-clusters.sh start --work DIR --hadoop-lib DIR \
#       [--parallelism P] [--taskmanagers N] [--slots S] [--tm-memory SIZE] [--conf KEY=VALUE]... \
#       PARTY...
#   deploy/local-cluster/flink-clusters.sh stop --work DIR PARTY...
#
# start: prints the distribution's path as FLINK_HOME=... and, per party, writes DIR/flink-PARTY/conf
# (the FLINK_CONF_DIR of its clients) and DIR/flink-PARTY/rest.url once all its TaskManagers are in;
# the clusters keep running after the script returns. stop: stops them (also the daemons whose stop
# failed, from the pid files of their own pid dir). --conf: extra Flink options for every cluster.
# --taskmanagers: TaskManager processes per cluster (default 1), each with --slots slots (default
# ceil(P/N), so a job of parallelism P fills every TaskManager); config.yaml's
# taskmanager.load-balance.mode: SLOTS spreads a job's slots over all of them. Their pids are the
# lines of DIR/flink-PARTY/pid/*taskexecutor.pid, in start order.
#
# Environment: PSI_FLINK_CACHE (default /tmp/psi-flink-2.3.0): venv and assembled distribution;
# PSI_FLINK_HOME: use this Flink 2.3 distribution instead of the PyPI one.

FLINK_VERSION=2.3.0
CLUSTERS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

declare -A rest            # party -> REST port of its cluster (start_clusters)
clusters=()                # conf dirs of the clusters started here
cluster_parallelism=2      # parallelism.default
cluster_taskmanagers=1     # TaskManager processes per cluster
cluster_slots=""           # slots per TaskManager; empty: ceil(parallelism / taskmanagers)
cluster_tm_memory=1600m    # taskmanager.memory.process.size
cluster_extra_conf=()      # KEY: VALUE lines added to every cluster's config

if ! declare -F say >/dev/null; then
  say() { printf '[flink-clusters %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
fi
if ! declare -F die >/dev/null; then
  die() { printf 'flink-clusters: %s\n' "$*" >&2; exit 1; }
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Sets and exports FLINK_HOME: PSI_FLINK_HOME, or the distribution assembled from PyPI in the cache.
flink_distribution() {
  local cache="${PSI_FLINK_CACHE:-/tmp/psi-flink-$FLINK_VERSION}" t0 pyflink d
  if [[ -n "${PSI_FLINK_HOME:-}" ]]; then
    FLINK_HOME="$PSI_FLINK_HOME"
  else
    FLINK_HOME="$cache/flink-$FLINK_VERSION"
    if [[ ! -f "$FLINK_HOME/.complete" ]]; then
      t0=$SECONDS
      say "installing apache-flink==$FLINK_VERSION and apache-flink-libraries==$FLINK_VERSION from PyPI into $cache/venv"
      python3 -m venv --help >/dev/null 2>&1 || die "python3 -m venv is missing (Debian: apt-get install python3-venv)"
      rm -rf "$cache/venv" "$FLINK_HOME"
      mkdir -p "$cache"
      python3 -m venv "$cache/venv"
      # --no-deps: only the Java distribution inside the wheels is used, not PyFlink's Python side
      "$cache/venv/bin/pip" install -q --disable-pip-version-check --no-deps \
        "apache-flink==$FLINK_VERSION" "apache-flink-libraries==$FLINK_VERSION"
      pyflink="$("$cache/venv/bin/python" -c 'import os, pyflink; print(os.path.dirname(pyflink.__file__))')"
      # The two wheels fill one pyflink/ directory: bin/ and conf/ (apache-flink), lib/, opt/ and
      # plugins/ (apache-flink-libraries). A distribution is those five directories.
      mkdir -p "$FLINK_HOME/log"
      for d in bin conf lib opt plugins; do
        [[ -d "$pyflink/$d" ]] || die "the PyPI packages have no pyflink/$d"
        cp -a "$pyflink/$d" "$FLINK_HOME/"
      done
      ls "$FLINK_HOME"/lib/flink-dist-*.jar >/dev/null 2>&1 || die "no flink-dist jar in $FLINK_HOME/lib"
      touch "$FLINK_HOME/.complete"
      say "Flink $FLINK_VERSION distribution assembled in $FLINK_HOME ($((SECONDS - t0)) s)"
    fi
  fi
  [[ -x "$FLINK_HOME/bin/flink" ]] || die "no Flink distribution at $FLINK_HOME"
  export FLINK_HOME
}

# Exports HADOOP_CLASSPATH with the jars of a directory: Hadoop for hdfs:// on the JobManagers,
# TaskManagers and clients, the way Flink takes it from a Hadoop installation
# (export HADOOP_CLASSPATH=$(hadoop classpath)).
hadoop_classpath() { # hadoop_classpath DIR
  HADOOP_CLASSPATH="$(printf '%s:' "$1"/*.jar)"
  export HADOOP_CLASSPATH="${HADOOP_CLASSPATH%:}"
}

# deploy/flink/config.yaml with the lines of the keys in the overlay replaced (flat keys, one per line)
make_conf() { # make_conf PARTY_DIR RPC_PORT REST_PORT
  local dir="$1" conf="$1/conf" line i
  mkdir -p "$conf" "$dir/log" "$dir/pid" "$dir/tmp"
  cp "$FLINK_HOME"/conf/log4j*.properties "$conf/"
  cat >"$dir/overlay.yaml" <<EOF
jobmanager.rpc.address: localhost
jobmanager.rpc.port: $2
jobmanager.bind-host: localhost
taskmanager.bind-host: localhost
taskmanager.host: localhost
rest.address: localhost
rest.port: $3
rest.bind-address: localhost
blob.server.port: 0
taskmanager.rpc.port: 0
jobmanager.memory.process.size: 1024m
taskmanager.memory.process.size: $cluster_tm_memory
taskmanager.memory.managed.fraction: 0.3
taskmanager.numberOfTaskSlots: $(slots_per_tm)
parallelism.default: $cluster_parallelism
io.tmp.dirs: $dir/tmp
env.pid.dir: $dir/pid
env.log.dir: $dir/log
metrics.reporter.prom.port: 9249-9299
EOF
  for line in "${cluster_extra_conf[@]}"; do printf '%s\n' "$line" >>"$dir/overlay.yaml"; done
  awk -F: 'NR == FNR { if ($0 !~ /^[[:space:]]*(#|$)/) over[$1] = 1; next }
           !($1 in over) { print }' "$dir/overlay.yaml" "$CLUSTERS_ROOT/deploy/flink/config.yaml" >"$conf/config.yaml"
  cat "$dir/overlay.yaml" >>"$conf/config.yaml"
  printf 'localhost:%s\n' "$3" >"$conf/masters"
  # one line per TaskManager: start-cluster.sh starts (and stop-cluster.sh stops) one
  # taskmanager.sh per line, all on this host
  : >"$conf/workers"
  for ((i = 0; i < cluster_taskmanagers; i++)); do printf 'localhost\n' >>"$conf/workers"; done
}

slots_per_tm() {
  if [[ -n "$cluster_slots" ]]; then
    echo "$cluster_slots"
  else
    echo $(((cluster_parallelism + cluster_taskmanagers - 1) / cluster_taskmanagers))
  fi
}

wait_cluster() { # wait_cluster PARTY_DIR PARTY: until the REST API reports all its TaskManagers
  local dir="$1" party="$2" i
  for ((i = 0; i < 240; i++)); do
    if python3 - "${rest[$party]}" "$cluster_taskmanagers" "$((cluster_taskmanagers * $(slots_per_tm)))" <<'EOF' 2>/dev/null
import json, sys, urllib.request
o = json.load(urllib.request.urlopen("http://localhost:%s/overview" % sys.argv[1], timeout=2))
sys.exit(0 if o.get("taskmanagers", 0) >= int(sys.argv[2])
         and o.get("slots-total", 0) >= int(sys.argv[3]) else 1)
EOF
    then return 0; fi
    sleep 0.5
  done
  tail -n 40 "$dir"/log/*.log >&2 || true
  die "the Flink cluster of party $party did not come up within 120 s"
}

check_cluster_shape() { # the numbers of --parallelism, --taskmanagers and --slots
  [[ "$cluster_parallelism" =~ ^[1-9][0-9]*$ ]] || die "--parallelism must be a positive integer"
  [[ "$cluster_taskmanagers" =~ ^[1-9][0-9]*$ ]] || die "--taskmanagers must be a positive integer"
  [[ -z "$cluster_slots" || "$cluster_slots" =~ ^[1-9][0-9]*$ ]] || die "--slots must be a positive integer"
  ((cluster_taskmanagers * $(slots_per_tm) >= cluster_parallelism)) ||
    die "$cluster_taskmanagers TaskManager(s) with $(slots_per_tm) slot(s) each cannot run parallelism $cluster_parallelism"
}

# Starts one cluster per party in WORK/flink-PARTY (at the same time) and waits until each has all
# its TaskManagers; fills rest[PARTY], appends to clusters and writes WORK/flink-PARTY/rest.url.
start_clusters() { # start_clusters WORK PARTY...
  local work="$1" party rpc_port rest_port used_ports=" "
  shift
  local -A starts
  for party in "$@"; do
    rpc_port="$(free_port)"
    while [[ "$used_ports" == *" $rpc_port "* ]]; do rpc_port="$(free_port)"; done
    used_ports+="$rpc_port "
    rest_port="$(free_port)"
    while [[ "$used_ports" == *" $rest_port "* ]]; do rest_port="$(free_port)"; done
    used_ports+="$rest_port "
    make_conf "$work/flink-$party" "$rpc_port" "$rest_port"
    rest[$party]="$rest_port"
    say "starting Flink cluster of party $party (JobManager RPC $rpc_port, Web UI http://localhost:$rest_port)"
    clusters+=("$work/flink-$party/conf")
    FLINK_CONF_DIR="$work/flink-$party/conf" "$FLINK_HOME/bin/start-cluster.sh" >"$work/flink-$party/start.log" 2>&1 &
    starts[$party]=$!
  done
  for party in "$@"; do
    wait "${starts[$party]}" || { cat "$work/flink-$party/start.log" >&2; die "start-cluster.sh failed for party $party"; }
  done
  for party in "$@"; do
    wait_cluster "$work/flink-$party" "$party"
    printf 'http://localhost:%s\n' "${rest[$party]}" >"$work/flink-$party/rest.url"
  done
}

# Stops the clusters of the given conf dirs (at the same time), then kills the daemons whose stop
# failed: the pid files of their own pid dirs only.
stop_clusters() { # stop_clusters CONF_DIR...
  local c p stops=()
  for c in "$@"; do
    FLINK_CONF_DIR="$c" "$FLINK_HOME/bin/stop-cluster.sh" >/dev/null 2>&1 &
    stops+=($!)
  done
  for p in "${stops[@]}"; do wait "$p" || true; done
  for c in "$@"; do
    for p in $(cat "$c"/../pid/*.pid 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
  done
}

# --- run directly -------------------------------------------------------------------------------
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  action="${1:-}"
  shift || true
  work="" hadoop_lib="" parties=()
  while (($#)); do
    case "$1" in
      --work) work="$2"; shift 2 ;;
      --hadoop-lib) hadoop_lib="$2"; shift 2 ;;
      --parallelism) cluster_parallelism="$2"; shift 2 ;;
      --taskmanagers) cluster_taskmanagers="$2"; shift 2 ;;
      --slots) cluster_slots="$2"; shift 2 ;;
      --tm-memory) cluster_tm_memory="$2"; shift 2 ;;
      --conf) cluster_extra_conf+=("${2%%=*}: ${2#*=}"); shift 2 ;;
      -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;;
      -*) die "unknown argument '$1' (see --help)" ;;
      *) parties+=("$1"); shift ;;
    esac
  done
  [[ "$action" == start || "$action" == stop ]] || die "start or stop? (see --help)"
  [[ -n "$work" ]] || die "--work DIR is required"
  check_cluster_shape
  ((${#parties[@]})) || die "name at least one party"
  mkdir -p "$work"
  work="$(cd "$work" && pwd)"
  flink_distribution
  if [[ "$action" == stop ]]; then
    for party in "${parties[@]}"; do clusters+=("$work/flink-$party/conf"); done
    stop_clusters "${clusters[@]}"
    exit 0
  fi
  [[ -d "$hadoop_lib" ]] || die "--hadoop-lib: directory '$hadoop_lib' not found (deploy/target/hadoop-lib)"
  hadoop_classpath "$(cd "$hadoop_lib" && pwd)"
  # a failed start stops what it started
  trap 'rc=$?; trap - EXIT; ((rc == 0)) || stop_clusters "${clusters[@]}"; exit $rc' EXIT
  start_clusters "$work" "${parties[@]}"
  echo "FLINK_HOME=$FLINK_HOME"
fi
