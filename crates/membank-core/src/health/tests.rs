use super::names::name_problem;
use super::*;
use std::fs;
use std::path::Path;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

/// A bank with every numbered folder and one sound article per content
/// folder, all linked to each other so nothing is orphaned.
fn healthy() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for f in Folder::ALL {
        fs::create_dir_all(r.join(f.dir_name())).unwrap();
    }
    fs::create_dir_all(r.join("00_INBOX/_archive")).unwrap();
    write(
        r,
        "01_CLIENTS/Acme.md",
        b"---\nclient: Acme\nlanguages: [\"en-US \xe2\x86\x92 nl-BE\"]\ndomains: [\"[[Legal]]\"]\nlast_updated: 2026-04-01\n---\n# Acme\n[[House]]\n",
    );
    write(
        r,
        "02_TERMINOLOGY/compliance.md",
        b"---\nterm_source: compliance\nterm_target: naleving\nsource_lang: en-US\ntarget_lang: nl-BE\nstatus: approved\ndomain: \"[[Legal]]\"\nclients: [\"[[Acme]]\"]\nlast_updated: 2026-04-01\n---\n# compliance\n",
    );
    write(
        r,
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlanguages: [en, nl]\nlast_updated: 2026-04-01\n---\n# Legal\n[[compliance]]\n",
    );
    write(
        r,
        "04_STYLE/House.md",
        b"---\nscope: general\nlanguages: [nl-BE]\nlast_updated: 2026-04-01\n---\n# House\n[[Acme]]\n",
    );
    write(
        r,
        "00_INBOX/_archive/note.md",
        b"---\ncompiled: true\ncompiled_date: 2026-04-02\ncompiled_to: [\"01_CLIENTS/Acme.md\"]\n---\nraw\n",
    );
    write(r, "06_TEMPLATES/query.md", b"prompt\n");
    d
}

fn opts() -> HealthOptions {
    HealthOptions {
        stale_after_days: 365,
        today: jiff::civil::date(2026, 6, 1),
    }
}

fn run(d: &tempfile::TempDir) -> HealthReport {
    check(&Bank::load(d.path()).unwrap(), &opts())
}

fn codes_for<'a>(r: &'a HealthReport, path: &str) -> Vec<&'a str> {
    r.findings
        .iter()
        .filter(|f| *f.path == *path)
        .map(|f| f.code())
        .collect()
}

fn only<'a>(r: &'a HealthReport, code: &str) -> Vec<&'a Finding> {
    r.findings.iter().filter(|f| f.code() == code).collect()
}

#[test]
fn healthy_bank_has_no_findings() {
    let d = healthy();
    let r = run(&d);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.counts, Counts::default());
}

#[test]
fn unparsable_frontmatter_gives_the_yaml_line() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Broken.md",
        b"---\ndomain: Tax\nlast_updated: 2026-04-01\nlanguages: [en, nl\n---\n# Broken\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Open.md",
        b"---\ndomain: Open\n# never closed\n",
    );
    let r = run(&d);
    let f = only(&r, "unparsable-frontmatter");
    assert_eq!(f.len(), 2);
    assert_eq!(&*f[0].path, "03_DOMAINS/Broken.md");
    assert_eq!(f[0].severity, Severity::Error);
    assert!(f[0].line().unwrap() >= 4, "{:?}", f[0]);
    assert_eq!(&*f[1].path, "03_DOMAINS/Open.md");
    assert_eq!(f[1].line(), Some(1));
    assert!(r.has_errors());
}

/// A frontmatter block over the size bound is refused whatever its shape,
/// by the loaded bank's check and by the command's streamed one alike: a
/// block of plain keys was read whole at any size.
#[test]
fn frontmatter_over_the_size_bound_is_unparsable_in_any_shape() {
    let d = healthy();
    let note = "x".repeat(300_000);
    let plain = format!("---\nclient: \"Huge\"\nnote: \"{note}\"\n---\n# Huge\n");
    let anchored = format!("---\nclient: &c \"Huger\"\nnote: \"{note}\"\n---\n# Huger\n");
    write(d.path(), "01_CLIENTS/Huge.md", plain.as_bytes());
    write(d.path(), "01_CLIENTS/Huger.md", anchored.as_bytes());
    let loaded = run(&d);
    let (_, streamed) = super::check_streamed(d.path(), &opts()).unwrap();
    for r in [&loaded, &streamed] {
        let f = only(r, "unparsable-frontmatter");
        let paths: Vec<&str> = f.iter().map(|f| &*f.path).collect();
        assert_eq!(paths, ["01_CLIENTS/Huge.md", "01_CLIENTS/Huger.md"]);
        assert!(
            f[0].message().contains("more than 64 KB"),
            "{}",
            f[0].message()
        );
    }
}

#[test]
fn missing_frontmatter_only_matters_in_content_folders() {
    let d = healthy();
    write(d.path(), "04_STYLE/Plain.md", b"# Plain\nno keys\n");
    write(d.path(), "05_INDICES/Index.md", b"# Index\n[[Acme]]\n");
    let r = run(&d);
    let f = only(&r, "missing-frontmatter");
    assert_eq!(f.len(), 1);
    assert_eq!(&*f[0].path, "04_STYLE/Plain.md");
    assert_eq!(f[0].severity, Severity::Error);
}

#[test]
fn fenced_frontmatter_is_a_warning_with_the_fence_line() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Fenced.md",
        b"\n```markdown\n---\ndomain: Fenced\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# F\n[[Legal]]\n```\n",
    );
    // A raw inbox note that merely starts with a code block is not fenced
    // frontmatter.
    write(d.path(), "00_INBOX/code.md", b"```\nx = 1\n```\n");
    let r = run(&d);
    let f = only(&r, "fenced-frontmatter");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(&*f[0].path, "03_DOMAINS/Fenced.md");
    assert_eq!(f[0].line(), Some(2));
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(
        codes_for(&r, "03_DOMAINS/Fenced.md")
            .iter()
            .all(|c| *c == "fenced-frontmatter" || *c == "orphan")
    );
}

#[test]
fn bom_is_reported_but_crlf_is_not() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Bom.md",
        b"\xef\xbb\xbf---\ndomain: Bom\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Crlf.md",
        b"---\r\ndomain: Crlf\r\nlanguages: [en]\r\nlast_updated: 2026-04-01\r\n---\r\n[[Bom]]\r\n",
    );
    let r = run(&d);
    let bom = only(&r, "bom");
    assert_eq!(bom.len(), 1);
    assert_eq!(&*bom[0].path, "03_DOMAINS/Bom.md");
    assert_eq!(bom[0].line(), Some(1));
    assert_eq!(codes_for(&r, "03_DOMAINS/Crlf.md"), vec!["orphan"]);
}

#[test]
fn not_utf8_names_the_line() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Latin.md",
        b"---\ndomain: Caf\xe9\n---\n",
    );
    let r = run(&d);
    let f = only(&r, "not-utf8");
    assert_eq!(f.len(), 1);
    assert_eq!(&*f[0].path, "03_DOMAINS/Latin.md");
    assert_eq!(f[0].line(), Some(2));
    assert_eq!(f[0].severity, Severity::Error);
}

#[test]
fn missing_keys_per_folder() {
    let d = healthy();
    write(
        d.path(),
        "02_TERMINOLOGY/thin.md",
        b"---\nterm_source: thin\nterm_target: dun\nsource_lang: en\ntarget_lang:\nstatus: proposed\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    write(
        d.path(),
        "01_CLIENTS/Beta.md",
        b"---\nclient: Beta\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Acme]]\n",
    );
    let r = run(&d);
    let mut got: Vec<(&str, Severity, Option<usize>, bool)> = only(&r, "missing-key")
        .iter()
        .map(|f| {
            let key = ["target_lang", "domains", "domain", "clients"]
                .into_iter()
                .find(|k| f.message().contains(&format!("key {k} ")))
                .unwrap();
            (key, f.severity, f.line(), f.path.ends_with("thin.md"))
        })
        .collect();
    got.sort_by_key(|g| g.0);
    assert_eq!(
        got,
        vec![
            ("clients", Severity::Warning, None, true),
            ("domain", Severity::Warning, None, true),
            ("domains", Severity::Warning, None, false),
            ("target_lang", Severity::Error, Some(5), true),
        ]
    );
}

