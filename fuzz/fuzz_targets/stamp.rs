//! Any text as a file being stamped as compiled: a stamp that succeeds
//! gives a file that reads as compiled.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let day = jiff::civil::date(2026, 4, 8);
    let sources = ["01_CLIENTS/Acme.md".to_string()];
    if let Ok(out) = membank_core::stamp::stamp_compiled(text, day, &sources) {
        assert!(
            membank_core::stamp::is_compiled(&out),
            "not compiled: {out:?}"
        );
    }
});
