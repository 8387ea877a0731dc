#!/usr/bin/env python3
"""Prints the issue-11 comparison table from bench sweep JSON files: per outstanding level, each
system's throughput and p50/p99, and the ratios of Parallax (each placement) to jgroups-raft."""
import json, sys, glob, os

def load(path):
    d = json.load(open(path))
    return {p['outstanding']: p for p in d['points']}

def main(dirs):
    runs = {}
    for label, pattern in dirs:
        files = glob.glob(pattern)
        if not files:
            print(f"missing {pattern}", file=sys.stderr); continue
        runs[label] = load(files[0])
    levels = sorted(set().union(*[set(r) for r in runs.values()]))
    labels = list(runs)
    print("| W | " + " | ".join(f"{l} ops/s, p50/p99 ms" for l in labels) + " |")
    print("|---:|" + "---:|" * len(labels))
    for w in levels:
        cells = []
        for l in labels:
            p = runs[l].get(w)
            cells.append("—" if p is None else f"{p['throughput']:,.0f}, {p['latencyUs']['p50']/1000:.2f} / {p['latencyUs']['p99']/1000:.2f}")
        print(f"| {w} | " + " | ".join(cells) + " |")
    print()
    print("| at W=1 | p50 µs | p99 µs | CPU µs/cmd |")
    print("|---|---:|---:|---:|")
    for l in labels:
        p = runs[l].get(1)
        if p:
            print(f"| {l} | {p['latencyUs']['p50']} | {p['latencyUs']['p99']} | {p['cpuUsPerCommand']:.0f} |")

if __name__ == "__main__":
    args = sys.argv[1:]
    main([(args[i], args[i + 1]) for i in range(0, len(args), 2)])
