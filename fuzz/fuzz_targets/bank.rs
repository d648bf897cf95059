//! Any bytes as one article of a small bank (the first byte picks its
//! folder): the checks of the loaded bank and the streamed checks must find
//! the same, and the context must build and render. Run with
//! `ASAN_OPTIONS=detect_leaks=0`: the streamed check leaves what it kept
//! for the process's exit to free. The bank is made once per run, in the
//! temporary folder, and left there.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::scoring::Query;
use membank_core::{context, health};

const FOLDERS: [&str; 4] = ["02_TERMINOLOGY", "01_CLIENTS", "00_INBOX", "03_DOMAINS"];

fn bank_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("membank-fuzz-{}", std::process::id()));
        for folder in membank_core::layout::Folder::ALL {
            std::fs::create_dir_all(dir.join(folder.dir_name())).unwrap();
        }
        std::fs::write(
            dir.join("01_CLIENTS/Acme.md"),
            "---\nclient_name: Acme\nlast_updated: 2026-01-01\n---\n# Acme\nSee [[glossary]] and [[x]].\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("02_TERMINOLOGY/glossary.md"),
            "---\nterm_source: glossary\nterm_target: woordenlijst\nsource_lang: en\ntarget_lang: nl\nclients: [\"[[Acme]]\"]\nstatus: approved\nlast_updated: 2025-01-01\n---\n# glossary\n",
        )
        .unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, text)) = data.split_first() else {
        return;
    };
    if text.len() > 4096 {
        return;
    }
    let dir = bank_dir();
    for folder in FOLDERS {
        let _ = std::fs::remove_file(dir.join(folder).join("x.md"));
    }
    let folder = FOLDERS[usize::from(which) % FOLDERS.len()];
    std::fs::write(dir.join(folder).join("x.md"), text).unwrap();

    let opts = health::HealthOptions::as_of(jiff::civil::date(2026, 6, 1));
    let Ok(bank) = Bank::load(dir) else {
        return;
    };
    let loaded = health::check(&bank, &opts);
    let (_, streamed) = health::check_streamed(dir, &opts).expect("the bank loaded once");
    let facts = |r: &health::HealthReport| -> Vec<_> {
        r.findings
            .iter()
            .map(|f| {
                (
                    f.code(),
                    f.severity,
                    f.path.to_string(),
                    f.line(),
                    f.message().into_owned(),
                )
            })
            .collect()
    };
    assert_eq!(facts(&loaded), facts(&streamed), "the two checks disagree");

    let query = Query {
        client: Some("Acme".into()),
        domain: None,
        source_lang: Some("en".into()),
        target_lang: Some("nl".into()),
    };
    let report = context::build(&bank, &query, BudgetOptions::default());
    let _ = context::render(&bank, &report);
});