#[test]
fn archived_inbox_files_need_their_stamp() {
    let d = healthy();
    write(
        d.path(),
        "00_INBOX/_archive/half.md",
        b"---\ncompiled: true\n---\n",
    );
    let r = run(&d);
    let f = only(&r, "missing-key");
    assert_eq!(f.len(), 2);
    assert!(f.iter().all(|f| f.severity == Severity::Warning));
}

#[test]
fn bad_dates() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Dated.md",
        b"---\ndomain: Dated\nlanguages: [en]\nlast_updated: 2026-02-30\n---\n[[Legal]]\n",
    );
    write(
        d.path(),
        "00_INBOX/_archive/d.md",
        b"---\ncompiled: true\ncompiled_date: 8 April 2026\ncompiled_to: []\n---\n",
    );
    let r = run(&d);
    let f = only(&r, "bad-date");
    let at: Vec<(&str, Option<usize>)> = f.iter().map(|f| (&*f.path, f.line())).collect();
    assert_eq!(
        at,
        vec![
            ("00_INBOX/_archive/d.md", Some(3)),
            ("03_DOMAINS/Dated.md", Some(4))
        ]
    );
    // The sound dates of the healthy bank are not reported.
    assert!(f.iter().all(|f| f.severity == Severity::Error));
}

#[test]
fn bad_status() {
    let d = healthy();
    let term = |status: &str| {
        format!(
            "---\nterm_source: x\nterm_target: y\nsource_lang: en\ntarget_lang: nl\nstatus: {status}\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n"
        )
    };
    write(d.path(), "02_TERMINOLOGY/a.md", term("Approved").as_bytes());
    write(d.path(), "02_TERMINOLOGY/b.md", term("final").as_bytes());
    write(d.path(), "02_TERMINOLOGY/c.md", term("rejected").as_bytes());
    let r = run(&d);
    let f = only(&r, "bad-status");
    let paths: Vec<&str> = f.iter().map(|f| &*f.path).collect();
    assert_eq!(paths, vec!["02_TERMINOLOGY/a.md", "02_TERMINOLOGY/b.md"]);
    assert!(f[0].message().contains("Write it as “approved”"));
    assert_eq!(f[0].line(), Some(6));
}

#[test]
fn language_tags() {
    for ok in [
        "en",
        "no",
        "nl-BE",
        "en-US",
        "zh-Hant-TW",
        "es-419",
        "sr-Latn",
        "de-CH-1901",
        "x-klingon",
        "en-GB-oxendict",
        "zh-yue",
        "EN-us",
        "en-a-bbb-x-ccc",
    ] {
        assert!(is_plausible_language_tag(ok), "{ok}");
    }
    for bad in [
        "English",
        "en_US",
        "e",
        "",
        "en-",
        "-en",
        "en--US",
        "nl BE",
        "en-US-",
        "12",
        "en-a",
        "x",
        "Nederlands",
    ] {
        assert!(!is_plausible_language_tag(bad), "{bad}");
    }
}

#[test]
fn a_scored_key_of_a_shape_nothing_reads_is_reported_on_both_checks() {
    let d = healthy();
    write(
        d.path(),
        "01_CLIENTS/Mapped.md",
        "---\nclient: Mapped\nlanguages:\n  source: en\n  target: nl\n\
         domains: [[Legal, Medical]]\nlast_updated: 2026-04-01\n---\n[[House]]\n"
            .as_bytes(),
    );
    // Read as written: a list, a link left unquoted, an empty list.
    write(
        d.path(),
        "01_CLIENTS/Fine.md",
        "---\nclient: Fine\nlanguages: [en, nl]\ndomains: [[Legal]]\nclients: []\n\
         last_updated: 2026-04-01\n---\n[[House]]\n"
            .as_bytes(),
    );
    let r = run(&d);
    let got: Vec<(&str, Option<usize>, bool)> = only(&r, "unread-value")
        .iter()
        .map(|f| (&*f.path, f.line(), f.message().contains("earns no point")))
        .collect();
    assert_eq!(
        got,
        [
            ("01_CLIENTS/Mapped.md", Some(3), true),
            ("01_CLIENTS/Mapped.md", Some(6), true)
        ]
    );
    let shapes: Vec<String> = only(&r, "unread-value")
        .iter()
        .map(|f| f.message().into_owned())
        .collect();
    assert!(shapes[0].starts_with("languages is a map"), "{shapes:?}");
    assert!(
        shapes[1].starts_with("domains is a list of lists or maps"),
        "{shapes:?}"
    );
    let (_, streamed) = check_streamed(d.path(), &opts()).unwrap();
    assert_eq!(
        only(&streamed, "unread-value").len(),
        2,
        "the streamed check keeps such a block"
    );
}

#[test]
fn bad_language_codes_are_reported_with_a_hint() {
    let d = healthy();
    write(
        d.path(),
        "04_STYLE/Codes.md",
        "---\nscope: general\nlanguages: [\"English → nl_BE\", \"no\"]\nlast_updated: 2026-04-01\n---\n[[House]]\n"
            .as_bytes(),
    );
    let r = run(&d);
    let f = only(&r, "bad-language-code");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].line(), Some(3));
    assert!(
        f[0].message().contains("“English”, “nl_BE”"),
        "{}",
        f[0].message()
    );
    assert!(
        f[0].message().contains("en for English"),
        "{}",
        f[0].message()
    );
}

#[test]
fn norwegian_is_a_language() {
    let d = healthy();
    write(
        d.path(),
        "02_TERMINOLOGY/invoice.md",
        b"---\nterm_source: invoice\nterm_target: faktura\nsource_lang: en\ntarget_lang: no\nstatus: approved\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    let r = run(&d);
    assert_eq!(codes_for(&r, "02_TERMINOLOGY/invoice.md"), vec!["orphan"]);
}

#[test]
fn bad_file_names() {
    assert_eq!(name_problem("a?b.md").unwrap().0, Severity::Error);
    assert_eq!(name_problem("a\u{7}.md").unwrap().0, Severity::Error);
    assert_eq!(name_problem("CON.md").unwrap().0, Severity::Warning);
    assert_eq!(name_problem("lpt3.md").unwrap().0, Severity::Warning);
    assert_eq!(name_problem("draft.md.").unwrap().0, Severity::Warning);
    assert_eq!(name_problem("draft ").unwrap().0, Severity::Warning);
    assert!(name_problem("compliance → naleving (EU).md").is_none());
    assert!(name_problem("Console.md").is_none());
    assert!(name_problem("COM10.md").is_none());
    assert_eq!(name_problem("CON .md").unwrap().0, Severity::Warning);
    assert_eq!(name_problem("Nul").unwrap().0, Severity::Warning);
    assert!(name_problem("Ñandú, (zoölogy).md").is_none());
    assert_eq!(name_problem("com².md").unwrap().0, Severity::Warning);
    assert_eq!(name_problem("CONIN$.md").unwrap().0, Severity::Warning);
    // The part before the first dot, with white space of any kind after it.
    assert_eq!(name_problem("CON\u{a0}.md").unwrap().0, Severity::Warning);
    assert_eq!(
        name_problem("aux\u{2003}.x.md").unwrap().0,
        Severity::Warning
    );
    assert!(name_problem("Glossary .v2.md").is_none());
    assert!(name_problem("Nul7 .md").is_none());
}

#[cfg(unix)]
#[test]
fn bad_file_names_in_a_bank() {
    let d = healthy();
    let body = b"---\ndomain: X\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n";
    write(d.path(), "03_DOMAINS/What?.md", body);
    write(d.path(), "03_DOMAINS/legal.md", body);
    write(d.path(), "03_DOMAINS/sub:dir/Deep.md", body);
    let r = run(&d);
    let mut f: Vec<(&str, Severity)> = only(&r, "bad-filename")
        .iter()
        .map(|f| (&*f.path, f.severity))
        .collect();
    f.sort();
    assert_eq!(
        f,
        vec![
            ("03_DOMAINS/Legal.md", Severity::Warning),
            ("03_DOMAINS/What?.md", Severity::Error),
            ("03_DOMAINS/legal.md", Severity::Warning),
            ("03_DOMAINS/sub:dir", Severity::Error),
        ]
    );
}

#[test]
fn dead_and_ambiguous_links() {
    let d = healthy();
    write(
        d.path(),
        "04_STYLE/Links.md",
        b"---\nscope: general\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# L\n\n[[Nowhere yet]] [[Acme]]\n[[Twin]]\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Twin.md",
        b"---\ndomain: T\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Links]]\n",
    );
    write(
        d.path(),
        "04_STYLE/twin.md",
        b"---\nscope: x\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n",
    );
    // Raw inbox notes may mention articles that do not exist yet.
    write(d.path(), "00_INBOX/idea.md", b"[[Someday]]\n");
    let r = run(&d);
    let dead = only(&r, "dead-link");
    assert_eq!(dead.len(), 1);
    assert_eq!(
        (&*dead[0].path, dead[0].line()),
        ("04_STYLE/Links.md", Some(8))
    );
    assert!(dead[0].message().contains("forward reference"));
    let amb = only(&r, "ambiguous-link");
    assert_eq!(amb.len(), 1);
    assert_eq!(amb[0].line(), Some(9));
    assert!(amb[0].message().contains("03_DOMAINS/Twin.md"));
    assert!(amb[0].message().contains("04_STYLE/twin.md"));
}

#[test]
fn orphans_are_content_articles_nobody_links_to() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Alone.md",
        b"---\ndomain: Alone\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    let r = run(&d);
    let f = only(&r, "orphan");
    assert_eq!(f.len(), 1);
    assert_eq!(&*f[0].path, "03_DOMAINS/Alone.md");
    assert_eq!(f[0].severity, Severity::Info);
}

