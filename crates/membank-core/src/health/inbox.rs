//! Inbox files: processed or not, and archived when compiled (spec §11).

use crate::article::Article;

use super::frontmatter::key_line;
use super::{Finding, Severity, finding};

pub(super) fn inbox_findings(a: &Article, out: &mut Vec<Finding>) {
    if a.in_archive {
        return;
    }
    if a.meta.compiled {
        out.push(finding(
            "compiled-not-archived",
            Severity::Warning,
            &a.rel_path,
            key_line(a, "compiled"),
            "This inbox file is marked compiled: true but was not moved to 00_INBOX/_archive/. \
             A Process Inbox run was probably interrupted. It will not be processed again; \
             check that the articles listed in compiled_to exist, then move the file into \
             00_INBOX/_archive/."
                .into(),
        ));
    } else {
        out.push(finding(
            "unprocessed-inbox",
            Severity::Info,
            &a.rel_path,
            None,
            "This inbox file has not been processed yet; its content is not used for \
             translation until Process Inbox turns it into articles."
                .into(),
        ));
    }
}
