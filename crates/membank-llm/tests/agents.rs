//! The agents' prompts carry the right parts of the bank.

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::scoring::Query;
use membank_core::snapshot;
use membank_llm::agents::{
    self, ChatSession, prepare_compile, prepare_lint, prepare_query, prepare_translate,
};
use membank_llm::testing::{FakeReply, FakeServer};
use membank_llm::{ApiKey, CancelHandle, LlmClient, LlmConfig, Message, Provider, Role};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn bank() -> (tempfile::TempDir, Bank) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in [
        "00_INBOX/_archive",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    write(
        root,
        "01_CLIENTS/Acme.md",
        "---\nclient: \"Acme\"\nlanguages: [\"en-US → nl-BE\"]\ndomains: [\"[[Legal]]\"]\nlast_updated: 2026-01-01\n---\n# Acme\nFormal register.\n",
    );
    write(
        root,
        "01_CLIENTS/Globex.md",
        "---\nclient: \"Globex\"\nlanguages: [\"de-DE → fr-FR\"]\nlast_updated: 2026-01-01\n---\n# Globex\n",
    );
    write(
        root,
        "02_TERMINOLOGY/compliance → naleving.md",
        "---\nterm_source: \"compliance\"\nterm_target: \"naleving\"\nsource_lang: en-US\ntarget_lang: nl-BE\nclients: [\"[[Acme]]\"]\nstatus: approved\nlast_updated: 2026-01-02\n---\n# compliance → naleving\n",
    );
    write(
        root,
        "02_TERMINOLOGY/shelf life → houdbaarheid.md",
        "---\nterm_source: \"shelf life\"\nterm_target: \"houdbaarheid\"\nsource_lang: de-DE\ntarget_lang: fr-FR\nstatus: approved\nlast_updated: 2026-01-02\n---\n# shelf life\n",
    );
    write(
        root,
        "03_DOMAINS/Legal.md",
        "---\ndomain: \"Legal\"\nlast_updated: 2026-01-01\n---\n# Legal\n",
    );
    write(
        root,
        "03_DOMAINS/Maritime.md",
        "---\ndomain: \"Maritime\"\nlast_updated: 2026-01-01\n---\n# Maritime\n",
    );
    write(
        root,
        "00_INBOX/acme feedback.md",
        "---\nclient: \"Acme\"\n---\nThe reviewer wants compliance rendered consistently. See [[Maritime]].\n",
    );
    write(
        root,
        "00_INBOX/old.md",
        "---\ncompiled: true\ncompiled_date: 2026-01-01\ncompiled_to: []\n---\nalready done\n",
    );
    write(root, "00_INBOX/_archive/done.md", "archived shelf life\n");
    let bank = Bank::load(root).unwrap();
    (dir, bank)
}

fn acme_query() -> Query {
    Query {
        client: Some("Acme".into()),
        domain: Some("Legal".into()),
        source_lang: Some("en-US".into()),
        target_lang: Some("nl-BE".into()),
    }
}

#[test]
fn query_prompt_holds_template_settings_and_context_but_never_the_inbox() {
    let (_dir, bank) = bank();
    let history = [Message::user("earlier"), Message::assistant("reply")];
    let prepared = prepare_query(
        &bank,
        "QUERY TEMPLATE",
        &acme_query(),
        BudgetOptions::default(),
        &history,
        "How do I translate compliance?",
    );
    let system = &prepared.request.system;
    assert!(system.starts_with("QUERY TEMPLATE"));
    assert!(system.contains("- Client: Acme"));
    assert!(system.contains("----- 01_CLIENTS/Acme.md -----"));
    assert!(system.contains("----- 02_TERMINOLOGY/compliance → naleving.md -----"));
    assert!(!system.contains("00_INBOX"));
    assert!(!system.contains("reviewer wants"));
    assert_eq!(
        prepared.used,
        [
            "01_CLIENTS/Acme.md",
            "02_TERMINOLOGY/compliance → naleving.md",
            "03_DOMAINS/Legal.md"
        ]
    );
    let messages = &prepared.request.messages;
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2].content, "How do I translate compliance?");
}

#[test]
fn query_reports_what_the_budget_dropped() {
    let (_dir, bank) = bank();
    let budget = BudgetOptions {
        budget: 60,
        include_unscored: false,
    };
    let prepared = prepare_query(&bank, "T", &acme_query(), budget, &[], "q");
    assert!(prepared.used.contains(&"01_CLIENTS/Acme.md".to_string()));
    assert!(!prepared.dropped.is_empty());
    for d in &prepared.dropped {
        assert!(!prepared.used.contains(&d.path));
        assert!(!d.reason.is_empty());
        assert!(
            !prepared
                .request
                .system
                .contains(&format!("----- {} -----", d.path))
        );
    }
}

