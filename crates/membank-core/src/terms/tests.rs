use super::bilingual;
use super::import::{self, Outcome};
use super::qa;
use super::*;

fn rec(source: &str, target: &str, status: Status, clients: &[&str]) -> TermRecord {
    TermRecord {
        path: format!("02_TERMINOLOGY/{source} → {target}.md"),
        source: source.into(),
        target: target.into(),
        source_lang: "en-US".into(),
        target_lang: "nl-BE".into(),
        status,
        clients: clients.iter().map(|c| c.to_string()).collect(),
        domain: Some("Legal".into()),
        last_updated: Some("2026-01-15".into()),
        note: Some("Use in contracts & <policies>.".into()),
    }
}

fn bank_terms() -> Vec<TermRecord> {
    vec![
        rec("compliance", "naleving", Status::Approved, &["Acme"]),
        rec("compliance", "conformiteit", Status::Rejected, &["Acme"]),
        rec(
            "data controller",
            "verwerkingsverantwoordelijke",
            Status::Approved,
            &[],
        ),
        rec("privacy", "privacy", Status::Approved, &[]),
        rec("privacy", "persoonlijke levenssfeer", Status::Approved, &[]),
        rec("café", "koffiehuis", Status::Approved, &[]),
    ]
}

#[test]
fn articles_sharing_source_pair_and_client_are_one_concept() {
    let concepts = concepts(&bank_terms());
    let compliance: Vec<&Concept> = concepts
        .iter()
        .filter(|c| c.source == "compliance")
        .collect();
    assert_eq!(compliance.len(), 1);
    assert_eq!(compliance[0].targets.len(), 2);
    assert_eq!(compliance[0].targets[1].status, Status::Rejected);
    let privacy = concepts.iter().find(|c| c.source == "privacy").unwrap();
    assert_eq!(privacy.targets.len(), 2);
}

/// TBX 2019's DCT style names each data category by its element: a
/// deprecated term is read as rejected, not as a term with no status.
#[test]
fn tbx_2019_in_dct_style_keeps_its_statuses_and_subject() {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<tbx type="TBX-Basic" style="dct" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2" xmlns:basic="http://www.tbxinfo.net/ns/basic" xmlns:min="http://www.tbxinfo.net/ns/min">
<tbxHeader><fileDesc><sourceDesc><p>x</p></sourceDesc></fileDesc></tbxHeader>
<text><body>
<conceptEntry id="c1">
 <min:subjectField>Legal</min:subjectField>
 <langSec xml:lang="en"><termSec><term>warranty</term></termSec></langSec>
 <langSec xml:lang="nl"><termSec><term>garantie</term><basic:administrativeStatus>deprecatedTerm-admn-sts</basic:administrativeStatus></termSec>
 <termSec><term>waarborg</term><basic:administrativeStatus>preferredTerm-admn-sts</basic:administrativeStatus></termSec></langSec>
</conceptEntry>
</body></text></tbx>"#;
    let mut read: Vec<(String, Status, Option<String>)> = tbx::read(text)
        .unwrap()
        .into_iter()
        .map(|r| (r.target, r.status, r.domain))
        .collect();
    read.sort_by(|a, b| a.0.cmp(&b.0));
    let legal = Some("Legal".to_owned());
    assert_eq!(
        read,
        [
            ("garantie".to_owned(), Status::Rejected, legal.clone()),
            ("waarborg".to_owned(), Status::Approved, legal)
        ]
    );
}

#[test]
fn tbx_2008_and_2019_read_back_what_they_wrote() {
    let terms = bank_terms();
    let concepts = concepts(&terms);
    for version in [TbxVersion::V2008, TbxVersion::V2019] {
        let text = tbx::write(&concepts, version);
        assert!(text.contains("preferredTerm-admn-sts"));
        assert!(text.contains("deprecatedTerm-admn-sts"));
        assert!(text.contains("<admin type=\"customerSubset\">Acme</admin>"));
        assert!(text.contains("&lt;policies&gt;"), "{text}");
        let back = tbx::read(&text).unwrap();
        let strip = |v: &[TermRecord]| {
            let mut v: Vec<TermRecord> = v
                .iter()
                .map(|r| TermRecord {
                    path: String::new(),
                    ..r.clone()
                })
                .collect();
            v.sort_by(|a, b| (&a.source, &a.target).cmp(&(&b.source, &b.target)));
            v
        };
        assert_eq!(strip(&back), strip(&terms), "{version:?}");
    }
}

#[test]
fn multiterm_shaped_tbx_is_read() {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<martif type="TBX" xml:lang="en-US"><martifHeader/><text><body>
<termEntry id="1">
  <descripGrp><descrip type="subjectField">Finance</descrip></descripGrp>
  <transacGrp><transac type="origination">jdoe</transac><date>2025-03-04T10:11:12</date></transacGrp>
  <langSet xml:lang="en-US"><ntig><termGrp><term>invoice</term></termGrp></ntig></langSet>
  <langSet xml:lang="de-DE"><ntig><termGrp><term>Rechnung</term>
    <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></termGrp></ntig></langSet>
</termEntry></body></text></martif>"#;
    let got = tbx::read(text).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].source, "invoice");
    assert_eq!(got[0].target, "Rechnung");
    assert_eq!(got[0].target_lang, "de-DE");
    assert_eq!(got[0].status, Status::Rejected);
    assert_eq!(got[0].domain.as_deref(), Some("Finance"));
    assert_eq!(got[0].last_updated.as_deref(), Some("2025-03-04"));
}

#[test]
fn hostile_xml_is_refused_without_panic() {
    let deep = "<martif>".repeat(10_000);
    assert!(tbx::read(&deep).is_err());
    let entity = r#"<?xml version="1.0"?><!DOCTYPE martif [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<martif xml:lang="en"><text><body><termEntry><langSet xml:lang="en"><tig><term>&x;</term></tig></langSet>
<langSet xml:lang="de"><tig><term>y</term></tig></langSet></termEntry></body></text></martif>"#;
    let err = tbx::read(entity).unwrap_err();
    assert!(
        err.contains("&x;"),
        "an external entity is never resolved: {err}"
    );
    for bad in ["", "<", "<martif><text>", "\u{0}\u{1}", "<tbx></martif>"] {
        let _ = tbx::read(bad);
        let _ = bilingual::read("x.xlf", bad);
    }
}

#[test]
fn memoq_csv_round_trips_and_is_read_with_any_delimiter() {
    let terms = bank_terms();
    let csv = table::write_csv(&concepts(&terms));
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("Entry_ID,Entry_Subject,Entry_Domain,Entry_ClientID"));
    assert!(header.contains(",en-US_Def,en-US,Term_Info,Term_Example,Term_Note,nl-BE_Def,nl-BE,"));
    let back = table::read(&csv, None).unwrap();
    assert_eq!(back.len(), terms.len());
    assert!(back.iter().any(|r| r.target == "conformiteit"
        && r.status == Status::Rejected
        && r.clients == ["Acme"]
        && r.last_updated.as_deref() == Some("2026-01-15")));
    let semi = csv.replace(',', ";");
    assert_eq!(table::read(&semi, None).unwrap().len(), terms.len());
}

#[test]
fn memoq_language_names_are_read_as_tags() {
    let csv = "Entry_ID,Entry_Domain,English_United_States_Def,English_United_States,Term_Info,\
               Term_Example,Dutch_Belgium_Def,Dutch_Belgium,Term_Info,Term_Example\n\
               1,Legal,,invoice,,,,factuur,forbidden,\n";
    let got = table::read(csv, None).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].source_lang.as_str(), got[0].target_lang.as_str()),
        ("en-US", "nl-BE")
    );
    assert_eq!(got[0].status, Status::Rejected);
    assert_eq!(got[0].domain.as_deref(), Some("Legal"));
}

#[test]
fn supervertaler_tsv_has_its_columns_and_needs_a_pair_to_read() {
    let tsv = table::write_tsv(&concepts(&bank_terms()));
    assert!(tsv.starts_with(
        "\u{FEFF}Source Term\tTarget Term\tPriority\tDomain\tNotes\tProject\tClient\tForbidden\r\n"
    ));
    assert!(table::read(&tsv, None).is_err());
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let back = table::read(&tsv, Some(&pair)).unwrap();
    assert!(
        back.iter()
            .any(|r| r.target == "conformiteit" && r.status == Status::Rejected)
    );
    // A glossary with no header: source and target columns.
    let plain = table::read("cat;Katze\ndog;Hund\n", Some(&pair)).unwrap();
    assert_eq!(plain.len(), 2);
    assert_eq!(plain[1].target, "Hund");
}

