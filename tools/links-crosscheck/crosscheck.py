#!/usr/bin/env python3
"""Plant defects in a copy of a bank, let membank fix, rename and undo, and
judge every step with a link resolver written here from the format's rules,
sharing no code with membank's.

Steps, each checked independently:
1. Plant a byte-order mark, a bad date, a capitalised status and an
   underscore language code (beside the defects the demo bank ships with).
2. `membank fix --yes`: each planted defect is gone, each fixed file differs
   from its planted bytes only on the lines the fix names, the near-miss
   dead link now opens the article it nearly named, and no other link
   changes what it opens.
3. `membank mv` of a domain article (renamed in place) and of a style
   article (moved to a new subfolder): the resolved links after equal the
   links before with the new path put in, nothing new is dead or ambiguous,
   and `context` gives every article the score it had.
4. `membank undo` three times: the bank is byte for byte what it was after
   planting.

Usage: crosscheck.py MEMBANK_BINARY BANK WORKDIR
       crosscheck.py --renames MEMBANK_BINARY BANK WORKDIR
The first form plants its defects in the demo bank. With --renames, any
bank (a real vault placed in a bank's folders): its three most linked notes
are renamed and the folder of the most linked one moved, each checked as in
step 3, then everything is undone and compared byte for byte.
Exit 0 when every check holds; 1 with the failures listed otherwise.
Python standard library only.
"""
import collections
import difflib
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import urllib.parse

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MARKDOWN_LINK = re.compile(r"\[[^\]\n]*\]\(([^()\s]+?\.md)(#[^)\s]*)?\)")
FENCE = re.compile(r"^(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")

failures = []


def fail(message):
    failures.append(message)


def markdown_files(root):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            full = os.path.join(folder, name)
            if name.endswith(".md") and os.path.isfile(full) and not os.path.islink(full):
                found.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return sorted(found)


def read_text(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        data = f.read()
    return data.decode("utf-8-sig", errors="replace")


def split_frontmatter(text):
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                return "\n".join(lines[1:i]), "\n".join(lines[i + 1:])
    return "", text


def body_without_code(body):
    kept, in_fence = [], False
    for line in body.split("\n"):
        if FENCE.match(line.strip()):
            in_fence = not in_fence
            kept.append("")
            continue
        kept.append("" if in_fence else INLINE_CODE.sub(" ", line))
    return "\n".join(kept)


def link_name(inner):
    name = inner.replace("\\|", "|").split("|", 1)[0]
    name = name.split("#", 1)[0].strip()
    return name[:-3] if name.lower().endswith(".md") else name


def resolve(files, source, name):
    """What a link opens: a path, or ('dead'|'ambiguous', name)."""
    lowered = {f.lower(): f for f in files}
    if name.startswith("./") or name.startswith("../"):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(source), name)) + ".md"
        hit = lowered.get(path.lower())
        return hit if hit else ("dead", name)
    if "/" in name:
        want = name.lower() + ".md"
        hits = [f for f in files if f.lower() == want or f.lower().endswith("/" + want)]
    else:
        want = name.lower()
        hits = [f for f in files if posixpath.basename(f)[:-3].lower() == want]
    if len(hits) == 1:
        return hits[0]
    return ("ambiguous" if hits else "dead", name)


def resolved_links(root):
    """Counter of (source, what it opens) over every link of every note."""
    files = markdown_files(root)
    links = collections.Counter()
    for source in files:
        frontmatter, body = split_frontmatter(read_text(root, source))
        for text in (frontmatter, body_without_code(body)):
            for match in WIKILINK.finditer(text):
                links[(source, resolve(files, source, link_name(match.group(2))))] += 1
        for match in MARKDOWN_LINK.finditer(body_without_code(body)):
            target = urllib.parse.unquote(match.group(1))
            if "://" in target:
                continue
            path = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
            hit = {f.lower(): f for f in files}.get(path.lower())
            links[(source, hit if hit else ("dead", target))] += 1
    return links


def snapshot(root):
    state = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            full = os.path.join(folder, name)
            with open(full, "rb") as f:
                state[os.path.relpath(full, root)] = f.read()
    return state


