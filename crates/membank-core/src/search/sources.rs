//! What each layout contributes to search.

use super::Document;
use crate::bank::Bank;
use crate::everos::{FileKind, MemoryRoot};

/// Every article of a bank, frontmatter included (clients and domains are
/// worth finding), one document per file.
pub fn bank_documents(bank: &Bank) -> Vec<Document> {
    bank.articles()
        .iter()
        .map(|a| Document {
            file: a.rel_path.clone(),
            line: 1 + a.encoding.line_shift,
            entry_id: None,
            text: a.text.clone(),
        })
        .collect()
}

/// Every entry of an everos root's daily logs (one document per entry),
/// and every skill, reference, single file and knowledge file whole.
pub fn everos_documents(root: &MemoryRoot) -> Vec<Document> {
    let mut out = Vec::with_capacity(root.entry_count() + root.files.len());
    for f in &root.files {
        if f.text.is_empty() {
            continue;
        }
        match f.place.kind {
            FileKind::Daily(..) => {
                let mut line = 1;
                let mut counted = 0;
                for e in &f.entries {
                    line += f.text.as_bytes()[counted..e.text.start]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count();
                    counted = e.text.start;
                    out.push(Document {
                        file: f.rel_path.clone(),
                        line,
                        entry_id: Some(e.id.clone()),
                        text: f.entry_text(e).to_owned(),
                    });
                }
            }
            _ => out.push(Document {
                file: f.rel_path.clone(),
                line: 1,
                entry_id: None,
                text: f.text.clone(),
            }),
        }
    }
    out
}

/// How to describe search over an everos root honestly.
pub const EVEROS_SEARCH_NOTE: &str = "keyword search like everos's `keyword` mode; its default \
hybrid/vector ranking needs embeddings that membank does not compute";
