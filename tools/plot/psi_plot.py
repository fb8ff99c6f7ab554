#!/usr/bin/env python3
"""Plots the native PSI benchmark: time and bytes per element against n, log-log.

    psi_plot.py IN.json [IN.json ...] --out docs/psi-protocols.png [--reference docs/bench-reference.json]

IN.json: what `./psi bench native --json` prints, one JSON object per line (other lines, e.g. logs,
are skipped); each object needs `protocol`, `n`, `seconds` and `bytes_per_element`. When a
(protocol, n) appears more than once, the last one wins (re-run a size to replace it).
--reference: measured figures of other implementations (volePSI, libPSI), drawn as hollow markers:
{"points": [{"implementation": "libPSI", "protocol": "kkrt", "n": 1048576, "seconds": 2.5,
"bytes_per_element": 114, "source": "..."}, ...]}; a null field is not drawn.

Needs matplotlib (`./psi bench plot` installs it into a throwaway venv under /tmp).
"""
import argparse
import json
import math
import sys

# one colour per protocol, so that an implementation's reference point sits next to its series
COLOURS = {"kkrt": "tab:blue", "rr22": "tab:green", "ecdh": "tab:red"}
MARKERS = {"volePSI": "s", "libPSI": "D"}


def die(msg):
    print(f"psi_plot: {msg}", file=sys.stderr)
    sys.exit(2)


def read_runs(paths):
    """{protocol: {n: (seconds, bytes_per_element)}} from the benchmark's JSON lines."""
    series = {}
    for path in paths:
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except OSError as e:
            die(f"{path}: {e.strerror}")
        found = 0
        for i, line in enumerate(lines, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                o = json.loads(line)
            except json.JSONDecodeError as e:
                die(f"{path}:{i}: not JSON ({e.msg})")
            missing = [k for k in ("protocol", "n", "seconds", "bytes_per_element") if k not in o]
            if missing:
                die(f"{path}:{i}: no {', '.join(missing)} (is it `./psi bench native --json` output?)")
            n, s, b = int(o["n"]), float(o["seconds"]), float(o["bytes_per_element"])
            if n <= 0 or s <= 0 or b <= 0:
                die(f"{path}:{i}: n, seconds and bytes_per_element must be positive for a log-log plot")
            series.setdefault(str(o["protocol"]), {})[n] = (s, b)
            found += 1
        if found == 0:
            die(f"{path}: no benchmark line (a JSON object per line)")
    return series


def read_reference(path):
    if path is None:
        return []
    try:
        doc = json.load(open(path, encoding="utf-8"))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        die(f"{path}: not JSON ({e.msg} at line {e.lineno})")
    points = doc.get("points")
    if not isinstance(points, list):
        die(f"{path}: needs a list 'points'")
    for i, p in enumerate(points):
        for k in ("implementation", "protocol", "n"):
            if k not in p:
                die(f"{path}: point {i} has no '{k}'")
    return points


def plot(series, reference, out, title):
    import matplotlib

    matplotlib.use("Agg")  # no display
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=(11, 4.5))
    for proto in sorted(series):
        pts = sorted(series[proto].items())
        ns = [n for n, _ in pts]
        c = COLOURS.get(proto)
        ax_t.plot(ns, [s for _, (s, _) in pts], "o-", color=c, label=f"{proto} (psi-flink)")
        ax_b.plot(ns, [b for _, (_, b) in pts], "o-", color=c, label=f"{proto} (psi-flink)")
    labelled = set()
    for p in reference:
        impl, proto, n = p["implementation"], p["protocol"], int(p["n"])
        label = f"{impl} ({proto})"
        kw = dict(
            marker=MARKERS.get(impl, "^"),
            markersize=8,
            linestyle="none",
            markerfacecolor="none",
            markeredgewidth=1.5,
            color=COLOURS.get(proto, "black"),
        )
        for ax, key in ((ax_t, "seconds"), (ax_b, "bytes_per_element")):
            v = p.get(key)
            if v is None:
                continue
            ax.plot([n], [float(v)], label=None if (label, key) in labelled else label, **kw)
            labelled.add((label, key))
    for ax, ylabel in ((ax_t, "seconds (both parties, one thread each)"), (ax_b, "bytes per element")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (elements per party)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax_t.set_title("time")
    ax_b.set_title("traffic")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return fig


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", metavar="IN.json", help="./psi bench native --json output")
    ap.add_argument("--out", required=True, help="the PNG to write")
    ap.add_argument("--reference", help="reference figures of other implementations (JSON)")
    ap.add_argument("--title", default="psi-flink native PSI, one thread per party")
    a = ap.parse_args(argv)
    series = read_runs(a.inputs)
    reference = read_reference(a.reference)
    plot(series, reference, a.out, a.title)
    summary = ", ".join(
        f"{p}: n={min(s)}..{max(s)} ({len(s)} sizes)" for p, s in sorted(series.items())
    )
    print(f"wrote {a.out} ({summary}; {len(reference)} reference points)")


if __name__ == "__main__":
    main(sys.argv[1:])
