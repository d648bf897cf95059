//! Runs the real binary on the scoring fixture bank.

mod support;

use std::path::PathBuf;

use serde_json::Value;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scoring-bank")
}

fn membank(args: &[&str]) -> (i32, String, String) {
    let out = support::membank().args(args).output().expect("run membank");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn context_json(extra: &[&str]) -> Value {
    let bank = fixture();
    let mut args = vec!["context", bank.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = membank(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("valid JSON")
}

fn paths(v: &Value) -> Vec<String> {
    v["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_content_article_is_ranked_with_its_reasons() {
    let v = context_json(&[
        "--client",
        "acme corporation",
        "--domain",
        "LEGAL",
        "--source-lang",
        "en-GB",
        "--target-lang",
        "nl-BE",
    ]);
    assert_eq!(v["budget"], 4000);
    assert_eq!(
        paths(&v),
        vec![
            "01_CLIENTS/Acme Corporation.md",
            "02_TERMINOLOGY/compliance → naleving.md",
            "02_TERMINOLOGY/legal/agreement → overeenkomst.md",
            "03_DOMAINS/Legal.md",
            "01_CLIENTS/NotAcme Ltd.md",
            "02_TERMINOLOGY/fjord.md",
            "04_STYLE/House Style.md",
            "03_DOMAINS/Paralegal.md",
        ]
    );
    let first = &v["articles"][0];
    assert_eq!(first["score"], 6);
    assert_eq!(first["folder"], "01_CLIENTS");
    assert_eq!(
        first["signals"],
        serde_json::json!({"client": 3, "domain": 2, "language": 1})
    );
    assert_eq!(first["matched"]["client"]["key"], "client");
    assert_eq!(first["matched"]["domain"]["value"], "[[Legal]]");
    assert_eq!(first["last_updated"], "2026-04-04");
    assert_eq!(first["included"], true);
    assert!(first["drop_reason"].is_null());
    // Substring look-alikes never score on client or domain.
    let notacme = &v["articles"][4];
    assert_eq!(notacme["signals"]["client"], 0);
    let paralegal = &v["articles"][7];
    assert_eq!(paralegal["score"], 0);
    assert_eq!(paralegal["included"], false);
    assert!(
        paralegal["drop_reason"]
            .as_str()
            .unwrap()
            .contains("score 0")
    );
    let used: u64 = v["articles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["included"] == true)
        .map(|a| a["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(v["used_tokens"].as_u64().unwrap(), used);
}

#[test]
fn fenced_bom_and_crlf_articles_are_read() {
    let v = context_json(&["--domain", "legal", "--target-lang", "no"]);
    let by_path = |p: &str| {
        v["articles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["path"] == p)
            .unwrap()
            .clone()
    };
    // Fenced frontmatter (§4.3) still scores.
    assert_eq!(by_path("03_DOMAINS/Legal.md")["signals"]["domain"], 2);
    // CRLF in a subfolder of a content folder.
    assert_eq!(
        by_path("02_TERMINOLOGY/legal/agreement → overeenkomst.md")["signals"]["domain"],
        2
    );
    // BOM file, and `no` read as Norwegian rather than false.
    let fjord = by_path("02_TERMINOLOGY/fjord.md");
    assert_eq!(fjord["signals"]["language"], 1);
    assert_eq!(fjord["matched"]["language"]["tag"], "no");
    // Examples, inbox, indices and templates never take part.
    assert!(paths(&v).iter().all(|p| p.starts_with("01")
        || p.starts_with("02")
        || p.starts_with("03")
        || p.starts_with("04")));
    assert!(!paths(&v).iter().any(|p| p.contains("_EXAMPLE_")));
}

#[test]
fn budget_drops_terminology_first_and_says_why() {
    let v = context_json(&[
        "--client",
        "Acme Corporation",
        "--domain",
        "Legal",
        "--budget",
        "130",
    ]);
    let rows = v["articles"].as_array().unwrap();
    let kept: Vec<&str> = rows
        .iter()
        .filter(|a| a["included"] == true)
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        kept,
        vec!["01_CLIENTS/Acme Corporation.md", "03_DOMAINS/Legal.md"]
    );
    assert!(v["used_tokens"].as_u64().unwrap() <= 130);
    for a in rows
        .iter()
        .filter(|a| a["included"] == false && a["score"].as_u64() > Some(0))
    {
        assert!(
            a["drop_reason"].as_str().unwrap().contains("over budget"),
            "{a}"
        );
    }
}

#[test]
fn include_unscored_and_unlimited_budget() {
    let v = context_json(&["--include-unscored", "--budget", "0"]);
    assert!(
        v["articles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["included"] == true)
    );
    let v = context_json(&[]);
    assert!(
        v["articles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["included"] == false)
    );
    assert_eq!(v["used_tokens"], 0);
}

#[test]
fn render_prints_whole_articles_in_rank_order() {
    let bank = fixture();
    let (code, out, _) = membank(&[
        "context",
        bank.to_str().unwrap(),
        "--client",
        "acme corporation",
        "--render",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with(
        "----- 01_CLIENTS/Acme Corporation.md -----\n---\nclient: \"Acme Corporation\""
    ));
    assert!(out.contains("----- 02_TERMINOLOGY/compliance → naleving.md -----"));
    assert!(!out.contains("NotAcme"));
}

#[test]
fn table_output_explains_matches() {
    let bank = fixture();
    let (code, out, _) = membank(&[
        "context",
        bank.to_str().unwrap(),
        "--client",
        "Acme Corporation",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("why: client: Acme Corporation → +3"), "{out}");
    assert!(
        out.contains("why: clients: [[Acme Corporation]] → +3"),
        "{out}"
    );
}

#[test]
fn links_and_backlinks() {
    let bank = fixture();
    let (code, out, _) = membank(&[
        "links",
        bank.to_str().unwrap(),
        "acme corporation",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["path"], "01_CLIENTS/Acme Corporation.md");
    let statuses: Vec<(&str, &str)> = v["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["target"].as_str().unwrap(), o["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("Legal", "resolved"),
            ("Marketing", "dead"),
            ("compliance → naleving", "resolved"),
            ("Legal", "resolved")
        ]
    );
    let back: Vec<&str> = v["backlinks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert_eq!(
        back,
        vec![
            "00_INBOX/meeting notes.md",
            "02_TERMINOLOGY/compliance → naleving.md",
            "03_DOMAINS/Legal.md",
            "05_INDICES/Clients.md"
        ]
    );
    let (code, _, err) = membank(&["links", bank.to_str().unwrap(), "Nothing Here"]);
    assert_ne!(code, 0);
    assert!(err.contains("no article"), "{err}");
}

#[test]
fn article_paths_are_normalised() {
    let bank = fixture();
    for given in [
        "./01_CLIENTS/Acme Corporation.md",
        "01_CLIENTS//Acme Corporation.md",
        "01_CLIENTS\\Acme Corporation.md",
        "05_INDICES/../01_CLIENTS/Acme Corporation.md",
    ] {
        let (code, out, err) = membank(&["links", bank.to_str().unwrap(), given, "--json"]);
        assert_eq!(code, 0, "{given}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["path"], "01_CLIENTS/Acme Corporation.md", "{given}");
    }
}

#[test]
fn inbox_skips_compiled_files() {
    let bank = fixture();
    let (code, out, _) = membank(&["inbox", bank.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pending"].as_array().unwrap().len(), 1);
    assert_eq!(v["pending"][0]["path"], "00_INBOX/meeting notes.md");
}

#[test]
fn snapshot_json_and_cap() {
    let bank = fixture();
    let (code, out, _) = membank(&["snapshot", bank.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["truncated"], false);
    assert_eq!(v["articles"][0], "01_CLIENTS/Acme Corporation.md");
    assert!(
        v["snapshot"]
            .as_str()
            .unwrap()
            .starts_with("----- 01_CLIENTS/Acme Corporation.md -----\n")
    );
    let (_, out, _) = membank(&["snapshot", bank.to_str().unwrap(), "--json", "--cap", "300"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["truncated"], true);
    assert!(v["chars"].as_u64().unwrap() <= 300);
}

#[test]
fn bad_paths_fail_clearly() {
    let (code, _, err) = membank(&["context", "/definitely/not/here"]);
    assert_ne!(code, 0);
    assert!(err.contains("no such folder"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = membank(&["context", empty.path().to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("not a memory bank"), "{err}");
}

#[test]
fn version_names_the_spec() {
    let (code, out, _) = membank(&["--version"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!(
            "Memory Bank Format v{}",
            membank_core::SPEC_VERSION
        )),
        "{out}"
    );
}

#[test]
fn values_lists_what_the_bank_uses() {
    let bank = fixture();
    let (code, out, _) = membank(&["values", bank.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["clients"][0]["value"], "Acme Corporation");
    assert_eq!(v["clients"][0]["articles"], 2);
    let domains: Vec<&str> = v["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["value"].as_str().unwrap())
        .collect();
    assert_eq!(domains[0], "Legal");
    assert!(domains.contains(&"Paralegal"));
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // Far more output than a pipe buffers, so the writer meets the closed pipe.
    let dir = tempfile::tempdir().unwrap();
    membank_core::synth::generate(
        dir.path(),
        membank_core::synth::SynthOptions {
            articles: 400,
            ..membank_core::synth::SynthOptions::default()
        },
    )
    .unwrap();
    let mut child = support::membank()
        .args(["snapshot", dir.path().to_str().unwrap(), "--cap", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone: further writes hit a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with("-----"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101));
}

#[test]
fn an_invalid_date_is_shown_as_invalid_in_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for f in ["01_CLIENTS", "03_DOMAINS"] {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    std::fs::write(
        root.join("03_DOMAINS/Legal.md"),
        "---\ndomain: Legal\nlast_updated: last spring, more or less\n---\n# Legal\n",
    )
    .unwrap();
    std::fs::write(
        root.join("03_DOMAINS/Tax.md"),
        "---\ndomain: Tax\nlast_updated: 2026-04-01\n---\n# Tax\n",
    )
    .unwrap();
    let (code, out, err) = membank(&["context", root.to_str().unwrap(), "--domain", "Legal"]);
    assert_eq!(code, 0, "{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.ends_with(name))
            .unwrap_or_else(|| panic!("{name} in {out}"))
            .to_owned()
    };
    let legal = row("03_DOMAINS/Legal.md");
    let tax = row("03_DOMAINS/Tax.md");
    assert!(legal.contains(" invalid "), "{legal}");
    assert!(!legal.contains("spring"), "{legal}");
    // The columns stay aligned: the path starts at the same place.
    assert_eq!(
        legal.find("03_DOMAINS"),
        tax.find("03_DOMAINS"),
        "\n{legal}\n{tax}"
    );
}

/// A client whose name was saved with combining accents (as macOS names
/// files) is the same client as the one typed with composed letters: its
/// links open it, its profile scores, and it can be read by name.
#[test]
fn a_name_with_combining_accents_is_the_name_with_composed_letters() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["01_CLIENTS", "03_DOMAINS"] {
        std::fs::create_dir(dir.path().join(folder)).unwrap();
    }
    let decomposed = "Socie\u{301}te\u{301} Ge\u{301}ne\u{301}rale";
    std::fs::write(
        dir.path().join(format!("01_CLIENTS/{decomposed}.md")),
        format!("---\nclient: \"{decomposed}\"\nlast_updated: 2026-01-01\n---\n# SG\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("03_DOMAINS/Banking.md"),
        "---\ndomain: Banking\nlast_updated: 2026-01-01\n---\nSee [[Société Générale]].\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = membank(&["links", root, "Banking", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("01_CLIENTS/Socie"), "{out}");
    assert!(!out.contains("\"dead\""), "{out}");
    let (code, out, err) = membank(&["context", root, "--client", "Société Générale", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["articles"][0]["score"], 3, "{v}");
    let (code, _, err) = membank(&["read", root, "Société Générale"]);
    assert_eq!(code, 0, "{err}");
}

/// Names differ from each other only in case when they differ only in a
/// final sigma (`ς` against `σ`): a client written `ΟΔΟΣ` scores for
/// `οδοσ` and `οδος`, and a link written either way opens it.
#[test]
fn a_final_sigma_is_the_same_letter_as_sigma() {
    let bank = bank_of(&[
        (
            "01_CLIENTS/ΟΔΟΣ.md",
            "---\nclient: ΟΔΟΣ\nlast_updated: 2026-01-01\n---\n# Client\n".to_owned(),
        ),
        (
            "03_DOMAINS/Roads.md",
            "---\ndomain: οδος\nlast_updated: 2026-01-01\n---\nSee [[οδοσ]].\n".to_owned(),
        ),
    ]);
    let root = bank.path().to_str().unwrap();
    for asked in ["ΟΔΟΣ", "οδοσ", "οδος"] {
        let (code, out, err) = membank(&[
            "context", root, "--client", asked, "--domain", asked, "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("in this bank"), "{asked}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let scores: Vec<(&str, u64)> = v["articles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["path"].as_str().unwrap(), a["score"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            scores,
            [("01_CLIENTS/ΟΔΟΣ.md", 3), ("03_DOMAINS/Roads.md", 2)],
            "{asked}"
        );
    }
    let (code, out, err) = membank(&["links", root, "Roads", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("01_CLIENTS/ΟΔΟΣ.md"), "{out}");
    assert!(!out.contains("\"dead\""), "{out}");
}

/// A script reading a page of the list can tell that more were ranked.
#[test]
fn the_json_says_how_many_were_ranked_and_whether_some_are_not_listed() {
    let all = context_json(&[]);
    let total = all["articles"].as_array().unwrap().len();
    assert_eq!(all["total"], total);
    assert_eq!(all["truncated"], false);
    let page = context_json(&["--limit", "1", "--budget", "1"]);
    assert_eq!(page["total"], total, "{page}");
    assert_eq!(page["truncated"], true, "{page}");
    assert!(page["articles"].as_array().unwrap().len() < total);
}

/// A bank of the given files (path, text) under the §1 folders.
fn bank_of(files: &[(&str, String)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir_all(d.path().join(f)).unwrap();
    }
    for (rel, text) in files {
        std::fs::write(d.path().join(rel), text).unwrap();
    }
    d
}

/// Each row's path, kept or not, and why not, listed or as JSON.
fn verdicts(bank: &std::path::Path, extra: &[&str]) -> Vec<(String, bool, String)> {
    let mut args = vec!["context", bank.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = membank(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["path"].as_str().unwrap().to_owned(),
                a["included"] == true,
                a["drop_reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_small_article_dropped_early_is_put_back_when_it_still_fits() {
    let d = bank_of(&[
        (
            "02_TERMINOLOGY/Big.md",
            format!(
                "---\nsource_lang: en\nlast_updated: 2026-01-01\n---\n# Big\n{}\n",
                "y".repeat(800)
            ),
        ),
        (
            "02_TERMINOLOGY/Small.md",
            "---\nsource_lang: de\nlast_updated: 2026-01-01\n---\n# Small\nshort\n".to_owned(),
        ),
    ]);
    let args = [
        "--source-lang",
        "en",
        "--budget",
        "100",
        "--include-unscored",
    ];
    for limit in [&[][..], &["--limit", "1"]] {
        let got = verdicts(d.path(), &[&args[..], limit].concat());
        assert_eq!(
            got,
            vec![
                (
                    "02_TERMINOLOGY/Big.md".to_owned(),
                    false,
                    "over budget: it alone needs 223 tokens, more than the whole budget of 100"
                        .to_owned()
                ),
                ("02_TERMINOLOGY/Small.md".to_owned(), true, String::new()),
            ]
        );
    }
}

#[test]
fn a_client_profile_larger_than_the_budget_leaves_the_rest_in() {
    let term = |t: &str| {
        (
            format!("02_TERMINOLOGY/{t}.md"),
            format!(
                "---\nterm_source: {t}\nterm_target: {t}\nsource_lang: en-US\ntarget_lang: nl-BE\n\
                 clients: [\"[[Acme]]\"]\nstatus: approved\nlast_updated: 2026-01-01\n---\n# {t}\n"
            ),
        )
    };
    let (t1, t2) = (term("t1"), term("t2"));
    let d = bank_of(&[
        (
            "01_CLIENTS/Acme.md",
            format!(
                "---\nclient: Acme\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-01-01\n---\n# Acme\n{}\n",
                "y".repeat(20_000)
            ),
        ),
        (&t1.0, t1.1),
        (&t2.0, t2.1),
        (
            "03_DOMAINS/Legal.md",
            "---\ndomain: Legal\nclients: [\"[[Acme]]\"]\nlast_updated: 2026-01-01\n---\n# Legal\n"
                .to_owned(),
        ),
    ]);
    for limit in [&[][..], &["--limit", "1"]] {
        let got = verdicts(d.path(), &[&["--client", "Acme"][..], limit].concat());
        let kept: Vec<&str> = got.iter().filter(|r| r.1).map(|r| r.0.as_str()).collect();
        assert_eq!(
            kept,
            [
                "02_TERMINOLOGY/t1.md",
                "02_TERMINOLOGY/t2.md",
                "03_DOMAINS/Legal.md"
            ]
        );
        assert_eq!(got[0].0, "01_CLIENTS/Acme.md");
        assert!(
            got[0].2.starts_with("over budget: it alone needs "),
            "{got:?}"
        );
    }
}

/// A language value `check` calls "not a language code" earns no point,
/// as the check tells the author, even when it starts with the code asked
/// for; it is not offered as a spelling either. Codes keep their point.
#[test]
fn a_language_value_that_is_no_code_scores_nothing_and_is_not_suggested() {
    let style = |langs: &str| {
        format!("---\nscope: general\nlanguages: [{langs}]\nlast_updated: 2026-01-01\n---\n# S\n")
    };
    let bad = [
        "\"en-GB, nl-BE\"",
        "\"en-GB>nl-BE\"",
        "\"en-GB to nl-BE\"",
        "\"en-\"",
    ];
    let good = ["en", "en-GB", "\"en-US → nl-BE\"", "\"en-US -> nl-BE\""];
    let mut files = Vec::new();
    for (i, langs) in bad.iter().enumerate() {
        files.push((format!("04_STYLE/bad{i}.md"), style(langs)));
    }
    for (i, langs) in good.iter().enumerate() {
        files.push((format!("04_STYLE/good{i}.md"), style(langs)));
    }
    let refs: Vec<(&str, String)> = files.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
    let bank = bank_of(&refs);
    let root = bank.path().to_str().unwrap();

    let (_, out, _) = membank(&["check", root]);
    for i in 0..bad.len() {
        assert!(
            out.contains(&format!("04_STYLE/bad{i}.md:3")),
            "check flags bad{i}: {out}"
        );
    }
    assert!(out.contains("bad-language-code (4)"), "{out}");

    // en-GB matches en and en-GB, not the en-US of the pairs.
    for (lang, scoring) in [("en", 4), ("en-GB", 2)] {
        let (code, out, err) = membank(&["context", root, "--source-lang", lang, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        for a in v["articles"].as_array().unwrap() {
            let path = a["path"].as_str().unwrap();
            let good = (0..scoring).any(|i| path == format!("04_STYLE/good{i}.md"));
            let want = u64::from(good);
            assert_eq!(a["signals"]["language"], want, "{lang}: {path}");
        }
    }

    // With no code in the bank for en-GB, the warning offers only codes.
    let only_bad: Vec<(&str, String)> = refs
        .iter()
        .filter(|(p, _)| p.contains("bad"))
        .cloned()
        .collect();
    let bank = bank_of(&only_bad);
    let root = bank.path().to_str().unwrap();
    let (code, out, err) = membank(&["context", root, "--source-lang", "en-GB", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("no source language 'en-GB' in this bank; it scores nothing"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["articles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["score"] == 0),
        "{v}"
    );
}
