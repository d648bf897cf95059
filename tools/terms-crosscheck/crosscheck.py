#!/usr/bin/env python3
"""Cross-check membank's terminology handling against translate-toolkit.

An independent implementation reads what membank writes, and writes what
membank reads:

1. A generated bank's term articles are exported as TBX 2008 and CSV by
   membank; translate-toolkit's TBX reader and Python's csv module must find
   every (source, target) pair the articles hold, and nothing else.
2. translate-toolkit writes XLIFF 1.2 and TMX files with term errors planted
   in segments whose ids this script knows; `membank qa --json` must report
   exactly those ids under the right codes, and list the untranslated ones
   apart.
3. translate-toolkit writes a TBX; `membank terms import --yes` into an empty
   bank, then `membank terms export --format csv`, must give back its pairs.

Usage: crosscheck.py MEMBANK_BINARY [WORKDIR]
Needs translate-toolkit (pip install translate-toolkit). Exit 0 when every
check agrees, 1 with a list of disagreements otherwise.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from translate.storage import tbx, tmx, xliff

TODAY = "2026-06-01"
PAIR = ("en-US", "nl-BE")

# (source, target, status, client, domain)
TERMS = [
    ("compliance", "naleving", "approved", "Acme Corporation", "Legal"),
    ("compliance", "conformiteit", "rejected", "Acme Corporation", "Legal"),
    ("data controller", "verwerkingsverantwoordelijke", "approved", "Acme Corporation", "Legal"),
    ("warranty", "garantie", "approved", "Acme Corporation", "Legal"),
    ("warranty", "waarborg", "rejected", "Acme Corporation", "Legal"),
    ("invoice", "factuur", "approved", "Acme Corporation", "Finance"),
    ("café", "koffiehuis", "approved", "Acme Corporation", "Hospitality"),
    ("liability", "aansprakelijkheid", "proposed", "Acme Corporation", "Legal"),
]

# (id, source, target or None for untranslated, expected codes)
SEGMENTS = [
    ("s1", "The data controller ensures compliance.",
     "De verwerkingsverantwoordelijke zorgt voor naleving.", set()),
    ("s2", "Compliance is reviewed yearly.",
     "De conformiteit wordt jaarlijks nagekeken.", {"term-missing", "term-rejected"}),
    ("s3", "Read the warranty.", "Lees de garantie.", set()),
    ("s4", "The warranty applies.", "De waarborg is van toepassing.",
     {"term-missing", "term-rejected"}),
    ("s5", "Send the INVOICE today.", "Stuur de rekening vandaag.", {"term-missing"}),
    ("s6", "Meet at the cafe.", "Afspraak in het koffiehuis.", set()),
    ("s7", "Invoices are not invoice-like.", "Facturen zijn geen factuur.", set()),
    ("s8", "Compliance first.", None, set()),
    ("s9", "Liability is limited.", "De aansprakelijkheid is beperkt.", set()),
]


def write_bank(root):
    for folder in ("00_INBOX", "01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS",
                   "04_STYLE", "05_INDICES", "06_TEMPLATES"):
        os.makedirs(os.path.join(root, folder), exist_ok=True)
    for source, target, status, client, domain in TERMS:
        name = f"{source} → {target}.md"
        body = (
            "---\n"
            f'term_source: "{source}"\n'
            f'term_target: "{target}"\n'
            f'source_lang: "{PAIR[0]}"\n'
            f'target_lang: "{PAIR[1]}"\n'
            f'domain: "[[{domain}]]"\n'
            f'clients: ["[[{client}]]"]\n'
            f"status: {status}\n"
            f"last_updated: {TODAY}\n"
            "---\n"
            f"# {source} → {target}\n\nA term of the cross-check.\n"
        )
        with open(os.path.join(root, "02_TERMINOLOGY", name), "w", encoding="utf-8") as f:
            f.write(body)


def run(binary, *args, ok=(0,)):
    proc = subprocess.run([binary, "--today", TODAY, *args], capture_output=True, text=True)
    if proc.returncode not in ok:
        sys.exit(f"membank {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return proc.stdout


def pairs_from_tbx(path):
    store = tbx.tbxfile.parsefile(path)
    found = set()
    for unit in store.units:
        # translate-toolkit keeps the first term of the first two langSets.
        found.add((unit.source, unit.target))
    return found


def pairs_from_memoq_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    src_col = header.index(PAIR[0])
    tgt_cols = [i for i, h in enumerate(header) if h == PAIR[1]]
    found = set()
    for row in rows[1:]:
        for col in tgt_cols:
            if row[src_col] and row[col]:
                found.add((row[src_col], row[col]))
    return found


def write_xliff(path):
    store = xliff.xlifffile(sourcelanguage=PAIR[0], targetlanguage=PAIR[1])
    for seg_id, source, target, _ in SEGMENTS:
        unit = store.addsourceunit(source)
        unit.setid(seg_id)
        if target is not None:
            unit.target = target
            unit.xmlelement.find(unit.namespaced("target")).set("state", "translated")
    store.savefile(path)


def write_tmx(path):
    store = tmx.tmxfile(sourcelanguage=PAIR[0], targetlanguage=PAIR[1])
    for seg_id, source, target, _ in SEGMENTS:
        if target is None:
            continue
        unit = store.addsourceunit(source)
        unit.target = target
        unit.xmlelement.set("tuid", seg_id)
    store.savefile(path)


def check_qa(binary, bank, path, disagreements, expect_untranslated):
    out = run(binary, "qa", bank, path, "--client", "Acme Corporation", "--json", ok=(0, 1))
    report = json.loads(out)
    got = {}
    for finding in report["findings"]:
        got.setdefault(finding["segment"], set()).add(finding["code"])
    for seg_id, _, target, expected in SEGMENTS:
        if target is None:
            continue
        if got.get(seg_id, set()) != expected:
            disagreements.append(
                f"{os.path.basename(path)} segment {seg_id}: expected {sorted(expected)}, "
                f"membank said {sorted(got.get(seg_id, set()))}")
    untranslated = sorted(report.get("untranslated", []))
    if untranslated != expect_untranslated:
        disagreements.append(
            f"{os.path.basename(path)}: untranslated {untranslated}, expected {expect_untranslated}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="terms-crosscheck-")
    bank = os.path.join(work, "bank")
    write_bank(bank)
    disagreements = []
    expected_pairs = {(s, t) for s, t, *_ in TERMS}

    tbx_path = os.path.join(work, "export.tbx")
    run(binary, "terms", "export", bank, "--format", "tbx", "-o", tbx_path)
    # translate-toolkit reads one target per entry: every pair it finds must be
    # a real one, and every concept's source must be there.
    from_tbx = pairs_from_tbx(tbx_path)
    if not from_tbx <= expected_pairs:
        disagreements.append(f"TBX holds pairs no article has: {sorted(from_tbx - expected_pairs)}")
    if {s for s, _ in from_tbx} != {s for s, _ in expected_pairs}:
        disagreements.append("TBX sources differ: "
                             f"{sorted({s for s, _ in from_tbx} ^ {s for s, _ in expected_pairs})}")

    from_csv = pairs_from_memoq_csv(run(binary, "terms", "export", bank, "--format", "csv"))
    if from_csv != expected_pairs:
        disagreements.append(f"CSV pairs differ: {sorted(from_csv ^ expected_pairs)}")

    xlf = os.path.join(work, "job.xlf")
    write_xliff(xlf)
    check_qa(binary, bank, xlf, disagreements, ["s8"])
    tmx_path = os.path.join(work, "job.tmx")
    write_tmx(tmx_path)
    check_qa(binary, bank, tmx_path, disagreements, [])

    # translate-toolkit's TBX in, membank's CSV out.
    foreign = tbx.tbxfile(sourcelanguage=PAIR[0], targetlanguage=PAIR[1])
    for source, target, status, *_ in TERMS:
        if status == "approved":
            unit = foreign.addsourceunit(source)
            unit.target = target
    foreign_path = os.path.join(work, "foreign.tbx")
    foreign.savefile(foreign_path)
    empty = os.path.join(work, "empty-bank")
    os.makedirs(os.path.join(empty, "02_TERMINOLOGY"))
    run(binary, "terms", "import", empty, foreign_path, "--yes")
    back = pairs_from_memoq_csv(run(binary, "terms", "export", empty, "--format", "csv"))
    approved = {(s, t) for s, t, st, *_ in TERMS if st == "approved"}
    if back != approved:
        disagreements.append(f"imported TBX pairs differ: {sorted(back ^ approved)}")

    if disagreements:
        print("membank and translate-toolkit disagree:")
        for line in disagreements:
            print(f"  - {line}")
        return 1
    print(f"membank and translate-toolkit agree (work folder: {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
