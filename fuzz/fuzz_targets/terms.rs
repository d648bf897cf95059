//! Any text as a TBX, CSV, XLIFF or TMX file, and the QA of the one
//! against the other.
#![no_main]

use libfuzzer_sys::fuzz_target;
use membank_core::terms;

fuzz_target!(|text: &str| {
    let tbx = terms::tbx::read(text).unwrap_or_default();
    let _ = terms::table::read(text, None);
    let pair = ("en".to_string(), "nl".to_string());
    let _ = terms::table::read(text, Some(&pair));
    let _ = terms::bilingual::read("a.tmx", text);
    if let Ok(file) = terms::bilingual::read("a.xlf", text) {
        let records: Vec<_> = tbx.iter().collect();
        let _ = terms::qa::check(&records, &file);
        let _ = terms::qa::glossary(&records, &file);
    }
});
