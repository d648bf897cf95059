//! Deja Vu recall and checks against the reference tools.
//!
//! * The golden values of the reference's own settings example, through the
//!   binary.
//! * Recorded reference outputs (`tests/fixtures/dejavu/reference.json`,
//!   made by the reference scripts on generated memories) replayed on every
//!   run: the same level, score and matches for every cue, the same invalid
//!   lines, and a membank finding on the same file and line for every lint
//!   and doctor diagnostic.
//! * A live differential on fresh, held-out memories when the reference
//!   scripts and node are at hand: set `DEJAVU_REFERENCE_SCRIPTS` to the
//!   reference's `scripts/` folder, or to several separated like `PATH` to
//!   check more than one reference version (`DEJAVU_CASES` cases each, 200
//!   by default).
//!   Without the variable it prints a SKIPPED line and passes: CI has
//!   neither. With it set, a folder without the scripts or a node that does
//!   not run fails the test.
//!
//! Re-record the fixture with
//! `DEJAVU_REFERENCE_SCRIPTS=… cargo test --test dejavu_reference -- --ignored`.

mod support;

#[path = "dejavu_reference/generate.rs"]
mod generate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use membank_core::dejavu::{self, Project};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/dejavu/reference.json"
);
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-dejavu");
const RECORDED_SEEDS: std::ops::Range<u64> = 0..80;
const HELD_OUT_FIRST_SEED: u64 = 1_000_000;

fn membank_json(args: &[&str]) -> Value {
    let out = support::membank()
        .args(args)
        .output()
        .expect("membank runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn golden_values_of_the_reference_settings_example() {
    let v = membank_json(&["recall", DEMO, "Continue the settings refactor.", "--json"]);
    assert_eq!(v["level"], "none");
    assert_eq!(v["score"], json!(0.2437));
    assert_eq!(v["matched"], false);
    let v = membank_json(&["recall", DEMO, "settings", "sync", "--json"]);
    assert_eq!(v["level"], "strong");
    assert_eq!(v["score"], json!(0.975));
    assert_eq!(v["matches"][1]["score"], json!(0.475));
    assert_eq!(
        v["matches"][0]["matched_keywords"],
        json!(["settings", "sync"])
    );
    assert_eq!(
        v["budget"]["why_loaded"],
        json!(["cue scan found a strong familiarity match"])
    );
    assert_eq!(
        v["explanation"]["would_load"],
        json!(["memory/decisions/settings-sync.md"])
    );
    // The superseded impression is listed, with why it was left out.
    let skipped = &v["explanation"]["impressions"][2];
    assert_eq!(skipped["outcome"], "inactive");
    assert_eq!(skipped["status"], "superseded");
}

#[test]
fn a_project_without_impressions_is_not_initialized() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("memory")).unwrap();
    std::fs::write(tmp.path().join("memory/summary.md"), "# S\n").unwrap();
    let v = membank_json(&["recall", tmp.path().to_str().unwrap(), "anything", "--json"]);
    assert_eq!(v["level"], "not_initialized");
    assert_eq!(v["diagnostics"][0]["path"], "memory/impressions.jsonl");
    assert_eq!(
        v["bootstrap_hint"]["required_files"],
        json!(["AGENTS.md", "memory/summary.md", "memory/impressions.jsonl"])
    );
}

/// A generated project written to a temporary folder.
struct Case {
    dir: tempfile::TempDir,
    files: BTreeMap<String, String>,
    cues: Vec<String>,
}

impl Case {
    fn new(files: BTreeMap<String, String>, cues: Vec<String>) -> Case {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in &files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Case { dir, files, cues }
    }

    fn generated(seed: u64) -> Case {
        let mut r = generate::Rng::new(seed);
        let files = generate::project(&mut r);
        let mut cues: Vec<String> = (0..4).map(|_| generate::cue(&mut r)).collect();
        // Cues made of an impression's own words match for sure.
        if let Some(imp) = files.get("memory/impressions.jsonl") {
            let words: Vec<&str> = imp
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.len() > 3)
                .collect();
            for _ in 0..3 {
                if !words.is_empty() {
                    let n = 1 + r.below(3);
                    let cue: Vec<&str> = (0..n).map(|_| words[r.below(words.len())]).collect();
                    cues.push(cue.join(" "));
                }
            }
        }
        Case::new(files, cues)
    }

    fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }
}