/// A file whose name a `[[wikilink]]` cannot hold is advised a Markdown
/// link, and that link, written where the advice says, ends the finding.
#[test]
fn orphan_advice_for_a_name_a_wikilink_cannot_hold_is_a_link_that_works() {
    for (name, advised) in [
        ("C# notes", "[C# notes](03_DOMAINS/C%23%20notes.md)"),
        ("x[1]", "[x\\[1\\]](03_DOMAINS/x[1].md)"),
        ("p|q", "[p|q](03_DOMAINS/p|q.md)"),
        ("a^b", "[a^b](03_DOMAINS/a^b.md)"),
    ] {
        let d = healthy();
        let rel = format!("03_DOMAINS/{name}.md");
        write(
            d.path(),
            &rel,
            b"---\ndomain: X\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
        );
        let r = run(&d);
        let f = only(&r, "orphan");
        assert_eq!(f.len(), 1, "{name}");
        let message = f[0].message();
        assert!(
            message.ends_with(&format!("so write the Markdown link {advised}.")),
            "{message}"
        );
        assert!(!message.contains(&format!("[[{name}]]")), "{message}");
        // From a client in a subfolder too: the path is from the root.
        write(
            d.path(),
            "01_CLIENTS/sub/Beta.md",
            format!("---\nclient: Beta\n---\nsee {advised}\n").as_bytes(),
        );
        let r = run(&d);
        assert!(
            only(&r, "orphan").iter().all(|f| *f.path != *rel),
            "{name}: {:?}",
            codes_for(&r, &rel)
        );
    }
}

fn term(source: &str, target: &str, sl: &str, tl: &str, status: &str) -> Vec<u8> {
    format!(
        "---\nterm_source: {source}\nterm_target: {target}\nsource_lang: {sl}\ntarget_lang: {tl}\nstatus: {status}\ndomain: a\nclients: b\nlast_updated: 2026-04-01\n---\n[[Legal]]\n"
    )
    .into_bytes()
}

#[test]
fn term_conflicts_need_two_approved_terms_for_the_same_pair() {
    let d = healthy();
    let r = d.path();
    write(
        r,
        "02_TERMINOLOGY/a.md",
        &term("Invoice", "factuur", "en-US", "nl-BE", "approved"),
    );
    write(
        r,
        "02_TERMINOLOGY/b.md",
        &term("invoice", "rekening", "EN-us", "nl-be", "approved"),
    );
    // Not conflicts: proposed, other pair, same target.
    write(
        r,
        "02_TERMINOLOGY/c.md",
        &term("invoice", "nota", "en-US", "nl-BE", "proposed"),
    );
    write(
        r,
        "02_TERMINOLOGY/d.md",
        &term("invoice", "Rechnung", "en-US", "de-DE", "approved"),
    );
    write(
        r,
        "02_TERMINOLOGY/e.md",
        &term("invoice", "factuur", "en-US", "nl-BE", "approved"),
    );
    let rep = run(&d);
    let f = only(&rep, "term-conflict");
    let paths: Vec<&str> = f.iter().map(|f| &*f.path).collect();
    assert_eq!(
        paths,
        vec![
            "02_TERMINOLOGY/a.md",
            "02_TERMINOLOGY/b.md",
            "02_TERMINOLOGY/e.md"
        ]
    );
    assert!(f.iter().all(|f| f.severity == Severity::Error));
    assert!(f[0].message().contains("02_TERMINOLOGY/b.md"));
    assert!(!f[0].message().contains("02_TERMINOLOGY/e.md"));
    assert!(
        f[1].message().contains("02_TERMINOLOGY/a.md")
            && f[1].message().contains("02_TERMINOLOGY/e.md")
    );
    assert_eq!(f[0].line(), Some(3));
}

#[test]
fn term_conflicts_are_between_terms_one_client_would_use() {
    let d = healthy();
    let r = d.path();
    let with_clients = |target: &str, clients: &str| {
        String::from_utf8(term("invoice", target, "en-US", "nl-BE", "approved"))
            .unwrap()
            .replace("clients: b", clients)
            .into_bytes()
    };
    // Two clients translating the term their own way: no conflict.
    write(
        r,
        "02_TERMINOLOGY/acme.md",
        &with_clients("factuur", "clients: \"[[Acme]]\""),
    );
    write(
        r,
        "02_TERMINOLOGY/beta.md",
        &with_clients("rekening", "clients: [\"[[Beta]]\"]"),
    );
    assert!(only(&run(&d), "term-conflict").is_empty());
    // A term for every client meets both.
    write(r, "02_TERMINOLOGY/all.md", &with_clients("nota", ""));
    let rep = run(&d);
    let f = only(&rep, "term-conflict");
    let paths: Vec<&str> = f.iter().map(|f| &*f.path).collect();
    assert_eq!(
        paths,
        [
            "02_TERMINOLOGY/acme.md",
            "02_TERMINOLOGY/all.md",
            "02_TERMINOLOGY/beta.md"
        ]
    );
    assert!(!f[0].message().contains("beta.md"));
    assert!(f[1].message().contains("acme.md") && f[1].message().contains("beta.md"));
}

#[test]
fn term_conflict_in_letter_case_only_is_a_warning() {
    let d = healthy();
    write(
        d.path(),
        "02_TERMINOLOGY/a.md",
        &term("euro", "Euro", "en", "de", "approved"),
    );
    write(
        d.path(),
        "02_TERMINOLOGY/b.md",
        &term("euro", "euro", "en", "de", "approved"),
    );
    let r = run(&d);
    let f = only(&r, "term-conflict");
    assert_eq!(f.len(), 2);
    assert!(f.iter().all(|f| f.severity == Severity::Warning));
}

