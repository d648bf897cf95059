//! Source documents for Distill, reduced to text a model can read: plain
//! text and Markdown as they are, TMX translation units and TBX term
//! entries as one line each, Word (DOCX) documents as their paragraphs.
//! PDF and older formats are refused with a message that says how to
//! convert them.

use std::fmt;
use std::path::Path;

use quick_xml::events::{BytesStart, Event};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    PlainText,
    Markdown,
    /// Translation memory exchange.
    Tmx,
    /// TermBase eXchange.
    Tbx,
    /// Word (Office Open XML).
    Docx,
}

impl DocumentKind {
    pub fn label(self) -> &'static str {
        match self {
            DocumentKind::PlainText => "plain text",
            DocumentKind::Markdown => "Markdown",
            DocumentKind::Tmx => "TMX translation memory",
            DocumentKind::Tbx => "TBX termbase",
            DocumentKind::Docx => "Word document",
        }
    }

    /// The kind for a file name's extension, case-insensitively.
    pub fn from_file_name(name: &str) -> Result<DocumentKind, DocumentError> {
        let ext = name
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "txt" | "text" | "" => Ok(DocumentKind::PlainText),
            "md" | "markdown" => Ok(DocumentKind::Markdown),
            "tmx" => Ok(DocumentKind::Tmx),
            "tbx" => Ok(DocumentKind::Tbx),
            "docx" => Ok(DocumentKind::Docx),
            "doc" | "pdf" | "odt" | "rtf" => Err(DocumentError::new(
                name,
                format!(
                    "{} files are not read directly; save the document as plain text or \
                     Markdown and distill that",
                    ext.to_ascii_uppercase()
                ),
            )),
            other => Err(DocumentError::new(
                name,
                format!(
                    "unsupported file type `.{other}` (supported: .txt, .md, .tmx, .tbx, .docx)"
                ),
            )),
        }
    }
}

/// A document reduced to text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub file_name: String,
    /// The file name without its extension.
    pub stem: String,
    pub kind: DocumentKind,
    pub text: String,
    /// Translation units (TMX) or term entries (TBX); 0 for text.
    pub entries: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentError {
    pub file: String,
    pub message: String,
}

impl DocumentError {
    fn new(file: &str, message: String) -> DocumentError {
        DocumentError {
            file: file.to_string(),
            message,
        }
    }
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}",
            membank_core::text::sanitize_for_terminal(&self.file, false),
            self.message
        )
    }
}

impl std::error::Error for DocumentError {}

/// Larger files are refused before reading: far more than a model can take.
pub const MAX_DOCUMENT_BYTES: u64 = 256 * 1024 * 1024;

/// Reads and converts a document from disk.
pub fn read_document(path: &Path) -> Result<Document, DocumentError> {
    let shown = path.display().to_string();
    // Regular files only (a FIFO would block), and bounded.
    let bytes = membank_core::safe_read::read_regular(path, MAX_DOCUMENT_BYTES).map_err(|e| {
        let message = match e {
            membank_core::safe_read::ReadError::Io(e) => e.to_string(),
            other => other.to_string(),
        };
        DocumentError::new(&shown, message)
    })?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    parse_document(&file_name, &bytes).map_err(|mut e| {
        e.file = shown;
        e
    })
}

/// Converts a document's bytes; `file_name` decides the kind.
pub fn parse_document(file_name: &str, bytes: &[u8]) -> Result<Document, DocumentError> {
    let kind = DocumentKind::from_file_name(file_name)?;
    let text = if kind == DocumentKind::Docx {
        docx_xml(bytes).map_err(|m| DocumentError::new(file_name, m))?
    } else {
        decode_text(bytes).map_err(|m| DocumentError::new(file_name, m))?
    };
    let (text, entries) = match kind {
        DocumentKind::PlainText | DocumentKind::Markdown => (text, 0),
        DocumentKind::Docx => (
            parse_docx(&text).map_err(|m| DocumentError::new(file_name, m))?,
            0,
        ),
        DocumentKind::Tmx => {
            let units = parse_tmx(&text).map_err(|m| DocumentError::new(file_name, m))?;
            (render_tmx(&units), units.len())
        }
        DocumentKind::Tbx => {
            let entries = parse_tbx(&text).map_err(|m| DocumentError::new(file_name, m))?;
            (render_tbx(&entries), entries.len())
        }
    };
    if text.trim().is_empty() {
        return Err(DocumentError::new(
            file_name,
            "contains no text to distill".to_string(),
        ));
    }
    let stem = file_name
        .rsplit_once('.')
        .map(|(s, _)| s)
        .filter(|s| !s.is_empty())
        .unwrap_or(file_name)
        .to_string();
    Ok(Document {
        file_name: file_name.to_string(),
        stem,
        kind,
        text,
        entries,
    })
}

