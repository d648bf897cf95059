//! Which layout is open is decided in one place outside the core:
//! `src/layouts/`. Anywhere else in `src/`, a cast to a layout's own type or
//! a branch on a layout's `--format` name would let a new layout fall
//! silently into some other layout's behaviour, so this test refuses both.

use std::path::{Path, PathBuf};

const LAYOUT_NAMES: [&str; 3] = ["bank", "dejavu", "everos"];

/// Signs on a line that a quoted layout name there is being compared or
/// matched on, not merely used as a folder name or an argument.
const BRANCHING: [&str; 6] = ["==", "!=", "=>", "matches!", "assert_eq!", "layout_named"];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("src/ is readable").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Every line of `text` that decides by layout outside `src/layouts/`.
fn offending_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| {
            // A cast to an error type (an I/O error's kind) is no layout's.
            let casts = (line.contains("downcast_ref") || line.contains("downcast_mut"))
                && !line.contains("::<std::io::Error>");
            let names_a_layout = LAYOUT_NAMES
                .iter()
                .any(|name| line.contains(&format!("\"{name}\"")));
            let branches = BRANCHING.iter().any(|sign| line.contains(sign));
            // A list of names to look one up in, or an option holding one.
            let listed = LAYOUT_NAMES.iter().any(|name| {
                line.contains(&format!("&[\"{name}\""))
                    || line.contains(&format!("Some(\"{name}\")"))
            });
            casts || listed || (names_a_layout && branches)
        })
        .map(|(i, line)| (i + 1, line.trim().to_owned()))
        .collect()
}

#[test]
fn only_src_layouts_looks_at_which_layout_is_open() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layouts = src.join("layouts");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(
        files.len() > 20,
        "found only {} files under src/",
        files.len()
    );
    let mut offences = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&layouts)) {
        let text = std::fs::read_to_string(file).expect("a source file is UTF-8");
        for (line, code) in offending_lines(&text) {
            offences.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        offences.is_empty(),
        "decide by layout in src/layouts/ (its Face, or its typed accessors), \
         not here:\n{}",
        offences.join("\n")
    );
}

/// The patterns the guard must catch, as they were written before the
/// layouts had a module of their own; and what it must let through.
#[test]
fn the_guard_tells_a_branch_from_a_mention() {
    for branch in [
        r#"    if spec.name != "bank" {"#,
        r#"            "dejavu" => Slot::Recall,"#,
        r#"        Some("everos") => Some(dir),"#,
        r#"const EVERY: &[&str] = &["bank", "dejavu", "everos"];"#,
        r#"            "read" if layout == "everos" => read(p),"#,
        r#"    let bank = memory::layout_named("bank").unwrap();"#,
        r#"        if let Some(bank) = memory.downcast_ref::<Bank>() {"#,
    ] {
        assert_eq!(offending_lines(branch).len(), 1, "not caught: {branch}");
    }
    for mention in [
        r#"    let root = dir.path().join("bank");"#,
        r#"            run(&["membank", "check", "bank", "--json"]),"#,
        r#"    // a branch on "bank" == name is refused"#,
        r#"        c.downcast_ref::<std::io::Error>()"#,
    ] {
        assert!(
            offending_lines(mention).is_empty(),
            "wrongly caught: {mention}"
        );
    }
}