class Membank:
    def __init__(self, binary, bank):
        self.binary, self.bank = binary, bank

    def run(self, *args, ok=(0,)):
        proc = subprocess.run([self.binary, *args], capture_output=True)
        if proc.returncode not in ok:
            sys.exit(f"membank {' '.join(args)} exited {proc.returncode}:\n"
                     f"{proc.stdout.decode(errors='replace')}{proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode()

    def codes(self):
        report = json.loads(self.run("check", self.bank, "--json", ok=(0, 1)))
        return collections.Counter((f["code"], f["path"]) for f in report["findings"])

    def scores(self, **query):
        args = ["context", self.bank, "--json", "--budget", "0"]
        for key, value in query.items():
            args += [f"--{key.replace('_', '-')}", value]
        report = json.loads(self.run(*args))
        return {a["path"]: a["score"] for a in report["articles"]}


def plant(root, rel, old, new):
    path = os.path.join(root, rel)
    with open(path, "rb") as f:
        data = f.read()
    if data.count(old) != 1:
        sys.exit(f"cannot plant in {rel}: {old!r} occurs {data.count(old)} times")
    with open(path, "wb") as f:
        f.write(data.replace(old, new))


def changed_lines(before, after):
    a = before.decode("utf-8", errors="replace").splitlines()
    b = after.decode("utf-8", errors="replace").splitlines()
    return [l for l in difflib.unified_diff(a, b, lineterm="", n=0)
            if l[:1] in "+-" and not l.startswith(("+++", "---"))]


def substituted(links, old, new):
    return collections.Counter({(new if s == old else s, new if t == old else t): n
                                for (s, t), n in links.items()})


def without_ambiguous(links):
    return collections.Counter({k: n for k, n in links.items()
                                if not (isinstance(k[1], tuple) and k[1][0] == "ambiguous")})


def moved_path(path, old, new):
    if isinstance(path, str) and (path == old or path.startswith(old + "/")):
        return new + path[len(old):]
    return path


def renames_only(binary, source_bank, work):
    bank = os.path.join(work, "bank")
    shutil.copytree(source_bank, bank, symlinks=True)
    mb = Membank(binary, bank)
    original = snapshot(bank)
    opened = collections.Counter()
    for (_, target), n in resolved_links(bank).items():
        if isinstance(target, str):
            opened[target] += n
    notes = [path for path, _ in opened.most_common(3)]
    if not notes:
        sys.exit("no note of the bank is linked: nothing to rename")
    folder = posixpath.dirname(notes[0])
    renames = [(n, posixpath.join(posixpath.dirname(n), "Renamed " + posixpath.basename(n)))
               for n in notes]
    if folder.count("/") >= 1:
        renames.append((folder, posixpath.join(posixpath.dirname(folder), "Moved folder")))
    for old, new in renames:
        before = resolved_links(bank)
        mb.run("mv", bank, old, new, "--yes")
        expected = collections.Counter()
        for (source, target), n in before.items():
            expected[(moved_path(source, old, new), moved_path(target, old, new))] += n
        after = resolved_links(bank)
        if without_ambiguous(after) != without_ambiguous(expected):
            diff = (after - expected) + (expected - after)
            fail(f"mv {old} → {new} changed what links open: {sorted(diff.items())[:10]}")
        print(f"mv {old} → {new}: {sum(before.values())} links checked")
    for _ in renames:
        mb.run("undo", bank)
    if snapshot(bank) != original:
        fail("after undoing every rename the bank differs from the original")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--renames":
        renames_only(*sys.argv[2:])
        return report()
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, source_bank, work = sys.argv[1:]
    bank = os.path.join(work, "bank")
    shutil.copytree(source_bank, bank, symlinks=True)
    mb = Membank(binary, bank)

    # 1. Planted defects, and the ones the demo bank ships with.
    style, domain = "04_STYLE/General Style fr-FR.md", "03_DOMAINS/Pharmaceuticals.md"
    term = "02_TERMINOLOGY/settings → instellingen.md"
    with open(os.path.join(bank, style), "rb") as f:
        data = f.read()
    with open(os.path.join(bank, style), "wb") as f:
        f.write(b"\xef\xbb\xbf" + data)
    plant(bank, domain, b"last_updated: 2026-09-18", b"last_updated: 2026-9-8")
    plant(bank, term, b'status: "approved"', b'status: "Approved"')
    plant(bank, term, b'source_lang: "en-US"', b'source_lang: "en_US"')
    planted = snapshot(bank)
    before = mb.codes()
    expected = {("bom", style), ("bad-date", domain), ("bad-status", term),
                ("bad-language-code", term), ("dead-link", "01_CLIENTS/Harbour Lines.md")}
    for code in expected:
        if code not in before:
            fail(f"planted defect not reported by check: {code}")
    links_planted = resolved_links(bank)

    # 2. Fix.
    mb.run("fix", bank, "--yes", ok=(0, 1))
    after = mb.codes()
    for code in expected:
        if code in after:
            fail(f"fix --yes left {code}")
    fixed = snapshot(bank)
    if fixed[style] != data:
        fail(f"{style}: the fix changed more than the byte-order mark")
    wanted_lines = {
        domain: ["-last_updated: 2026-9-8", "+last_updated: 2026-09-08"],
        term: ['-source_lang: "en_US"', '-status: "Approved"',
               '+source_lang: "en-US"', '+status: "approved"'],
    }
    for rel, lines in wanted_lines.items():
        got = changed_lines(planted[rel], fixed[rel])
        if sorted(got) != sorted(lines):
            fail(f"{rel}: the fix changed {got}, expected exactly {lines}")
    for rel in planted:
        if rel not in fixed:
            fail(f"fix removed {rel}")
    links_fixed = resolved_links(bank)
    harbour, travel = "01_CLIENTS/Harbour Lines.md", "03_DOMAINS/Travel and Tourism.md"
    expected_links = links_planted.copy()
    dead = (harbour, ("dead", "Travel & Tourism"))
    if expected_links[dead] != 1:
        fail(f"the resolver does not see the planted dead link: {expected_links[dead]}")
    expected_links[dead] -= 1
    expected_links[(harbour, travel)] += 1
    expected_links += collections.Counter()
    # The fenced frontmatter, once unfenced, exposes its links: count them in.
    unfenced = "02_TERMINOLOGY/booking reference → référence de réservation.md"
    for key, n in links_fixed.items():
        if key[0] == unfenced:
            expected_links[key] = n
    if without_ambiguous(links_fixed) != without_ambiguous(expected_links):
        diff = (links_fixed - expected_links) + (expected_links - links_fixed)
        fail(f"fix changed what links open beyond the near miss: {sorted(diff.items())[:10]}")

    # 3. Renames.
    scores_before = {
        "client": mb.scores(client="Harbour Lines"),
        "domain": mb.scores(domain="Travel and Tourism", source_lang="en-GB", target_lang="fr-FR"),
    }
    links_before = resolved_links(bank)
    moves = [(travel, "03_DOMAINS/Travel.md"),
             ("04_STYLE/UI Strings nl-BE.md", "04_STYLE/ui/UI Strings nl-BE.md")]
    expected_links = links_before
    for old, new in moves:
        mb.run("mv", bank, old, new, "--yes")
        expected_links = substituted(expected_links, old, new)
        if not os.path.isfile(os.path.join(bank, new)) or os.path.exists(os.path.join(bank, old)):
            fail(f"mv {old} {new} did not move the file")
    links_after = resolved_links(bank)
    if without_ambiguous(links_after) != without_ambiguous(expected_links):
        diff = (links_after - expected_links) + (expected_links - links_after)
        fail(f"the renames changed what links open: {sorted(diff.items())[:10]}")
    for kind in ("dead", "ambiguous"):
        count = lambda links: sum(n for (_, t), n in links.items()
                                  if isinstance(t, tuple) and t[0] == kind)
        if count(links_after) > count(links_before):
            fail(f"the renames made {count(links_after) - count(links_before)} new {kind} links")
    scores_after = {
        "client": mb.scores(client="Harbour Lines"),
        "domain": mb.scores(domain="Travel", source_lang="en-GB", target_lang="fr-FR"),
    }
    for kind in scores_before:
        renamed = {}
        for path, score in scores_before[kind].items():
            for old, new in moves:
                path = new if path == old else path
            renamed[path] = score
        if renamed != scores_after[kind]:
            diff = set(renamed.items()) ^ set(scores_after[kind].items())
            fail(f"context by {kind} scores differently after the renames: {sorted(diff)[:10]}")

    # 4. Undo everything membank wrote.
    for _ in range(3):
        mb.run("undo", bank)
    restored = snapshot(bank)
    if restored != planted:
        differ = sorted(set(restored) ^ set(planted)) + sorted(
            k for k in restored.keys() & planted.keys() if restored[k] != planted[k])
        fail(f"after undoing the fix and both renames, these differ: {differ[:10]}")

    return report()


def report():
    if failures:
        print("cross-check failures:")
        for line in failures:
            print(f"  - {line}")
        return 1
    print("membank agrees with the independent resolver")
    return 0


if __name__ == "__main__":
    sys.exit(main())
