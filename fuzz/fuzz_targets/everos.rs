//! Any text as an everos daily log.
#![no_main]

use libfuzzer_sys::fuzz_target;
use membank_core::everos::{entries, frontmatter};

fuzz_target!(|text: &str| {
    let _ = frontmatter::split(text);
    let _ = entries::scan(text);
    let _ = entries::trimmed_text(text);
    let _ = entries::marker_lines_outside_code(text);
});