#[test]
fn inbox_states() {
    let d = healthy();
    write(d.path(), "00_INBOX/new.md", b"raw notes\n");
    write(
        d.path(),
        "00_INBOX/half-done.md",
        b"---\ncompiled: true\ncompiled_date: 2026-04-02\ncompiled_to: []\n---\n",
    );
    let r = run(&d);
    assert_eq!(codes_for(&r, "00_INBOX/new.md"), vec!["unprocessed-inbox"]);
    let f = only(&r, "compiled-not-archived");
    assert_eq!(f.len(), 1);
    assert_eq!(&*f[0].path, "00_INBOX/half-done.md");
    assert_eq!(f[0].line(), Some(2));
    // Archived files are neither pending nor misplaced.
    assert!(codes_for(&r, "00_INBOX/_archive/note.md").is_empty());
}

#[test]
fn stale_articles() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Old.md",
        b"---\ndomain: Old\nlanguages: [en]\nlast_updated: 2025-05-31\n---\n[[Legal]]\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Edge.md",
        b"---\ndomain: Edge\nlanguages: [en]\nlast_updated: 2025-06-01\n---\n[[Old]]\n",
    );
    let bank = Bank::load(d.path()).unwrap();
    let r = check(&bank, &opts());
    let f = only(&r, "stale");
    assert_eq!(f.len(), 1);
    assert_eq!((&*f[0].path, f[0].line()), ("03_DOMAINS/Old.md", Some(4)));
    let off = check(
        &bank,
        &HealthOptions {
            stale_after_days: 0,
            ..opts()
        },
    );
    assert!(only(&off, "stale").is_empty());
    let ancient = check(
        &bank,
        &HealthOptions {
            stale_after_days: u32::MAX,
            ..opts()
        },
    );
    assert!(only(&ancient, "stale").is_empty());
    let strict = check(
        &bank,
        &HealthOptions {
            stale_after_days: 30,
            ..opts()
        },
    );
    assert_eq!(only(&strict, "stale").len(), 6);
}

#[test]
fn leftovers_and_other_files() {
    let d = healthy();
    write(d.path(), "03_DOMAINS/Legal.md.4711.tmp", b"partial");
    write(d.path(), "03_DOMAINS/diagram.png", b"\x89PNG");
    write(d.path(), "00_INBOX/source.pdf", b"%PDF");
    write(d.path(), "02_TERMINOLOGY/_draft.md", b"x");
    write(d.path(), "02_TERMINOLOGY/_EXAMPLE_Term.md", b"x");
    write(d.path(), "06_TEMPLATES/complie.md", b"x");
    write(d.path(), "06_TEMPLATES/old/lint.md", b"x");
    write(d.path(), "06_TEMPLATES/translate_with_kb.md", b"x");
    let r = run(&d);
    let got: Vec<(&str, &str)> = r.findings.iter().map(|f| (f.code(), &*f.path)).collect();
    assert_eq!(
        got,
        vec![
            ("tmp-leftover", "03_DOMAINS/Legal.md.4711.tmp"),
            ("unknown-template", "06_TEMPLATES/complie.md"),
            ("unknown-template", "06_TEMPLATES/old/lint.md"),
            ("skipped-file", "02_TERMINOLOGY/_draft.md"),
            ("not-markdown", "03_DOMAINS/diagram.png"),
            ("renamed-template", "06_TEMPLATES/translate_with_kb.md"),
        ]
    );
}

/// An override the agent cannot use falls back to the bundled template
/// without a word in the agent's run: the check names it.
#[cfg(unix)]
#[test]
fn an_agent_template_the_agent_cannot_read_is_named() {
    let d = healthy();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("lint.md"), "elsewhere\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("lint.md"),
        d.path().join("06_TEMPLATES/lint.md"),
    )
    .unwrap();
    write(
        d.path(),
        "06_TEMPLATES/translate_with_memory_bank.md",
        b"caf\xe9\n",
    );
    let fifo = d.path().join("06_TEMPLATES/compile.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let r = run(&d);
    let got: Vec<(&str, &str)> = r.findings.iter().map(|f| (f.code(), &*f.path)).collect();
    assert!(
        got.contains(&("link-outside-bank", "06_TEMPLATES/lint.md")),
        "{got:?}"
    );
    assert!(
        got.contains(&("not-utf8", "06_TEMPLATES/translate_with_memory_bank.md")),
        "{got:?}"
    );
    if made.is_ok_and(|s| s.success()) {
        assert!(
            got.contains(&("not-a-file", "06_TEMPLATES/compile.md")),
            "{got:?}"
        );
    } else {
        eprintln!(
            "SKIPPED the FIFO case of an_agent_template_the_agent_cannot_read_is_named: no mkfifo"
        );
    }
    let why = &r
        .findings
        .iter()
        .find(|f| f.path.ends_with("lint.md"))
        .unwrap()
        .message();
    assert!(why.contains("bundled template"), "{why}");
}

/// The advice fits what went wrong: lines the tools cannot see, a block
/// beyond membank's own bounds (valid YAML), a link inside a list.
#[test]
fn frontmatter_advice_fits_the_problem() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Cr.md",
        b"---\rdomain: Cr\rlast_updated: 2026-01-01\r---\rbody\r",
    );
    let big = format!("---\ndomain: Big\nnote: \"{}\"\n---\n", "y".repeat(70_000));
    write(d.path(), "03_DOMAINS/Big.md", big.as_bytes());
    write(
        d.path(),
        "03_DOMAINS/Listed.md",
        b"---\ndomain: Listed\nlast_updated: 2026-01-01\nrelated_domains: [[[Legal]], Marketing]\n---\n",
    );
    let r = run(&d);
    let about = |path: &str, code: &str| {
        r.findings
            .iter()
            .find(|f| &*f.path == path && f.code() == code)
            .unwrap_or_else(|| panic!("no {code} for {path}: {:?}", r.findings))
            .message()
            .into_owned()
    };
    let cr = about("03_DOMAINS/Cr.md", "missing-frontmatter");
    assert!(cr.contains("carriage return alone"), "{cr}");
    let big = about("03_DOMAINS/Big.md", "unparsable-frontmatter");
    assert!(
        big.contains("beyond what membank reads")
            && !big.contains("not valid YAML")
            && !big.contains("invisible to other memory bank tools"),
        "{big}"
    );
    let listed = about("03_DOMAINS/Listed.md", "unquoted-link");
    assert!(listed.contains("[\"[[Legal]]\", …]"), "{listed}");
}

/// A note whose name ends in a space is suggested in the one spelling a
/// link can open it by, not as the dead link itself.
#[test]
fn a_name_ending_in_a_space_is_suggested_with_its_extension() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Space .md",
        b"---\ndomain: Space\nlast_updated: 2026-01-01\n---\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Linker.md",
        b"---\ndomain: Linker\nlast_updated: 2026-01-01\n---\nSee [[Space ]].\n",
    );
    let r = run(&d);
    let dead = r
        .findings
        .iter()
        .find(|f| f.code() == "dead-link" && f.path.ends_with("Linker.md"))
        .unwrap_or_else(|| panic!("{:?}", r.findings));
    assert!(
        dead.message().contains("Did you mean [[Space .md]]?"),
        "{}",
        dead.message()
    );
}