/// What the reference tools said about one case (paths made relative).
fn run_reference(scripts: &Path, case: &Case) -> Value {
    let root = case.root();
    let prefix = format!("{}/", root.display());
    let node = |args: &[&str]| -> Option<Value> {
        let out = Command::new("node")
            .args(args)
            .current_dir(&root)
            .output()
            .expect("node runs");
        let mut v: Value = serde_json::from_slice(&out.stdout).ok()?;
        relativize(&mut v, &prefix);
        Some(v)
    };
    let script = |name: &str| scripts.join(name).to_string_lossy().into_owned();
    let recalls: Vec<Value> = case
        .cues
        .iter()
        .map(|cue| {
            let v = node(&[&script("dejavu-scan-memory.mjs"), cue]).expect("scan prints JSON");
            json!({
                "cue": cue,
                "level": v["level"],
                "score": v["score"],
                "matches": v["matches"],
                "invalid_lines": v["diagnostics"].as_array().unwrap().iter()
                    .filter_map(|d| d["line"].as_u64()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let diagnostics = |v: Option<Value>| -> Value {
        match v {
            // The reference tools stop on some input (a `null` line).
            None => Value::Null,
            Some(v) => Value::Array(
                v["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| json!({"path": d["path"], "line": d["line"], "message": d["message"]}))
                    .collect(),
            ),
        }
    };
    let lint = diagnostics(node(&[&script("dejavu-lint-memory.mjs")]));
    let doctor = diagnostics(node(&[&script("deja-vu.mjs"), "doctor", "--json"]));
    let feedback = node(&[&script("dejavu-feedback-report.mjs")]).expect("report prints JSON");
    json!({
        "files": case.files,
        "recalls": recalls,
        "lint": lint,
        "doctor": doctor,
        "feedback": feedback,
    })
}

fn relativize(v: &mut Value, prefix: &str) {
    match v {
        Value::String(s) => {
            if let Some(rest) = s.strip_prefix(prefix) {
                *s = rest.to_owned();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| relativize(i, prefix)),
        Value::Object(map) => map.values_mut().for_each(|i| relativize(i, prefix)),
        _ => {}
    }
}

/// Compare membank with one recorded or live reference result; returns the
/// disagreements.
fn compare(case: &Case, reference: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let project = Project::load_root(case.root());
    for expected in reference["recalls"].as_array().unwrap() {
        let cue = expected["cue"].as_str().unwrap();
        let r = dejavu::recall(project.impressions.as_ref(), cue);
        let matches: Vec<&dejavu::recall::Match> = r.matches.iter().take(5).collect();
        let ours = json!({
            "cue": cue,
            "level": r.level,
            "score": serde_json::to_value(OurScore(r.score)).unwrap(),
            "matches": matches,
            "invalid_lines": r.diagnostics.iter().filter_map(|d| d.line).collect::<Vec<_>>(),
        });
        if &ours != expected {
            problems.push(format!(
                "recall {cue:?}\n  reference: {expected}\n  membank:   {ours}"
            ));
        }
    }
    let report = dejavu::checks::check(&project);
    for tool in ["lint", "doctor"] {
        let Some(diags) = reference[tool].as_array() else {
            continue;
        };
        for d in diags {
            let path = d["path"].as_str().unwrap_or_default();
            let line = d["line"].as_u64().map(|l| l as usize);
            let message = d["message"].as_str().unwrap_or_default();
            let code = code_for(message);
            let found = report.findings.iter().any(|f| {
                f.code() == code && *f.path == *path && (line.is_none() || f.line() == line)
            });
            if !found {
                problems.push(format!(
                    "{tool}: {path}:{line:?} {} has no membank finding there",
                    d["message"]
                ));
            }
        }
    }
    let mut ours =
        serde_json::to_value(dejavu::feedback::report(project.feedback.as_ref())).unwrap();
    let mut theirs = reference["feedback"].clone();
    for v in [&mut ours, &mut theirs] {
        for d in v["diagnostics"].as_array_mut().unwrap() {
            d.as_object_mut()
                .unwrap()
                .retain(|k, _| k == "line" || k == "path");
        }
    }
    if ours != theirs {
        problems.push(format!(
            "feedback report\n  reference: {theirs}\n  membank:   {ours}"
        ));
    }
    problems
}

/// The membank code that answers a reference diagnostic.
fn code_for(message: &str) -> &'static str {
    const TABLE: &[(&str, &str)] = &[
        ("Missing AGENTS.md", "missing-agents-md"),
        ("Missing memory/summary.md", "missing-summary"),
        ("Missing memory/impressions.jsonl", "missing-impressions"),
        ("Invalid JSONL record", "invalid-jsonl"),
        ("Invalid impression JSONL record", "invalid-jsonl"),
        ("Invalid feedback JSONL record", "invalid-jsonl"),
        ("Invalid recall feedback record", "invalid-jsonl"),
        ("Missing or invalid ", "impression-missing-field"),
        ("Impression missing ", "impression-missing-field"),
        ("Unexpected or missing schema_version", "schema-version"),
        (
            "Unexpected or missing feedback schema_version",
            "schema-version",
        ),
        ("scope should use", "scope-not-project"),
        ("Markdown memory scope should use", "scope-not-project"),
        ("status must be", "bad-status"),
        ("Markdown memory status must be", "bad-status"),
        ("weight must be", "bad-weight"),
        ("updated should use", "bad-date"),
        ("Markdown memory updated should use", "bad-date"),
        ("feedback created should use", "bad-date"),
        ("keywords must be", "bad-keywords"),
        ("Impression keywords must be", "bad-keywords"),
        ("keywords should include at least", "few-keywords"),
        ("keywords should stay at or below", "many-keywords"),
        ("keywords contain duplicate", "duplicate-keywords"),
        ("keywords rely on too many generic", "generic-keywords"),
        ("duplicate keyword set", "duplicate-keyword-set"),
        ("aliases must be", "bad-aliases"),
        ("Duplicate impression id", "duplicate-id"),
        ("record_path must stay inside", "record-path-outside"),
        ("record_path does not exist", "record-path-missing"),
        ("feedback outcome must be", "bad-outcome"),
        ("feedback query must be", "bad-query"),
        ("feedback matched_id must be", "bad-matched-id"),
        (
            "Feedback matched_id does not resolve",
            "unresolved-matched-id",
        ),
        ("Feedback query is long", "long-query"),
        ("memory/summary.md is large", "large-summary"),
        (
            "Markdown memory record should include YAML frontmatter",
            "missing-frontmatter",
        ),
        ("Markdown memory record missing ", "record-missing-field"),
        (
            "superseded records should include superseded_by",
            "superseded-without-successor",
        ),
        ("decision record missing", "missing-section"),
        ("open-loop record missing", "missing-section"),
        (
            "Markdown memory record looks like a transcript",
            "transcript",
        ),
        ("Memory looks like a transcript", "transcript"),
        ("Memory contains subagent transcript markup", "transcript"),
        ("Possible private key", "private-key"),
        ("Possible OpenAI-style secret key", "api-key"),
        ("Possible GitHub token", "api-key"),
        ("Possible AWS access key", "api-key"),
        ("Possible email address", "email-address"),
        ("Memory looks like raw build or debug output", "raw-output"),
        ("Possible credential assignment", "credential-assignment"),
        ("Memory file is large", "large-file"),
    ];
    TABLE
        .iter()
        .filter(|(prefix, _)| message.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map_or("(unknown reference message)", |(_, code)| code)
}

/// The score as the reference prints it.
struct OurScore(f64);

impl serde::Serialize for OurScore {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        dejavu::js::serialize_number(&self.0, s)
    }
}

fn files_of(v: &Value) -> BTreeMap<String, String> {
    v["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn recorded_reference_outputs_agree() {
    let text = std::fs::read_to_string(FIXTURE).expect("fixture present");
    let cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(cases.len() >= 50, "the fixture holds {} cases", cases.len());
    let mut problems = Vec::new();
    let mut cues = 0;
    for (i, reference) in cases.iter().enumerate() {
        let cue_list: Vec<String> = reference["recalls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["cue"].as_str().unwrap().to_owned())
            .collect();
        cues += cue_list.len();
        let case = Case::new(files_of(reference), cue_list);
        for p in compare(&case, reference) {
            problems.push(format!("case {i}: {p}"));
        }
    }
    assert!(cues > 300, "only {cues} cues recorded");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The scripts the differential runs, all of which each folder must hold.
const REFERENCE_SCRIPTS: [&str; 4] = [
    "dejavu-scan-memory.mjs",
    "dejavu-lint-memory.mjs",
    "deja-vu.mjs",
    "dejavu-feedback-report.mjs",
];

/// The reference `scripts/` folders named by `DEJAVU_REFERENCE_SCRIPTS`
/// (several, separated like `PATH`, to hold membank to more than one
/// reference version at once); `None` when the variable is not set. Once
/// it is set the reference is expected: a folder without the scripts (a
/// typo) or a node that does not run is an error, never a quiet skip.
fn reference_script_dirs() -> Result<Option<Vec<PathBuf>>, String> {
    let Some(list) = std::env::var_os("DEJAVU_REFERENCE_SCRIPTS").filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => return Err(format!("node --version failed: {}", o.status)),
        Err(e) => return Err(format!("node cannot be run: {e}")),
    }
    let dirs: Vec<PathBuf> = std::env::split_paths(&list).collect();
    for dir in &dirs {
        if let Some(missing) = REFERENCE_SCRIPTS.iter().find(|s| !dir.join(s).is_file()) {
            return Err(format!("{} has no {missing}", dir.display()));
        }
    }
    Ok(Some(dirs))
}

fn reference_scripts() -> Option<PathBuf> {
    match reference_script_dirs() {
        Ok(dirs) => dirs?.into_iter().next(),
        Err(e) => panic!("DEJAVU_REFERENCE_SCRIPTS is set, but {e}"),
    }
}

#[test]
fn live_differential_against_the_reference_scripts() {
    let dirs = match reference_script_dirs() {
        Ok(Some(dirs)) => dirs,
        Ok(None) => {
            // Written past the test harness, which hides what a passing
            // test prints: a skip must be seen.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr().lock(),
                "SKIPPED live_differential_against_the_reference_scripts: \
                 DEJAVU_REFERENCE_SCRIPTS is not set (the reference scripts/ folder; node needed)"
            );
            return;
        }
        Err(e) => panic!("DEJAVU_REFERENCE_SCRIPTS is set, but {e}"),
    };
    let cases: u64 = std::env::var("DEJAVU_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut problems = Vec::new();
    for scripts in &dirs {
        for seed in HELD_OUT_FIRST_SEED..HELD_OUT_FIRST_SEED + cases {
            let case = Case::generated(seed);
            let reference = run_reference(scripts, &case);
            for p in compare(&case, &reference) {
                problems.push(format!("{}: seed {seed}: {p}", scripts.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
#[ignore = "records the fixture from the reference scripts"]
fn record_reference_outputs() {
    let scripts = reference_scripts().expect("DEJAVU_REFERENCE_SCRIPTS names the scripts");
    let cases: Vec<Value> = RECORDED_SEEDS
        .map(|seed| run_reference(&scripts, &Case::generated(seed)))
        .collect();
    std::fs::create_dir_all(Path::new(FIXTURE).parent().unwrap()).unwrap();
    std::fs::write(
        FIXTURE,
        serde_json::to_string_pretty(&cases).unwrap() + "\n",
    )
    .unwrap();
}