/// UTF-8 (BOM optional) or UTF-16 with a BOM, as TMX exports often are.
fn decode_text(bytes: &[u8]) -> Result<String, String> {
    let utf16 = |le: bool| {
        let units = bytes[2..].chunks_exact(2).map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| "invalid UTF-16 text".to_string())
    };
    let text = match bytes {
        [0xFF, 0xFE, ..] => utf16(true)?,
        [0xFE, 0xFF, ..] => utf16(false)?,
        _ => {
            membank_core::text::decode(bytes)
                .map_err(|e| format!("not UTF-8 text ({e})"))?
                .text
        }
    };
    Ok(text.replace("\r\n", "\n"))
}

/// The most of `word/document.xml` that is read: a guard against archives
/// that inflate to far more than any real document.
const MAX_DOCX_XML: u64 = 64 * 1024 * 1024;

/// The main part of a DOCX package, as text.
fn docx_xml(bytes: &[u8]) -> Result<String, String> {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a readable DOCX file ({e})"))?;
    let part = archive
        .by_name("word/document.xml")
        .map_err(|_| "not a Word document (no word/document.xml inside)".to_string())?;
    let mut xml = Vec::new();
    part.take(MAX_DOCX_XML + 1)
        .read_to_end(&mut xml)
        .map_err(|e| format!("could not unpack the document ({e})"))?;
    if xml.len() as u64 > MAX_DOCX_XML {
        return Err(format!(
            "the document text is larger than {} MiB",
            MAX_DOCX_XML / 1024 / 1024
        ));
    }
    decode_text(&xml)
}