#[test]
fn folders() {
    let d = healthy();
    fs::remove_dir_all(d.path().join("05_INDICES")).unwrap();
    fs::remove_dir_all(d.path().join("00_INBOX/_archive")).unwrap();
    fs::create_dir_all(d.path().join("Projects")).unwrap();
    fs::create_dir_all(d.path().join(".obsidian")).unwrap();
    let r = run(&d);
    let got: Vec<(&str, Severity, &str)> = r
        .findings
        .iter()
        .map(|f| (f.code(), f.severity, &*f.path))
        .collect();
    assert_eq!(
        got,
        vec![
            ("missing-folder", Severity::Warning, "05_INDICES"),
            ("unknown-folder", Severity::Info, "Projects"),
        ]
    );
    assert_eq!(r.by_code.get("missing-folder"), Some(&1));
    assert_eq!(r.counts.warning, 1);
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_reported_not_followed() {
    let d = healthy();
    let elsewhere = tempfile::tempdir().unwrap();
    write(elsewhere.path(), "Outside.md", b"# not part of the bank\n");
    std::os::unix::fs::symlink(elsewhere.path(), d.path().join("03_DOMAINS/linked")).unwrap();
    let r = run(&d);
    let got: Vec<(&str, Severity, &str)> = r
        .findings
        .iter()
        .map(|f| (f.code(), f.severity, &*f.path))
        .collect();
    assert_eq!(
        got,
        vec![("symlinked-folder", Severity::Warning, "03_DOMAINS/linked")]
    );
}

#[test]
fn findings_are_sorted_and_repeatable() {
    let d = healthy();
    write(d.path(), "04_STYLE/Plain.md", b"# Plain [[Gone]]\n");
    write(d.path(), "00_INBOX/new.md", b"raw\n");
    write(d.path(), "03_DOMAINS/x.tmp", b"");
    let bank = Bank::load(d.path()).unwrap();
    let a = check(&bank, &opts());
    let b = check(&bank, &opts());
    assert_eq!(a.findings, b.findings);
    let keys: Vec<_> = a
        .findings
        .iter()
        .map(|f| (f.severity, f.path.clone(), f.line(), f.code()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(a.findings[0].severity, Severity::Error);
}

#[test]
fn every_code_is_documented() {
    let doc = include_str!("../../../../docs/health-checks.md");
    for (code, _) in CODES {
        assert!(
            doc.contains(&format!("`{code}`")),
            "{code} is not documented"
        );
    }
}

#[test]
fn severities_serialise_lower_case() {
    assert_eq!(
        serde_json::to_string(&Severity::Warning).unwrap(),
        "\"warning\""
    );
}

const DOMAIN_HEAD: &str = "---\ndomain: D\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n";

fn domain(body: &str) -> Vec<u8> {
    format!("{DOMAIN_HEAD}{body}").into_bytes()
}

/// Every way Obsidian reaches a file, from one article.
fn obsidian_links_bank() -> tempfile::TempDir {
    let d = healthy();
    let r = d.path();
    write(r, "03_DOMAINS/Finance.md", &domain("[[Legal]]\n"));
    write(r, "03_DOMAINS/legal/contract.md", &domain("[[Legal]]\n"));
    write(
        r,
        "03_DOMAINS/archive/old/legal/contract.md",
        &domain("old\n"),
    );
    write(r, "03_DOMAINS/img/diagram.png", b"\x89PNG");
    write(r, "03_DOMAINS/icon.svg", b"<svg/>");
    write(r, "03_DOMAINS/report.pdf", b"%PDF");
    write(r, "03_DOMAINS/stray.png", b"\x89PNG");
    write(r, "03_DOMAINS/_draft.md", b"draft\n");
    write(r, "05_INDICES/Overview.md", b"# Overview\n");
    write(r, "00_INBOX/idea.md", b"raw\n");
    write(
        r,
        "01_CLIENTS/Links.md",
        b"---\nclient: L\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n\
          | Area | Link |\n|---|---|\n| law | [[Legal\\|the legal domain]] |\n\n\
          ![[diagram.png]] ![[icon.svg#icon]] [[report.pdf]]\n\
          [[../03_DOMAINS/Legal|Legal]] [[./House]] [[legal/contract]]\n\
          [[Overview]] [[idea]] [[_draft]]\n\
          [money](../03_DOMAINS/Finance.md) [[./Nope]]\n",
    );
    d
}

#[test]
fn links_obsidian_resolves_are_not_dead() {
    let d = obsidian_links_bank();
    let r = run(&d);
    let dead: Vec<(&str, Option<usize>)> = only(&r, "dead-link")
        .iter()
        .map(|f| (&*f.path, f.line()))
        .collect();
    // `[[./House]]` looks in 01_CLIENTS, where there is no House.md.
    assert_eq!(
        dead,
        vec![
            ("01_CLIENTS/Links.md", Some(11)),
            ("01_CLIENTS/Links.md", Some(13))
        ],
        "{:#?}",
        only(&r, "dead-link")
    );
    assert!(only(&r, "dead-link")[1].message().contains("[[./Nope]]"));
    let bank = Bank::load(d.path()).unwrap();
    let links = bank.find("01_CLIENTS/Links.md").unwrap();
    let contract = bank.find("03_DOMAINS/legal/contract.md").unwrap();
    let legal = bank.find("03_DOMAINS/Legal.md").unwrap();
    let finance = bank.find("03_DOMAINS/Finance.md").unwrap();
    for target in [contract, legal, finance] {
        assert!(bank.backlinks(target).contains(links), "{target}");
    }
}

#[test]
fn an_embedded_attachment_is_not_advised_to_move() {
    let d = obsidian_links_bank();
    let r = run(&d);
    let msg = |path: &str| {
        only(&r, "not-markdown")
            .into_iter()
            .find(|f| *f.path == *path)
            .map(|f| f.message().into_owned())
            .unwrap_or_default()
    };
    let embedded = msg("03_DOMAINS/img/diagram.png");
    assert!(embedded.contains("01_CLIENTS/Links.md"), "{embedded}");
    assert!(!embedded.contains("move it"), "{embedded}");
    assert!(msg("03_DOMAINS/stray.png").contains("nothing links to"));
}

#[test]
fn markdown_links_count_but_commented_and_code_links_do_not() {
    let d = healthy();
    let r = d.path();
    write(r, "03_DOMAINS/Tax.md", &domain("[[Legal]]\n"));
    write(r, "03_DOMAINS/Hidden.md", &domain("[[Legal]]\n"));
    write(r, "03_DOMAINS/Coded.md", &domain("[[Legal]]\n"));
    write(
        r,
        "03_DOMAINS/Hub.md",
        &domain(
            "[Tax rules](Tax.md)\n%% not yet: [[Hidden]] %%\n`[[Coded]]`\n\n```\n[[Coded]]\n```\n[[Legal]]\n",
        ),
    );
    write(r, "04_STYLE/House.md", b"---\nscope: general\nlanguages: [nl-BE]\nlast_updated: 2026-04-01\n---\n# House\n[[Acme]] [[Hub]]\n");
    let report = run(&d);
    let orphans: Vec<&str> = only(&report, "orphan").iter().map(|f| &*f.path).collect();
    assert_eq!(orphans, vec!["03_DOMAINS/Coded.md", "03_DOMAINS/Hidden.md"]);
    assert!(only(&report, "dead-link").is_empty());
}

#[test]
fn ambiguous_links_and_orphans_agree_and_say_how_to_choose() {
    let d = healthy();
    let r = d.path();
    write(
        r,
        "04_STYLE/sub/legal.md",
        b"---\nscope: x\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Acme]]\n",
    );
    let report = run(&d);
    let amb = only(&report, "ambiguous-link");
    let from_acme: Vec<&&Finding> = amb
        .iter()
        .filter(|f| &*f.path == "01_CLIENTS/Acme.md")
        .collect();
    assert_eq!(from_acme.len(), 1, "{:#?}", report.findings);
    let m = &from_acme[0].message();
    assert!(
        m.contains("03_DOMAINS/Legal.md") && m.contains("04_STYLE/sub/legal.md"),
        "{m}"
    );
    // It opens the shortest path; the other file is reached by nothing.
    assert!(m.contains("It opens “03_DOMAINS/Legal.md”"), "{m}");
    assert!(m.contains("[[03_DOMAINS/Legal]]"), "{m}");
    assert!(m.contains("never reaches the other"), "{m}");
    let orphans: Vec<&str> = only(&report, "orphan").iter().map(|f| &*f.path).collect();
    assert_eq!(orphans, vec!["04_STYLE/sub/legal.md"]);
}

#[test]
fn an_unquoted_frontmatter_link_is_read_and_reported() {
    let d = healthy();
    let r = d.path();
    write(
        r,
        "01_CLIENTS/Beta.md",
        b"---\nclient: Beta\nlanguages: [en]\ndomains: [[Legal]]\nlast_updated: 2026-04-01\n---\n[[Acme]] [[Tax]]\n",
    );
    write(
        r,
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nrelated_domains:\n  - [[Beta]]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    let report = run(&d);
    let f = only(&report, "unquoted-link");
    assert_eq!(f.len(), 2, "{:#?}", report.findings);
    assert_eq!((&*f[0].path, f[0].line()), ("01_CLIENTS/Beta.md", Some(4)));
    assert!(
        f[0].message().contains("“domains: \"[[Legal]]\"”"),
        "{}",
        f[0].message()
    );
    assert_eq!((&*f[1].path, f[1].line()), ("03_DOMAINS/Tax.md", Some(4)));
    // Read as the link the author meant: Beta is linked, Legal scores.
    assert!(only(&report, "orphan").is_empty(), "{:#?}", report.findings);
    let bank = Bank::load(r).unwrap();
    let beta = bank.article(bank.find("01_CLIENTS/Beta.md").unwrap());
    assert_eq!(&*beta.meta.domains[0].folded, "legal");
}

#[test]
fn the_fence_fix_names_the_real_closing_line() {
    let d = healthy();
    // The reply's closing remark follows the closing fence.
    write(
        d.path(),
        "03_DOMAINS/Pasted.md",
        b"```markdown\n---\ndomain: P\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# P\n[[Legal]]\n```\n\nLet me know if you need more.\n",
    );
    let r = run(&d);
    let f = only(&r, "fenced-frontmatter");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].line(), Some(1));
    assert!(
        f[0].message().contains("line 1") && f[0].message().contains("line 9"),
        "{}",
        f[0].message()
    );
    assert!(
        !f[0].message().contains("bottom of the file"),
        "{}",
        f[0].message()
    );
}

/// A `~~~` fence is not called a ``` one.
#[test]
fn a_tilde_fence_is_not_named_as_backticks() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Tilde.md",
        b"~~~markdown\n---\ndomain: T\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# T\n[[Legal]]\n~~~\n",
    );
    let r = run(&d);
    let f = only(&r, "fenced-frontmatter");
    assert_eq!(f.len(), 1);
    assert!(!f[0].message().contains("```"), "{}", f[0].message());
    assert!(f[0].message().contains("code fence"), "{}", f[0].message());
}

