#!/usr/bin/env python3
"""A small private join against SecretFlow's PSI: `./psi bench local-vs-spu`.

Generates two CSV tables `id,payload` (16-hex-digit keys, --overlap of them shared, --rows rows each),
then, interleaved run by run so that background load hits both alike:

- ours: `./psi local` joining them, `SELECT a.id, b.payload FROM a JOIN b ON a.id = b.id` (both
  parties' JVMs, the relay over TLS, A writes the joined rows as CSV), checked row by row against the
  plaintext join computed here;
- theirs: SecretFlow's `spu.libpsi.psi_execute` (PyPI `spu`, installed by ./psi into a throwaway venv
  under /tmp, never a dependency of the project) with RR22, two processes talking over loopback, each
  pinned to a core of its own (one thread per party), finding the intersection of the same tables;
  its receiver's output keys are checked against the plaintext intersection. Their settings are the
  fastest they offer for this input: keys declared unique, no alignment of the outputs, the result
  at the receiver only.

Both sides' times are wall times from the start of their processes to the end of the last, so both
include their start-up. Prints the medians and the ratio ours/theirs; --json FILE also writes each
run as a JSON line.
"""
import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

# The child each SecretFlow party runs (in the venv's Python): argv rank port0 port1 input output.
THEIR_PARTY = r"""
import os, sys
rank, p0, p1, inp, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
os.sched_setaffinity(0, {rank % os.cpu_count()})
import spu.libspu as libspu
import spu.libpsi as psi
desc = libspu.link.Desc()
desc.add_party("alice", "127.0.0.1:" + p0)
desc.add_party("bob", "127.0.0.1:" + p1)
desc.recv_timeout_ms = 600 * 1000
# The party that starts first reaches its peer before it listens; brpc then waits 1 s by default
# before its channel retries, which made about half the runs 1.08 s slower in link setup alone.
# Retrying every 20 ms gives SecretFlow its fastest start (3.9-4.1 s in 8 of 8 runs).
desc.connect_retry_interval_ms = 20
desc.connect_retry_times = 500
retry = desc.retry_opts
retry.retry_interval_ms = 20
retry.retry_interval_incr_ms = 20
retry.max_retry = 50
desc.retry_opts = retry
desc.http_max_payload_size = 512 * 1024 * 1024
lctx = libspu.link.create_brpc(desc, rank)
config = psi.PsiExecuteConfig(
    protocol_conf=psi.PsiProtocolConfig(
        protocol=psi.PsiProtocol.PROTOCOL_RR22, receiver_rank=0, broadcast_result=False),
    input_params=psi.InputParams(path=inp, selected_keys=["id"], keys_unique=True),
    output_params=psi.OutputParams(path=out, disable_alignment=True),
)
report = psi.psi_execute(config, lctx)
lctx.stop_link()
print("intersection_count=%d original_count=%d" % (report.intersection_count, report.original_count))
"""


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def generate(work, rows, overlap, seed):
    """Writes a.csv and b.csv; returns (the plaintext join's rows as a sorted list, the shared keys)."""
    rnd = random.Random(seed)
    common = int(rows * overlap)
    # a list in drawing order (a set's order changes with Python's string hashing per process), so
    # that one seed gives the same tables every time
    keys, seen = [], set()
    while len(keys) < 2 * rows - common:
        k = "%016x" % rnd.getrandbits(64)
        if k not in seen:
            seen.add(k)
            keys.append(k)
    shared = keys[:common]
    a_keys = shared + keys[common:rows]
    b_keys = shared + keys[rows:]
    rnd.shuffle(a_keys)
    rnd.shuffle(b_keys)
    b_payload = {}
    with open(os.path.join(work, "a.csv"), "w") as f:
        f.write("id,payload\n")
        for k in a_keys:
            f.write("%s,%08x\n" % (k, rnd.getrandbits(32)))
    with open(os.path.join(work, "b.csv"), "w") as f:
        f.write("id,payload\n")
        for k in b_keys:
            p = "%08x" % rnd.getrandbits(32)
            b_payload[k] = p
            f.write("%s,%s\n" % (k, p))
    expected = sorted("%s,%s" % (k, b_payload[k]) for k in shared)
    return expected, set(shared)


