//! Any bytes as an article's file, read as each folder and each load reads
//! it, and its links found every way they are.
#![no_main]

use libfuzzer_sys::fuzz_target;
use membank_core::article::Article;
use membank_core::layout::Folder;
use membank_core::load_options::LoadOptions;
use membank_core::{terms, text, wikilink};

fuzz_target!(|data: &[u8]| {
    let Ok(decoded) = text::decode_borrowed(data) else {
        return;
    };
    let checked = LoadOptions {
        share: false,
        chars: false,
        checked: true,
        ..LoadOptions::CHECK
    };
    for (folder, options) in [
        (Folder::Terminology, LoadOptions::EVERYTHING),
        (Folder::Clients, checked),
        (Folder::Inbox, LoadOptions::INTERFACE),
    ] {
        let again = text::decode_borrowed(data).expect("decoded once already");
        let rel = format!("{}/x.md", folder.dir_name());
        let article = Article::parse_with(rel, folder, again, &options);
        let _ = terms::record_of(&article);
    }
    let _ = wikilink::body_links(&decoded.text);
    let _ = wikilink::extract_plain(&decoded.text);
    let _ = wikilink::extract_markdown(&decoded.text);
});