#[test]
fn a_note_that_is_one_code_block_is_code_not_a_fenced_article() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Snippet.md",
        b"```python\n# not a heading\nlinks = \"[[Nowhere]]\"\n```\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Open snippet.md",
        b"\n~~~\n[[Nowhere either]]\n",
    );
    let r = run(&d);
    for path in ["03_DOMAINS/Snippet.md", "03_DOMAINS/Open snippet.md"] {
        let codes = codes_for(&r, path);
        assert!(!codes.contains(&"missing-frontmatter"), "{path}: {codes:?}");
        assert!(!codes.contains(&"fenced-frontmatter"), "{path}: {codes:?}");
        assert!(!codes.contains(&"dead-link"), "{path}: {codes:?}");
    }
    let bank = Bank::load(d.path()).unwrap();
    let snippet = bank.article(bank.find("03_DOMAINS/Snippet.md").unwrap());
    assert!(snippet.links.is_empty());
    assert!(snippet.text.starts_with("```python"), "nothing is stripped");
}

/// §4.3 strips the fence "before looking for the frontmatter": a pasted
/// reply with a blank line after ```` ```markdown ```` is read, and a
/// Markdown block holding no frontmatter is an article that lost it, not
/// a note of code: neither vanishes without a word.
#[test]
fn a_markdown_fence_is_an_article_whether_or_not_a_blank_line_follows_it() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Pasted.md",
        b"```markdown\n\n---\ndomain: Pasted\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# Pasted\n[[Legal]]\n```\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Lost.md",
        b"```markdown\nno frontmatter at all\n```\n",
    );
    let r = run(&d);
    let pasted: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| &*f.path == "03_DOMAINS/Pasted.md" && f.code() != "orphan")
        .collect();
    let codes: Vec<&str> = pasted.iter().map(|f| f.code()).collect();
    assert_eq!(codes, ["fenced-frontmatter"], "{pasted:?}");
    assert_eq!(pasted[0].line(), Some(1));
    assert!(
        pasted[0]
            .message()
            .contains("line 1, the blank line after it, and the closing fence on line 10"),
        "{}",
        pasted[0].message()
    );
    assert!(codes_for(&r, "03_DOMAINS/Lost.md").contains(&"missing-frontmatter"));

    let bank = Bank::load(d.path()).unwrap();
    let found: Vec<Finding> = r
        .findings
        .iter()
        .filter(|f| f.code() == "fenced-frontmatter")
        .cloned()
        .collect();
    let p = crate::fix::propose(&bank, &found, &jiff::tz::TimeZone::UTC);
    let fixed = p
        .fixes
        .iter()
        .find(|f| f.path == "03_DOMAINS/Pasted.md")
        .unwrap();
    let crate::fix::Action::Change { after, .. } = &fixed.action else {
        panic!("not a change")
    };
    assert_eq!(
        String::from_utf8(after.clone()).unwrap(),
        "---\ndomain: Pasted\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# Pasted\n[[Legal]]\n"
    );
}

#[test]
fn utf16_files_are_read_with_a_note() {
    let d = healthy();
    let text = "---\r\ndomain: Tax\r\nlanguages: [en]\r\nlast_updated: 2026-04-01\r\n---\r\n# Tax\r\n[[Legal]]\r\n";
    let bytes: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    write(d.path(), "03_DOMAINS/Tax.md", &bytes);
    let mut broken = vec![0xFE, 0xFF, 0, b'a', 0, b'\n'];
    broken.extend([0xDC, 0x00]);
    write(d.path(), "03_DOMAINS/Broken.md", &broken);
    let r = run(&d);
    assert_eq!(codes_for(&r, "03_DOMAINS/Tax.md"), vec!["utf16", "orphan"]);
    let note = &only(&r, "utf16")[0];
    assert_eq!(note.severity, Severity::Warning);
    assert!(note.message().contains("UTF-8"));
    let bad = only(&r, "not-utf8");
    assert_eq!(bad.len(), 1);
    assert_eq!(
        (&*bad[0].path, bad[0].line()),
        ("03_DOMAINS/Broken.md", Some(2))
    );
    assert!(bad[0].message().contains("UTF-16"), "{}", bad[0].message());
    assert!(
        !bad[0].message().contains("Windows-1252"),
        "{}",
        bad[0].message()
    );
    let bank = Bank::load(d.path()).unwrap();
    let tax = bank.article(bank.find("03_DOMAINS/Tax.md").unwrap());
    assert_eq!(&*tax.meta.domains[0].raw, "Tax");
}

#[test]
fn frontmatter_advice_fits_the_error() {
    use crate::frontmatter::YamlError;
    let d = healthy();
    write(d.path(), "03_DOMAINS/List.md", b"---\n- a\n- b\n---\n");
    let r = run(&d);
    let list = &only(&r, "unparsable-frontmatter")[0];
    assert!(
        list.message().contains("“key: value” lines"),
        "{}",
        list.message()
    );
    assert!(
        !list.message().contains("not valid YAML"),
        "{}",
        list.message()
    );
    // An error the parser cannot place gives no line, so no "line shown".
    let bank = Bank::load(d.path()).unwrap();
    let mut a = bank
        .article(bank.find("03_DOMAINS/Legal.md").unwrap())
        .clone();
    a.frontmatter = crate::article::FrontmatterState::Invalid(Box::new(YamlError {
        message: "recursion limit exceeded".into(),
        line: None,
    }));
    let mut out = Vec::new();
    super::frontmatter::frontmatter_findings(&a, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].line(), None);
    assert!(
        !out[0].message().contains("line shown"),
        "{}",
        out[0].message()
    );
}

#[test]
fn the_suggested_path_is_the_shortest_that_tells_the_files_apart() {
    let d = healthy();
    let r = d.path();
    write(r, "03_DOMAINS/sync/Privacy.md", &domain("[[Legal]]\n"));
    write(r, "03_DOMAINS/publish/Privacy.md", &domain("[[Legal]]\n"));
    write(r, "03_DOMAINS/publish/Publish.md", &domain("[[Privacy]]\n"));
    let report = run(&d);
    let amb = only(&report, "ambiguous-link");
    let m = &amb[0].message();
    assert!(
        m.contains("It opens “03_DOMAINS/publish/Privacy.md” (the one in this article's folder)"),
        "{m}"
    );
    assert!(m.contains("e.g. [[publish/Privacy]]"), "{m}");
}

