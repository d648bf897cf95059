//! The everos commands end to end. `everos-written` was written by everos's
//! own writers (tools/everos-diff/generate.py) and its `.entries.json` is
//! what everos's own reader finds in it (tools/everos-diff/expected.py).

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

const WRITTEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everos-written");
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everos-root");
const EXPECTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/everos-written.entries.json"
);

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("EVEROS_ROOT")
        .env_remove("EVEROS_MEMORY__ROOT")
        .env_remove("EVEROS_CONFIG_FILE")
        .output()
        .expect("membank runs")
}

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&membank(args))
}

#[test]
fn entries_equal_what_everos_itself_reads() {
    let (got, code) = json(&["entries", WRITTEN, "--json"]);
    assert_eq!(code, Some(0));
    let want: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(EXPECTED).unwrap()).unwrap();
    let (got, want) = (
        got["entries"].as_array().unwrap(),
        want["entries"].as_array().unwrap(),
    );
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g, w);
    }
    let (check, code) = json(&["check", WRITTEN, "--json"]);
    assert_eq!(code, Some(0), "{check:#}");
    assert_eq!(check["counts"]["error"], 0, "{check:#}");
}

#[test]
fn filters_narrow_by_scope_owner_kind_and_day() {
    let (v, _) = json(&[
        "entries",
        WRITTEN,
        "--app",
        "acme-crm",
        "--project",
        "support-bot",
        "--user",
        "dmitri.k",
        "--kind",
        ".foresights",
        "--since",
        "2026-02-01",
        "--json",
    ]);
    let rows = v["entries"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r["app"], "acme-crm");
        assert_eq!(r["owner_kind"], "user");
        assert_eq!(r["owner"], "dmitri.k");
        assert_eq!(r["kind"], "foresight");
        assert!(r["date"].as_str().unwrap() >= "2026-02-01");
    }
    let (v, _) = json(&["entries", WRITTEN, "--agent", "coder-bot", "--json"]);
    assert!(
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "agent_case")
    );
    let out = membank(&["entries", WRITTEN, "--kind", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("episode, atomic_fact"));
}

