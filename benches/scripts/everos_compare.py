#!/usr/bin/env python3
"""everos at scale: membank's commands beside a Python loop that only reads
the root's files, paired in one run.

    everos_compare.py ROOT [--entries 1000000] [--runs 5]
                      [--membank target/release/membank] [--before OLD_BINARY]
                      [--since 2024-06-01] [--query "kyoto budget deadline"]

Writes the synthetic root first when ROOT does not exist (the `gen_everos`
example of membank-core, five entries a file; give --entries as the size of
an existing ROOT, since the per-1,000 figure divides by it). Then runs each
command RUNS times, alternating between them so that a change in the
machine's load hits all alike, and prints per command the median wall and
CPU (user + system) time, each as a ratio to the Python loop's, the time per
1,000 entries (the figure to compare between roots of different sizes:
linear means it holds still) and the peak resident memory. With --before,
the same commands run from an older binary too, alternated with the new
one in the same runs. Output goes to /dev/null.
"""

import argparse
import os
import subprocess
import sys

from compare import print_against, run_once

PYTHON_LOOP = """
import os, sys
n = 0
for dirpath, _, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(dirpath, name), "rb") as f:
            n += len(f.read())
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("root")
    p.add_argument("--entries", type=int, default=1_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--membank", default="target/release/membank")
    p.add_argument("--before", help="an older membank binary to run alongside")
    p.add_argument("--since", default="2024-06-01")
    p.add_argument("--query", default="kyoto budget deadline")
    a = p.parse_args()

    if not os.path.exists(a.root):
        subprocess.run(["cargo", "run", "--release", "-q", "-p", "membank-core",
                        "--features", "synth", "--example", "gen_everos", "--",
                        a.root, str(a.entries)], check=True)
    commands = {
        "python: read every file": [sys.executable, "-c", PYTHON_LOOP, a.root],
        "membank entries --since --json": [a.membank, "entries", a.root,
                                           "--since", a.since, "--json"],
        "membank check": [a.membank, "check", a.root],
        "membank search": [a.membank, "search", a.root, a.query],
    }
    if a.before:
        commands["before: entries --since --json"] = [a.before, "entries", a.root,
                                                      "--since", a.since, "--json"]
        commands["before: check"] = [a.before, "check", a.root]
        commands["before: search"] = [a.before, "search", a.root, a.query]
    for argv in commands.values():  # warm the page cache and the binaries
        run_once(argv)
    times = {name: [] for name in commands}
    load_before = os.getloadavg()[0]
    for _ in range(a.runs):
        for name, argv in commands.items():
            times[name].append(run_once(argv))
    load_after = os.getloadavg()[0]

    print(f"{a.root}: {a.entries} entries; {a.runs} alternating runs; load average "
          f"{load_before:.2f} before, {load_after:.2f} after; {os.cpu_count()} cores")
    print_against(times, "python: read every file",
                  extra=("ms/1k", lambda wall, cpu, peak: wall * 1e6 / a.entries))

if __name__ == "__main__":
    main()
