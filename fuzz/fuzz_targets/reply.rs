//! Any text as a model's reply: the `### FILE:` blocks it proposes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|reply: &str| {
    let _ = membank_core::fileblocks::parse_reply(reply);
});
