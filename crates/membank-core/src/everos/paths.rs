//! What a path inside an everos memory root is: its scope, its owner and
//! which of the three storage strategies (or system files) it belongs to.
//!
//! The scope lives in the path, never in the frontmatter:
//! `<app>/<project>/users/<user_id>/…` and `<app>/<project>/agents/<agent_id>/…`.

use jiff::civil::Date;
use serde::Serialize;

/// The reserved id that everos writes as `default_app` / `default_project`.
pub const DEFAULT_ID: &str = "default";

/// The scope id a folder name stands for (`default_app` → `default`).
pub fn app_id_from_dir(dir: &str) -> &str {
    if dir == "default_app" {
        DEFAULT_ID
    } else {
        dir
    }
}

/// The scope id a folder name stands for (`default_project` → `default`).
pub fn project_id_from_dir(dir: &str) -> &str {
    if dir == "default_project" {
        DEFAULT_ID
    } else {
        dir
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OwnerKind {
    User,
    Agent,
}

impl OwnerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OwnerKind::User => "user",
            OwnerKind::Agent => "agent",
        }
    }

    /// The folder under `<app>/<project>/` that holds owners of this kind.
    pub fn dir_name(self) -> &'static str {
        match self {
            OwnerKind::User => "users",
            OwnerKind::Agent => "agents",
        }
    }

    /// The frontmatter field that names the owner.
    pub fn id_field(self) -> &'static str {
        match self {
            OwnerKind::User => "user_id",
            OwnerKind::Agent => "agent_id",
        }
    }

    fn from_dir(dir: &str) -> Option<OwnerKind> {
        match dir {
            "users" => Some(OwnerKind::User),
            "agents" => Some(OwnerKind::Agent),
            _ => None,
        }
    }
}

/// The daily-log kinds everos 1.x writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DailyKind {
    Episode,
    AtomicFact,
    Foresight,
    AgentCase,
}

impl DailyKind {
    pub const ALL: [DailyKind; 4] = [
        DailyKind::Episode,
        DailyKind::AtomicFact,
        DailyKind::Foresight,
        DailyKind::AgentCase,
    ];

    /// The kind's name in output and filters: its file prefix.
    pub fn as_str(self) -> &'static str {
        self.file_prefix()
    }

    pub fn dir_name(self) -> &'static str {
        match self {
            DailyKind::Episode => "episodes",
            DailyKind::AtomicFact => ".atomic_facts",
            DailyKind::Foresight => ".foresights",
            DailyKind::AgentCase => ".cases",
        }
    }

    pub fn file_prefix(self) -> &'static str {
        match self {
            DailyKind::Episode => "episode",
            DailyKind::AtomicFact => "atomic_fact",
            DailyKind::Foresight => "foresight",
            DailyKind::AgentCase => "agent_case",
        }
    }

    pub fn id_prefix(self) -> &'static str {
        match self {
            DailyKind::Episode => "ep",
            DailyKind::AtomicFact => "af",
            DailyKind::Foresight => "fs",
            DailyKind::AgentCase => "ac",
        }
    }

    /// The `type` (and `file_type`) the schema fixes.
    pub fn schema_type(self) -> &'static str {
        match self {
            DailyKind::Episode => "episode_daily",
            DailyKind::AtomicFact => "atomic_fact_daily",
            DailyKind::Foresight => "foresight_daily",
            DailyKind::AgentCase => "agent_case_daily",
        }
    }

    pub fn owner_kind(self) -> OwnerKind {
        match self {
            DailyKind::AgentCase => OwnerKind::Agent,
            _ => OwnerKind::User,
        }
    }

    fn from_dir(dir: &str) -> Option<DailyKind> {
        DailyKind::ALL.into_iter().find(|k| k.dir_name() == dir)
    }

    /// A filter word: the file prefix, the folder name with or without its
    /// dot, or the id prefix.
    pub fn from_filter(word: &str) -> Option<DailyKind> {
        let w = word.trim_start_matches('.');
        DailyKind::ALL.into_iter().find(|k| {
            w == k.file_prefix() || w == k.dir_name().trim_start_matches('.') || w == k.id_prefix()
        })
    }

    pub fn from_id_prefix(prefix: &str) -> Option<DailyKind> {
        DailyKind::ALL.into_iter().find(|k| k.id_prefix() == prefix)
    }
}