#[test]
fn import_proposes_new_unchanged_and_conflicting_terms() {
    let existing = bank_terms();
    let taken = existing.iter().map(|r| r.path.clone()).collect();
    let incoming = vec![
        rec("compliance", "naleving", Status::Approved, &["Acme"]),
        rec("compliance", "inachtneming", Status::Approved, &["Acme"]),
        rec("lawyer", "advocaat", Status::Approved, &["Acme"]),
        rec("compliance", "conformiteit", Status::Approved, &["Acme"]),
    ];
    let options = import::Options {
        today: "2026-11-26".into(),
        from: "x.tbx".into(),
        ..Default::default()
    };
    let got = import::propose(&existing, &taken, incoming, &options);
    let outcomes: Vec<Outcome> = got.iter().map(|p| p.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Unchanged,
            Outcome::Conflict,
            Outcome::New,
            Outcome::StatusDiffers
        ]
    );
    assert_eq!(got[1].existing, ["02_TERMINOLOGY/compliance → naleving.md"]);
    assert_eq!(got[2].path, "02_TERMINOLOGY/lawyer → advocaat.md");
    assert!(got[2].text.contains("clients: [\"[[Acme]]\"]"));
    assert!(got[2].text.contains("status: \"approved\""));
}

#[test]
fn import_conflicts_only_where_clients_meet() {
    let existing = bank_terms();
    let taken = existing.iter().map(|r| r.path.clone()).collect();
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let outcome_of =
        |t: TermRecord| import::propose(&existing, &taken, vec![t], &options)[0].clone();
    // Another client may translate Acme's approved term its own way.
    let beta = outcome_of(rec("compliance", "nakoming", Status::Approved, &["Beta"]));
    assert_eq!(beta.outcome, Outcome::New);
    assert!(beta.existing.is_empty());
    // A term for every client meets Acme's.
    let everyone = outcome_of(rec("compliance", "nakoming", Status::Approved, &[]));
    assert_eq!(everyone.outcome, Outcome::Conflict);
    assert_eq!(
        everyone.existing,
        ["02_TERMINOLOGY/compliance → naleving.md"]
    );
    // Clients compare as the bank compares names.
    let acme_too = outcome_of(rec(
        "compliance",
        "nakoming",
        Status::Approved,
        &["beta", " ACME"],
    ));
    assert_eq!(acme_too.outcome, Outcome::Conflict);
    // A client's own target meets a term that names no client.
    let over_everyone = outcome_of(rec("café", "kroeg", Status::Approved, &["Beta"]));
    assert_eq!(over_everyone.outcome, Outcome::Conflict);
    // The import's --client puts every term in that client's jobs.
    let as_beta = import::Options {
        client: Some("Beta".into()),
        ..options.clone()
    };
    let got = import::propose(
        &existing,
        &taken,
        vec![rec("compliance", "nakoming", Status::Approved, &[])],
        &as_beta,
    );
    assert_eq!(got[0].outcome, Outcome::New);
}

/// One term in composed and decomposed form (`é` as one character or as
/// `e` and an accent) is one term: imported once, written composed, and
/// never two files whose names look alike (and collide on macOS).
#[test]
fn import_takes_one_term_in_two_unicode_forms_as_one() {
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let composed = rec("caf\u{e9}", "koffie", Status::Approved, &[]);
    let decomposed = rec("cafe\u{301}", "koffie", Status::Approved, &[]);
    let got = import::propose(
        &[],
        &Default::default(),
        vec![decomposed, composed],
        &options,
    );
    assert_eq!(got[0].outcome, Outcome::New);
    assert_eq!(got[0].path, "02_TERMINOLOGY/caf\u{e9} → koffie.md");
    assert_eq!(got[1].outcome, Outcome::Repeated);
    // A bank file named in decomposed form takes the name too.
    let taken = ["02_TERMINOLOGY/cafe\u{301} → koffie.md".to_owned()]
        .into_iter()
        .collect();
    let other = rec("caf\u{e9}", "Koffie", Status::Approved, &["Beta"]);
    let got = import::propose(&[], &taken, vec![other], &options);
    assert_eq!(got[0].path, "02_TERMINOLOGY/caf\u{e9} → Koffie (2).md");
}

#[test]
fn import_file_names_are_safe_and_unique() {
    let mut t = rec("a/b:c", "..\\x", Status::Approved, &[]);
    t.path.clear();
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let got = import::propose(&[], &Default::default(), vec![t.clone(), t], &options);
    assert_eq!(got[0].path, "02_TERMINOLOGY/a b c → x.md");
    // The same row again is the file's repetition, not a term of the bank.
    assert_eq!(got[1].outcome, Outcome::Repeated);
    assert_eq!(got[1].path, got[0].path);
    // A term the bank has is unchanged.
    let mut in_bank = got[0].term.clone();
    in_bank.path = got[0].path.clone();
    let again = import::propose(&[in_bank], &Default::default(), vec![t_again()], &options);
    assert_eq!(again[0].outcome, Outcome::Unchanged);
}

/// A name a note of another folder has would make `[[name]]` ambiguous:
/// the new term article is numbered, as for a name its own folder has.
#[test]
fn an_imported_term_never_shares_a_name_with_another_folders_note() {
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let taken: std::collections::HashSet<String> = ["03_DOMAINS/beta → bèta.md".to_owned()]
        .into_iter()
        .collect();
    let got = import::propose(
        &[],
        &taken,
        vec![rec("beta", "bèta", Status::Approved, &[])],
        &options,
    );
    assert_eq!(got[0].path, "02_TERMINOLOGY/beta → bèta (2).md");
}

/// Whatever a term holds, the name proposed is one the write accepts:
/// the preview never shows as new what `--yes` would then refuse half-way
/// (an invisible character, a name over 255 bytes, one a link cannot name).
#[test]
fn import_file_names_are_ones_the_write_accepts() {
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let long_cjk = "術".repeat(70);
    let cases = [
        ("\u{202E}gpj", "t"),
        ("zero\u{200B}width", "nul\u{FEFF}"),
        ("[[Legal]]", "t p#x^y"),
        (
            long_cjk.as_str(),
            "Rechtsschutzversicherungsgesellschaftenvertrag ist",
        ),
    ];
    for (source, target) in cases {
        let t = rec(source, target, Status::Approved, &[]);
        let got = import::propose(&[], &Default::default(), vec![t], &options);
        let path = &got[0].path;
        assert!(
            crate::pathsafe::validate(path).is_ok(),
            "{path:?}: {:?}",
            crate::pathsafe::validate(path).err()
        );
        let name = path.rsplit('/').next().unwrap();
        assert!(name.len() <= 255 - " (99)".len(), "{} bytes", name.len());
        assert!(!name.contains(['[', ']', '#', '^']), "{name}");
    }
}

fn t_again() -> TermRecord {
    let mut t = rec("a/b:c", "..\\x", Status::Approved, &[]);
    t.path.clear();
    t
}

const XLIFF12: &str = r#"<?xml version="1.0"?>
<xliff version="1.2"><file source-language="en-US" target-language="nl-BE" datatype="plaintext" original="a"><body>
<trans-unit id="1"><source>Our <g id="1">compliance</g> team</source><target state="translated">Ons nalevingsteam</target></trans-unit>
<trans-unit id="2"><source>Compliance<ph id="1">{compliance}</ph> matters</source><target state="translated">Naleving telt</target></trans-unit>
<trans-unit id="3"><source>Full COMPLIANCE</source><target state="translated">Volledige conformiteit</target></trans-unit>
<trans-unit id="4"><source>compliance again</source><target state="needs-translation">naleving</target></trans-unit>
<trans-unit id="5"><source>privacy first</source><target state="final">privacy eerst</target></trans-unit>
<trans-unit id="6"><source>privacy last</source><target state="final">persoonlijke levenssfeer laatst</target></trans-unit>
<trans-unit id="7"><source>privacy always</source><target state="final">altijd privacy</target></trans-unit>
<trans-unit id="8"><source>Le CAFE</source><target>Het koffiehuis</target>
<alt-trans><target>conformiteit</target></alt-trans></trans-unit>
</body></file></xliff>"#;

#[test]
fn qa_reports_missing_rejected_and_inconsistent_terms() {
    let file = bilingual::read("job.xlf", XLIFF12).unwrap();
    assert_eq!(file.kind, "xliff-1.2");
    assert_eq!(file.segments[1].source, "Compliance matters");
    let terms = bank_terms();
    let records = qa::for_pair(&terms, &file);
    let report = qa::check(&records, &file);
    let got: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.code, f.segment.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("term-missing", "1"),
            ("term-missing", "3"),
            ("term-rejected", "3"),
            ("term-inconsistent", "6"),
        ]
    );
    assert_eq!(report.untranslated, ["4"]);
    let grouped: Vec<(&str, usize)> = report
        .by_term()
        .into_iter()
        .map(|(t, fs)| (t, fs.len()))
        .collect();
    assert_eq!(grouped, [("compliance", 3), ("privacy", 1)]);
    let rejected = &report.findings[2];
    assert_eq!(rejected.target, "Volledige «conformiteit»");
    assert_eq!(rejected.source, "Full «COMPLIANCE»");
    assert_eq!(
        rejected.article,
        "02_TERMINOLOGY/compliance → conformiteit.md"
    );
    assert!(rejected.fix.contains("naleving"));
    // An inconsistent rendering is marked as every finding is.
    let inconsistent = &report.findings[3];
    assert_eq!(inconsistent.source, "«privacy» last");
    assert_eq!(inconsistent.target, "«persoonlijke levenssfeer» laatst");
}

