//! What a person typing at the command line runs into: mistyped
//! subcommands, options in the wrong place, files for folders, values that
//! match nothing, colour and the words for severities.

mod support;

use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank")
}

fn membank_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = support::membank();
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run membank");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn membank(args: &[&str]) -> (i32, String, String) {
    membank_env(args, &[])
}

fn bank() -> String {
    fixture().to_str().unwrap().to_owned()
}

#[test]
fn a_mistyped_subcommand_suggests_the_right_one() {
    let (code, out, err) = membank(&["chek", &bank()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("did you mean 'check'?"), "{err}");
    assert!(!err.contains("cannot be used with"), "{err}");
    let (code, _, err) = membank(&["contxt"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean 'context'?"), "{err}");
}

/// Without a terminal the interface would take keys blind and write
/// screen codes into the pipe: it says so and points at the commands.
#[test]
fn the_interface_without_a_terminal_says_so_and_writes_nothing() {
    let (code, out, err) = membank(&[&bank()]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out:?}");
    assert!(err.contains("the interface needs a terminal"), "{err}");
    assert!(err.contains("membank check"), "{err}");
}

/// clap's own help and usage errors follow --color as the reports do.
#[test]
fn help_and_usage_errors_follow_the_color_option() {
    let (_, help, _) = membank(&["check", "--color", "always", "--help"]);
    assert!(help.contains("\x1b["), "{help:?}");
    let (code, _, err) = membank(&["chek", "x", "--color=always"]);
    assert_eq!(code, 2);
    assert!(err.contains("\x1b["), "{err:?}");
    let (_, help, _) = membank(&["check", "--color", "never", "--help"]);
    assert!(!help.contains('\x1b'), "{help:?}");
}

#[test]
fn global_options_are_accepted_before_the_subcommand() {
    let (before_code, before, err) = membank(&["--color", "never", "check", &bank()]);
    assert!(!err.contains("cannot be used"), "{err}");
    let (after_code, after, _) = membank(&["check", &bank(), "--color", "never"]);
    assert_eq!(before_code, after_code);
    assert_eq!(before, after);
    assert!(before.contains("error"), "{before}");
}

#[test]
fn a_file_given_for_the_bank_says_so_and_names_the_bank() {
    let file = fixture().join("03_DOMAINS/Legal.md");
    let (code, _, err) = membank(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Legal.md is a file; pass the folder of the memory that holds it: "),
        "{err}"
    );
    assert!(err.trim_end().ends_with(&bank()), "{err}");
}

#[test]
fn init_into_a_missing_parent_names_what_is_missing_once() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("typo/deeper/bank");
    let (code, _, err) = membank(&["init", target.to_str().unwrap()]);
    assert_eq!(code, 2);
    let missing = tmp.path().join("typo");
    assert!(
        err.contains(&format!("the folder {} does not exist", missing.display())),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
    assert!(!missing.exists());
}

#[test]
fn values_that_match_nothing_suggest_the_closest() {
    let (code, _, err) = membank(&[
        "context",
        &bank(),
        "--client",
        "Acme",
        "--domain",
        "Legl",
        "--target-lang",
        "nl",
    ]);
    assert_eq!(code, 0);
    assert!(
        err.contains("no client 'Acme' in this bank; did you mean 'Acme Corporation'?"),
        "{err}"
    );
    assert!(
        err.contains("no domain 'Legl' in this bank; did you mean 'Legal'?"),
        "{err}"
    );
    assert!(!err.contains("target language"), "{err}");
    let (code, _, err) = membank(&["links", &bank(), "Globx"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean 'Globex'?"), "{err}");
}

#[test]
fn every_left_out_row_of_the_context_table_says_why() {
    let (code, out, _) = membank(&["context", &bank(), "--client", "Acme Corporation"]);
    assert_eq!(code, 0);
    let rows: Vec<&str> = out.lines().skip(4).collect();
    let mut left_out = 0;
    for (i, row) in rows.iter().enumerate() {
        let columns: Vec<&str> = row.split_whitespace().collect();
        if columns.len() > 7 && columns[7] == "no" {
            left_out += 1;
            let reason = rows[i + 1..]
                .iter()
                .take_while(|r| r.starts_with("      "))
                .find(|r| r.trim_start().starts_with("left out: "));
            assert!(reason.is_some(), "no reason for {row}\n{out}");
        }
    }
    assert!(left_out > 0, "{out}");
    assert!(out.contains("left out: score 0"), "{out}");
}

#[test]
fn colour_follows_the_option_and_no_color() {
    let esc = '\u{1b}';
    let (_, piped, _) = membank(&["check", &bank()]);
    assert!(!piped.contains(esc), "colour into a pipe: {piped}");
    let (_, forced, _) = membank(&["check", &bank(), "--color", "always"]);
    assert!(
        forced.contains("\u{1b}[31m") || forced.contains("\u{1b}[1m\u{1b}[31m"),
        "{forced:?}"
    );
    assert!(
        !forced.contains("38;5;"),
        "only the 16 standard colours: {forced:?}"
    );
    let (_, context, _) = membank(&[
        "context",
        &bank(),
        "--client",
        "Globex",
        "--color",
        "always",
    ]);
    assert!(context.contains(esc));
    let (_, never, _) = membank_env(
        &["check", &bank(), "--color", "auto"],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
    );
    assert!(!never.contains(esc), "NO_COLOR wins over auto: {never:?}");
}

#[test]
fn severities_are_errors_warnings_and_notes() {
    let (_, out, _) = membank(&["check", &bank()]);
    let counts = out.lines().nth(1).unwrap();
    assert!(
        counts.contains(" notes") || counts.contains(" note"),
        "{counts}"
    );
    assert!(!out.contains("info"), "{out}");
}

#[test]
fn the_help_names_every_layout_the_interface_opens() {
    let (code, out, _) = membank(&["--help"]);
    assert_eq!(code, 0);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("[BANK]"))
        .unwrap_or_default();
    assert!(
        line.contains("Deja Vu project") && line.contains("everos memory root"),
        "{out}"
    );
}

/// Options a command cannot honour here are refused or said, never
/// dropped without a word.
#[test]
fn options_that_do_not_apply_are_refused_or_said() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("new");
    let t = target.to_str().unwrap();
    let (code, _, err) = membank(&["init", "--format", "dejavu", t]);
    assert_eq!(code, 2);
    assert!(err.contains("init makes memory banks"), "{err}");
    assert!(!target.exists());
    let (code, _, err) = membank(&["everos", "--format", "bank"]);
    assert_eq!(code, 2);
    assert!(err.contains("--format bank does not apply"), "{err}");

    let bank = dir.path().join("bank");
    let b = bank.to_str().unwrap();
    assert_eq!(membank(&["init", b]).0, 0);
    let (code, _, err) = membank(&["note", b, "call the client", "--tags", "a,b"]);
    assert_eq!(code, 2);
    assert!(err.contains("--tags tags a Deja Vu event"), "{err}");
    let inbox: Vec<_> = std::fs::read_dir(bank.join("00_INBOX")).unwrap().collect();
    assert!(inbox.iter().all(|e| {
        let name = e.as_ref().unwrap().file_name();
        !name.to_string_lossy().contains("call the client")
    }));
}

/// `-` is standard input (or output) for every command that takes a file,
/// as for `blocks --reply -`: a pipeline can give `qa` its file.
#[test]
fn a_dash_is_standard_input_or_output() {
    use std::io::Write as _;
    let with_stdin = |args: &[&str], input: &str, cwd: &std::path::Path| {
        let mut child = support::membank()
            .args(args)
            .current_dir(cwd)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-bank");
    let demo = demo.to_str().unwrap();
    let (code, out) = with_stdin(&["terms", "export", demo, "-o", "-"], "", dir.path());
    assert_eq!(code, 0);
    assert!(out.starts_with("<?xml"), "{out}");
    assert!(!dir.path().join("-").exists());
    let (code, out) = with_stdin(
        &["qa", demo, "-", "--pair", "en-US:nl-BE"],
        "The warranty\tDe garantie\n",
        dir.path(),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 segment(s)"), "{out}");
    let bank = dir.path().join("bank");
    let b = bank.to_str().unwrap();
    assert_eq!(membank(&["init", b]).0, 0);
    let (code, _) = with_stdin(&["note", b, "-"], "from the pipe\n", dir.path());
    assert_eq!(code, 0);
    let names: Vec<String> = std::fs::read_dir(bank.join("00_INBOX"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("from the pipe")),
        "{names:?}"
    );
}

/// `.` inside a bank's folder is answered with the bank to give, as the
/// same folder written out in full is.
#[test]
fn a_dot_inside_a_bank_names_the_bank() {
    let out = support::membank()
        .args(["check", "."])
        .current_dir(fixture().join("03_DOMAINS"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(". is a folder inside the memory bank at") && err.contains("pass that folder"),
        "{err}"
    );
}

/// With no user name (a container, cron), the demo copy is still the
/// user's own: named by the user id, not one folder every such user shares.
#[cfg(unix)]
#[test]
fn the_demo_copy_of_a_user_without_a_name_is_named_by_the_user_id() {
    let tmp = tempfile::tempdir().unwrap();
    let out = support::membank()
        .args(["demo", "--path"])
        .env_remove("USER")
        .env_remove("USERNAME")
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let path = String::from_utf8_lossy(&out.stdout);
    let name = std::path::Path::new(path.trim())
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(name.starts_with("membank-demo-uid"), "{name}");
    assert!(
        name["membank-demo-uid".len()..].parse::<u32>().is_ok(),
        "{name}"
    );
}

#[test]
fn a_config_file_named_but_missing_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("conifg.toml");
    let missing = missing.to_str().unwrap();
    let (code, out, err) = membank_env(&["values", &bank()], &[("MEMBANK_CONFIG", missing)]);
    // The command still runs on the defaults, and says it does.
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty());
    assert!(
        err.contains(&format!(
            "warning: MEMBANK_CONFIG names {missing}, which does not exist"
        )) && err.contains("the defaults apply"),
        "{err}"
    );
    // `/dev/null` is the way to ask for no settings at all: nothing said.
    let (code, _, err) = membank_env(&["values", &bank()], &[("MEMBANK_CONFIG", "/dev/null")]);
    assert_eq!((code, err.as_str()), (0, ""));
}