/// The single files an owner folder may hold. everos 1.x writes only
/// `user.md`; its writer also knows the others.
pub const SINGLE_FILES: [&str; 5] = ["user.md", "behaviors.md", "agent.md", "soul.md", "tools.md"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SystemKind {
    /// `.index/`: SQLite and LanceDB, rebuildable from the Markdown.
    DerivedIndex,
    /// `.tmp/`: staging for multi-step writes.
    Staging,
    /// `ome.toml`: the offline engine's strategy settings.
    EngineConfig,
    /// `everos.toml` (1.1+) or `config.toml` (1.0).
    Config,
    /// `.lock`: the single-process lock anchor.
    Lock,
    /// membank's own mark on a demo copy (see [`crate::memory::DEMO_MARKER`]).
    DemoMarker,
}

impl SystemKind {
    pub fn describe(self) -> &'static str {
        match self {
            SystemKind::DerivedIndex => {
                "derived index (SQLite, LanceDB), rebuilt from the Markdown"
            }
            SystemKind::Staging => "staging folder for multi-step writes",
            SystemKind::EngineConfig => "offline memory engine settings",
            SystemKind::Config => "everos settings",
            SystemKind::Lock => "process lock",
            SystemKind::DemoMarker => "membank's mark on a demo copy",
        }
    }
}

/// What a file is, by its path alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// `<kind dir>/<prefix>-<YYYY-MM-DD>.md`; the date as named, or the
    /// name part that is not a real date.
    Daily(DailyKind, Result<Date, String>),
    /// `skills/skill_<name>/SKILL.md`.
    Skill,
    SkillReference,
    SkillScript,
    /// `user.md`, `agent.md`, …
    Single(&'static str),
    KnowledgeDocument,
    KnowledgeTopic,
    System(SystemKind),
    /// `.<name>.tmp.<hex>`: a crashed atomic write; the file it was meant
    /// to replace (its name, in the same folder).
    TempWrite(String),
    /// A file in a daily-log folder that is not that folder's kind.
    WrongKind(DailyKind),
    /// Outside the known layout; why.
    Unknown(&'static str),
}

/// A path's scope, owner and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Folder names as on disk (`default_app`), when the path has them.
    pub app_dir: Option<String>,
    pub project_dir: Option<String>,
    pub owner: Option<(OwnerKind, String)>,
    /// The skill's name (the folder without `skill_`).
    pub skill: Option<String>,
    pub kind: FileKind,
}

impl Place {
    fn bare(kind: FileKind) -> Place {
        Place {
            app_dir: None,
            project_dir: None,
            owner: None,
            skill: None,
            kind,
        }
    }

    pub fn app(&self) -> Option<&str> {
        self.app_dir.as_deref().map(app_id_from_dir)
    }

    pub fn project(&self) -> Option<&str> {
        self.project_dir.as_deref().map(project_id_from_dir)
    }

    pub fn daily(&self) -> Option<(DailyKind, Option<Date>)> {
        match &self.kind {
            FileKind::Daily(k, d) => Some((*k, d.as_ref().ok().copied())),
            _ => None,
        }
    }

    /// Files whose Markdown is memory and is read.
    pub fn is_memory_markdown(&self) -> bool {
        matches!(
            self.kind,
            FileKind::Daily(..)
                | FileKind::Skill
                | FileKind::Single(_)
                | FileKind::KnowledgeDocument
                | FileKind::KnowledgeTopic
                | FileKind::SkillReference
        )
    }
}