#[test]
fn glossary_counts_segments_per_term() {
    let file = bilingual::read("job.xlf", XLIFF12).unwrap();
    let terms = bank_terms();
    let records = qa::for_pair(&terms, &file);
    let g = qa::glossary(&records, &file);
    let compliance = g
        .iter()
        .find(|e| e.term.target == "naleving")
        .expect("compliance is in the file");
    assert_eq!(compliance.segments, 4);
    assert_eq!(compliance.first_segment, "1");
    let cafe = g.iter().find(|e| e.term.source == "café").unwrap();
    assert_eq!(cafe.first_segment, "8", "accents are ignored");
    assert!(!g.iter().any(|e| e.term.source == "data controller"));
}

#[test]
fn cjk_terms_match_per_character() {
    let mut t = rec("契約", "contract", Status::Approved, &[]);
    t.source_lang = "ja".into();
    t.target_lang = "en".into();
    let file = bilingual::read("a.txt", "この契約は有効です\tThis agreement is valid\n").unwrap();
    let terms = [t];
    let records: Vec<&TermRecord> = terms.iter().collect();
    let report = qa::check(&records, &file);
    assert_eq!(report.findings.len(), 1);
    assert_eq!(report.findings[0].code, "term-missing");
}

#[test]
fn sdlxliff_mqxliff_xliff2_and_tmx_segments() {
    let sdl = r#"<xliff version="1.2" xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"><file source-language="en-US" target-language="de-DE"><body>
<trans-unit id="u1"><source>A. B.</source>
<seg-source><mrk mtype="seg" mid="7">Alpha <x id="3"/>term.</mrk> <mrk mtype="seg" mid="8">Beta.</mrk></seg-source>
<target><mrk mtype="seg" mid="7">Alpha Begriff.</mrk> <mrk mtype="seg" mid="8">Beta.</mrk></target>
<sdl:seg-defs><sdl:seg id="7" conf="Translated"/><sdl:seg id="8" conf="Draft"/></sdl:seg-defs>
</trans-unit></body></file></xliff>"#;
    let f = bilingual::read("a.sdlxliff", sdl).unwrap();
    assert_eq!(f.kind, "sdlxliff");
    assert_eq!(f.segments.len(), 2);
    assert_eq!(f.segments[0].id, "7");
    assert_eq!(f.segments[0].source, "Alpha term.");
    assert!(f.segments[0].translated);
    assert!(!f.segments[1].translated);

    let mq = r#"<xliff version="1.2" xmlns:mq="MQXliff"><file source-language="eng" target-language="ger"><body>
<trans-unit id="1" mq:status="ManuallyConfirmed"><source>x</source><target>y</target></trans-unit>
<trans-unit id="2" mq:status="NotStarted"><source>x</source><target>x</target></trans-unit>
</body></file></xliff>"#;
    let f = bilingual::read("a.mqxliff", mq).unwrap();
    assert_eq!(f.kind, "mqxliff");
    assert!(f.segments[0].translated && !f.segments[1].translated);

    let x2 = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
<file id="f"><unit id="u1"><segment id="s1" state="translated"><source>Hello <pc id="1">big</pc><ph id="2" disp="{x}"/> world</source><target>Bonjour</target></segment></unit>
<unit id="u2"><segment state="initial"><source>a</source><target>b</target></segment></unit></file></xliff>"#;
    let f = bilingual::read("a.xlf", x2).unwrap();
    assert_eq!(f.kind, "xliff-2");
    assert_eq!(f.source_lang.as_deref(), Some("en"));
    assert_eq!(f.segments[0].id, "s1");
    assert_eq!(f.segments[0].source, "Hello big world");
    assert_eq!(f.segments[1].id, "u2");
    assert!(!f.segments[1].translated);

    let tmx = r#"<tmx version="1.4"><header srclang="en-US" segtype="sentence" datatype="plaintext" o-tmf="x" adminlang="en" creationtool="t" creationtoolversion="1"/><body>
<tu tuid="42"><tuv xml:lang="de-DE"><seg>Die <bpt i="1">&lt;b&gt;</bpt>Katze<ept i="1">&lt;/b&gt;</ept></seg></tuv><tuv xml:lang="en-US"><seg>The cat</seg></tuv></tu>
</body></tmx>"#;
    let f = bilingual::read("a.tmx", tmx).unwrap();
    assert_eq!(f.segments[0].id, "42");
    assert_eq!(f.segments[0].source, "The cat");
    assert_eq!(f.segments[0].target, "Die Katze");
    assert_eq!(f.target_lang.as_deref(), Some("de-DE"));
}

#[test]
fn language_tags_match_as_the_format_says() {
    assert!(lang_matches("en", "en-US"));
    assert!(lang_matches("en_us", "EN-US"));
    assert!(!lang_matches("en-GB", "en-US"));
    assert!(!lang_matches("nl", "en"));
    // A script or any longer tag: the tags it begins, either way round.
    assert!(lang_matches("sr-Latn", "sr-Latn-RS"));
    assert!(lang_matches("zh-Hant-TW", "zh_hant"));
    assert!(!lang_matches("zh-Hans", "zh-Hant-TW"));
    assert!(!lang_matches("sr-Latn", "sr-Cyrl-RS"));
    assert!(!lang_matches("en", "eng"));
}

mod hostile {
    use proptest::prelude::*;

    use super::*;

    /// Pieces of the formats read, so random files get past the first tag.
    const PIECES: &[&str] = &[
        "<xliff version=\"1.2\">",
        "<xliff version=\"2.0\" srcLang=\"en\" trgLang=\"ja\">",
        "<file source-language=\"en\" target-language=\"ja\">",
        "<trans-unit id=\"1\">",
        "</trans-unit>",
        "<unit id=\"u\"><segment>",
        "</segment></unit>",
        "<source>",
        "</source>",
        "<target>",
        "</target>",
        "<seg-source>",
        "</seg-source>",
        "<mrk mtype=\"seg\" mid=\"1\">",
        "</mrk>",
        "<ph>",
        "</ph>",
        "<g id=\"1\">",
        "</g>",
        "<x/>",
        "<tmx><header srclang=\"en\"/><body>",
        "<tu>",
        "<tuv xml:lang=\"en\"><seg>",
        "</seg></tuv>",
        "<martif xml:lang=\"en\"><text><body>",
        "<termEntry>",
        "<langSet xml:lang=\"ja\">",
        "<tig><term>",
        "</term></tig>",
        "</langSet>",
        "&amp;",
        "&x;",
        "<",
        ">",
        "\"",
        " ",
        "\t",
        "\n",
        ";",
        ",",
        "compliance",
        "Café",
        "cafe\u{301}",
        "契約",
        "İ",
        "ß",
    ];

    fn file() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..60).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn readers_and_the_check_never_panic(text in file()) {
            let pair = ("en".to_owned(), "ja".to_owned());
            let _ = tbx::read(&text);
            let _ = table::read(&text, Some(&pair));
            for name in ["a.xlf", "a.sdlxliff", "a.mqxliff", "a.tmx", "a.txt"] {
                if let Ok(file) = bilingual::read(name, &text) {
                    let mut terms = Vec::new();
                    for (s, t) in [("compliance", "契約"), ("café", "ß"), ("契約", "compliance"), ("i", "İ")] {
                        for status in [Status::Approved, Status::Rejected] {
                            let mut r = rec(s, t, status, &[]);
                            r.source_lang = "en".into();
                            r.target_lang = "ja".into();
                            terms.push(r);
                        }
                    }
                    let refs: Vec<&TermRecord> = terms.iter().collect();
                    let _ = qa::check(&refs, &file);
                    let _ = qa::glossary(&refs, &file);
                }
            }
        }
    }
}

/// `same_name` answers ASCII names and equal ones without lowering them;
/// it must still be exactly "trimmed and folded alike": the Kelvin sign
/// against `k`, `İ`, `ß` and `ẞ`, `Σ` at a word's end, spaces and tabs at
/// either end or inside, the empty name.
#[test]
fn same_name_is_trimmed_and_folded_alike() {
    let pieces = [
        "a", "A", "k", "K", "\u{212a}", " ", "\t", "é", "É", "İ", "i\u{307}", "i", "ß", "ẞ", "Σ",
        "σ", "ς", "→", "\u{a0}", "Acme", "ACME", "",
    ];
    let names: Vec<String> = crate::random_text::joined(&pieces, 4, 0x9E37_79B9_7F4A_7C15)
        .take(600)
        .collect();
    let fold = crate::wikilink::fold;
    let reference = |a: &str, b: &str| fold(a.trim()) == fold(b.trim());
    let mut alike = 0;
    for a in &names {
        for b in &names {
            assert_eq!(same_name(a, b), reference(a, b), "{a:?} {b:?}");
            alike += usize::from(same_name(a, b) && a != b);
        }
    }
    // Names that differ and still match, some of them not ASCII.
    assert!(alike > 1_000);
    assert!(same_name("\u{212a}elvin ", "kelvin"));
    assert!(same_name("ΟΔΟΣ", "οδοσ") && same_name("οδος", "οδοσ"));
    assert!(!same_name("Acme", "Acme Corp"));
}

