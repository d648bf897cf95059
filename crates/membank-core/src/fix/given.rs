//! A missing key added with a value the user typed, where the file itself
//! supports none: the same format-preserving edit as the other fixes.

use crate::bank::Bank;

use super::{Action, FileFix, check_result, edit, read};

/// Whether `path` can take a typed value at all, whatever is typed: it is
/// read and is UTF-8. A file that cannot is not asked for one (asking
/// would only refuse every value until the file is saved otherwise).
pub fn takes_typed_value(bank: &Bank, path: &str) -> Result<(), String> {
    utf8_text(&read(bank, path)?, path).map(drop)
}

/// The text of a UTF-8 file, past its byte-order mark.
fn utf8_text<'a>(bytes: &'a [u8], path: &str) -> Result<&'a str, String> {
    let body = bytes.strip_prefix(super::BOM).unwrap_or(bytes);
    std::str::from_utf8(body)
        .map_err(|_| format!("{path} is not UTF-8: it must be saved as UTF-8 first"))
}

/// The fix adding `key: value` to the frontmatter of `path`.
pub fn given_value(bank: &Bank, path: &str, key: &str, value: &str) -> Result<FileFix, String> {
    let value = value.trim();
    if value.is_empty() {
        return Err(format!("{key} needs a value; nothing was typed"));
    }
    if value.contains(['\n', '\r']) {
        return Err(format!("{key}: a value is one line"));
    }
    let before = read(bank, path)?;
    let bom = before.starts_with(super::BOM);
    let text = utf8_text(&before, path)?;
    let (new, line) = if key == "languages" {
        // A pair, quoted as pairs are written in banks.
        if value.contains('"') {
            return Err("languages: a pair holds no quotes".into());
        }
        let yaml = format!("[\"{value}\"]");
        edit::set_key_as(text, key, None, &yaml)?
    } else {
        edit::set_key(text, key, value)?
    };
    let mut after = Vec::with_capacity(new.len() + 3);
    if bom {
        after.extend_from_slice(super::BOM);
    }
    after.extend_from_slice(new.as_bytes());
    let article = bank.find(path).map(|id| bank.article(id));
    check_result(path, &after, article)?;
    Ok(FileFix {
        path: path.to_owned(),
        codes: vec!["missing-key"],
        notes: vec![format!("line {line}: add {key}: {value} (as typed)")],
        action: Action::Change { before, after },
    })
}
