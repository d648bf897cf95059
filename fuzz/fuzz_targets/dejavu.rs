//! Any text as a Deja Vu impression line or record file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use membank_core::dejavu::{js, record};

fuzz_target!(|text: &str| {
    let _ = js::parse(text);
    let _ = js::object_value_spans(text);
    let _ = js::string_field(text, "cue");
    let _ = js::field(text, "score");
    let _ = record::parse_frontmatter(text);
    let _ = record::links("memory/a/b.md", text);
});
