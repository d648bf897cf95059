//! `membank qa`: the terminology check of translated files in each
//! format, with the segment ids the fixtures plant the errors in.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

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

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&run(args))
}

fn term(root: &Path, source: &str, target: &str, status: &str, clients: &[&str]) {
    let clients: Vec<String> = clients.iter().map(|c| format!("\"[[{c}]]\"")).collect();
    let text = format!(
        "---\nterm_source: \"{source}\"\nterm_target: \"{target}\"\nsource_lang: \"en-US\"\n\
         target_lang: \"nl-BE\"\nclients: [{}]\nstatus: \"{status}\"\nlast_updated: 2026-01-15\n\
         ---\n# {source} → {target}\n",
        clients.join(", ")
    );
    fs::write(
        root.join(format!("02_TERMINOLOGY/{source} → {target}.md")),
        text,
    )
    .unwrap();
}

fn bank(dir: &Path) -> PathBuf {
    let root = dir.join("bank");
    assert!(run(&["init", root.to_str().unwrap()]).status.success());
    term(
        &root,
        "compliance",
        "naleving",
        "approved",
        &["Acme Corporation"],
    );
    term(
        &root,
        "compliance",
        "conformiteit",
        "rejected",
        &["Acme Corporation"],
    );
    term(
        &root,
        "data controller",
        "verwerkingsverantwoordelijke",
        "approved",
        &[],
    );
    term(&root, "warranty", "garantie", "approved", &[]);
    term(&root, "warranty", "waarborg", "approved", &[]);
    term(&root, "campaign", "campagne", "proposed", &[]);
    root
}

