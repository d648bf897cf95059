"""What everos's own reader finds in a memory root, as membank's
`entries --json` shape (sorted by file, then file order).

    python expected.py ROOT > expected.json

`text` is everos's entry body with the blank lines around it removed, the
one difference membank documents. Needs the `everos` package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from everos.core.persistence import MarkdownReader

KINDS = {
    "episodes": ("episode", "users"),
    ".atomic_facts": ("atomic_fact", "users"),
    ".foresights": ("foresight", "users"),
    ".cases": ("agent_case", "agents"),
}


def trimmed(body: str) -> str:
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def scope_id(name: str, default: str) -> str:
    return "default" if name == default else name


def main(root: Path) -> None:
    rows = []
    for path in sorted(root.rglob("*.md"), key=lambda p: p.relative_to(root).as_posix()):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if len(parts) != 6 or parts[4] not in KINDS:
            continue
        kind, owner_dir = KINDS[parts[4]]
        if parts[2] != owner_dir:
            continue
        text = path.read_text(encoding="utf-8")
        parsed = MarkdownReader.parse(text)
        offset = len(text) - len(parsed.body)
        for entry in parsed.entries:
            rows.append(
                {
                    "file": rel,
                    "id": entry.id,
                    "app": scope_id(parts[0], "default_app"),
                    "project": scope_id(parts[1], "default_project"),
                    "owner_kind": owner_dir[:-1],
                    "owner": parts[3],
                    "kind": kind,
                    "date": parts[5][len(kind) + 1 : -3],
                    "line": text[: offset + entry.start].count("\n") + 1,
                    "text": trimmed(entry.body),
                }
            )
    json.dump({"entries": rows}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
