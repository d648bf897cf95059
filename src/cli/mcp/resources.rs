//! Every article of the bank as an MCP resource, `membank://bank/<path>`
//! with the path percent-encoded, listed a page at a time.

use membank_core::bank::Bank;
use membank_core::text::sanitize_for_terminal;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::model::{ListResourcesResult, Resource, ResourceContents};

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

/// One page of resources. The cursor is the last path of the previous
/// page, so a bank that changes between pages neither repeats nor skips
/// the articles that stayed.
pub fn list(bank: &Bank, cursor: Option<&str>) -> ListResourcesResult {
    let articles = bank.articles();
    let start = match cursor {
        Some(after) => articles.partition_point(|a| a.rel_path.as_str() <= after),
        None => 0,
    };
    let page: Vec<Resource> = articles[start..]
        .iter()
        .take(PAGE_SIZE)
        .map(|a| {
            Resource::new(
                uri_of(&a.rel_path),
                sanitize_for_terminal(&a.rel_path, false),
            )
            .with_title(sanitize_for_terminal(&a.title, false))
            .with_mime_type("text/markdown")
            .with_size(a.text.len() as u64)
        })
        .collect();
    let more = start + page.len() < articles.len();
    let next = more.then(|| articles[start + page.len() - 1].rel_path.clone());
    let mut result = ListResourcesResult::with_all_items(page);
    result.next_cursor = next;
    result
}

/// The article a URI names, made safe like terminal output.
pub fn read(bank: &Bank, uri: &str) -> Result<ResourceContents, String> {
    let rel = path_of(uri).ok_or_else(|| {
        format!(
            "{} is not a membank resource; resource URIs look like {}",
            sanitize_for_terminal(uri, false),
            uri_of("01_CLIENTS/Client.md")
        )
    })?;
    let id = bank.find(&rel).ok_or_else(|| {
        format!(
            "no article {} in the bank (it may have been moved or removed; list the resources again)",
            sanitize_for_terminal(&rel, false)
        )
    })?;
    let text = sanitize_for_terminal(&bank.article(id).text, true);
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