fn codes(report: &qa::QaReport) -> Vec<(&str, &str)> {
    report
        .findings
        .iter()
        .map(|f| (f.code, f.found.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn a_rejected_term_differing_only_by_accents_is_reported() {
    let mut terms = vec![
        rec("year", "año", Status::Approved, &[]),
        rec("year", "ano", Status::Rejected, &[]),
    ];
    for t in &mut terms {
        t.target_lang = "es-ES".into();
    }
    let records: Vec<&TermRecord> = terms.iter().collect();
    let check = |text: &str| {
        let file = bilingual::read("a.txt", &format!("This year\t{text}\n")).unwrap();
        qa::check(&records, &file)
    };
    assert_eq!(
        codes(&check("Este ano")),
        [("term-missing", ""), ("term-rejected", "ano")]
    );
    assert!(check("Este AÑO").findings.is_empty(), "case still folds");
    assert!(check("Este año").findings.is_empty());
    // Elsewhere accents still fold.
    let cafe = [rec("café", "koffiehuis", Status::Approved, &[])];
    let records: Vec<&TermRecord> = cafe.iter().collect();
    let file = bilingual::read("a.txt", "Le CAFE\tHet koffiehuís\n").unwrap();
    assert!(qa::check(&records, &file).findings.is_empty());
}

/// A rejected rendering found only inside the approved one is the
/// approved term, not a use of the rejected one; alone, it is reported.
#[test]
fn a_rejected_term_inside_the_approved_one_is_not_reported() {
    let mut terms = vec![
        rec("foot passenger", "passager piéton", Status::Approved, &[]),
        rec("foot passenger", "piéton", Status::Rejected, &[]),
    ];
    for t in &mut terms {
        t.target_lang = "fr-FR".into();
    }
    let records: Vec<&TermRecord> = terms.iter().collect();
    let check = |text: &str| {
        let file =
            bilingual::read("a.txt", &format!("Every foot passenger boards.\t{text}\n")).unwrap();
        qa::check(&records, &file)
    };
    assert!(
        check("Chaque passager piéton embarque.")
            .findings
            .is_empty()
    );
    assert_eq!(
        codes(&check("Chaque piéton embarque.")),
        [("term-missing", ""), ("term-rejected", "piéton")]
    );
    // Both, the rejected one also on its own: reported, for that one.
    assert_eq!(
        codes(&check("Le passager piéton, pas le piéton.")),
        [("term-rejected", "piéton")]
    );
}

/// An admitted (proposed) synonym is allowed, never asked for: used, the
/// term is not missing; absent, the approved one is what is asked for.
#[test]
fn an_admitted_synonym_is_allowed_but_never_demanded() {
    let mut terms = vec![
        rec("shipper", "Ablader", Status::Approved, &[]),
        rec("shipper", "Verlader", Status::Proposed, &[]),
    ];
    for t in &mut terms {
        t.target_lang = "de-DE".into();
    }
    let records: Vec<&TermRecord> = terms.iter().collect();
    let check = |text: &str| {
        let file = bilingual::read("a.txt", &format!("The shipper signs.\t{text}\n")).unwrap();
        qa::check(&records, &file)
    };
    assert!(check("Der Verlader unterschreibt.").findings.is_empty());
    assert!(check("Der Ablader unterschreibt.").findings.is_empty());
    let missing = check("Der Absender unterschreibt.");
    assert_eq!(codes(&missing), [("term-missing", "")]);
    assert_eq!(missing.findings[0].expected, ["Ablader"]);
}

/// Two approved terms, one inside the other.
fn nested_terms() -> [TermRecord; 2] {
    [
        rec(
            "data controller",
            "verwerkingsverantwoordelijke",
            Status::Approved,
            &[],
        ),
        rec("controller", "regelaar", Status::Approved, &[]),
    ]
}

#[test]
fn a_term_inside_a_longer_term_is_not_checked_on_its_own() {
    let terms = nested_terms();
    let records: Vec<&TermRecord> = terms.iter().collect();
    let file = bilingual::read(
        "a.txt",
        "The data controller decides.\tDe verwerkingsverantwoordelijke beslist.\n\
         The data controller and the controller.\tDe verwerkingsverantwoordelijke en de sturing.\n",
    )
    .unwrap();
    let report = qa::check(&records, &file);
    let got: Vec<(&str, &str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.code, f.segment.as_str(), f.source_term.as_str()))
        .collect();
    assert_eq!(
        got,
        [("term-missing", "2", "controller")],
        "a standalone occurrence is still checked"
    );
}

#[test]
fn the_job_glossary_leaves_out_a_term_found_only_inside_a_longer_one() {
    let terms = nested_terms();
    let records: Vec<&TermRecord> = terms.iter().collect();
    let segments = |text: &str| bilingual::read("a.txt", text).unwrap();
    let listed = |file: &bilingual::BilingualFile| -> Vec<(String, usize, String)> {
        qa::glossary(&records, file)
            .into_iter()
            .map(|e| (e.term.source, e.segments, e.first_segment))
            .collect()
    };
    let inside_only = segments("The data controller decides.\tDe verantwoordelijke beslist.\n");
    assert_eq!(
        listed(&inside_only),
        [("data controller".into(), 1, "1".into())]
    );
    let also_alone = segments(
        "The data controller decides.\tDe verantwoordelijke beslist.\n\
         The controller.\tDe regelaar.\n",
    );
    assert_eq!(
        listed(&also_alone),
        [
            ("data controller".into(), 1, "1".into()),
            ("controller".into(), 1, "2".into())
        ]
    );
}

#[test]
fn undeclared_entities_and_forbidden_characters_are_malformed_xml() {
    let tbx = |term: &str| {
        format!(
            "<martif xml:lang=\"en\"><text><body>\n<termEntry>\
             <langSet xml:lang=\"en\"><tig><term>acme</term></tig></langSet>\n\
             <langSet xml:lang=\"nl\"><tig><term>{term}</term></tig></langSet>\
             </termEntry></body></text></martif>"
        )
    };
    assert_eq!(tbx::read(&tbx("a &amp; b")).unwrap()[0].target, "a & b");
    for (bad, why) in [
        ("Acme &co;", "&co;"),
        ("evil\u{1b}]0;title\u{7}", "U+001B"),
        ("evil&#x1B;", "U+001B"),
        ("bell&#7;", "U+0007"),
    ] {
        let err = tbx::read(&tbx(bad)).unwrap_err();
        assert!(err.starts_with("line 3: ") && err.contains(why), "{err}");
    }
    let xlf = "<xliff version=\"1.2\"><file><body><trans-unit id=\"1\">\
               <source>a &co;</source></trans-unit></body></file></xliff>";
    assert!(bilingual::read("a.xlf", xlf).is_err());
}

#[test]
fn control_characters_in_a_table_cell_are_refused() {
    let pair = ("en".to_owned(), "nl".to_owned());
    let err = table::read("invoice,factuur\nbill,reke\u{1b}[2Jning\n", Some(&pair)).unwrap_err();
    assert!(err.contains("line 2") && err.contains("U+001B"), "{err}");
    let tsv = table::read("\"a\tb\"\tc\n\"multi\nline\"\td\n", Some(&pair)).unwrap();
    assert_eq!(
        tsv.len(),
        2,
        "tabs and line breaks in quoted cells are kept"
    );
}

#[test]
fn an_article_never_holds_control_characters() {
    let mut t = rec(
        "evil\u{1b}]0;x\u{7}",
        "ta\u{9b}rget",
        Status::Approved,
        &["Ac\u{1b}me"],
    );
    t.note = Some("a\u{1b}[31m note\twith tab".into());
    let text = import::article_text(&t, "f\u{7}.tbx");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{text:?}"
    );
    assert!(text.contains("# evil]0;x → target\n"), "{text}");
}

#[test]
fn a_note_is_the_whole_first_paragraph_whatever_its_emphasis() {
    let body = "# invoice → factuur\n\nUse factuur, never\n*nota* or *rekening* in Acme documents.\n\nMore.\n";
    assert_eq!(
        first_paragraph(body).as_deref(),
        Some("Use factuur, never *nota* or *rekening* in Acme documents.")
    );
    assert_eq!(
        first_paragraph("**Garantie** is the legal term.\nSee the contract.\n").as_deref(),
        Some("**Garantie** is the legal term. See the contract.")
    );
    let skipped =
        "# H\n- a list\n* item\n+ item\n1. first\n2) second\n> quote\n| a |\n---\n\nProse.\n";
    assert_eq!(first_paragraph(skipped).as_deref(), Some("Prose."));
    assert_eq!(
        first_paragraph("Prose first\n- then a list\n").as_deref(),
        Some("Prose first")
    );
    // A note written by an import reads back as it was.
    for note in [
        "*nota* is wrong here",
        "- a dash first",
        "* a star first",
        "1. numbered first",
        "# hash first",
        "\\ backslash first",
        "plain",
        "**Garantie** (de): always capitalised",
        "+ a plus first",
        "2) second",
        "> quoted",
        "| piped",
        "```fenced",
        "---",
        "\\*escaped",
        "_nota_ too",
        "-5 °C at most",
    ] {
        let mut t = rec("invoice", "factuur", Status::Approved, &[]);
        t.note = Some(note.into());
        let text = import::article_text(&t, "");
        let body = &text[text.find("\n---\n").unwrap() + 5..];
        assert_eq!(first_paragraph(body).as_deref(), Some(note), "{text}");
    }
}

#[test]
fn an_imported_note_starting_with_emphasis_is_written_as_it_is() {
    for note in [
        "**Garantie** (de): always capitalised",
        "*nota* is informal",
        "_nota_ is informal",
        "-5 °C at most",
        "`code` first",
    ] {
        let mut t = rec("invoice", "factuur", Status::Approved, &[]);
        t.note = Some(note.into());
        let text = import::article_text(&t, "");
        assert!(text.ends_with(&format!("\n\n{note}\n")), "{text}");
    }
    for (note, written) in [
        ("* a star first", "\\* a star first"),
        ("- a dash first", "\\- a dash first"),
        ("# hash first", "\\# hash first"),
        ("1. numbered", "1\\. numbered"),
    ] {
        let mut t = rec("invoice", "factuur", Status::Approved, &[]);
        t.note = Some(note.into());
        let text = import::article_text(&t, "");
        assert!(text.ends_with(&format!("\n\n{written}\n")), "{text}");
    }
}

#[test]
fn dates_are_written_only_as_real_days() {
    assert_eq!(normal_day("2026-3-2").as_deref(), Some("2026-03-02"));
    assert_eq!(
        normal_day("2026-03-02T10:00:00Z").as_deref(),
        Some("2026-03-02")
    );
    for bad in [
        "2026-13-45",
        "2026-02-30",
        "26-3-2",
        "2026-003-02",
        "soon",
        "",
    ] {
        assert_eq!(normal_day(bad), None, "{bad}");
    }
    let mut terms = vec![
        rec("invoice", "factuur", Status::Approved, &[]),
        rec("bill", "rekening", Status::Approved, &[]),
    ];
    terms[0].last_updated = Some("2026-3-2".into());
    terms[1].last_updated = Some("2026-13-45".into());
    // The writers never carry an invalid date, even unnormalised.
    let tbx = tbx::write(&concepts(&terms), TbxVersion::V2008);
    assert!(tbx.contains("<date>2026-03-02</date>"), "{tbx}");
    assert!(!tbx.contains("13-45") && !tbx.contains("2026-3-2"), "{tbx}");
    let csv = table::write_csv(&concepts(&terms));
    assert!(csv.contains("3/2/2026") && !csv.contains("13/45"), "{csv}");
    let warnings = normalise_dates(&mut terms);
    assert_eq!(terms[0].last_updated.as_deref(), Some("2026-03-02"));
    assert_eq!(terms[1].last_updated, None);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("bill → rekening.md") && warnings[0].contains("2026-13-45"));
    // Read back: an invalid date is no date.
    let pair = ("en".to_owned(), "nl".to_owned());
    let got = table::read(
        "Source,Target,Date\na,b,13/45/2026\nc,d,3/2/2026\n",
        Some(&pair),
    )
    .unwrap();
    assert_eq!(got[0].last_updated, None);
    assert_eq!(got[1].last_updated.as_deref(), Some("2026-03-02"));
}