/// `(code, segment)` of each finding.
fn findings(v: &serde_json::Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["segment"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn untranslated(v: &serde_json::Value) -> Vec<&str> {
    v["untranslated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

#[test]
fn xliff_1_2_missing_rejected_and_inconsistent_terms_by_segment() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let file = fixture("job.xlf");
    let before = fs::read(&file).unwrap();
    let (v, code) = json(&[
        "qa",
        root.to_str().unwrap(),
        file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(1), "findings exit 1");
    assert_eq!(
        findings(&v),
        pairs(&[
            ("term-missing", "2"),
            ("term-rejected", "2"),
            ("term-missing", "3"),
            ("term-inconsistent", "4"),
        ])
    );
    assert_eq!(untranslated(&v), ["6"], "never reported as misses");
    let rejected = &v["findings"][1];
    assert_eq!(
        rejected["source"], "«Compliance» is reviewed yearly.",
        "placeholder text left out"
    );
    assert_eq!(
        rejected["target"],
        "De «conformiteit» wordt jaarlijks nagekeken."
    );
    assert_eq!(
        rejected["article"],
        "02_TERMINOLOGY/compliance → conformiteit.md"
    );
    assert_eq!(rejected["fix"], "use “naleving”, not “conformiteit”");
    let inconsistent = &v["findings"][3];
    assert_eq!(inconsistent["found"], "garantie");
    assert_eq!(inconsistent["expected"][0], "waarborg");
    assert_eq!(
        fs::read(&file).unwrap(),
        before,
        "the file is never modified"
    );
}

#[test]
fn another_clients_terms_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    term(&root, "lawyer", "advocaat", "approved", &["Other Ltd"]);
    let (v, _) = json(&[
        "qa",
        root.to_str().unwrap(),
        fixture("job.xlf").to_str().unwrap(),
        "--client",
        "Other Ltd",
        "--json",
    ]);
    assert_eq!(
        findings(&v),
        pairs(&[("term-missing", "3"), ("term-inconsistent", "4")])
    );
}

#[test]
fn sdlxliff_mqxliff_xliff2_and_tmx_are_checked_with_their_own_ids_and_states() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let bank = root.to_str().unwrap();
    let check = |name: &str| json(&["qa", bank, fixture(name).to_str().unwrap(), "--json"]);

    let (v, _) = check("job.sdlxliff");
    assert_eq!(v["kind"], "sdlxliff");
    assert_eq!(
        findings(&v),
        pairs(&[("term-missing", "1"), ("term-rejected", "1")])
    );
    assert_eq!(untranslated(&v), ["2"], "a draft is not checked");

    let (v, _) = check("job.mqxliff");
    assert_eq!(v["kind"], "mqxliff");
    assert_eq!(findings(&v), pairs(&[("term-missing", "1")]));
    assert_eq!(untranslated(&v), ["2"]);

    let (v, _) = check("job2.xlf");
    assert_eq!(v["kind"], "xliff-2");
    assert_eq!(
        findings(&v),
        pairs(&[("term-missing", "s2"), ("term-rejected", "s2")])
    );
    assert_eq!(untranslated(&v), ["s3"]);

    let (v, code) = check("job.tmx");
    assert_eq!(v["kind"], "tmx");
    assert_eq!(findings(&v), pairs(&[]));
    assert_eq!(code, Some(0), "no finding exits 0");
}

#[test]
fn plain_text_needs_no_languages_and_the_report_reads_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let txt = dir.path().join("job.txt");
    fs::write(
        &txt,
        "Our WARRANTY\tOnze garantie\nCompliance\t\nThe Data Controller\tDe verantwoordelijke\n",
    )
    .unwrap();
    let out = run(&["qa", root.to_str().unwrap(), txt.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("term-missing  segment 3  “data controller”"),
        "{text}"
    );
    assert!(text.contains("source: The «Data Controller»"), "{text}");
    assert!(
        text.contains("fix:    use “verwerkingsverantwoordelijke”"),
        "{text}"
    );
    assert!(
        text.contains("Not checked (empty or unconfirmed target): 2"),
        "{text}"
    );
}

/// A plain-text file names no languages: with terms for several pairs in
/// the bank it would be held against all of them (a Dutch translation
/// passing with the French term), so the pair is asked for.
#[test]
fn plain_text_with_terms_for_several_pairs_asks_for_the_pair() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    fs::write(
        root.join("02_TERMINOLOGY/contract → contrat.md"),
        "---\nterm_source: contract\nterm_target: contrat\nsource_lang: en-US\n\
         target_lang: fr-FR\nstatus: approved\n---\n# contract → contrat\n",
    )
    .unwrap();
    fs::write(
        root.join("02_TERMINOLOGY/contract → overeenkomst.md"),
        "---\nterm_source: contract\nterm_target: overeenkomst\nsource_lang: en-US\n\
         target_lang: nl-BE\nstatus: approved\n---\n# contract → overeenkomst\n",
    )
    .unwrap();
    let txt = dir.path().join("job.txt");
    fs::write(&txt, "Sign the contract.\tOnderteken het contrat.\n").unwrap();
    let (root_s, txt_s) = (root.to_str().unwrap(), txt.to_str().unwrap());
    let out = run(&["qa", root_s, txt_s]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("job.txt: names no languages")
            && err.contains("en-US → fr-FR, en-US → nl-BE")
            && err.contains("--pair"),
        "{err}"
    );
    let out = run(&["qa", root_s, txt_s, "--pair", "en-US:nl-BE"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("term-missing"));
}

#[test]
fn a_file_that_is_not_bilingual_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let bad = dir.path().join("x.xml");
    fs::write(&bad, "<html><body>x</body></html>").unwrap();
    let out = run(&["qa", root.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("x.xml"));
}

/// A pair the bank has no term for (one it lacks, or no language code at
/// all) checks nothing: an error naming the pair, as for an untranslated
/// file, never a clean pass a CI run would take for a checked job.
#[test]
fn a_pair_the_bank_has_no_terms_for_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let txt = dir.path().join("job.txt");
    fs::write(&txt, "Compliance\tConformité\n").unwrap();
    for (pair, named) in [
        ("en-US:fr-FR", "en-US → fr-FR"),
        ("*:*", "* → *"),
        ("en-US:nl-BE:x", "en-US → nl-BE:x"),
        ("ünï:cødé", "ünï → cødé"),
    ] {
        for json in [false, true] {
            let mut argv = vec![
                "qa",
                root.to_str().unwrap(),
                txt.to_str().unwrap(),
                "--pair",
                pair,
            ];
            if json {
                argv.push("--json");
            }
            let out = run(&argv);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{pair}: {err}");
            assert!(
                err.contains("nothing was checked") && err.contains(named),
                "{pair}: {err}"
            );
            assert!(out.stdout.is_empty(), "{pair}: no report of a check");
        }
    }
}

#[test]
fn a_tmx_for_all_languages_is_checked_source_to_target_whatever_its_first_unit() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let tmx = dir.path().join("job.tmx");
    fs::write(
        &tmx,
        r#"<tmx version="1.4"><header srclang="*all*"/><body>
<tu tuid="t1"><tuv xml:lang="nl-BE"><seg>Onze garantie</seg></tuv><tuv xml:lang="en-US"><seg>Our warranty</seg></tuv></tu>
<tu tuid="t2"><tuv xml:lang="en-US"><seg>Full compliance</seg></tuv><tuv xml:lang="nl-BE"><seg>Volledige conformiteit</seg></tuv></tu>
</body></tmx>"#,
    )
    .unwrap();
    let (bank, file) = (root.to_str().unwrap(), tmx.to_str().unwrap());
    let want = pairs(&[("term-missing", "t2"), ("term-rejected", "t2")]);
    for extra in [&[][..], &["--pair", "en-US:nl-BE"][..]] {
        let mut args = vec!["qa", bank, file, "--json", "--client", "Acme Corporation"];
        args.extend_from_slice(extra);
        let (v, code) = json(&args);
        assert_eq!(v["source_lang"], "en-US", "{extra:?}");
        assert_eq!(findings(&v), want, "{extra:?}");
        assert_eq!(code, Some(1));
    }
}