/// Paragraph text of `word/document.xml`: runs' `w:t` text, tabs and line
/// breaks kept, one line per paragraph; deleted (tracked) text is left out.
pub fn parse_docx(xml: &str) -> Result<String, String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = String::new();
    let mut in_text = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml_error(&reader, "DOCX", e))?;
        match event {
            Event::Start(e) if e.local_name().as_ref() == b"t" => in_text = true,
            Event::End(e) => match e.local_name().as_ref() {
                b"t" => in_text = false,
                b"p" => out.push('\n'),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().as_ref() {
                b"tab" => out.push('\t'),
                b"br" | b"cr" => out.push('\n'),
                _ => {}
            },
            Event::Text(t) if in_text => out.push_str(&t.decode().map_err(|e| e.to_string())?),
            Event::GeneralRef(r) if in_text => push_reference(&mut out, &r)?,
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

/// One TMX translation unit: each language variant's segment text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationUnit {
    pub variants: Vec<(String, String)>,
}

/// TMX inline elements whose content is native markup, not text.
const TMX_CODE_ELEMENTS: [&[u8]; 5] = [b"bpt", b"ept", b"ph", b"it", b"ut"];

pub fn parse_tmx(xml: &str) -> Result<Vec<TranslationUnit>, String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut units = Vec::new();
    let mut current: Option<TranslationUnit> = None;
    let mut lang = String::new();
    let mut seg: Option<String> = None;
    let mut code_depth = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml_error(&reader, "TMX", e))?;
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                b"tu" => current = Some(TranslationUnit { variants: vec![] }),
                b"tuv" => lang = lang_of(&e),
                b"seg" => seg = Some(String::new()),
                name if seg.is_some() && TMX_CODE_ELEMENTS.contains(&name) => code_depth += 1,
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                b"tu" => {
                    if let Some(tu) = current.take().filter(|tu| !tu.variants.is_empty()) {
                        units.push(tu);
                    }
                }
                b"seg" => {
                    if let (Some(text), Some(tu)) = (seg.take(), current.as_mut()) {
                        tu.variants.push((lang.clone(), collapse_spaces(&text)));
                    }
                    code_depth = 0;
                }
                name if seg.is_some() && TMX_CODE_ELEMENTS.contains(&name) => {
                    code_depth = code_depth.saturating_sub(1)
                }
                _ => {}
            },
            Event::Text(t) if code_depth == 0 => {
                if let Some(s) = seg.as_mut() {
                    s.push_str(&t.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::CData(t) if code_depth == 0 => {
                if let Some(s) = seg.as_mut() {
                    s.push_str(&t.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::GeneralRef(r) if code_depth == 0 => {
                if let Some(s) = seg.as_mut() {
                    push_reference(s, &r)?;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(units)
}

fn render_tmx(units: &[TranslationUnit]) -> String {
    let mut out = String::new();
    for tu in units {
        let line = tu
            .variants
            .iter()
            .map(|(lang, text)| {
                if lang.is_empty() {
                    text.clone()
                } else {
                    format!("[{lang}] {text}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ⇄ ");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// One TBX concept: its terms by language and any definitions or notes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TermEntry {
    pub terms: Vec<(String, String)>,
    pub notes: Vec<String>,
}

pub fn parse_tbx(xml: &str) -> Result<Vec<TermEntry>, String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut entries = Vec::new();
    let mut current: Option<TermEntry> = None;
    let mut lang = String::new();
    // Text being collected and whether it is a term (else a note).
    let mut field: Option<(bool, String)> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| xml_error(&reader, "TBX", e))?;
        match event {
            Event::Start(e) => match e.local_name().as_ref() {
                b"termEntry" | b"conceptEntry" => current = Some(TermEntry::default()),
                b"langSet" | b"langSec" => lang = lang_of(&e),
                b"term" => field = Some((true, String::new())),
                b"descrip" | b"note" | b"definition" if field.is_none() => {
                    field = Some((false, String::new()))
                }
                _ => {}
            },
            Event::End(e) => match e.local_name().as_ref() {
                b"termEntry" | b"conceptEntry" => {
                    if let Some(entry) = current.take().filter(|e| !e.terms.is_empty()) {
                        entries.push(entry);
                    }
                }
                b"term" | b"descrip" | b"note" | b"definition" => {
                    let is_term = e.local_name().as_ref() == b"term";
                    if let Some((collecting_term, text)) = field.take() {
                        if collecting_term != is_term {
                            // A note element nested in a term: keep collecting the term.
                            field = Some((collecting_term, text));
                            continue;
                        }
                        let text = collapse_spaces(&text);
                        if let (Some(entry), false) = (current.as_mut(), text.is_empty()) {
                            if is_term {
                                entry.terms.push((lang.clone(), text));
                            } else {
                                entry.notes.push(text);
                            }
                        }
                    }
                }
                _ => {}
            },
            Event::Text(t) => {
                if let Some((_, s)) = field.as_mut() {
                    s.push_str(&t.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::CData(t) => {
                if let Some((_, s)) = field.as_mut() {
                    s.push_str(&t.decode().map_err(|e| e.to_string())?);
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, s)) = field.as_mut() {
                    push_reference(s, &r)?;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(entries)
}

fn render_tbx(entries: &[TermEntry]) -> String {
    let mut out = String::new();
    for entry in entries {
        let terms = entry
            .terms
            .iter()
            .map(|(lang, term)| {
                if lang.is_empty() {
                    term.clone()
                } else {
                    format!("[{lang}] {term}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ⇄ ");
        out.push_str(&terms);
        for note in &entry.notes {
            out.push_str(" — ");
            out.push_str(note);
        }
        out.push('\n');
    }
    out
}

fn lang_of(e: &BytesStart<'_>) -> String {
    for attr in e.attributes().flatten() {
        let key = attr.key.as_ref();
        if (key == b"xml:lang" || key == b"lang")
            && let Ok(v) = attr.normalized_value(quick_xml::XmlVersion::Implicit1_0)
        {
            return v.trim().to_string();
        }
    }
    String::new()
}

fn push_reference(out: &mut String, r: &quick_xml::events::BytesRef<'_>) -> Result<(), String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        out.push(c);
        return Ok(());
    }
    let name = r.decode().map_err(|e| e.to_string())?;
    match quick_xml::escape::resolve_predefined_entity(&name) {
        Some(s) => out.push_str(s),
        // An entity from a DTD we do not read: keep it visible as written.
        None => {
            out.push('&');
            out.push_str(&name);
            out.push(';');
        }
    }
    Ok(())
}

fn xml_error(reader: &quick_xml::Reader<&[u8]>, what: &str, e: quick_xml::Error) -> String {
    format!(
        "not a valid {what} file (XML error near byte {}: {e})",
        reader.buffer_position()
    )
}

fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TMX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en-US" datatype="plaintext"/>
<body>
  <tu><tuv xml:lang="en-US"><seg>Press <bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> &amp; wait</seg></tuv>
      <tuv xml:lang="nl-BE"><seg>Druk op <bpt i="1">&lt;b&gt;</bpt>Start<ept i="1">&lt;/b&gt;</ept> &amp; wacht</seg></tuv></tu>
  <tu><tuv lang="en-US"><seg>Shelf life</seg></tuv><tuv lang="nl-BE"><seg>Houdbaarheid&#233;</seg></tuv></tu>
  <tu></tu>
</body></tmx>"#;

    #[test]
    fn tmx_units_keep_text_and_drop_inline_codes() {
        let units = parse_tmx(TMX).unwrap();
        assert_eq!(units.len(), 2);
        assert_eq!(
            units[0].variants,
            vec![
                ("en-US".to_string(), "Press Start & wait".to_string()),
                ("nl-BE".to_string(), "Druk op Start & wacht".to_string()),
            ]
        );
        assert_eq!(units[1].variants[1].1, "Houdbaarheidé");
        let doc = parse_document("memory.tmx", TMX.as_bytes()).unwrap();
        assert_eq!(doc.kind, DocumentKind::Tmx);
        assert_eq!(doc.entries, 2);
        assert_eq!(doc.stem, "memory");
        assert!(
            doc.text
                .starts_with("[en-US] Press Start & wait ⇄ [nl-BE] Druk op Start & wacht\n")
        );
    }

    #[test]
    fn utf16_tmx_is_read() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in TMX.encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        let doc = parse_document("export.TMX", &bytes).unwrap();
        assert_eq!(doc.entries, 2);
    }

    #[test]
    fn tbx_entries_with_terms_and_definitions() {
        let tbx = r#"<martif type="TBX"><text><body>
          <termEntry id="c1">
            <descrip type="definition">Period during which a product stays usable</descrip>
            <langSet xml:lang="en"><tig><term>shelf life</term></tig></langSet>
            <langSet xml:lang="nl"><tig><term>houdbaarheid</term></tig></langSet>
          </termEntry>
          <termEntry id="c2"><langSet xml:lang="en"><tig><term>batch &amp; lot</term></tig></langSet></termEntry>
        </body></text></martif>"#;
        let entries = parse_tbx(tbx).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(
            entries[0].terms,
            vec![
                ("en".to_string(), "shelf life".to_string()),
                ("nl".to_string(), "houdbaarheid".to_string())
            ]
        );
        assert_eq!(
            entries[0].notes,
            vec!["Period during which a product stays usable"]
        );
        assert_eq!(entries[1].terms[0].1, "batch & lot");
        let doc = parse_document("terms.tbx", tbx.as_bytes()).unwrap();
        assert!(
            doc.text
                .contains("[en] shelf life ⇄ [nl] houdbaarheid — Period")
        );
    }

    #[test]
    fn broken_xml_names_the_file_and_the_problem() {
        let e = parse_document("bad.tmx", b"<tmx><body><tu></body>").unwrap_err();
        let shown = e.to_string();
        assert!(
            shown.starts_with("bad.tmx: not a valid TMX file"),
            "{shown}"
        );
    }

    fn docx_with(document_xml: &str) -> Vec<u8> {
        use std::io::Write;
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("[Content_Types].xml", options).unwrap();
        zip.write_all(b"<Types/>").unwrap();
        zip.start_file("word/document.xml", options).unwrap();
        zip.write_all(document_xml.as_bytes()).unwrap();
        zip.finish().unwrap();
        buf.into_inner()
    }

    #[test]
    fn docx_paragraphs_tabs_and_breaks() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:r><w:t>Use </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">naleving &amp; </w:t></w:r><w:r><w:t>not compliance.</w:t></w:r></w:p>
<w:p><w:r><w:t>Term</w:t><w:tab/><w:t>Translation</w:t><w:br/><w:t>next line</w:t></w:r></w:p>
<w:p><w:del><w:r><w:delText>removed</w:delText></w:r></w:del></w:p>
</w:body></w:document>"#;
        let doc = parse_document("Brief.DOCX", &docx_with(xml)).unwrap();
        assert_eq!(doc.kind, DocumentKind::Docx);
        assert_eq!(
            doc.text,
            "Use naleving & not compliance.\nTerm\tTranslation\nnext line\n\n"
        );
    }

    #[test]
    fn unsupported_and_empty_documents_are_refused_with_advice() {
        let e = parse_document("brief.docx", b"PK..").unwrap_err();
        assert!(e.to_string().contains("not a readable DOCX"), "{e}");
        let e = parse_document("brief.pdf", b"%PDF").unwrap_err();
        assert!(
            e.to_string().contains("save the document as plain text"),
            "{e}"
        );
        let e = parse_document("data.xlsx", b"").unwrap_err();
        assert!(e.to_string().contains(".xlsx"), "{e}");
        let e = parse_document("empty.txt", b"  \n").unwrap_err();
        assert!(e.to_string().contains("no text"), "{e}");
        let e = parse_document("latin1.txt", b"caf\xe9").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    #[test]
    fn markdown_is_kept_as_written() {
        let doc = parse_document("Notes.md", "# Brief\r\nUse *naleving*.\r\n".as_bytes()).unwrap();
        assert_eq!(doc.kind, DocumentKind::Markdown);
        assert_eq!(doc.text, "# Brief\nUse *naleving*.\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("notes.txt");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = read_document(&fifo).unwrap_err();
        assert!(e.message.contains("FIFO"), "{e}");
    }
}