#[test]
fn both_directions_of_a_pair_round_trip_in_tbx_and_csv() {
    let mut back = rec("offerte", "quotation", Status::Approved, &[]);
    back.source_lang = "nl-BE".into();
    back.target_lang = "en-US".into();
    let terms = vec![rec("invoice", "factuur", Status::Approved, &[]), back];
    let key = |t: &TermRecord| {
        (
            t.source.clone(),
            t.target.clone(),
            t.source_lang.clone(),
            t.target_lang.clone(),
        )
    };
    let want: Vec<_> = terms.iter().map(key).collect();
    let cs = concepts(&terms);
    for version in [TbxVersion::V2008, TbxVersion::V2019] {
        let got = tbx::read(&tbx::write(&cs, version)).unwrap();
        assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want, "{version:?}");
    }
    let got = table::read(&table::write_csv(&cs), None).unwrap();
    assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want, "csv");
    // A file that does not say which comes first takes --pair's source.
    let plain = "<martif xml:lang=\"en-US\"><text><body><termEntry>\
        <langSet xml:lang=\"en-US\"><tig><term>quotation</term></tig></langSet>\
        <langSet xml:lang=\"nl-BE\"><tig><term>offerte</term></tig></langSet>\
        </termEntry></body></text></martif>";
    let pair = ("nl-BE".to_owned(), "en-US".to_owned());
    let got = read(Format::Tbx, "a.tbx", plain, Some(&pair))
        .unwrap()
        .records;
    assert_eq!(
        (got[0].source.as_str(), got[0].source_lang.as_str()),
        ("offerte", "nl-BE")
    );
    let got = read(Format::Tbx, "a.tbx", plain, None).unwrap().records;
    assert_eq!(
        got[0].source, "quotation",
        "else the language the file names"
    );
}

#[test]
fn each_source_synonym_is_imported_as_a_term() {
    let tbx = "<martif xml:lang=\"en-US\"><text><body><termEntry>\
        <langSet xml:lang=\"en-US\"><tig><term>invoice</term></tig><tig><term>bill</term></tig></langSet>\
        <langSet xml:lang=\"nl-BE\"><tig><term>factuur</term></tig></langSet>\
        </termEntry></body></text></martif>";
    let pairs = |got: Vec<TermRecord>| -> Vec<(String, String)> {
        got.into_iter().map(|t| (t.source, t.target)).collect()
    };
    let want = [
        ("invoice".to_owned(), "factuur".to_owned()),
        ("bill".to_owned(), "factuur".to_owned()),
    ];
    assert_eq!(pairs(tbx::read(tbx).unwrap()), want);
    let csv = "Entry_ID,en-US,Term_Info,en-US,Term_Info,nl-BE,Term_Info\n\
               1,invoice,,bill,,factuur,approved\n";
    assert_eq!(pairs(table::read(csv, None).unwrap()), want);
}

#[test]
fn a_tmx_for_all_languages_is_read_by_the_languages_given() {
    let tmx = r#"<tmx version="1.4"><header srclang="*all*"/><body>
<tu tuid="1"><tuv xml:lang="nl-BE"><seg>de factuur</seg></tuv><tuv xml:lang="en-US"><seg>the invoice</seg></tuv></tu>
<tu tuid="2"><tuv xml:lang="en-US"><seg>the bill</seg></tuv><tuv xml:lang="nl-BE"><seg>de rekening</seg></tuv></tu>
</body></tmx>"#;
    let sources = |f: &bilingual::BilingualFile| -> Vec<String> {
        f.segments.iter().map(|s| s.source.clone()).collect()
    };
    let right = ["the invoice", "the bill"];
    for f in [
        bilingual::read_with("a.tmx", tmx, Some(("en-US", "nl-BE")), None).unwrap(),
        bilingual::read_with("a.tmx", tmx, None, Some("en-US")).unwrap(),
    ] {
        assert_eq!(sources(&f), right);
        assert_eq!(f.segments[0].target, "de factuur");
        assert_eq!(f.source_lang.as_deref(), Some("en-US"));
        assert_eq!(f.target_lang.as_deref(), Some("nl-BE"));
    }
    let pair = bilingual::read_with("a.tmx", tmx, Some(("nl", "en")), None).unwrap();
    assert_eq!(
        sources(&pair),
        ["de factuur", "de rekening"],
        "--pair decides"
    );
}

#[test]
fn each_terms_note_survives_a_csv_round_trip() {
    let mut ok = rec("invoice", "factuur", Status::Approved, &[]);
    ok.note = Some("The legal term.".into());
    let mut no = rec("invoice", "nota", Status::Rejected, &[]);
    no.note = Some("Sounds dated, \"never\" use it.".into());
    let mut none = rec("invoice", "rekening", Status::Proposed, &[]);
    none.note = None;
    let terms = vec![ok, no, none];
    let csv = table::write_csv(&concepts(&terms));
    let got = table::read(&csv, None).unwrap();
    let notes: Vec<(&str, Option<&str>)> = got
        .iter()
        .map(|t| (t.target.as_str(), t.note.as_deref()))
        .collect();
    assert_eq!(
        notes,
        [
            ("factuur", Some("The legal term.")),
            ("nota", Some("Sounds dated, \"never\" use it.")),
            ("rekening", None),
        ],
        "{csv}"
    );
    // A file without per-term notes gives every term the entry's note.
    let memoq = "Entry_ID,Entry_Note,en,Term_Info,nl,Term_Info,nl,Term_Info\n\
                 1,Shared.,invoice,,factuur,approved,nota,rejected\n";
    let got = table::read(memoq, None).unwrap();
    assert!(got.iter().all(|t| t.note.as_deref() == Some("Shared.")));
}