/// `.<name>.tmp.<hex>` → `<name>`.
pub fn temp_write_target(name: &str) -> Option<&str> {
    let rest = name.strip_prefix('.')?;
    let at = rest.rfind(".tmp.")?;
    let hex = &rest[at + 5..];
    let target = &rest[..at];
    (!target.is_empty() && hex.len() >= 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(target)
}

/// `YYYY-MM-DD` as a real date.
pub fn parse_day(s: &str) -> Option<Date> {
    let b = s.as_bytes();
    let shape = b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !shape {
        return None;
    }
    let y = s[0..4].parse().ok()?;
    let m = s[5..7].parse().ok()?;
    let d = s[8..10].parse().ok()?;
    Date::new(y, m, d).ok()
}

/// Classify a file by its path segments relative to the root.
pub fn classify(segs: &[&str]) -> Place {
    let Some(&name) = segs.last() else {
        return Place::bare(FileKind::Unknown("the root itself"));
    };
    match segs.first().copied() {
        Some(".index") => return Place::bare(FileKind::System(SystemKind::DerivedIndex)),
        Some(".tmp") => return Place::bare(FileKind::System(SystemKind::Staging)),
        _ => {}
    }
    if let Some(target) = temp_write_target(name) {
        let mut place = classify_inner(segs);
        place.kind = FileKind::TempWrite(target.to_owned());
        return place;
    }
    classify_inner(segs)
}

fn classify_inner(segs: &[&str]) -> Place {
    let name = segs[segs.len() - 1];
    if segs.len() == 1 {
        let kind = match name {
            "ome.toml" => FileKind::System(SystemKind::EngineConfig),
            "everos.toml" | "config.toml" => FileKind::System(SystemKind::Config),
            ".lock" => FileKind::System(SystemKind::Lock),
            crate::memory::DEMO_MARKER => FileKind::System(SystemKind::DemoMarker),
            _ => FileKind::Unknown("a file at the top of the memory root"),
        };
        return Place::bare(kind);
    }
    if segs[0].starts_with('.') {
        return Place::bare(FileKind::Unknown(
            "a hidden folder at the top of the memory root",
        ));
    }
    let mut place = Place::bare(FileKind::Unknown("a file directly in an app folder"));
    place.app_dir = Some(segs[0].to_owned());
    if segs.len() == 2 {
        return place;
    }
    place.project_dir = Some(segs[1].to_owned());
    if segs.len() == 3 {
        place.kind = FileKind::Unknown("a file directly in a project folder");
        return place;
    }
    let scope = segs[2];
    let rest = &segs[3..];
    if scope == "knowledge" {
        place.kind = match rest {
            [_, _, "index.md"] => FileKind::KnowledgeDocument,
            [_, _, f] if f.ends_with(".md") && f.starts_with(|c: char| c.is_ascii_digit()) => {
                FileKind::KnowledgeTopic
            }
            _ => {
                FileKind::Unknown("not knowledge/<category>/<document>/index.md or <n>_<topic>.md")
            }
        };
        return place;
    }
    let Some(owner_kind) = OwnerKind::from_dir(scope) else {
        place.kind = FileKind::Unknown("not under users/, agents/ or knowledge/");
        return place;
    };
    if rest.len() < 2 {
        place.kind = FileKind::Unknown("a file directly in users/ or agents/");
        return place;
    }
    place.owner = Some((owner_kind, rest[0].to_owned()));
    let inner = &rest[1..];
    place.kind = match inner {
        [file] if SINGLE_FILES.contains(file) => FileKind::Single(
            SINGLE_FILES
                .into_iter()
                .find(|f| f == file)
                .unwrap_or("user.md"),
        ),
        [_] => FileKind::Unknown(
            "not one of the single files (user.md, agent.md, soul.md, tools.md, behaviors.md)",
        ),
        [dir, rest @ ..] if DailyKind::from_dir(dir).is_some() => {
            let kind = DailyKind::from_dir(dir).unwrap_or(DailyKind::Episode);
            if kind.owner_kind() != owner_kind {
                FileKind::Unknown(if owner_kind == OwnerKind::User {
                    "everos reads .cases/ only under agents/"
                } else {
                    "everos reads episodes/, .atomic_facts/ and .foresights/ only under users/"
                })
            } else {
                match rest {
                    [file] => daily_file_kind(kind, file),
                    _ => FileKind::Unknown("a folder inside a daily-log folder"),
                }
            }
        }
        ["skills", skill_dir, rest @ ..] if owner_kind == OwnerKind::Agent => {
            match skill_dir.strip_prefix("skill_") {
                Some(skill) if !rest.is_empty() => {
                    place.skill = Some(skill.to_owned());
                    match rest {
                        ["SKILL.md"] => FileKind::Skill,
                        ["references", _, ..] => FileKind::SkillReference,
                        ["scripts", _, ..] => FileKind::SkillScript,
                        _ => FileKind::Unknown(
                            "only SKILL.md, references/ and scripts/ belong in a skill folder",
                        ),
                    }
                }
                _ => FileKind::Unknown("skills/ holds only skill_<name>/ folders"),
            }
        }
        _ => FileKind::Unknown("not a memory kind folder everos writes"),
    };
    place
}

fn daily_file_kind(kind: DailyKind, file: &str) -> FileKind {
    let stem = file
        .strip_prefix(kind.file_prefix())
        .and_then(|s| s.strip_prefix('-'))
        .and_then(|s| s.strip_suffix(".md"));
    match stem {
        Some(day) => match parse_day(day) {
            Some(d) => FileKind::Daily(kind, Ok(d)),
            None => FileKind::Daily(kind, Err(day.to_owned())),
        },
        None => FileKind::WrongKind(kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(path: &str) -> Place {
        let segs: Vec<&str> = path.split('/').collect();
        classify(&segs)
    }

    #[test]
    fn daily_logs_carry_scope_owner_kind_and_date() {
        let p =
            of("default_app/default_project/users/u_alice/.atomic_facts/atomic_fact-2026-05-31.md");
        assert_eq!(p.app(), Some("default"));
        assert_eq!(p.project(), Some("default"));
        assert_eq!(p.owner, Some((OwnerKind::User, "u_alice".into())));
        assert_eq!(
            p.kind,
            FileKind::Daily(DailyKind::AtomicFact, Ok(Date::new(2026, 5, 31).unwrap()))
        );
        let p = of("acme/bot/agents/planner.v2/.cases/agent_case-2026-02-30.md");
        assert_eq!(
            p.kind,
            FileKind::Daily(DailyKind::AgentCase, Err("2026-02-30".into()))
        );
    }

    /// The demo's own marker is membank's, not a stray file to report.
    #[test]
    fn the_demo_marker_is_a_system_file() {
        assert_eq!(
            of(crate::memory::DEMO_MARKER).kind,
            FileKind::System(SystemKind::DemoMarker)
        );
        assert!(matches!(of("README.md").kind, FileKind::Unknown(_)));
    }

    #[test]
    fn wrong_kinds_temp_writes_and_skills() {
        assert_eq!(
            of("a/p/users/u/episodes/foresight-2026-06-01.md").kind,
            FileKind::WrongKind(DailyKind::Episode)
        );
        let t = of("a/p/users/u/episodes/.episode-2026-06-01.md.tmp.0123456789abcdef");
        assert_eq!(t.kind, FileKind::TempWrite("episode-2026-06-01.md".into()));
        assert_eq!(t.owner, Some((OwnerKind::User, "u".into())));
        let s = of("a/p/agents/g/skills/skill_résumé_parsing/references/field-map.md");
        assert_eq!(s.kind, FileKind::SkillReference);
        assert_eq!(s.skill.as_deref(), Some("résumé_parsing"));
        assert_eq!(
            of("a/p/agents/g/skills/skill_x/SKILL.md").kind,
            FileKind::Skill
        );
        assert!(matches!(
            of("a/p/users/u/skills/skill_x/SKILL.md").kind,
            FileKind::Unknown(_)
        ));
        assert!(matches!(
            of("a/p/users/u/.cases/agent_case-2026-06-01.md").kind,
            FileKind::Unknown(_)
        ));
    }

    #[test]
    fn system_files_and_single_files() {
        assert_eq!(
            of(".index/sqlite/system.db").kind,
            FileKind::System(SystemKind::DerivedIndex)
        );
        assert_eq!(
            of("ome.toml").kind,
            FileKind::System(SystemKind::EngineConfig)
        );
        assert_eq!(of("a/p/agents/g/soul.md").kind, FileKind::Single("soul.md"));
        assert_eq!(
            of("a/p/knowledge/c/d/index.md").kind,
            FileKind::KnowledgeDocument
        );
        assert_eq!(
            of("a/p/knowledge/c/d/01_intro.md").kind,
            FileKind::KnowledgeTopic
        );
        assert!(matches!(of("notes.md").kind, FileKind::Unknown(_)));
    }

    #[test]
    fn kind_filters_accept_the_usual_spellings() {
        for w in ["episode", "episodes", "ep"] {
            assert_eq!(DailyKind::from_filter(w), Some(DailyKind::Episode));
        }
        for w in ["atomic_fact", ".atomic_facts", "atomic_facts", "af"] {
            assert_eq!(DailyKind::from_filter(w), Some(DailyKind::AtomicFact));
        }
        assert_eq!(DailyKind::from_filter("cases"), Some(DailyKind::AgentCase));
        assert_eq!(DailyKind::from_filter("nope"), None);
    }

    #[test]
    fn temp_names_need_a_hex_tail() {
        assert_eq!(
            temp_write_target(".user.md.tmp.9f86d081884c7d65"),
            Some("user.md")
        );
        assert_eq!(temp_write_target(".user.md.tmp.notahex"), None);
        assert_eq!(temp_write_target("user.md.tmp.9f86d081884c7d65"), None);
    }
}
