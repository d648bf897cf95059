"""Write an everos memory root with everos's own writers (everos 1.x).

    python generate.py OUT_DIR

Several apps and projects, users and agents (Unicode ids among them),
daily logs across a month end, marker look-alikes inside code blocks,
skills with references and scripts, and user profiles. Needs the `everos`
package (Python 3.12+); membank's tests use the committed output, not this.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sys
from pathlib import Path

from everos.core.persistence import MemoryRoot
from everos.infra.persistence.markdown.mds import (
    AgentSkillFrontmatter,
    UserProfileFrontmatter,
)
from everos.infra.persistence.markdown.writers import (
    AgentCaseWriter,
    AgentSkillWriter,
    AtomicFactWriter,
    EpisodeWriter,
    ForesightWriter,
    ProfileWriter,
)

LOOKALIKE = """Pasted from a log:

```markdown
<!-- entry:ep_20250101_00000001 -->
## ep_20250101_00000001
<!-- /entry:ep_20250101_00000001 -->
```

Inline, `<!-- entry:xx_20250101_00000007 -->` is only text."""

DAYS = [dt.date(2026, 1, 30), dt.date(2026, 1, 31), dt.date(2026, 2, 1), dt.date(2026, 2, 2)]

SCOPES = [
    ("default", "default", ["u_alice", "Zoë-Ünïcode", "用户_李雷"], ["coder-bot"]),
    ("acme-crm", "support-bot", ["carol@example.com", "dmitri.k"], ["planner.v2", "triage_01"]),
    ("acme-crm", "default", ["u_bob_42"], []),
]


def sections(n: int, owner: str, day: dt.date) -> dict[str, str]:
    subject = ["Trip to 東京", "API keys", "Quarterly numbers", "Σύσκεψη"][n % 4]
    content = f"{owner} talked about {subject} on {day}.\nBudget ≈ ¥{120 + n} 000."
    if n % 3 == 1:
        content += "\n\n" + LOOKALIKE
    if n % 4 == 2:
        content += "\n\n| q | revenue |\n|---|---:|\n| Q1 | 1 204 |"
    return {"Subject": subject, "Content": content}


def inline(n: int, owner: str, day: dt.date) -> dict[str, object]:
    return {
        "owner_id": owner,
        "session_id": f"sess_{n:04d}",
        "timestamp": f"{day}T06:{n % 60:02d}:00+00:00",
        "parent_type": "memcell",
        "sender_ids": [owner, "bot"],
    }


async def main(out: Path) -> None:
    root = MemoryRoot(out)
    root.ensure()
    user_writers = [EpisodeWriter(root), AtomicFactWriter(root), ForesightWriter(root)]
    case_writer = AgentCaseWriter(root)
    skills = AgentSkillWriter(root)
    profiles = ProfileWriter(root)
    n = 0
    for app, project, users, agents in SCOPES:
        for u_index, user in enumerate(users):
            for d_index, day in enumerate(DAYS):
                for w_index, writer in enumerate(user_writers):
                    if (u_index + d_index + w_index) % 4 == 3:
                        continue  # not every kind every day
                    count = 1 + (u_index + d_index + w_index) % 3
                    for _ in range(count):
                        n += 1
                        await writer.append_entry(
                            user,
                            inline=inline(n, user, day),
                            sections=sections(n, user, day),
                            date=day,
                            app_id=app,
                            project_id=project,
                        )
            await profiles.write(
                user,
                frontmatter=UserProfileFrontmatter(
                    id=f"profile_{user}",
                    user_id=user,
                    summary=f"{user}: writes in English and 中文; asks “why?”.",
                    explicit_info=[{"category": "location", "value": "Lisboa"}],
                    implicit_traits=["night owl 🌙"],
                    profile_timestamp_ms=1780596776072,
                ),
                body=f"{user} profile.\n\n## Notes\n\n- likes `code`\n",
                app_id=app,
                project_id=project,
            )
        for a_index, agent in enumerate(agents):
            for d_index, day in enumerate(DAYS[a_index:]):
                for _ in range(1 + d_index % 2):
                    n += 1
                    await case_writer.append_entry(
                        agent,
                        inline=inline(n, agent, day),
                        sections={"TaskIntent": f"Task {n}", "Approach": LOOKALIKE},
                        date=day,
                        app_id=app,
                        project_id=project,
                    )
            for name in ["fix django", "résumé parsing"]:
                stamp = dt.datetime(2026, 2, 2, 12, 0, tzinfo=dt.UTC)
                clean = AgentSkillFrontmatter.sanitize_skill_name(name)
                await skills.write_main(
                    agent,
                    name,
                    frontmatter=AgentSkillFrontmatter(
                        id=f"{agent}_{clean}",
                        agent_id=agent,
                        name=clean,
                        description=f"How to handle {name}.",
                        confidence=0.7,
                        maturity_score=0.8,
                        source_case_ids=["ac_20260130_00000001"],
                        created_at=stamp,
                        updated_at=stamp,
                    ),
                    body=f"# {name}\n\nSteps for {name}.\n",
                    app_id=app,
                    project_id=project,
                )
                await skills.write_reference(
                    agent, name, "checklist", "- step one\n- step two\n", app_id=app, project_id=project
                )
                await skills.write_script(
                    agent, name, "check.py", "print('ok')\n", app_id=app, project_id=project
                )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