#[test]
fn header_rows_naming_terms_or_languages_are_not_terms() {
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let pairs = |got: Vec<TermRecord>| -> Vec<(String, String, String, String)> {
        got.into_iter()
            .map(|t| (t.source, t.target, t.source_lang, t.target_lang))
            .collect()
    };
    let want = vec![(
        "invoice".to_owned(),
        "factuur".to_owned(),
        "en-US".to_owned(),
        "nl-BE".to_owned(),
    )];
    for text in [
        "Term,Translation\ninvoice,factuur\n",
        "English,Dutch\ninvoice,factuur\n",
        "English\tDutch\ninvoice\tfactuur\n",
    ] {
        assert_eq!(
            pairs(table::read(text, Some(&pair)).unwrap()),
            want,
            "{text}"
        );
    }
    let bare = table::read("English,Dutch\ninvoice,factuur\n", None).unwrap();
    assert_eq!(
        (bare[0].source_lang.as_str(), bare[0].target_lang.as_str()),
        ("en", "nl")
    );
}

#[test]
fn a_tab_inside_a_term_survives_csv_and_tsv() {
    let terms = vec![rec("tab\there", "tab\tdaar", Status::Approved, &[])];
    let back = table::read(&table::write_csv(&concepts(&terms)), None).unwrap();
    assert_eq!(
        (back[0].source.as_str(), back[0].target.as_str()),
        ("tab\there", "tab\tdaar")
    );
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let back = table::read(&table::write_tsv(&concepts(&terms)), Some(&pair)).unwrap();
    assert_eq!(
        (back[0].source.as_str(), back[0].target.as_str()),
        ("tab\there", "tab\tdaar")
    );
}

#[test]
fn an_imported_tab_is_kept_escaped_in_the_frontmatter() {
    let t = rec("tab\there", "daar", Status::Approved, &[]);
    let text = import::article_text(&t, "");
    assert!(text.contains("term_source: \"tab\\there\"\n"), "{text}");
    assert!(!text.contains('\t'), "{text}");
}

#[test]
fn cat_status_words_keep_forbidden_terms_rejected() {
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let csv = "Source,Target,Status\n\
               a,b,forbidden\nc,d,Deprecated\ne,f,superseded\ng,h,not recommended\n\
               i,j,preferred\nk,l,admitted\nm,n,\n";
    let got = table::read(csv, Some(&pair)).unwrap();
    let statuses: Vec<Status> = got.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            Status::Rejected,
            Status::Rejected,
            Status::Rejected,
            Status::Rejected,
            Status::Approved,
            Status::Proposed,
            // No status given: proposed, as the import promises.
            Status::Proposed,
        ]
    );
    let err = table::read(
        "Source,Target,Status\na,b,approved\nc,d,banned\n",
        Some(&pair),
    )
    .unwrap_err();
    assert!(err.contains("line 3") && err.contains("banned"), "{err}");
    let problem = read(
        Format::Csv,
        "g.csv",
        "Source,Target,Status\nc,d,banned\n",
        Some(&pair),
    )
    .unwrap_err();
    assert!(
        problem.to_string().starts_with("g.csv: line 2"),
        "{problem}"
    );

    let tbx = |note: &str| {
        format!(
            r#"<martif xml:lang="en"><text><body><termEntry>
<langSet xml:lang="en"><tig><term>a</term></tig></langSet>
<langSet xml:lang="nl"><tig><term>b</term>{note}</tig></langSet>
</termEntry></body></text></martif>"#
        )
    };
    for (note, want) in [
        (
            r#"<termNote type="usageStatus">deprecatedTerm-admn-sts</termNote>"#,
            Status::Rejected,
        ),
        (
            r#"<termNote type="normativeAuthorization">supersededTerm</termNote>"#,
            Status::Rejected,
        ),
        (
            r#"<termNote type="usageStatus">forbidden</termNote>"#,
            Status::Rejected,
        ),
        ("", Status::Proposed),
    ] {
        let got = tbx::read(&tbx(note)).unwrap();
        assert_eq!(got[0].status, want, "{note}");
    }
    let err = tbx::read(&tbx(
        r#"<termNote type="administrativeStatus">banned</termNote>"#,
    ))
    .unwrap_err();
    assert!(err.contains("banned"), "{err}");
}

#[test]
fn content_marked_not_to_translate_is_not_checked() {
    let ids = |f: &bilingual::BilingualFile| -> Vec<String> {
        f.segments.iter().map(|s| s.id.clone()).collect()
    };
    let x1 = r#"<xliff version="1.2"><file source-language="en" target-language="nl"><body>
<group translate="no"><group><trans-unit id="g1"><source>compliance</source><target>compliance</target></trans-unit></group>
<trans-unit id="g2" translate="yes"><source>a</source><target>b</target></trans-unit></group>
<trans-unit id="t1"><source>Brand <mrk mtype="protected">Compliance Pro</mrk> helps</source><target>Merk <mrk mtype="protected">Compliance Pro</mrk> helpt</target></trans-unit>
</body></file></xliff>"#;
    let f = bilingual::read("a.xlf", x1).unwrap();
    assert_eq!(ids(&f), ["g2", "t1"]);
    assert_eq!(f.segments[1].source, "Brand helps");
    let mut compliance = rec("compliance", "naleving", Status::Approved, &[]);
    compliance.source_lang = "en".into();
    compliance.target_lang = "nl".into();
    let report = qa::check(&[&compliance], &f);
    assert!(report.findings.is_empty(), "{:?}", report.findings);

    let x2 = r#"<xliff version="2.0" srcLang="en" trgLang="nl"><file id="f">
<group id="g" translate="no"><unit id="u1"><segment><source>compliance</source><target>x</target></segment></unit></group>
<unit id="u2"><segment><source>The <mrk id="m" translate="no">compliance</mrk> tool</source><target>Het <mrk id="m" translate="no">compliance</mrk> ding</target></segment></unit>
</file></xliff>"#;
    let f = bilingual::read("a.xlf", x2).unwrap();
    assert_eq!(ids(&f), ["u2"]);
    assert_eq!(f.segments[0].source, "The tool");

    let sdl = r#"<xliff version="1.2" xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0"><file source-language="en" target-language="nl"><body>
<trans-unit id="u1"><source>A. B.</source>
<seg-source><mrk mtype="seg" mid="1">compliance</mrk> <mrk mtype="seg" mid="2">Beta.</mrk></seg-source>
<target><mrk mtype="seg" mid="1">compliance</mrk> <mrk mtype="seg" mid="2">Beta.</mrk></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated" locked="true"/><sdl:seg id="2" conf="Translated"/></sdl:seg-defs>
</trans-unit></body></file></xliff>"#;
    let f = bilingual::read("a.sdlxliff", sdl).unwrap();
    assert_eq!(ids(&f), ["2"]);
}

#[test]
fn a_seg_source_without_segment_marks_falls_back_to_source_and_target() {
    let x = r#"<xliff version="1.2"><file source-language="en" target-language="nl"><body>
<trans-unit id="u1"><source>Full compliance</source><seg-source>Full compliance</seg-source><target>Volledige conformiteit</target></trans-unit>
</body></file></xliff>"#;
    let f = bilingual::read("a.xlf", x).unwrap();
    assert_eq!(f.segments.len(), 1);
    assert_eq!(f.segments[0].id, "u1");
    assert_eq!(f.segments[0].source, "Full compliance");
    assert_eq!(f.segments[0].target, "Volledige conformiteit");
    assert!(f.segments[0].translated);
}

#[test]
fn arabic_tatweel_is_ignored_as_harakat_are() {
    let mut contract = rec("contract", "عقد", Status::Approved, &[]);
    contract.target_lang = "ar".into();
    let file = bilingual::BilingualFile {
        kind: "text",
        source_lang: Some("en-US".into()),
        target_lang: Some("ar".into()),
        segments: vec![bilingual::Segment {
            id: "1".into(),
            source: "The contract".into(),
            target: "عـقـد الشركة".into(),
            translated: true,
            langs: None,
            file: None,
        }],
    };
    // Stretched, the term is still found in the target...
    let report = qa::check(&[&contract], &file);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    // ...and a stretched term matches plain text.
    assert_eq!(matcher::fold("عـقـد"), matcher::fold("عَقْد"));
}

/// `ß` folds to `ss`, as full case folding has it: "STRASSE" in a text
/// is the term "Straße", and the other way round, with the mark on the
/// word as written.
#[test]
fn sharp_s_matches_ss_whatever_the_case() {
    assert_eq!(matcher::fold("Straße"), matcher::fold("STRASSE"));
    assert_eq!(matcher::fold("GROẞ"), matcher::fold("gross"));
    let mut street = rec("street", "Straße", Status::Approved, &[]);
    street.target_lang = "de-DE".into();
    let check = |target: &str| {
        let file = bilingual::read("a.txt", &format!("Cross the street.\t{target}\n")).unwrap();
        let mut file = file;
        file.source_lang = Some("en-US".into());
        file.target_lang = Some("de-DE".into());
        qa::check(&[&street], &file)
    };
    assert!(check("Überqueren Sie DIE STRASSE.").findings.is_empty());
    assert!(check("Überqueren Sie die Straße.").findings.is_empty());
    assert_eq!(
        codes(&check("Überqueren Sie den Weg.")),
        [("term-missing", "")]
    );
}