#[test]
fn a_credential_in_an_article_is_an_error_naming_its_kind_and_line() {
    let d = healthy();
    let key = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    write(
        d.path(),
        "04_STYLE/Deploy.md",
        format!(
            "---\nscope: general\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# Deploy\n\
             [[Acme]]\nUpload with {key} please.\n"
        )
        .as_bytes(),
    );
    let r = run(&d);
    let found = only(&r, "secret");
    assert_eq!(found.len(), 1, "{:#?}", r.findings);
    assert_eq!(&*found[0].path, "04_STYLE/Deploy.md");
    assert_eq!(found[0].line(), Some(8));
    assert_eq!(found[0].severity, Severity::Error);
    let message = found[0].message();
    assert!(message.contains("an AWS access key"), "{message}");
    assert!(!message.contains(&key), "{message}");
}

/// A dead link says what it most likely is: a missing attachment, a slip
/// of an existing name (with the name), or a note still to be written.
#[test]
fn dead_links_say_missing_attachment_or_did_you_mean() {
    let d = healthy();
    write(
        d.path(),
        "03_DOMAINS/Travel and Tourism.md",
        b"---\ndomain: Travel\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n# Travel\n[[Legal]]\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlanguages: [en, nl]\nlast_updated: 2026-04-01\n---\n# Legal\n[[compliance]]\n\
          [[Travel & Tourism]]\n![[icon.svg]]\n[[report.pdf]]\n[[Nowhere]]\n[[Complience]]\n",
    );
    let r = run(&d);
    let dead: Vec<(Option<usize>, String)> = only(&r, "dead-link")
        .iter()
        .map(|f| (f.line(), f.message().into_owned()))
        .collect();
    let said = |line: usize| {
        dead.iter()
            .find(|(l, _)| *l == Some(line))
            .map(|(_, m)| m.as_str())
            .unwrap_or_else(|| panic!("no dead link on line {line}: {dead:?}"))
    };
    assert_eq!(
        said(8),
        "[[Travel & Tourism]] does not match any file in the bank. Did you mean \
         [[Travel and Tourism]]? membank never removes links by itself."
    );
    assert_eq!(
        said(9),
        "![[icon.svg]]: missing attachment: no file named “icon.svg” is in the bank. Add the \
         file to the bank, or correct the name. membank never removes links by itself."
    );
    assert!(said(10).contains("missing attachment: no file named “report.pdf”"));
    assert!(said(11).contains("forward reference"), "{}", said(11));
    assert!(
        said(12).contains("Did you mean [[compliance]]?"),
        "{}",
        said(12)
    );
    assert_eq!(dead.len(), 5, "{dead:?}");
}

/// Files whose frontmatter tests what the interface's bank keeps in its
/// place: quoted keys, comments, CRLF, a byte-order mark, a fence, term
/// conflicts, stale dates, every finding that quotes a key's line, a
/// credential in the block, and a block of 65,000 lines.
fn quoted_lines_bank() -> tempfile::TempDir {
    let d = healthy();
    let r = d.path();
    let approved = |target: &str| {
        format!(
            "---\n# chosen by the client\nterm_source: contract\n\"term_target\": {target}\n\
             source_lang: en\ntarget_lang: nl\nstatus: approved\ndomain: Legal\n\
             last_updated: 2020-01-01\n---\n# contract\n[[Legal]]\n"
        )
    };
    write(
        r,
        "02_TERMINOLOGY/a.md",
        approved("\"overeenkomst\"").as_bytes(),
    );
    write(
        r,
        "02_TERMINOLOGY/b.md",
        approved("contract # not 'overeenkomst'")
            .replace('\n', "\r\n")
            .as_bytes(),
    );
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(
        approved("'Overeenkomst'")
            .replace("\"term_target\"", "'term_target' ")
            .bytes(),
    );
    write(r, "02_TERMINOLOGY/c.md", &bom);
    write(
        r,
        "02_TERMINOLOGY/fenced.md",
        format!("```markdown\n{}```\n", approved("akkoord")).as_bytes(),
    );
    let files: &[(&str, &str)] = &[
        (
            "01_CLIENTS/Empty.md",
            "---\nclient:\nlanguages: [en]\nlast_updated: 2019-05-05\n---\n[[Acme]]\n",
        ),
        (
            "01_CLIENTS/Unquoted.md",
            "---\nclient: Unquoted\nlanguages: [en]\ndomains: [[Legal]]\nlast_updated: 2026-04-01\n---\n",
        ),
        (
            "01_CLIENTS/Tongue.md",
            "---\nclient: Tongue\nlanguages: [english, \"\"]\nlast_updated: bad\n---\n[[Acme]]\n",
        ),
        (
            "02_TERMINOLOGY/status.md",
            "---\nterm_source: s\nterm_target: t\nsource_lang: en\ntarget_lang: nl\n\
             status: Approved\nlast_updated: 2026-04-01\n---\n",
        ),
        (
            "00_INBOX/compiled.md",
            "---\ncompiled: true\ncompiled_date: 2026-13-01\ncompiled_to: [\"01_CLIENTS/Acme.md\"]\n---\nraw\n",
        ),
        (
            "03_DOMAINS/Missing.md",
            "---\ndomain: Missing\nlast_updated: 2026-04-01\ndomains: [\"[[Maritime]]\"]\n---\n# Other title\n\nBody [[Legal]] and [[Gone]].\n",
        ),
    ];
    for (rel, text) in files {
        write(r, rel, text.as_bytes());
    }
    let key = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    write(
        r,
        "04_STYLE/Keyed.md",
        format!("---\nscope: general\nlanguages: [en]\nlast_updated: 2026-04-01\nnote: {key}\n---\n[[Acme]]\n")
            .as_bytes(),
    );
    // `last_updated` near the most lines a block that is parsed (64 KB)
    // can have: a kept line reaches them.
    let long = format!(
        "---\ndomain: Long\n{}last_updated: 2020-01-01\n---\n# Long\nwords [[Legal]]\n",
        "\n".repeat(65_000)
    );
    write(r, "03_DOMAINS/Long.md", long.as_bytes());
    d
}

/// Everything the checks, the search and a fix's preview read of a bank,
/// in words.
fn seen(bank: &Bank) -> Vec<String> {
    use crate::memory::Memory;
    let report = check(bank, &opts());
    let mut out: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {:?} {} {}",
                f.code(),
                f.severity,
                f.location(),
                f.message()
            )
        })
        .collect();
    for u in bank.search_units() {
        out.push(format!(
            "unit {} line {} at {}: {:?}",
            u.doc,
            u.line,
            u.start,
            bank.unit_text(&u)
        ));
    }
    let fixes = crate::fix::propose_with(
        bank,
        &report.findings,
        &crate::fix::Options {
            tz: jiff::tz::TimeZone::UTC,
            checked_today: Some(jiff::civil::date(2026, 6, 1)),
            create_missing: Some(jiff::civil::date(2026, 6, 1)),
            surface: crate::surface::Surface::CommandLine,
        },
    );
    out.push(format!("{:?} {:?}", fixes.fixes, fixes.remaining));
    out
}

