//! Every article of the bank as an MCP resource, `membank://bank/<path>`
//! with the path percent-encoded, listed a page at a time.

use membank_core::memory::{DocId, Memory};
use membank_core::text::sanitize_for_terminal;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::model::{ListResourcesResult, MetaObject, Resource, ResourceContents};
use serde_json::json;

use super::state::{WITHHELD_WHY, without_lines};

const PREFIX: &str = "membank://bank/";

/// Articles per `resources/list` page.
pub const PAGE_SIZE: usize = 200;

/// Everything but the unreserved characters and the path separator is
/// encoded, so names with spaces, arrows or `#` make valid URIs.
const PATH_CHARS: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

pub fn uri_of(rel_path: &str) -> String {
    format!("{PREFIX}{}", utf8_percent_encode(rel_path, PATH_CHARS))
}

/// The relative path a `membank://` URI names, if it names one.
pub fn path_of(uri: &str) -> Option<String> {
    let encoded = uri.strip_prefix(PREFIX)?;
    percent_decode_str(encoded)
        .decode_utf8()
        .ok()
        .map(|p| p.into_owned())
}

/// What starts every cursor this server gives: a string without it was
/// not given here, and is refused rather than read as the end of the list.
const CURSOR_PREFIX: &str = "after:";

/// One page of resources. The cursor holds the last path of the previous
/// page, so a memory that changes between pages neither repeats nor skips
/// the documents that stayed. Documents `withholds` names are left out,
/// and `_meta.withheld` says how many and why. `Err` for a cursor this
/// server did not give.
pub fn list(
    memory: &dyn Memory,
    cursor: Option<&str>,
    withholds: &dyn Fn(DocId) -> bool,
) -> Result<ListResourcesResult, String> {
    let total = memory.len();
    let after = match cursor {
        None => None,
        Some(c) => Some(c.strip_prefix(CURSOR_PREFIX).ok_or_else(|| {
            format!(
                "the cursor {} is not one this server gave; list from the start without one",
                membank_core::text::quoted(&sanitize_for_terminal(c, false))
            )
        })?),
    };
    let start = match after {
        None => 0,
        Some(after) => (0..total)
            .position(|id| memory.document(id).path == after)
            .map(|at| at + 1)
            // The last document shown is gone: carry on after where it
            // would sort.
            .unwrap_or_else(|| {
                (0..total)
                    .position(|id| memory.document(id).path > after)
                    .unwrap_or(total)
            }),
    };
    let mut page: Vec<Resource> = Vec::new();
    let mut last_listed = None;
    let mut at = start;
    while at < total && page.len() < PAGE_SIZE {
        if !withholds(at) {
            let d = memory.document(at);
            page.push(
                Resource::new(uri_of(d.path), sanitize_for_terminal(d.path, false))
                    .with_title(sanitize_for_terminal(&d.title, false))
                    .with_mime_type("text/markdown")
                    .with_size(d.text.len() as u64),
            );
            last_listed = Some(d.path.to_owned());
        }
        at += 1;
    }
    // The cursor names a listed document, never a withheld one.
    let more = (at..total).any(|id| !withholds(id));
    let mut result = ListResourcesResult::with_all_items(page);
    result.next_cursor = last_listed
        .filter(|_| more)
        .map(|path| format!("{CURSOR_PREFIX}{path}"));
    let withheld = (0..total).filter(|&id| withholds(id)).count();
    if withheld > 0 {
        let mut meta = MetaObject::new();
        meta.insert(
            "withheld".into(),
            json!({ "documents": withheld, "reason": WITHHELD_WHY }),
        );
        result.meta = Some(meta);
    }
    Ok(result)
}

/// The document a URI names, made safe like terminal output, with the
/// lines `withheld_lines` names replaced by a marker saying so.
pub fn read(
    memory: &dyn Memory,
    uri: &str,
    hides_private: bool,
    withholds: &dyn Fn(DocId) -> bool,
    withheld_lines: &dyn Fn(DocId) -> Vec<usize>,
) -> Result<ResourceContents, String> {
    let rel = path_of(uri).ok_or_else(|| {
        format!(
            "{} is not a membank resource; resource URIs look like {}",
            sanitize_for_terminal(uri, false),
            uri_of("01_CLIENTS/Client.md")
        )
    })?;
    let not_served = || {
        format!(
            "no document {} is served (it may have been moved or removed, or be private \
             memory: {WITHHELD_WHY}); list the resources again",
            sanitize_for_terminal(&rel, false)
        )
    };
    let id = memory.find(&rel).ok_or_else(|| {
        if hides_private {
            return not_served();
        }
        format!(
            "no document {} (it may have been moved or removed; list the resources again)",
            sanitize_for_terminal(&rel, false)
        )
    })?;
    if withholds(id) {
        return Err(not_served());
    }
    let (text, _) = without_lines(memory.document(id).text, &withheld_lines(id));
    let text = sanitize_for_terminal(&text, true);
    Ok(ResourceContents::text(text, uri).with_mime_type("text/markdown"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_names_with_spaces_arrows_and_hashes() {
        for path in [
            "02_TERMINOLOGY/batch record → chargedossier.md",
            "03_DOMAINS/C# and .NET.md",
            "01_CLIENTS/100% Foods?.md",
        ] {
            let uri = uri_of(path);
            assert!(!uri[PREFIX.len()..].contains([' ', '#', '?']), "{uri}");
            assert!(uri.is_ascii(), "{uri}");
            assert_eq!(path_of(&uri).as_deref(), Some(path));
        }
    }

    #[test]
    fn other_schemes_name_no_article() {
        assert_eq!(path_of("file:///etc/passwd"), None);
    }
}
