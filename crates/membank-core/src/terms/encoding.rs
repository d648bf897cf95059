//! The text of a terminology or bilingual file's bytes: UTF-8 or UTF-16
//! with or without a byte-order mark, and UTF-16 or UTF-32 without one
//! told by the first characters of an XML file, as XML's own encoding
//! detection tells them (a file starts with `<`).

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
        None => {
            crate::text::decode(bytes)
                .map_err(|e| format!("is not UTF-8 or UTF-16 text ({e})"))?
                .text
        }
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
    fn nul_characters_are_refused_rather_than_read_as_text() {
        let err = decode(&utf16("cat\tkat\n", true)).unwrap_err();
        assert!(err.contains("NUL"), "{err}");
    }
}