def csv_rows(path):
    """The data lines of the CSV part files under path (a file or a directory), headers left out."""
    files = [path] if os.path.isfile(path) else [
        os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
        if not f.startswith((".", "_"))]
    out = []
    for p in files:
        with open(p) as f:
            for i, line in enumerate(f):
                line = line.rstrip("\n")
                if line and not (i == 0 and line.replace('"', "").startswith("id,")):
                    out.append(line)
    return out


def run_ours(psi, work, run, expected):
    out = os.path.join(work, "ours-%d" % run)
    for d in (out, out + ".quarantine", os.path.join(work, "ours-work-%d" % run)):
        shutil.rmtree(d, ignore_errors=True)  # of an earlier invocation on the same --work
    cmd = [psi, "local", "--a", os.path.join(work, "a.csv"), "--b", os.path.join(work, "b.csv"),
           "--sql", "SELECT a.id, b.payload FROM a JOIN b ON a.id = b.id", "--format", "csv",
           "--out", out, "--work", os.path.join(work, "ours-work-%d" % run)]
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:])
        raise SystemExit("./psi local failed (exit %d)" % p.returncode)
    got = sorted(csv_rows(out))
    return {"side": "ours", "run": run, "seconds": wall, "rows_out": len(got),
            "correct": got == expected}


def run_theirs(python, work, run, shared):
    p0, p1 = free_ports(2)
    outs = [os.path.join(work, "theirs-%d-%d.csv" % (run, r)) for r in (0, 1)]
    inputs = [os.path.join(work, "a.csv"), os.path.join(work, "b.csv")]
    t = time.perf_counter()
    procs = [subprocess.Popen([python, "-c", THEIR_PARTY, str(r), str(p0), str(p1), inputs[r], outs[r]],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in (0, 1)]
    logs = [p.communicate()[0] for p in procs]
    wall = time.perf_counter() - t
    for r, p in enumerate(procs):
        if p.returncode != 0:
            sys.stderr.write(logs[r][-4000:])
            raise SystemExit("spu party %d failed (exit %d)" % (r, p.returncode))
    got = {line.split(",")[0] for line in csv_rows(outs[0])}
    return {"side": "spu-rr22", "run": run, "seconds": wall, "intersection": len(got),
            "correct": got == shared}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--psi", required=True, help="the repository's ./psi")
    ap.add_argument("--python", required=True, help="the Python of the venv that has spu")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--overlap", type=float, default=0.5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", help="where the tables and outputs go (default: a new temporary directory)")
    ap.add_argument("--json", help="also write every run as a JSON line to this file")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="psi-vs-spu-")
    os.makedirs(work, exist_ok=True)
    print("tables of %d rows each, overlap %.2f, in %s" % (a.rows, a.overlap, work), flush=True)
    expected, shared = generate(work, a.rows, a.overlap, a.seed)
    results = []
    for run in range(a.runs):
        # alternate who goes first, so that neither always runs on a machine the other warmed
        order = [run_ours, run_theirs] if run % 2 == 0 else [run_theirs, run_ours]
        for f in order:
            r = f(a.psi, work, run, expected) if f is run_ours else f(a.python, work, run, shared)
            r.update(rows=a.rows, overlap=a.overlap)
            results.append(r)
            print("  run %d %-9s %6.2f s  %s" % (run + 1, r["side"], r["seconds"],
                                                 "correct" if r["correct"] else "WRONG"), flush=True)
    if a.json:
        with open(a.json, "a") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    ours = statistics.median(r["seconds"] for r in results if r["side"] == "ours")
    theirs = statistics.median(r["seconds"] for r in results if r["side"] != "ours")
    ok = all(r["correct"] for r in results)
    print("%d x %d rows, overlap %.2f, %d runs: ./psi local median %.2f s, spu RR22 median %.2f s, "
          "ours/theirs %.2f; %s" % (a.rows, a.rows, a.overlap, a.runs, ours, theirs, ours / theirs,
                                    "results correct" if ok else "A RESULT IS WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