#[test]
fn a_bank_keeping_only_the_quoted_lines_reads_as_one_keeping_the_frontmatter() {
    use crate::bank::LoadOptions;
    let d = quoted_lines_bank();
    let whole = LoadOptions {
        frontmatter: true,
        ..LoadOptions::INTERFACE
    };
    let kept = Bank::load_only(d.path(), whole).unwrap();
    let lines = Bank::load_only(d.path(), LoadOptions::INTERFACE).unwrap();
    fn dropped(bank: &Bank) -> Vec<&str> {
        bank.articles()
            .iter()
            .filter(|a| a.kept_lines().is_some())
            .map(|a| a.rel_path.as_str())
            .collect()
    }
    assert!(dropped(&kept).is_empty());
    // The terms (quoted, CRLF, BOM, fenced) and the plain articles keep
    // lines only; the ones a check quotes more of keep their block.
    assert_eq!(
        dropped(&lines),
        [
            "01_CLIENTS/Acme.md",
            "02_TERMINOLOGY/a.md",
            "02_TERMINOLOGY/b.md",
            "02_TERMINOLOGY/c.md",
            "02_TERMINOLOGY/compliance.md",
            "02_TERMINOLOGY/fenced.md",
            "03_DOMAINS/Legal.md",
            "03_DOMAINS/Long.md",
            "03_DOMAINS/Missing.md",
            "04_STYLE/House.md",
        ]
    );
    let both = seen(&kept);
    assert_eq!(seen(&lines), both);
    // What the comparison covers.
    let joined = both.join("\n");
    for code in [
        "term-conflict",
        "stale",
        "missing-key",
        "unquoted-link",
        "bad-date",
        "bad-status",
        "bad-language-code",
        "compiled-not-archived",
        "secret",
        "03_DOMAINS/Long.md:65003",
        "02_TERMINOLOGY/b.md:4",
        "02_TERMINOLOGY/fenced.md:5",
    ] {
        assert!(joined.contains(code), "{code} not in\n{joined}");
    }
}

#[test]
fn a_dropped_frontmatter_is_read_again_only_while_the_file_is_as_read() {
    use crate::bank::LoadOptions;
    let d = quoted_lines_bank();
    let bank = Bank::load_only(d.path(), LoadOptions::INTERFACE).unwrap();
    let id = bank.find("02_TERMINOLOGY/b.md").unwrap();
    assert!(bank.article(id).text.is_empty());
    let text = bank.frontmatter_text(id).unwrap();
    assert!(text.starts_with("---\n# chosen by the client\n"), "{text}");
    assert!(text.ends_with("2020-01-01\n---\n"), "{text}");
    // Another file now: the preview is refused, not made from it.
    write(
        d.path(),
        "02_TERMINOLOGY/b.md",
        b"---\nterm_target: other\n---\n# contract\n",
    );
    let problem = bank.frontmatter_text(id).unwrap_err();
    assert!(problem.message.contains("changed on disk"), "{problem:?}");
}

/// Each `term-conflict` finding's path and words as the checks wrote them
/// out when the finding was made: every approved term names the others of
/// its term that translate it differently and meet it in a client's job.
fn conflicts_worded_at_once(bank: &Bank) -> Vec<(String, String)> {
    let term = |id: usize| terms::term_of(bank.article(id));
    let target = |id: usize| bank.article(id).meta.term_target().unwrap_or("").trim();
    let clients = |id: usize| bank.article(id).meta.clients.iter().map(|c| &*c.folded);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for id in (0..bank.articles().len()).filter(|&id| term(id).is_some()) {
        let (s, sl, tl) = term(id).unwrap();
        let same = |g: &&mut Vec<usize>| {
            let (gs, gsl, gtl) = term(g[0]).unwrap();
            gsl.eq_ignore_ascii_case(sl)
                && gtl.eq_ignore_ascii_case(tl)
                && crate::wikilink::fold(gs) == crate::wikilink::fold(s)
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.push(id),
            None => groups.push(vec![id]),
        }
    }
    let mut out = Vec::new();
    for g in &groups {
        for &id in g {
            let mine = target(id);
            let disagree: Vec<usize> = g
                .iter()
                .copied()
                .filter(|&o| {
                    target(o) != mine && crate::terms::clients_meet(clients(id), clients(o))
                })
                .collect();
            if disagree.is_empty() {
                continue;
            }
            let only_case = disagree
                .iter()
                .all(|&o| target(o).to_lowercase() == mine.to_lowercase());
            let mut listed: Vec<String> = disagree
                .iter()
                .take(5)
                .map(|&o| format!("“{}” ({})", bank.article(o).rel_path, target(o)))
                .collect();
            if disagree.len() > 5 {
                listed.push(format!("and {} more", disagree.len() - 5));
            }
            let (source, sl, tl) = term(id).unwrap();
            let case_note = if only_case {
                " The translations differ only in upper/lower case."
            } else {
                ""
            };
            out.push((
                bank.article(id).rel_path.clone(),
                format!(
                    "Approved term “{source}” ({sl} → {tl}) is translated “{mine}” here but \
                     differently in {}.{case_note} A translator or LLM gets contradictory \
                     instructions. Decide on one translation and set the other article to \
                     status: rejected, or make the source terms distinguishable.",
                    listed.join(", ")
                ),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn term_conflicts_worded_when_shown_say_what_they_said_when_made() {
    let d = healthy();
    let r = d.path();
    // One term whose articles do not all meet (clients), one whose
    // articles all do (no clients, more than five translations), and
    // one differing only in letter case.
    let clients = [
        "",
        "[Acme]",
        "[Beta]",
        "[Acme, Beta]",
        "[\"[[Acme]]\"]",
        "[ACME]",
    ];
    let targets = ["x", "X", "y", "z", "w \"quoted\"", "ü", "v\u{202e}\u{85}"];
    for i in 0..14 {
        let text = format!(
            "---\r\nterm_source: {}\r\nterm_target: '{}'\r\nsource_lang: EN\r\ntarget_lang: nl\r\n\
             status: approved\r\nclients: {}\r\nlast_updated: 2026-04-01\r\n---\r\n[[Legal]]\r\n",
            if i % 2 == 0 { "Contract" } else { "contract" },
            targets[i % targets.len()],
            clients[(i * 5) % clients.len()],
        );
        write(r, &format!("02_TERMINOLOGY/c{i:02}.md"), text.as_bytes());
    }
    for i in 0..9 {
        write(
            r,
            &format!("02_TERMINOLOGY/sub/plain {i}\t.md"),
            &term("plain", &format!("t{i}"), "de", "fr", "approved"),
        );
    }
    for (i, t) in ["Case", "case", "CASE"].iter().enumerate() {
        write(
            r,
            &format!("02_TERMINOLOGY/case{i}.md"),
            &term("case", t, "de", "fr", "approved"),
        );
    }
    for options in [
        crate::bank::LoadOptions::EVERYTHING,
        crate::bank::LoadOptions::INTERFACE,
    ] {
        let bank = Bank::load_only(r, options).unwrap();
        let report = check(&bank, &opts());
        let mut worded: Vec<(String, String)> = only(&report, "term-conflict")
            .iter()
            .map(|f| (f.path.to_string(), f.message().into_owned()))
            .collect();
        worded.sort();
        let expected = conflicts_worded_at_once(&bank);
        assert_eq!(worded.len(), 14 + 9 + 3, "{worded:#?}");
        assert_eq!(worded, expected);
        assert!(expected.iter().any(|(_, m)| m.contains("more.")));
        // What the terminal is kept from: a direction override.
        assert!(expected.iter().any(|(_, m)| m.contains('\u{202e}')));
        assert!(
            expected
                .iter()
                .any(|(_, m)| m.contains("only in upper/lower"))
        );
        // On a terminal, as the whole message made safe.
        for f in only(&report, "term-conflict") {
            let mut shown = String::new();
            f.write_message_for_terminal(&mut shown);
            assert_eq!(
                shown,
                crate::text::sanitize_for_terminal(&f.message(), false)
            );
        }
    }
}

/// A date in a `stale` message reads as its `Display` does, for every year
/// the calendar has (those written by hand and those that are not) and
/// days and months of one and two digits.
#[test]
fn dates_are_written_as_they_display() {
    for year in -9999..=9999 {
        for (month, day) in [(1, 1), (2, 28), (9, 30), (10, 9), (12, 31)] {
            let date = jiff::civil::date(year, month, day);
            let mut written = String::from("on ");
            super::write_date(&mut written, date);
            assert_eq!(written, format!("on {date}"));
        }
    }
}
