#!/usr/bin/env python3
"""Whole-process timings of membank against the Python reference, in one run.

    compare.py BANK --client NAME [--domain D] [--source L] [--target L]
               [--membank target/release/membank] [--before OLD_BINARY]
               [--runs 15] [--skip-python-yaml] [--floor READ_FLOOR_BINARY]

Runs each command RUNS times, alternating between them so that a change in
the machine's load hits all of them alike, and prints the median and the
best wall-clock time, the median CPU time (user + system, all threads), how
many cores that CPU time kept busy (CPU / wall) and the largest peak
resident memory of each, with the load average before and after, then each
membank command's time as a share of the read loop's in the same round, its
median over the rounds. With
`--before`, the same membank commands run from an older binary too. Output
goes to /dev/null. With the `read_floor` example built (`cargo build --release
-p membank-core --example read_floor`), a row times it too: the bank walked
and every file read on two threads, nothing parsed, the floor of any reader.
Needs Python 3 only; the PyYAML rows need PyYAML.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_once(argv):
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        # wait4 gives this child's own peak memory, not the maximum over all.
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({code}): {err}")
    cpu = usage.ru_utime + usage.ru_stime
    # KiB on Linux, in the same decimal megabytes as the bank size.
    return elapsed, cpu, usage.ru_maxrss * 1024 / 1e6


def print_against(times, base, extra=None, width=32):
    """One row a command of (wall, cpu, peak MB) runs: median wall and CPU,
    each also as a ratio to the `base` command's, and the largest peak;
    `extra` is a (heading, function of wall, cpu and peak) column more."""
    base_wall = statistics.median(t[0] for t in times[base])
    base_cpu = statistics.median(t[1] for t in times[base])
    heading = f"{'command':<{width}} {'wall':>8} {'×loop':>6} {'cpu':>8} {'×loop':>6} {'peak MB':>8}"
    print(heading + (f" {extra[0]:>6}" if extra else ""))
    for name, runs in times.items():
        wall = statistics.median(t[0] for t in runs)
        cpu = statistics.median(t[1] for t in runs)
        peak = max(t[2] for t in runs)
        row = (f"{name:<{width}} {wall:>7.3f}s {wall / base_wall:>6.2f} {cpu:>7.3f}s "
               f"{cpu / base_cpu:>6.2f} {peak:>8.1f}")
        print(row + (f" {extra[1](wall, cpu, peak):>6.2f}" if extra else ""))


def quartile(values, q):
    """The value a fraction `q` of the way through `values` sorted."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bank_bytes(root):
    total = 0
    for dirpath, _, files in os.walk(root):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bank")
    p.add_argument("--client")
    p.add_argument("--domain")
    p.add_argument("--source")
    p.add_argument("--target")
    p.add_argument("--membank", default="target/release/membank")
    p.add_argument("--before", help="an older membank binary to run alongside")
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--query", default="contract",
                   help="the words `membank search` is timed with")
    p.add_argument("--floor", default="target/release/examples/read_floor",
                   help="the read_floor example; its row is left out if it is not built")
    p.add_argument("--skip-python-yaml", action="store_true",
                   help="leave out the PyYAML reader (slow on 100,000 articles)")
    a = p.parse_args()

    query = []
    ref_query = []
    for flag, ref_flag, value in (("--client", "--client", a.client),
                                  ("--domain", "--domain", a.domain),
                                  ("--source-lang", "--source", a.source),
                                  ("--target-lang", "--target", a.target)):
        if value:
            query += [flag, value]
            ref_query += [ref_flag, value]
    ref = [sys.executable, os.path.join(HERE, "reference.py"), a.bank]
    commands = {
        "membank context": [a.membank, "context", a.bank, *query],
        "membank context --json": [a.membank, "context", a.bank, *query, "--json"],
        "membank check": [a.membank, "check", a.bank],
        "membank search --json": [a.membank, "search", a.bank, a.query, "--json"],
        "python: read the files (1 thread)": [*ref, "--read-only"],
    }
    if os.path.exists(a.floor):
        commands["floor: walk and read (2 threads)"] = [a.floor, a.bank, "2"]
    if a.before:
        commands["before: context"] = [a.before, "context", a.bank, *query]
        commands["before: check"] = [a.before, "check", a.bank]
        commands["before: search --json"] = [a.before, "search", a.bank, a.query, "--json"]
    if not a.skip_python_yaml:
        commands["python: PyYAML reader + scoring"] = [*ref, *ref_query]
        commands["python: same, libyaml loader"] = [*ref, *ref_query, "--loader", "c"]

    load_before = os.getloadavg()
    times = {name: [] for name in commands}
    cpus = {name: [] for name in commands}
    peaks = {name: 0.0 for name in commands}
    for name, argv in commands.items():  # warm the page cache and the binaries
        run_once(argv)
    for _ in range(a.runs):
        for name, argv in commands.items():
            t, cpu, rss = run_once(argv)
            times[name].append(t)
            cpus[name].append(cpu)
            peaks[name] = max(peaks[name], rss)

    size = bank_bytes(a.bank)
    load_after = os.getloadavg()
    print(f"bank: {a.bank}, {size / 1e6:.1f} MB (2 × bank + 50 MB = {2 * size / 1e6 + 50:.0f} MB); "
          f"{a.runs} runs each; load average (1, 5, 15 min) before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)}; {os.cpu_count()} cores")
    print(f"{'command':<36} {'median':>9} {'best':>9} {'CPU':>9} {'cores':>5} {'peak MB':>8}")
    for name in commands:
        ts = times[name]
        busy = statistics.median(cpus[name]) / statistics.median(ts)
        print(f"{name:<36} {statistics.median(ts) * 1000:>7.1f}ms {min(ts) * 1000:>7.1f}ms "
              f"{statistics.median(cpus[name]) * 1000:>7.1f}ms {busy:>5.2f} {peaks[name]:>8.1f}")
    for cmd in ("membank context", "membank check"):
        base = statistics.median(times[cmd])
        for name in commands:
            if name.startswith(("python", "floor")):
                print(f"{name}: {statistics.median(times[name]) / base:.2f}× the time of {cmd}")
    # Each round runs every command once, one after another, so a change
    # in the machine's speed between rounds moves a round's times together:
    # the median of each round's own ratio is steadier than the ratio of
    # two medians taken over different rounds.
    loop = "python: read the files (1 thread)"
    print(f"median over the rounds of each round's time ÷ the read loop's ({loop}):")
    for name in commands:
        if name.startswith(("membank", "before")):
            ratios = [t / loop_time for t, loop_time in zip(times[name], times[loop])]
            print(f"  {name:<34} {statistics.median(ratios):.2f} "
                  f"(middle half {quartile(ratios, 0.25):.2f}–{quartile(ratios, 0.75):.2f})")


if __name__ == "__main__":
    main()