#[test]
fn chat_session_keeps_turns_alternating() {
    let (_dir, bank) = bank();
    let mut chat = ChatSession::new(acme_query(), BudgetOptions::default());
    let first = chat.ask(&bank, "Q", "first?");
    assert_eq!(first.request.messages.len(), 1);
    chat.record_reply("answer one");
    // A failed turn leaves no trace in the history.
    chat.ask(&bank, "Q", "lost?");
    chat.record_reply("");
    let third = chat.ask(&bank, "Q", "third?");
    let roles: Vec<Role> = third.request.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
    assert_eq!(third.request.messages[0].content, "first?");
    assert_eq!(third.request.messages[2].content, "third?");
    assert!(third.request.system.contains("01_CLIENTS/Acme.md"));
    chat.record_reply("partial answer");
    assert_eq!(chat.history().len(), 4);
    chat.clear();
    assert!(chat.history().is_empty());
}

#[test]
fn translate_prompt_names_the_pair_and_carries_the_text() {
    let (_dir, bank) = bank();
    let prepared = prepare_translate(
        &bank,
        "TRANSLATE",
        &acme_query(),
        BudgetOptions::default(),
        "Compliance is mandatory.",
    );
    let user = &prepared.request.messages[0].content;
    assert!(user.contains("from en-US into nl-BE"), "{user}");
    assert!(user.ends_with("Compliance is mandatory."));
    assert!(prepared.request.system.contains("01_CLIENTS/Acme.md"));
}

#[test]
fn compile_sends_pending_inbox_and_the_articles_it_touches() {
    let (_dir, bank) = bank();
    let prepared = prepare_compile(&bank, "COMPILE", "2026-04-08", 0).unwrap();
    assert_eq!(prepared.inbox, ["00_INBOX/acme feedback.md"]);
    let related: Vec<&str> = prepared.related.iter().map(|r| r.path.as_str()).collect();
    // Linked from the inbox file: first.
    assert_eq!(related[0], "03_DOMAINS/Maritime.md");
    assert!(related.contains(&"01_CLIENTS/Acme.md"));
    assert!(related.contains(&"02_TERMINOLOGY/compliance → naleving.md"));
    assert!(!related.contains(&"01_CLIENTS/Globex.md"));
    assert!(!related.contains(&"02_TERMINOLOGY/shelf life → houdbaarheid.md"));
    let term = prepared
        .related
        .iter()
        .find(|r| r.path.starts_with("02_TERMINOLOGY/compliance"))
        .unwrap();
    assert!(
        term.reasons
            .iter()
            .any(|r| r.contains("\"compliance\" appears")),
        "{:?}",
        term.reasons
    );
    let user = &prepared.request.messages[0].content;
    assert!(user.starts_with("Today's date: 2026-04-08"));
    assert!(user.contains("----- 00_INBOX/acme feedback.md -----"));
    assert!(!user.contains("already done"));
    assert!(!user.contains("archived shelf life"));
    assert_eq!(prepared.request.system, "COMPILE");
}

#[test]
fn compile_finds_clients_and_terms_named_in_raw_inbox_text() {
    let (dir, _) = bank();
    write(
        dir.path(),
        "00_INBOX/call notes.md",
        "Globex called: their shelf life wording changes next month.\n",
    );
    let bank = Bank::load(dir.path()).unwrap();
    let prepared = prepare_compile(&bank, "COMPILE", "2026-04-08", 0).unwrap();
    let reasons = |path: &str| {
        prepared
            .related
            .iter()
            .find(|r| r.path == path)
            .map(|r| r.reasons.clone())
            .unwrap_or_default()
    };
    assert!(
        reasons("01_CLIENTS/Globex.md")
            .iter()
            .any(|r| r.contains("client name \"Globex\" appears in call notes.md")),
        "{:?}",
        prepared.related
    );
    assert!(
        reasons("02_TERMINOLOGY/shelf life → houdbaarheid.md")
            .iter()
            .any(|r| r.contains("term \"shelf life\" appears")),
        "{:?}",
        prepared.related
    );
}

#[test]
fn compile_budget_leaves_out_the_least_related_and_says_so() {
    let (_dir, bank) = bank();
    let prepared = prepare_compile(&bank, "COMPILE", "2026-04-08", 40).unwrap();
    assert_eq!(prepared.related[0].path, "03_DOMAINS/Maritime.md");
    assert!(!prepared.left_out.is_empty());
    let user = &prepared.request.messages[0].content;
    assert!(user.contains("left out to fit the size limit"));
}

