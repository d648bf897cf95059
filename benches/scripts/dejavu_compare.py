#!/usr/bin/env python3
"""Deja Vu at scale: membank's commands beside a Python loop that only
parses the impressions, paired in one run.

    dejavu_compare.py DIR [--impressions 50000] [--runs 7]
                      [--membank target/release/membank] [--cue "..."]
                      [--before OTHER_MEMBANK]

Writes a reproducible project to DIR first when DIR has none (AGENTS.md,
memory/summary.md, 200 records and N impression lines of about 300 bytes:
50,000 lines are 15 MB, under the default 16 MiB per-file cap). Then runs
each command RUNS times, alternating between them so that a change in the
machine's load hits all alike, and prints per command the median wall and
CPU (user + system) time, each as a ratio to the Python loop's, and the
peak resident memory beside the impressions file's bytes. Output goes to
/dev/null. Needs Python 3 only. (`context` refuses a Deja Vu project: what
a model is given there is what `recall` selects.)
"""

import argparse
import json
import os
import random
import sys

from compare import print_against, run_once

RECORDS = 200
WORDS = ("settings sync migration legacy names engine semantic recall threshold "
         "optional protocol workflow markdown memory positioning glossary client "
         "invoice deadline review termbase style guide units dates numbers tone "
         "formal informal brand product release build test deploy archive kyoto "
         "budget contract medical legal patent software manual website subtitle "
         "audio video pricing quote volume discount rush weekend holiday").split()

PYTHON_LOOP = """
import json, sys
n = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        line = line.strip()
        if line:
            json.loads(line)
            n += 1
"""


def generate(root, impressions, seed=1):
    rng = random.Random(seed)
    mem = os.path.join(root, "memory")
    for sub in ("decisions", "open-loops", "context", "events"):
        os.makedirs(os.path.join(mem, sub), exist_ok=True)
    with open(os.path.join(root, "AGENTS.md"), "w") as f:
        f.write("# Project rules\n\nRead memory/summary.md first; recall before work.\n")
    with open(os.path.join(mem, "summary.md"), "w") as f:
        f.write("# Summary\n\nA synthetic project for timing membank.\n")
    routes = []
    for i in range(RECORDS):
        kind = ("decisions", "open-loops", "context")[i % 3]
        rel = f"memory/{kind}/record-{i:04}.md"
        routes.append(rel)
        words = rng.sample(WORDS, 6)
        with open(os.path.join(root, rel), "w") as f:
            f.write(f"---\nid: record-{i:04}\ntitle: {' '.join(words[:3]).title()}\n"
                    f"status: active\n---\n\n# {' '.join(words[:3]).title()}\n\n"
                    f"{' '.join(words)} decided for the project.\n")
    with open(os.path.join(mem, "impressions.jsonl"), "w") as f:
        for i in range(impressions):
            words = rng.sample(WORDS, 8)
            line = {
                "schema_version": 1,
                "id": f"impression-{i:06}",
                "scope": "project:synthetic",
                "title": " ".join(words[:4]).capitalize(),
                "keywords": words[:6],
                "aliases": ["-".join(words[6:8])],
                "record_path": routes[i % RECORDS],
                "updated": f"2026-{1 + i % 12:02}-{1 + i % 28:02}",
                "weight": round(rng.uniform(0.3, 1.0), 2),
                "status": "active" if i % 10 else "archived",
            }
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--impressions", type=int, default=50_000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--membank", default="target/release/membank")
    p.add_argument("--cue", default="settings sync migration")
    p.add_argument("--before", metavar="MEMBANK",
                   help="another membank binary (an earlier build) to time in the same runs")
    a = p.parse_args()

    jsonl = os.path.join(a.dir, "memory", "impressions.jsonl")
    if not os.path.exists(jsonl):
        generate(a.dir, a.impressions)
    size = os.path.getsize(jsonl)
    commands = {
        "python json.loads per line": [sys.executable, "-c", PYTHON_LOOP, jsonl],
        "membank recall --json": [a.membank, "recall", a.dir, a.cue, "--json"],
        "membank recall": [a.membank, "recall", a.dir, a.cue],
        "membank check": [a.membank, "check", a.dir],
    }
    if a.before:
        for name, argv in list(commands.items())[1:]:
            commands["before: " + name.removeprefix("membank ")] = [a.before] + argv[1:]
    for argv in commands.values():  # warm the page cache and the binaries
        run_once(argv)
    times = {name: [] for name in commands}
    load_before = os.getloadavg()[0]
    for _ in range(a.runs):
        for name, argv in commands.items():
            times[name].append(run_once(argv))
    load_after = os.getloadavg()[0]

    print(f"{jsonl}: {size / 1e6:.1f} MB; {a.runs} alternating runs; "
          f"load average {load_before:.2f} before, {load_after:.2f} after")
    print_against(times, "python json.loads per line", width=28,
                  extra=("×file", lambda wall, cpu, peak: peak * 1e6 / size))

if __name__ == "__main__":
    main()