#[test]
fn one_entry_needs_its_owner_when_the_id_repeats() {
    let out = membank(&["entry", WRITTEN, "ep_20260130_00000001"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unique per file only") && err.contains("--user u_alice"),
        "{err}"
    );
    let (v, code) = json(&[
        "entry",
        WRITTEN,
        "ep_20260130_00000001",
        "--user",
        "用户_李雷",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(v["owner"], "用户_李雷");
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .starts_with("## ep_20260130_00000001")
    );
    let out = membank(&[
        "entry",
        WRITTEN,
        "ep_20260130_00000099",
        "--user",
        "u_alice",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// Each hint, followed as written, finds its one entry: an owner with
/// the id in two projects is named with its app and project.
#[test]
fn the_hint_for_a_repeated_id_tells_one_owners_projects_apart() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-everos");
    let id = "ac_20260531_00000001";
    let out = membank(&["entry", demo, id, "--agent", "coder-bot"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let hints: Vec<&str> = err
        .lines()
        .filter_map(|l| l.trim().split_once("  ").map(|(_, hint)| hint))
        .collect();
    assert_eq!(
        hints,
        [
            "--agent coder-bot --app default --project default",
            "--agent coder-bot --app default --project support-bot"
        ],
        "{err}"
    );
    for hint in hints {
        let mut args = vec!["entry", demo, id, "--json"];
        args.extend(hint.split(' '));
        let (v, code) = json(&args);
        assert_eq!(code, Some(0), "{hint}: {v}");
        assert_eq!(v["id"], id);
    }
}

#[test]
fn a_bank_is_refused_by_name() {
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let out = membank(&["entries", bank]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("everos memory root only"));
}

#[test]
fn the_root_is_resolved_like_everos_and_the_rule_named() {
    let out = support::membank()
        .args(["everos", "--print"])
        .env("EVEROS_ROOT", WRITTEN)
        .env("EVEROS_MEMORY__ROOT", "/elsewhere")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(WRITTEN) && text.contains("EVEROS_ROOT"),
        "{text}"
    );
    let home = tempfile::tempdir().unwrap();
    fs::create_dir_all(home.path().join(".everos")).unwrap();
    fs::write(
        home.path().join(".everos/config.toml"),
        format!("[memory]\nroot = {:?}\n", WRITTEN),
    )
    .unwrap();
    let out = support::membank()
        .args(["everos", "--print"])
        .env("HOME", home.path())
        .env_remove("EVEROS_ROOT")
        .env_remove("EVEROS_MEMORY__ROOT")
        .env_remove("EVEROS_CONFIG_FILE")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[memory] root") && text.contains(WRITTEN),
        "{text}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

fn edit(root: &Path, rel: &str, f: impl FnOnce(String) -> String) {
    let p = root.join(rel);
    let text = fs::read_to_string(&p).unwrap();
    fs::write(p, f(text)).unwrap();
}

#[test]
fn injected_defects_are_each_found_on_their_file() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_dir(Path::new(WRITTEN), &root);
    let u = "default_app/default_project/users/u_alice";
    // (file, expected code)
    let mut expect: Vec<(String, &str)> = Vec::new();
    // A duplicate id.
    let f = format!("{u}/.foresights/foresight-2026-01-30.md");
    edit(&root, &f, |t| {
        t.replace("fs_20260130_00000002", "fs_20260130_00000001")
    });
    expect.push((f, "everos-duplicate-entry-id"));
    // An unclosed marker.
    let f = format!("{u}/episodes/episode-2026-01-31.md");
    edit(&root, &f, |t| {
        t.replacen("<!-- /entry:ep_20260131_00000001 -->", "", 1)
    });
    expect.push((f, "everos-unclosed-marker"));
    // A wrong entry_count.
    let f = format!("{u}/.atomic_facts/atomic_fact-2026-01-31.md");
    edit(&root, &f, |t| {
        t.replacen("entry_count: ", "entry_count: 9", 1)
    });
    expect.push((f, "everos-entry-count"));
    // An id dated unlike its file.
    let f = format!("{u}/.atomic_facts/atomic_fact-2026-01-30.md");
    edit(&root, &f, |t| {
        t.replace("af_20260130_00000001", "af_20260129_00000001")
    });
    expect.push((f, "everos-entry-id-date"));
    // An impossible file date.
    let from = root.join(format!("{u}/.foresights/foresight-2026-02-01.md"));
    let f = format!("{u}/.foresights/foresight-2026-02-30.md");
    fs::rename(from, root.join(&f)).unwrap();
    expect.push((f, "everos-bad-file-date"));
    // Broken YAML.
    let f = format!("{u}/user.md");
    edit(&root, &f, |t| {
        t.replacen("summary:", "summary: [unclosed\nx:", 1)
    });
    expect.push((f, "everos-unparsable-yaml"));
    // A wrong owner id.
    let f = format!("{u}/episodes/episode-2026-01-30.md");
    edit(&root, &f, |t| {
        t.replacen("user_id: u_alice", "user_id: u_bob", 1)
    });
    expect.push((f, "everos-owner-mismatch"));
    // A crashed atomic write.
    let f = format!("{u}/episodes/.episode-2026-02-01.md.tmp.5f1e0c2a9b3d4e6f8a7b6c5d4e3f2a1b");
    fs::write(root.join(&f), "half").unwrap();
    expect.push((f, "everos-tmp-leftover"));

    let (v, code) = json(&["check", root.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1));
    let findings = v["findings"].as_array().unwrap();
    for (file, want) in &expect {
        let here: Vec<&str> = findings
            .iter()
            .filter(|f| f["path"] == file.as_str())
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert!(here.contains(want), "{file}: {want} not in {here:?}");
        let with_line = findings
            .iter()
            .find(|f| f["path"] == file.as_str() && f["code"] == *want)
            .unwrap();
        if *want != "everos-tmp-leftover" && *want != "everos-bad-file-date" {
            assert!(with_line["line"].as_u64().is_some(), "{with_line}");
        }
    }
    let tmp_finding = findings
        .iter()
        .find(|f| f["code"] == "everos-tmp-leftover")
        .unwrap();
    assert!(
        tmp_finding["message"]
            .as_str()
            .unwrap()
            .contains("episode-2026-02-01.md")
    );
    // Nothing was written into the root by checking it.
    assert!(!root.join(".index").exists());
}

#[test]
fn the_overview_counts_entries_and_daily_logs_per_owner() {
    let out = support::membank()
        .arg("everos")
        .env("EVEROS_ROOT", FIXTURE)
        .env_remove("EVEROS_MEMORY__ROOT")
        .env_remove("EVEROS_CONFIG_FILE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "  acme-crm/support-bot  agent planner.v2: 7 entries in 1 daily log\n",
        "  acme-crm/support-bot  user eve-99: 32 entries in 7 daily logs\n",
        "  default/default  user u_bob_42: 19 entries in 8 daily logs\n",
        "  default/support-bot  agent coder-bot: 3 entries in 1 daily log\n",
        "188 entries; `membank entries`, `membank check` and `membank search` read it\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
    assert_eq!(text.matches(" daily log").count(), 11, "{text}");
}

/// A filter that finds nothing because what it names is not there says so
/// on stderr, with the closest name or the names there are; the entries
/// listed (none) are unchanged, and a filter that matches a place with no
/// entry in it says nothing more.
#[test]
fn entries_of_a_missing_owner_or_app_say_what_there_is_instead() {
    let cases = [
        (
            vec!["--user", "alcie"],
            "no user 'alcie' in this memory root; did you mean 'u_alice'?",
        ),
        (
            vec!["--app", "nope"],
            "no app 'nope' in this memory root; its apps: acme-crm, default_app",
        ),
        (
            vec!["--app", "acme-crm", "--user", "u_alice"],
            "no user 'u_alice' in acme-crm; its users: eve-99, 用户_李雷",
        ),
        // An owner that is there, asked for a kind its kind never has.
        (
            vec!["--agent", "coder-bot", "--kind", "episode"],
            "agent 'coder-bot' has no episode entries: agents have no episode logs; \
             the kinds an agent has: agent_case",
        ),
        (
            vec!["--user", "u_alice", "--kind", "agent_case"],
            "user 'u_alice' has no agent_case entries: users have no agent_case logs; \
             the kinds a user has: episode, atomic_fact, foresight",
        ),
        // A missing owner is looked for among owners of its own kind.
        (
            vec!["--agent", "u_alice", "--kind", "episode"],
            "no agent 'u_alice' in this memory root; its agents: agent_support, coder-bot, planner.v2, triage_01",
        ),
    ];
    for (filter, warning) in cases {
        for json in [false, true] {
            let mut args = vec!["entries", FIXTURE];
            args.extend(&filter);
            if json {
                args.push("--json");
            }
            let out = membank(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert!(
                stdout.contains(if json { "\"entries\": []" } else { "0 entries" }),
                "{stdout}"
            );
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(
                stderr.trim_end(),
                format!("membank: warning: {warning}"),
                "{args:?}"
            );
        }
    }
    let out = membank(&[
        "entries",
        FIXTURE,
        "--user",
        "u_alice",
        "--since",
        "2999-01-01",
    ]);
    assert!(String::from_utf8(out.stdout).unwrap().contains("0 entries"));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Six owners each have a `user.md`: the name alone is refused with the
/// paths that answer to it, never answered with one owner's file.
#[test]
fn a_name_several_owners_share_is_refused_with_their_paths() {
    let out = membank(&["read", FIXTURE, "user"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("names several documents"), "{err}");
    assert!(
        err.contains("u_alice/user.md") && err.contains("eve-99/user.md"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let one = membank(&[
        "read",
        FIXTURE,
        "default_app/default_project/users/u_alice/user.md",
    ]);
    assert_eq!(one.status.code(), Some(0));
}

#[test]
fn entries_lists_one_page_at_a_time_as_the_mcp_tool_does() {
    let (all, _) = json(&["entries", WRITTEN, "--json"]);
    let all = all["entries"].as_array().unwrap().clone();
    assert!(all.len() > 5, "the fixture lists enough entries to page");
    let total = all.len();

    let (page, code) = json(&[
        "entries", WRITTEN, "--json", "--offset", "2", "--limit", "3",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(page["entries"].as_array().unwrap(), &all[2..5]);
    assert_eq!(page["total"], total);
    assert_eq!(page["offset"], 2);
    assert_eq!(page["truncated"], true);

    // The last page says nothing follows; a limit past the end is the
    // whole list, printed as the whole list is.
    let last = (total - 1).to_string();
    let (page, _) = json(&["entries", WRITTEN, "--json", "--offset", &last]);
    assert_eq!(page["entries"].as_array().unwrap(), &all[total - 1..]);
    assert_eq!(page["truncated"], false);
    let (whole, _) = json(&["entries", WRITTEN, "--json", "--limit", "100000"]);
    assert_eq!(whole["entries"].as_array().unwrap(), &all);
    assert!(whole.get("total").is_none(), "{whole:#}");

    let out = membank(&["entries", WRITTEN, "--limit", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 4, "{text}");
    let first_id = all[0]["id"].as_str().unwrap();
    assert!(rows[0].contains(first_id), "{text}");
    assert_eq!(rows[2], "2 entries");
    assert_eq!(
        rows[3],
        format!("listed 2 of {total} from offset 0; offset 2 lists the next")
    );
}

#[test]
fn a_profile_named_with_its_extension_lists_the_owners_that_have_one() {
    for name in ["user", "user.md", "USER.md"] {
        let out = membank(&["read", FIXTURE, name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("names several documents")
                && err.contains("default_app/default_project/users/u_alice/user.md"),
            "{name}: {err}"
        );
    }
}

/// A daily log over the size cap is not read: `entries`, `search` and
/// `entry` say so on stderr, naming it, rather than answer as if it held
/// nothing ("0 entries", "no entry").
#[test]
fn a_log_too_large_to_read_is_named_by_entries_search_and_entry() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let log = root.join("app/proj/users/u7/episodes/episode-2026-06-01.md");
    fs::create_dir_all(log.parent().unwrap()).unwrap();
    fs::write(root.join("ome.toml"), "").unwrap();
    let head = "---\nid: episode_log_u7_2026-06-01\ntype: episode_daily\nfile_type: episode_daily\n\
                schema_version: 1\nuser_id: u7\ntrack: user\ndate: '2026-06-01'\nentry_count: 1\n\
                last_appended_at: '2026-06-01T10:00:00+00:00'\n---\n";
    let body = format!(
        "<!-- entry:ep_20260601_00000001 -->\nhuge theta\n{}<!-- /entry:ep_20260601_00000001 -->\n",
        format!("{}\n", "x".repeat(100)).repeat(15_000)
    );
    fs::write(&log, format!("{head}{body}")).unwrap();
    let config = dir.path().join("config.toml");
    fs::write(&config, "[files]\nmax_file_mb = 1\n").unwrap();
    let r = root.to_str().unwrap();
    for args in [
        vec!["entries", r],
        vec!["entries", r, "--json"],
        vec!["search", r, "theta"],
        vec!["entry", r, "ep_20260601_00000001"],
    ] {
        let out = support::membank()
            .env("MEMBANK_CONFIG", &config)
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("users/u7/episodes/episode-2026-06-01.md is 1.4 MB")
                && err.contains("max_file_mb"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_log_whose_yaml_does_not_parse_lists_no_entry_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let log = root.join("app/proj/users/u7/episodes/episode-2026-06-01.md");
    fs::create_dir_all(log.parent().unwrap()).unwrap();
    // everos's reader raises on this file: it reads none of its entries.
    fs::write(
        &log,
        "---\nid: [broken\n---\n<!-- entry:ep_20260601_00000001 -->\ntheta\n<!-- /entry:ep_20260601_00000001 -->\n",
    )
    .unwrap();
    let r = root.to_str().unwrap();
    for (args, listed) in [
        (vec!["entries", r], "0 entries"),
        (vec!["entries", r, "--json"], "\"entries\": []"),
        (vec!["search", r, "theta"], "0 matches"),
        (vec!["entry", r, "ep_20260601_00000001"], ""),
    ] {
        let out = membank(&args);
        let (stdout, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(stdout.contains(listed), "{args:?}: {stdout}");
        assert!(
            err.contains("episodes/episode-2026-06-01.md:3: the frontmatter's YAML does not parse")
                && err.contains("none of its entries is read"),
            "{args:?}: {err}"
        );
    }
}

/// Every hint `entry` prints for an id several owners share picks its own
/// entry when pasted back into a shell: owner names with a space or a
/// leading dash are quoted, and `default/` beside `default_app/` (both
/// the id `default`) are told apart by their folder names.
#[cfg(unix)]
#[test]
fn each_hint_for_a_shared_id_picks_its_entry_when_pasted_into_a_shell() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let log = |dir: &str, owner: &str| {
        let days = root.join(dir).join("users").join(owner).join("episodes");
        fs::create_dir_all(&days).unwrap();
        let yaml_owner = owner.replace('\'', "''");
        fs::write(
            days.join("episode-2026-06-01.md"),
            format!(
                "---\nid: x\ntype: episode_daily\nuser_id: '{yaml_owner}'\ndate: '2026-06-01'\nentry_count: 1\n---\n\
                 <!-- entry:ep_20260601_00000001 -->\nin {dir} of {owner}\n<!-- /entry:ep_20260601_00000001 -->\n"
            ),
        )
        .unwrap();
    };
    for owner in ["a b", "--json", "it's", "-"] {
        log("app1/p1", owner);
    }
    log("default/default_project", "u1");
    log("default_app/default_project", "u1");
    let id = "ep_20260601_00000001";
    let out = membank(&["entry", root.to_str().unwrap(), id]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let hints: Vec<(&str, &str)> = err
        .lines()
        .skip(1)
        .filter_map(|l| l.trim_start().split_once("  "))
        .collect();
    assert_eq!(hints.len(), 6, "{err}");
    // Run through a shell with the settings every test run gets.
    let isolated = support::membank();
    for (file, hint) in hints {
        let script = format!("\"$0\" entry \"$1\" {id} {hint} --json");
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(&script)
            .arg(isolated.get_program())
            .arg(root);
        for (key, value) in isolated.get_envs() {
            match value {
                Some(v) => sh.env(key, v),
                None => sh.env_remove(key),
            };
        }
        let out = sh.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{hint}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["file"], file, "{hint}");
    }
}