#[test]
fn a_file_with_no_segments_is_an_error_not_a_clean_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    for (name, text) in [
        ("empty.xlf", ""),
        ("blank.sdlxliff", "  \n\n"),
        (
            "units.xlf",
            "<xliff version=\"1.2\"><file source-language=\"en-US\" target-language=\"nl-BE\">\
             <body/></file></xliff>",
        ),
    ] {
        let file = dir.path().join(name);
        fs::write(&file, text).unwrap();
        let out = run(&["qa", root.to_str().unwrap(), file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(name) && err.contains("no segments found"),
            "{err}"
        );
    }
}

#[test]
fn utf16_without_a_byte_order_mark_is_read_and_nothing_checkable_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let xliff = fs::read_to_string(fixture("job.xlf")).unwrap();
    let (want, _) = json(&[
        "qa",
        root.to_str().unwrap(),
        fixture("job.xlf").to_str().unwrap(),
        "--json",
    ]);
    for little in [false, true] {
        let bytes: Vec<u8> = xliff
            .replace("encoding=\"UTF-8\"", "encoding=\"UTF-16\"")
            .encode_utf16()
            .flat_map(|u| match little {
                true => u.to_le_bytes(),
                false => u.to_be_bytes(),
            })
            .collect();
        let file = dir.path().join("x.xlf");
        fs::write(&file, bytes).unwrap();
        let (v, code) = json(&[
            "qa",
            root.to_str().unwrap(),
            file.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, Some(1), "little-endian {little}: {v}");
        assert_eq!(findings(&v), findings(&want), "little-endian {little}");
    }
    // A file named as XLIFF is never read as lines of text.
    let file = dir.path().join("notes.xlf");
    fs::write(&file, "compliance\tnaleving\n").unwrap();
    let out = run(&["qa", root.to_str().unwrap(), file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("notes.xlf") && err.contains("not XML"),
        "{err}"
    );
    // Segments but no translation: nothing was checked, which is no pass.
    let file = dir.path().join("todo.txt");
    fs::write(&file, "compliance\t\nwarranty\t\n").unwrap();
    let out = run(&["qa", root.to_str().unwrap(), file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing to check"), "{err}");
}

#[test]
fn each_file_of_an_xliff_is_checked_against_its_own_pair() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    // A German term for the same source word: only the German part may
    // be checked against it.
    fs::write(
        root.join("02_TERMINOLOGY/compliance → Einhaltung.md"),
        "---\nterm_source: \"compliance\"\nterm_target: \"Einhaltung\"\nsource_lang: \"en-US\"\n\
         target_lang: \"de-DE\"\nstatus: \"approved\"\nlast_updated: 2026-01-15\n---\n\
         # compliance → Einhaltung\n",
    )
    .unwrap();
    let xlf = dir.path().join("two.xlf");
    let unit = |id: &str, target: &str| {
        format!(
            "<trans-unit id=\"{id}\"><source>Full compliance</source>\
             <target>{target}</target></trans-unit>"
        )
    };
    fs::write(
        &xlf,
        format!(
            "<xliff version=\"1.2\">\
             <file original=\"a.docx\" source-language=\"en-US\" target-language=\"nl-BE\"><body>{}</body></file>\
             <file original=\"b.docx\" source-language=\"en-US\" target-language=\"de-DE\"><body>{}</body></file>\
             </xliff>",
            unit("1", "Volledige naleving"),
            unit("2", "Volle Einhaltung")
        ),
    )
    .unwrap();
    let (v, code) = json(&[
        "qa",
        root.to_str().unwrap(),
        xlf.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(findings(&v), pairs(&[]), "{v}");
    assert_eq!(code, Some(0));

    // No target language and no --pair: refused, not checked against all.
    let bare = dir.path().join("bare.xlf");
    fs::write(
        &bare,
        format!(
            "<xliff version=\"1.2\"><file original=\"a\" source-language=\"en-US\"><body>{}</body></file></xliff>",
            unit("1", "Volledige naleving")
        ),
    )
    .unwrap();
    let out = run(&["qa", root.to_str().unwrap(), bare.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--pair"), "{err}");
    let (v, code) = json(&[
        "qa",
        root.to_str().unwrap(),
        bare.to_str().unwrap(),
        "--pair",
        "en-US:nl-BE",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{v}");
}

#[test]
fn segments_of_different_files_are_told_apart_by_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let xlf = dir.path().join("two.xlf");
    let part = |name: &str, target: &str| {
        format!(
            "<file original=\"{name}\" source-language=\"en-US\" target-language=\"nl-BE\"><body>\
             <trans-unit id=\"1\"><source>Full compliance</source><target>{target}</target></trans-unit>\
             <trans-unit id=\"2\"><source>Our warranty</source><target></target></trans-unit>\
             </body></file>"
        )
    };
    fs::write(
        &xlf,
        format!(
            "<xliff version=\"1.2\">{}{}</xliff>",
            part("a.docx", "Volledige naleving"),
            part("b.docx", "Volledig")
        ),
    )
    .unwrap();
    let (v, code) = json(&[
        "qa",
        root.to_str().unwrap(),
        xlf.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(findings(&v), pairs(&[("term-missing", "1")]));
    assert_eq!(v["findings"][0]["file"], "b.docx", "{v}");
    assert_eq!(untranslated(&v), ["a.docx › 2", "b.docx › 2"]);
    let out = run(&["qa", root.to_str().unwrap(), xlf.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("segment b.docx › 1"), "{text}");
    // One <file>: ids alone, as before.
    let (v, _) = json(&[
        "qa",
        root.to_str().unwrap(),
        fixture("job.xlf").to_str().unwrap(),
        "--json",
    ]);
    assert!(v["findings"][0].get("file").is_none(), "{v}");
}

#[test]
fn an_unknown_client_is_an_error_with_the_closest_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let out = run(&[
        "qa",
        root.to_str().unwrap(),
        fixture("job.xlf").to_str().unwrap(),
        "--client",
        "Acme Corp",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no client 'Acme Corp'") && err.contains("did you mean 'Acme Corporation'?"),
        "{err}"
    );
    let export = dir.path().join("out.tbx");
    let out = run(&[
        "terms",
        "export",
        root.to_str().unwrap(),
        "--client",
        "Acme Corp",
        "-o",
        export.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("did you mean 'Acme Corporation'?"), "{err}");
    assert!(!export.exists(), "no file is written");
}

#[test]
fn the_report_and_json_count_segments_alike() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let file = fixture("job.xlf");
    let args = ["qa", root.to_str().unwrap(), file.to_str().unwrap()];
    let (v, _) = json(&[&args[..], &["--json"]].concat());
    let segments = v["segments"].as_u64().unwrap();
    let untranslated = v["untranslated"].as_array().unwrap().len() as u64;
    assert_eq!(v["checked"].as_u64(), Some(segments - untranslated), "{v}");
    let text = String::from_utf8_lossy(&run(&args).stdout).into_owned();
    assert!(
        text.contains(&format!(
            "{segments} segment(s), {} checked against",
            segments - untranslated
        )),
        "{text}"
    );
}
