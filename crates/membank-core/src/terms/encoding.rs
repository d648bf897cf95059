//! The text of a terminology or bilingual file's bytes: UTF-8 or UTF-16
//! with or without a byte-order mark, UTF-16 or UTF-32 without one told
//! by the first characters of an XML file, as XML's own encoding
//! detection tells them (a file starts with `<`), and the Windows-1252 and
//! ISO-8859-1 of older files.

/// How the first bytes of an XML file say it is encoded when it has no
/// byte-order mark: UTF-16 or UTF-32 in either byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wide {
    Utf16 { little: bool },
    Utf32 { little: bool },
}

/// The wide encoding `bytes` start in: a byte-order mark, or `<` (or
/// `<?`) as two or four bytes with the zeros on one side. No UTF-8 file
/// starts so: XML forbids the NUL character.
fn wide(bytes: &[u8]) -> Option<(Wide, usize)> {
    match bytes {
        [0x00, 0x00, 0xFE, 0xFF, ..] => Some((Wide::Utf32 { little: false }, 4)),
        [0xFF, 0xFE, 0x00, 0x00, ..] => Some((Wide::Utf32 { little: true }, 4)),
        [0x00, 0x00, 0x00, 0x3C, ..] => Some((Wide::Utf32 { little: false }, 0)),
        [0x3C, 0x00, 0x00, 0x00, ..] => Some((Wide::Utf32 { little: true }, 0)),
        [0x00, 0x3C, ..] => Some((Wide::Utf16 { little: false }, 0)),
        [0x3C, 0x00, ..] => Some((Wide::Utf16 { little: true }, 0)),
        _ => None,
    }
}

fn decode_wide(kind: Wide, body: &[u8]) -> Result<String, String> {
    match kind {
        Wide::Utf16 { little } => {
            if !body.len().is_multiple_of(2) {
                return Err("not valid UTF-16: an odd number of bytes".into());
            }
            let units = body.chunks_exact(2).map(|p| match little {
                true => u16::from_le_bytes([p[0], p[1]]),
                false => u16::from_be_bytes([p[0], p[1]]),
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .map_err(|_| "not valid UTF-16: a broken surrogate pair".into())
        }
        Wide::Utf32 { little } => {
            if !body.len().is_multiple_of(4) {
                return Err("not valid UTF-32: its length is not a multiple of four".into());
            }
            body.chunks_exact(4)
                .map(|p| {
                    let b = [p[0], p[1], p[2], p[3]];
                    let n = if little {
                        u32::from_le_bytes(b)
                    } else {
                        u32::from_be_bytes(b)
                    };
                    char::from_u32(n).ok_or_else(|| format!("not valid UTF-32: U+{n:X}"))
                })
                .collect()
        }
    }
}

/// The text of a terminology or bilingual file, line endings folded to
/// LF; an error says why the bytes are no text this reads.
pub fn decode(bytes: &[u8]) -> Result<String, String> {
    let text = match wide(bytes) {
        Some((kind, skip)) => decode_wide(kind, &bytes[skip..])?.replace("\r\n", "\n"),
        None => match crate::text::decode(bytes) {
            Ok(d) => d.text,
            Err(e) => legacy(bytes)
                .ok_or_else(|| format!("is not UTF-8, UTF-16 or Windows-1252 text ({e})"))??,
        },
    };
    // NUL bytes in what read as UTF-8 are UTF-16 that could not be told
    // (no byte-order mark, not XML): read as text, every line would be a
    // segment nobody can check.
    if text.contains('\0') {
        return Err(
            "holds NUL characters: UTF-16 or UTF-32 text without a byte-order mark? \
             Save it as UTF-8, or with a byte-order mark"
                .into(),
        );
    }
    Ok(text
        .strip_prefix('\u{FEFF}')
        .map(str::to_owned)
        .unwrap_or(text))
}

/// The encoding an XML declaration names (`<?xml … encoding="…"?>`), read
/// from the bytes before they are decoded: the declaration is ASCII.
fn declared(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(200)];
    let end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let decl = decl.strip_prefix("<?xml")?;
    let (_, rest) = decl.split_once("encoding")?;
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|q| matches!(q, '"' | '\''))?;
    let value = rest[1..].split(quote).next()?;
    Some(value.trim().to_ascii_lowercase())
}

