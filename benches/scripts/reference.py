#!/usr/bin/env python3
"""The yardstick for `membank context`: a plain Python reader of the same shape.

    reference.py BANK --client NAME [--domain D] [--source L] [--target L]
    reference.py BANK --read-only

With a query it reads every Markdown file of 01-04 with PyYAML, scores each
article the way the format's section 7 does (client +3, domain +2, a language
code +1), sorts with the tie-break, fills the default budget (characters / 4)
and prints one row per article, as `membank context` does. `--read-only` only
opens, reads and closes the same files, one after another: the floor for any
single-threaded reader. `--loader c` uses libyaml's CSafeLoader instead of
the pure-Python SafeLoader.

Needs PyYAML (`pip install pyyaml`); nothing in the build or the tests runs it.
"""

import argparse
import os
import sys

CONTENT = ("01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS", "04_STYLE")
BUDGET = 4000


def markdown_files(root):
    for folder_rank, folder in enumerate(CONTENT):
        top = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith(".md") and not name.startswith((".", "_")):
                    yield folder_rank, os.path.join(dirpath, name)


def split_frontmatter(text):
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---", 3)
    if end < 0:
        return None, text
    return text[4:end], text


def values(meta, *keys):
    out = []
    for key in keys:
        v = meta.get(key)
        if v is None:
            continue
        for item in v if isinstance(v, list) else [v]:
            if item is not None:
                out.append(str(item))
    return out


def normalize(value):
    v = value.strip()
    if v.startswith("[[") and v.endswith("]]"):
        v = v[2:-2]
    for sep in "|#":
        v = v.split(sep, 1)[0]
    return v.strip().lower()


def language_tags(value):
    return [t.strip() for part in value.split("→") for t in part.split("->") if t.strip()]


def languages_match(a, b):
    a, b = a.strip().lower(), b.strip().lower()
    if not a or not b:
        return False
    return a == b or ("-" not in a and a == b.split("-")[0]) or ("-" not in b and b == a.split("-")[0])


def score(meta, q):
    points = 0
    if q.client and q.client in [normalize(v) for v in values(meta, "client", "clients")]:
        points += 3
    if q.domain and q.domain in [normalize(v) for v in values(meta, "domain", "domains")]:
        points += 2
    wanted = [c for c in (q.source, q.target) if c]
    tags = [t for v in values(meta, "languages", "language_pair", "source_lang", "target_lang")
            for t in language_tags(v)]
    if any(languages_match(t, w) for t in tags for w in wanted):
        points += 1
    return points


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bank")
    p.add_argument("--client")
    p.add_argument("--domain")
    p.add_argument("--source")
    p.add_argument("--target")
    p.add_argument("--read-only", action="store_true")
    p.add_argument("--loader", choices=["py", "c"], default="py")
    q = p.parse_args()

    if q.read_only:
        total = 0
        for _, path in markdown_files(q.bank):
            with open(path, "rb") as f:
                total += len(f.read())
        print(f"{total} bytes read")
        return

    import yaml

    loader = yaml.CSafeLoader if q.loader == "c" else yaml.SafeLoader
    q.client = normalize(q.client) if q.client else None
    q.domain = normalize(q.domain) if q.domain else None
    rows = []
    for folder_rank, path in markdown_files(q.bank):
        with open(path, "rb") as f:
            try:
                text = f.read().decode("utf-8")
            except UnicodeDecodeError:
                continue
        yaml_text, text = split_frontmatter(text)
        meta = {}
        if yaml_text is not None:
            try:
                meta = yaml.load(yaml_text, Loader=loader) or {}
            except yaml.YAMLError:
                meta = {}
        if not isinstance(meta, dict):
            meta = {}
        updated = str(meta.get("last_updated") or "")
        rel = os.path.relpath(path, q.bank)
        rows.append((-score(meta, q), folder_rank, updated == "", _desc(updated),
                     os.path.basename(path), rel, (len(text) + 3) // 4))
    rows.sort()
    used = 0
    out = sys.stdout
    for rank, (neg, _, _, _, _, rel, tokens) in enumerate(rows, 1):
        kept = -neg > 0 and used + tokens <= BUDGET
        if kept:
            used += tokens
        out.write(f"{rank:>4}  {-neg:>5}  {tokens:>6}  {'yes' if kept else 'no':<4}  {rel}\n")


def _desc(s):
    # Newest first inside one ascending sort.
    return tuple(-ord(c) for c in s)


if __name__ == "__main__":
    main()