#[test]
fn compile_with_an_empty_inbox_is_none() {
    let (dir, _) = bank();
    std::fs::remove_file(dir.path().join("00_INBOX/acme feedback.md")).unwrap();
    let bank = Bank::load(dir.path()).unwrap();
    assert!(prepare_compile(&bank, "COMPILE", "2026-04-08", 0).is_none());
}

#[test]
fn lint_states_findings_and_truncation() {
    let (_dir, bank) = bank();
    let full = snapshot::build(&bank, 0);
    let prepared = prepare_lint(
        "LINT",
        "- dead link [[Nowhere]] in 01_CLIENTS/Acme.md",
        &full,
    );
    let user = &prepared.request.messages[0].content;
    assert!(user.contains("dead link [[Nowhere]]"));
    assert!(user.contains("truncated: false"));
    assert!(!prepared.truncated);

    let small = snapshot::build(&bank, 300);
    assert!(small.truncated);
    let prepared = prepare_lint("LINT", "", &small);
    let user = &prepared.request.messages[0].content;
    assert!(user.contains("No problems found."));
    assert!(user.contains("truncated: true"), "{user}");
    for omitted in &small.omitted {
        assert!(user.contains(omitted.as_str()));
    }
    assert_eq!(prepared.omitted, small.omitted);
}

#[tokio::test]
async fn a_prepared_query_runs_over_the_streaming_api() {
    let (_dir, bank) = bank();
    let server = FakeServer::start([FakeReply::anthropic_stream(&[
        "Use ",
        "[[compliance → naleving]].",
    ])]);
    let mut config = LlmConfig::for_provider(Provider::Anthropic);
    config.base_url = server.url();
    let client = LlmClient::with_key(config, Some(ApiKey::new("k"))).unwrap();
    let prepared = prepare_query(
        &bank,
        "QUERY",
        &acme_query(),
        BudgetOptions::default(),
        &[],
        "compliance?",
    );
    let reply = agents::run(
        &client,
        &prepared.request,
        &CancelHandle::new(),
        &mut |_| {},
    )
    .await;
    assert!(reply.complete);
    assert_eq!(reply.text, "Use [[compliance → naleving]].");
    let sent = server.requests()[0].json();
    assert!(
        sent["system"]
            .as_str()
            .unwrap()
            .contains("----- 01_CLIENTS/Acme.md -----")
    );
}

#[test]
fn findings_are_listed_most_severe_first_and_capped() {
    use membank_core::health::{Counts, Finding, HealthReport, Severity};
    let finding = |severity, code, line| {
        Finding::new(
            code,
            severity,
            "01_CLIENTS/Acme.md",
            line,
            format!("{code} here"),
        )
    };
    let report = HealthReport {
        findings: vec![
            finding(Severity::Error, "missing-key", None),
            finding(Severity::Warning, "dead-link", Some(9)),
            finding(Severity::Info, "orphan", None),
        ],
        counts: Counts {
            error: 1,
            warning: 1,
            info: 1,
        },
        ..HealthReport::default()
    };
    let summary = agents::findings_summary(&report, 2);
    assert_eq!(
        summary,
        "1 error(s), 1 warning(s), 1 note(s).\n\
         - [error] missing-key 01_CLIENTS/Acme.md: missing-key here\n\
         - [warning] dead-link 01_CLIENTS/Acme.md:9: dead-link here\n\
         - … and 1 more finding(s) not listed.\n"
    );
    assert_eq!(agents::findings_summary(&HealthReport::default(), 2), "");
}

#[test]
fn related_article_reasons_are_not_repeated() {
    let bank =
        membank_core::bank::Bank::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../../demo-bank"))
            .unwrap();
    let prepared = prepare_compile(&bank, "COMPILE", "2026-01-01", 0).unwrap();
    assert!(!prepared.related.is_empty());
    for related in &prepared.related {
        // "scores 3 for client X" and "scores 3 for client X (named in the
        // inbox)" say the same thing twice.
        let scores: Vec<&String> = related
            .reasons
            .iter()
            .filter(|r| r.starts_with("scores "))
            .collect();
        for (i, a) in scores.iter().enumerate() {
            for b in &scores[i + 1..] {
                assert!(
                    !b.starts_with(a.as_str()) && !a.starts_with(b.as_str()),
                    "{}: {:?}",
                    related.path,
                    related.reasons
                );
            }
        }
    }
    let brightwell = prepared
        .related
        .iter()
        .find(|r| r.path == "04_STYLE/Brightwell Style Guide.md")
        .unwrap();
    assert_eq!(
        brightwell.reasons,
        vec!["scores 3 for client Brightwell Pharma"]
    );
}