#[test]
fn a_reference_to_a_forbidden_character_is_called_one() {
    for (reference, why) in [
        ("&#0;", "U+0000, a character XML does not allow"),
        ("&#x0;", "U+0000, a character XML does not allow"),
        ("&#xD800;", "names no character"),
    ] {
        let text = format!(
            "<martif xml:lang=\"en\"><text><body><termEntry>\
             <langSet xml:lang=\"en\"><tig><term>a{reference}</term></tig></langSet>\
             </termEntry></body></text></martif>"
        );
        let err = tbx::read(&text).unwrap_err();
        assert!(
            err.contains("character reference") && err.contains(why) && !err.contains("entity"),
            "{reference}: {err}"
        );
    }
}

#[test]
fn a_status_column_beside_language_columns_gives_each_rows_status() {
    let pair = ("nl-BE".to_owned(), "en-US".to_owned());
    let statuses = |text: &str, pair: Option<&(String, String)>| -> Vec<(String, Status)> {
        table::read(text, pair)
            .unwrap()
            .into_iter()
            .map(|r| (r.target, r.status))
            .collect()
    };
    let want = vec![
        ("waarborg".to_owned(), Status::Rejected),
        ("garantie".to_owned(), Status::Approved),
        ("nota".to_owned(), Status::Proposed),
    ];
    for text in [
        "en-US,nl-BE,Status\nwarranty,waarborg,rejected\nwarranty,garantie,approved\ninvoice,nota,\n",
        "English;Dutch;Status\nwarranty;waarborg;forbidden\nwarranty;garantie;preferred\ninvoice;nota;\n",
        "Source,Target,Status\nwarranty,waarborg,rejected\nwarranty,garantie,approved\ninvoice,nota,\n",
    ] {
        assert_eq!(
            statuses(text, Some(&("en-US".to_owned(), "nl-BE".to_owned()))),
            want,
            "{text}"
        );
    }
    // The source column second: `--pair` says which one it is.
    let got: Vec<(String, Status)> = table::read(
        "nl-BE,en-US,Status\nwaarborg,warranty,rejected\ngarantie,warranty,approved\n",
        Some(&pair),
    )
    .unwrap()
    .into_iter()
    .map(|r| (r.source, r.status))
    .collect();
    assert_eq!(
        got,
        [
            ("waarborg".to_owned(), Status::Rejected),
            ("garantie".to_owned(), Status::Approved)
        ]
    );
    // Supervertaler's columns beside language columns.
    assert_eq!(
        statuses(
            "en-US\tnl-BE\tPriority\tForbidden\na\tb\t1\tFALSE\nc\td\t99\tFALSE\ne\tf\t1\tTRUE\n",
            None
        ),
        [
            ("b".to_owned(), Status::Approved),
            ("d".to_owned(), Status::Proposed),
            ("f".to_owned(), Status::Rejected)
        ]
    );
    // memoQ's `Term_Info` is the term's own, before the row's.
    assert_eq!(
        statuses(
            "en-US,Term_Info,nl-BE,Term_Info,Status\na,source,b,rejected,approved\nc,source,d,,approved\n",
            None
        ),
        [
            ("b".to_owned(), Status::Rejected),
            ("d".to_owned(), Status::Approved)
        ]
    );
    let err = table::read(
        "en-US,nl-BE,Status\nwarranty,garantie,approved\ninvoice,nota,nonsense-word\n",
        None,
    )
    .unwrap_err();
    assert!(
        err.contains("line 3") && err.contains("nonsense-word"),
        "{err}"
    );
}

#[test]
fn content_after_the_root_element_is_a_malformed_file() {
    let xlf = |target: &str| {
        format!(
            r#"<xliff version="1.2"><file source-language="en-US" target-language="nl-BE"><body><trans-unit id="1"><source>The warranty</source><target>{target}</target></trans-unit></body></file></xliff>"#
        )
    };
    let joined = format!("{}\n{}\n", xlf("De garantie"), xlf("De waarborg"));
    let err = bilingual::read("a.xlf", &joined).unwrap_err();
    assert!(err.starts_with("line 2:") && err.contains("after"), "{err}");
    for tail in [
        "trailing text",
        "<?xml version=\"1.0\"?>",
        "&amp;",
        "<![CDATA[x]]>",
    ] {
        let text = format!("{}\n{tail}\n", xlf("De garantie"));
        assert!(bilingual::read("a.xlf", &text).is_err(), "{tail}");
    }
    // Whitespace, comments and processing instructions may follow.
    let fine = format!(
        "{}\n<!-- saved by a tool -->\n<?tool done?>\n\n",
        xlf("De garantie")
    );
    assert_eq!(bilingual::read("a.xlf", &fine).unwrap().segments.len(), 1);

    let entry = |s: &str, t: &str| {
        format!(
            r#"<martif xml:lang="en-US"><text><body><termEntry><langSet xml:lang="en-US"><tig><term>{s}</term></tig></langSet><langSet xml:lang="nl-BE"><tig><term>{t}</term></tig></langSet></termEntry></body></text></martif>"#
        )
    };
    let tbx = format!(
        "<?xml version=\"1.0\"?>\n{}\n{}\n",
        entry("one", "een"),
        entry("two", "twee")
    );
    let problem = read(Format::Tbx, "merged.tbx", &tbx, None).unwrap_err();
    assert!(
        problem.to_string().starts_with("merged.tbx: line 3:"),
        "{problem}"
    );
    // The line named is the one the stray text is on, not the next.
    let problem = read(Format::Tbx, "t.tbx", "<martif/>\ntrailing text\n", None).unwrap_err();
    assert!(
        problem.to_string().starts_with("t.tbx: line 2:"),
        "{problem}"
    );
}

/// Text before the root element is no XML either (an XML parser stops
/// at it): a file with it is refused, in XLIFF, TMX and TBX alike.
#[test]
fn text_before_the_root_element_is_a_malformed_file() {
    let xlf = r#"<xliff version="1.2"><file source-language="en-US" target-language="nl-BE"><body><trans-unit id="1"><source>The warranty</source><target>De garantie</target></trans-unit></body></file></xliff>"#;
    let tmx = r#"<tmx version="1.4"><header srclang="en-US"/><body><tu><tuv xml:lang="en-US"><seg>The warranty</seg></tuv><tuv xml:lang="nl-BE"><seg>De garantie</seg></tuv></tu></body></tmx>"#;
    let tbx = r#"<martif xml:lang="en-US"><text><body><termEntry><langSet xml:lang="en-US"><tig><term>bill</term></tig></langSet><langSet xml:lang="nl-BE"><tig><term>rekening</term></tig></langSet></termEntry></body></text></martif>"#;
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
    for (name, root) in [("a.xlf", xlf), ("a.tmx", tmx)] {
        let fine = format!("\u{FEFF}{decl}\n<!-- c -->\n{root}\n");
        assert_eq!(bilingual::read(name, &fine).unwrap().segments.len(), 1);
        let stray = format!("{decl}\nnot allowed here\n{root}\n");
        let err = bilingual::read(name, &stray).unwrap_err();
        assert!(err.contains("line 2:") && err.contains("before"), "{err}");
    }
    assert_eq!(tbx::read(&format!("{decl}\n{tbx}")).unwrap().len(), 1);
    let stray = format!("stray text\n{decl}\n{tbx}\n");
    let problem = read(Format::Tbx, "g.tbx", &stray, None).unwrap_err();
    assert!(
        problem.to_string().starts_with("g.tbx: line 1:"),
        "{problem}"
    );
}

#[test]
fn text_a_trados_tracked_change_deletes_is_not_checked() {
    let sdl = r#"<xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" version="1.2"><file source-language="en-US" target-language="nl-BE"><body><trans-unit id="u1"><source>x</source>
<seg-source><mrk mtype="seg" mid="1">Full <mrk mtype="x-sdl-deleted" sdl:revid="r1">privacy </mrk>compliance.</mrk></seg-source>
<target><mrk mtype="seg" mid="1">Volledige <mrk mtype="x-sdl-deleted" sdl:revid="r1">conformiteit </mrk><mrk mtype="x-sdl-added" sdl:revid="r2">naleving</mrk>.</mrk></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated"/></sdl:seg-defs></trans-unit></body></file></xliff>"#;
    let file = bilingual::read("a.sdlxliff", sdl).unwrap();
    assert_eq!(file.segments[0].source, "Full compliance.");
    assert_eq!(file.segments[0].target, "Volledige naleving.");
    let terms = bank_terms();
    let report = qa::check(&qa::for_pair(&terms, &file), &file);
    assert!(report.findings.is_empty(), "{:?}", codes(&report));
}

