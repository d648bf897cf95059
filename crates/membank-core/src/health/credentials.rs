//! Credentials already in an article, found by the same detector that
//! keeps them out of every write.

use crate::article::Article;
use crate::secrets;

use super::{Finding, Severity, finding};

pub(super) fn credential_findings(a: &Article, out: &mut Vec<Finding>) {
    let mut reported = Vec::new();
    for found in secrets::find_likely(&a.text) {
        // One finding per kind is enough to act on; the rest are listed
        // by searching the file once it is open.
        if reported.contains(&found.kind) {
            continue;
        }
        reported.push(found.kind);
        out.push(finding(
            "secret",
            Severity::Error,
            &a.rel_path,
            Some(a.encoding.file_line(found.line)),
            format!(
                "The line holds what looks like {}. Memories travel with repositories and into \
                 every prompt built from them: remove it from the article, and {}.",
                found.kind.described(),
                found.kind.advice()
            ),
        ));
    }
}