/// Bytes that are not UTF-8 read as the legacy encoding they are in:
/// `None` when that is not Windows-1252 or ISO-8859-1, which read alike
/// (Windows-1252 fills ISO-8859-1's unused control range, as browsers
/// read both); `Some(Err)` names why they are not that either. A file
/// with no XML declaration (a CSV glossary) is tried as Windows-1252, as
/// `fix` reads an article that is not UTF-8.
fn legacy(bytes: &[u8]) -> Option<Result<String, String>> {
    let name = declared(bytes);
    let known = matches!(
        name.as_deref(),
        None | Some(
            "iso-8859-1"
                | "iso8859-1"
                | "latin1"
                | "latin-1"
                | "l1"
                | "windows-1252"
                | "cp1252"
                | "us-ascii"
                | "ascii"
        )
    );
    if !known {
        return None;
    }
    Some(
        crate::text::from_windows_1252(bytes)
            .map(|t| t.replace("\r\n", "\n"))
            .map_err(|e| match e {
                crate::text::NotWindows1252::Mixed => {
                    "is not UTF-8 text, and holds UTF-8 letters beside other bytes, so it is \
                     no Windows-1252 either"
                        .to_owned()
                }
                crate::text::NotWindows1252::Undefined(b) => format!(
                    "is not UTF-8 text, nor Windows-1252 (byte 0x{b:02X} is undefined there)"
                ),
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str, little: bool) -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| match little {
                true => u.to_le_bytes(),
                false => u.to_be_bytes(),
            })
            .collect()
    }

    #[test]
    fn xml_in_utf16_or_utf32_without_a_bom_is_told_by_its_first_characters() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n<xliff>é</xliff>";
        let want = xml.replace("\r\n", "\n");
        assert_eq!(decode(&utf16(xml, false)).unwrap(), want);
        assert_eq!(decode(&utf16(xml, true)).unwrap(), want);
        let be32: Vec<u8> = xml.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        let le32: Vec<u8> = xml.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        assert_eq!(decode(&be32).unwrap(), want);
        assert_eq!(decode(&le32).unwrap(), want);
        // UTF-8 and UTF-16 with a byte-order mark read as before.
        assert_eq!(decode(b"\xEF\xBB\xBF<a/>").unwrap(), "<a/>");
        let mut bom = vec![0xFF, 0xFE];
        bom.extend(utf16("<a/>", true));
        assert_eq!(decode(&bom).unwrap(), "<a/>");
    }

    #[test]
    fn latin1_and_windows_1252_are_read_as_declared() {
        for name in ["ISO-8859-1", "windows-1252"] {
            let mut bytes =
                format!("<?xml version=\"1.0\" encoding=\"{name}\"?>\r\n<a>caf").into_bytes();
            bytes.extend(b"\xe9 \x93x\x94</a>");
            assert_eq!(
                decode(&bytes).unwrap(),
                format!("<?xml version=\"1.0\" encoding=\"{name}\"?>\n<a>café “x”</a>")
            );
        }
        // A CSV glossary saved by a spreadsheet in Windows-1252.
        assert_eq!(
            decode(b"Source;Target\ncoffee;caf\xe9\n").unwrap(),
            "Source;Target\ncoffee;café\n"
        );
        // Another declared encoding is not guessed at.
        let err =
            decode(b"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a>\x82\xa0</a>").unwrap_err();
        assert!(err.contains("not UTF-8"), "{err}");
    }

    #[test]
    fn nul_characters_are_refused_rather_than_read_as_text() {
        // UTF-16 that starts as plain text is told without a mark.
        assert_eq!(decode(&utf16("cat\tkat\n", true)).unwrap(), "cat\tkat\n");
        // Anything else holding NULs is not guessed at.
        let err = decode(b"cat\tkat\n\0\0\0\x01").unwrap_err();
        assert!(err.contains("NUL"), "{err}");
    }
}