#[test]
fn invisible_format_characters_decide_no_match() {
    let mut terms = bank_terms();
    terms.push(rec("warranty", "garantie", Status::Approved, &[]));
    terms.push(rec("warranty", "waarborg", Status::Rejected, &[]));
    let file = bilingual::read(
        "job.txt",
        "The data controller\tDe verwerkings\u{AD}verantwoordelijke\n\
         The war\u{AD}ranty\tDe waar\u{200B}borg\n",
    )
    .unwrap();
    let report = qa::check(&qa::for_pair(&terms, &file), &file);
    let got: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (f.code, f.segment.as_str()))
        .collect();
    // The first is found; the second's source term is recognised, and
    // its rejected target too.
    assert_eq!(got, [("term-missing", "2"), ("term-rejected", "2")]);
    let rejected = &report.findings[1];
    assert_eq!(rejected.source, "The «war\u{AD}ranty»");
    assert_eq!(rejected.target, "De «waar\u{200B}borg»");
    // A term written with one matches text without it.
    let shy = vec![rec(
        "war\u{AD}ranty",
        "ga\u{200B}rantie",
        Status::Approved,
        &[],
    )];
    let file = bilingual::read("job.txt", "The warranty\tDe garantie\n").unwrap();
    let report = qa::check(&qa::for_pair(&shy, &file), &file);
    assert!(report.findings.is_empty(), "{:?}", codes(&report));

    // Imported, a term leaves them out (joiners aside: spelling needs them).
    let options = import::Options {
        today: "2026-11-26".into(),
        ..Default::default()
    };
    let got = import::propose(
        &[],
        &Default::default(),
        vec![
            rec(
                "data controller",
                "verwerkings\u{AD}verantwoordelijke",
                Status::Approved,
                &[],
            ),
            rec(
                "soft\u{200B}ware",
                "\u{FEFF}نرم\u{200C}افزار",
                Status::Approved,
                &[],
            ),
        ],
        &options,
    );
    assert_eq!(got[0].term.target, "verwerkingsverantwoordelijke");
    assert!(
        got[0]
            .text
            .contains("term_target: \"verwerkingsverantwoordelijke\"\n"),
        "{}",
        got[0].text
    );
    assert_eq!(got[1].term.source, "software");
    assert_eq!(got[1].term.target, "نرم\u{200C}افزار");
}

#[test]
fn rows_and_entries_left_out_are_named() {
    let csv = "Source,Target,Source Language,Target Language,Status\n\
               warranty,garantie,en-US,nl-BE,approved\n\
               invoice,factuur,,,approved\n\
               compliance,,en-US,nl-BE,approved\n\
               ,naleving,en-US,nl-BE,approved\n";
    let got = table::read_noting(csv, None).unwrap();
    assert_eq!(got.records.len(), 1);
    assert_eq!(got.left_out.len(), 3, "{:?}", got.left_out);
    assert!(
        got.left_out[0].starts_with("line 3:")
            && got.left_out[0].contains("invoice")
            && got.left_out[0].contains("--pair"),
        "{:?}",
        got.left_out
    );
    assert!(got.left_out[1].starts_with("line 4: it has no target term"));
    assert!(got.left_out[2].starts_with("line 5: it has no source term"));
    // A language cell left empty is --pair's.
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let got = table::read_noting(csv, Some(&pair)).unwrap();
    assert_eq!(got.records.len(), 2);
    assert_eq!(got.left_out.len(), 2);
    // No row naming its languages: the file names none.
    let err = table::read_noting(
        "Source,Target,Source Language,Target Language\na,b,,\n",
        None,
    )
    .unwrap_err();
    assert!(err.contains("--pair"), "{err}");
    // So too when another row lacks something else as well.
    let err = table::read_noting(
        "Source,Target,Source Language,Target Language
a,b,,
c,,,
",
        None,
    )
    .unwrap_err();
    assert!(err.contains("--pair"), "{err}");
    // A column per language: a row with a term in one language only.
    let got = table::read_noting("en-US,nl-BE,Status\nwarranty,,approved\na,b,\n", None).unwrap();
    assert_eq!(got.records.len(), 1);
    assert_eq!(
        got.left_out,
        ["line 2: it has terms in one language only (“warranty”)"]
    );

    let tbx = r#"<martif xml:lang="en-US"><text><body>
<termEntry id="c1"><langSet xml:lang="en-US"><tig><term>pair</term></tig></langSet><langSet xml:lang="nl-BE"><tig><term>paar</term></tig></langSet></termEntry>
<termEntry id="c2"><langSet><tig><term>nolang</term></tig></langSet><langSet xml:lang="nl-BE"><tig><term>geentaal</term></tig></langSet></termEntry>
<termEntry><langSet xml:lang="en-US"><tig><term>alone</term></tig></langSet></termEntry>
<termEntry id="c4"><langSet xml:lang="en-US"><tig><term>x</term></tig></langSet><langSet xml:lang="nl-BE"><tig><term>y</term></tig></langSet><langSet><tig><term>z</term></tig></langSet></termEntry>
</body></text></martif>"#;
    let got = read(Format::Tbx, "a.tbx", tbx, None).unwrap();
    assert_eq!(got.records.len(), 2);
    assert_eq!(
        got.left_out,
        [
            "entry c2: “nolang” in a language set that names no language (xml:lang)",
            "entry 3: it has terms in one language only (“alone”)",
            "entry c4: “z” in a language set that names no language (xml:lang)",
        ]
    );
}

#[test]
fn an_xliff2_span_not_to_translate_is_not_checked() {
    let x2 = r#"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en-US" trgLang="nl-BE"><file id="f1"><unit id="u1">
<segment id="s1" state="final"><source>Product: <sm id="m1" translate="no"/>Privacy Plus<em startRef="m1"/>, <pc id="p1">full <sm id="m2" translate="no"/>compliance</pc> kit<em startRef="m2"/>.</source>
<target>Product: <sm id="m1" translate="no"/>Privacy Plus<em startRef="m1"/>, <pc id="p1">volledige <sm id="m2" translate="no"/>compliance</pc> kit<em startRef="m2"/>.</target></segment>
<segment id="s2" state="final"><source><sm id="m3"/>Privacy<em startRef="m3"/> first.</source><target><sm id="m3"/>Privacy<em startRef="m3"/> eerst.</target></segment>
</unit></file></xliff>"#;
    let file = bilingual::read("a.xlf", x2).unwrap();
    assert_eq!(file.segments[0].source, "Product: , full .");
    // A marker that says nothing of translation marks text to check.
    assert_eq!(file.segments[1].source, "Privacy first.");
    let terms = bank_terms();
    let report = qa::check(&qa::for_pair(&terms, &file), &file);
    assert!(report.findings.is_empty(), "{:?}", codes(&report));
}

#[test]
fn a_file_without_a_name_is_read_by_its_header_row() {
    assert_eq!(
        Format::detect("-", "Source,Target\na,b\n"),
        Some(Format::Csv)
    );
    assert_eq!(Format::detect("-", "en;nl\na;b\n"), Some(Format::Csv));
    assert_eq!(
        Format::detect("-", "Source\tTarget\na\tb\n"),
        Some(Format::Tsv)
    );
    assert_eq!(Format::detect("-", "<martif/>"), Some(Format::Tbx));
    assert_eq!(Format::detect("-", "just words\n"), None);
    // A name still decides, and one of another kind is not read as text.
    assert_eq!(Format::detect("g.tsv", "a,b\n"), Some(Format::Tsv));
    assert_eq!(Format::detect("glossary.xlsx", "PK\u{3}\u{4},x\n"), None);
}

/// A domain is written once per entry in every format, so two terms of
/// one source term in different domains are two entries: one entry would
/// give both the first one's domain back.
#[test]
fn terms_of_two_domains_round_trip_with_their_own_domain() {
    let mut legal = rec("invoice", "factuur", Status::Approved, &[]);
    legal.domain = Some("Legal".into());
    let mut finance = rec("invoice", "nota", Status::Rejected, &[]);
    finance.domain = Some("Finance".into());
    let terms = vec![legal, finance];
    let domains = |v: &[TermRecord]| {
        let mut v: Vec<(String, Option<String>)> = v
            .iter()
            .map(|r| (r.target.clone(), r.domain.clone()))
            .collect();
        v.sort();
        v
    };
    let want = domains(&terms);
    let cs = concepts(&terms);
    for version in [TbxVersion::V2008, TbxVersion::V2019] {
        let got = tbx::read(&tbx::write(&cs, version)).unwrap();
        assert_eq!(domains(&got), want, "{version:?}");
    }
    let got = table::read(&table::write_csv(&cs), None).unwrap();
    assert_eq!(domains(&got), want, "csv");
    let pair = ("en-US".to_owned(), "nl-BE".to_owned());
    let got = table::read(&table::write_tsv(&cs), Some(&pair)).unwrap();
    assert_eq!(domains(&got), want, "tsv");
}
