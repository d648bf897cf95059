//! A small element tree over quick-xml, bounded in depth, for the
//! terminology and bilingual formats; and escaping for the writers.
//! No DTD is read, so no entity can pull in anything outside the file;
//! an entity only a DTD could define is an error.

use quick_xml::events::{BytesRef, BytesStart, Event};

/// Deeper nesting than any TBX, XLIFF or TMX needs: refused, so a
/// hostile file cannot exhaust the stack of the tree walks.
const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Element(Element),
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Element {
    /// The local name (prefix dropped).
    pub name: String,
    /// Attributes with their names as written (`xml:lang`, `sdl:conf`).
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
}

impl Element {
    /// An attribute by its name as written, or else by its local name.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .or_else(|| {
                self.attrs
                    .iter()
                    .find(|(k, _)| k.rsplit(':').next() == Some(name))
            })
            .map(|(_, v)| v.as_str())
    }

    pub fn lang(&self) -> Option<&str> {
        self.attr("xml:lang").or_else(|| self.attr("lang"))
    }

    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    pub fn child(&self, name: &str) -> Option<&Element> {
        self.elements().find(|e| e.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.elements().filter(move |e| e.name == name)
    }

    /// Every descendant element named `name`, in document order, not
    /// looking inside a match.
    pub fn descendants<'a>(&'a self, name: &str, out: &mut Vec<&'a Element>) {
        for e in self.elements() {
            if e.name == name {
                out.push(e);
            } else {
                e.descendants(name, out);
            }
        }
    }

    /// All text inside, with the content of elements named in `skip`
    /// left out; elements themselves add nothing.
    pub fn text_skipping(&self, skip: &[&str]) -> String {
        let mut out = String::new();
        self.push_text(skip, &mut out);
        out
    }

    /// All text inside, with the content of the elements `skip` picks
    /// left out.
    pub fn text_without(&self, skip: &dyn Fn(&Element) -> bool) -> String {
        let mut out = String::new();
        self.push_text_without(skip, &mut out);
        out
    }

    fn push_text(&self, skip: &[&str], out: &mut String) {
        self.push_text_without(&|e: &Element| skip.contains(&e.name.as_str()), out);
    }

    fn push_text_without(&self, skip: &dyn Fn(&Element) -> bool, out: &mut String) {
        for n in &self.children {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) if !skip(e) => e.push_text_without(skip, out),
                Node::Element(_) => {}
            }
        }
    }

    /// All text inside, whitespace collapsed.
    pub fn plain(&self) -> String {
        collapse(&self.text_skipping(&[]))
    }
}

/// Runs of whitespace as one space, trimmed.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The root element of `text`.
pub fn parse(text: &str) -> Result<Element, String> {
    // A byte-order mark is no text before the root.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    loop {
        // Where the event starts, so that content out of place is named
        // by the line it is on rather than the line the reader got to.
        let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = reader
            .read_event()
            .map_err(|e| at_line(text, &reader, format!("not well-formed XML: {e}")))?;
        if stack.is_empty() {
            // Text, a reference or CDATA outside the root element is no
            // XML (an XML parser stops at it), and only whitespace,
            // comments and processing instructions may follow the root:
            // two files joined into one would otherwise be read as the
            // first alone, and the second's terms and segments lost
            // without a word.
            let stray = match &event {
                Event::Text(t) => t.iter().position(|b| !blank(b)),
                Event::GeneralRef(_) | Event::CData(_) => Some(0),
                // An XML declaration or a DOCTYPE belongs before the root.
                Event::Start(_)
                | Event::Empty(_)
                | Event::End(_)
                | Event::Decl(_)
                | Event::DocType(_)
                    if root.is_some() =>
                {
                    Some(0)
                }
                _ => None,
            };
            if let Some(offset) = stray {
                let place = match &root {
                    Some(r) => format!(
                        "content after the end of the root element <{}> (two files joined \
                         into one?)",
                        r.name
                    ),
                    None => "text before the root element".to_owned(),
                };
                return Err(at_offset(
                    text,
                    before.saturating_add(offset),
                    format!("not well-formed XML: {place}"),
                ));
            }
        }
        match event {
            Event::Start(e) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("elements nested deeper than {MAX_DEPTH} levels"));
                }
                stack.push(start(&e).map_err(|m| at_line(text, &reader, m))?);
            }
            Event::Empty(e) => {
                let el = start(&e).map_err(|m| at_line(text, &reader, m))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(Node::Element(el)),
                    None if root.is_none() => root = Some(el),
                    None => {}
                }
            }
            Event::End(_) => {
                let Some(el) = stack.pop() else {
                    return Err("an end tag with no start tag".into());
                };
                match stack.last_mut() {
                    Some(parent) => parent.children.push(Node::Element(el)),
                    None if root.is_none() => root = Some(el),
                    None => {}
                }
            }
            Event::Text(t) => {
                let s = t.decode().map_err(|e| e.to_string())?;
                allowed(&s).map_err(|m| at_line(text, &reader, m))?;
                if let Some(parent) = stack.last_mut() {
                    push_text(parent, &s);
                }
            }
            Event::CData(t) => {
                let s = t.decode().map_err(|e| e.to_string())?;
                allowed(&s).map_err(|m| at_line(text, &reader, m))?;
                if let Some(parent) = stack.last_mut() {
                    push_text(parent, &s);
                }
            }
            Event::GeneralRef(r) => {
                let s = reference(&r).map_err(|m| at_line(text, &reader, m))?;
                if let Some(parent) = stack.last_mut() {
                    push_text(parent, &s);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(format!(
            "the file ends inside <{}>",
            stack[stack.len() - 1].name
        ));
    }
    root.ok_or_else(|| "no XML element in the file".to_owned())
}

fn push_text(parent: &mut Element, s: &str) {
    if let Some(Node::Text(last)) = parent.children.last_mut() {
        last.push_str(s);
    } else {
        parent.children.push(Node::Text(s.to_owned()));
    }
}

fn start(e: &BytesStart<'_>) -> Result<Element, String> {
    let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| format!("a bad attribute in <{name}>: {e}"))?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("a bad attribute value in <{name}>: {e}"))?
            .into_owned();
        allowed(&value)?;
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        children: Vec::new(),
    })
}

/// `message` prefixed with the line the reader has got to.
fn at_line(text: &str, reader: &quick_xml::Reader<&[u8]>, message: String) -> String {
    let pos = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
    at_offset(text, pos, message)
}

/// `message` prefixed with the line of byte `pos` of `text`.
fn at_offset(text: &str, pos: usize, message: String) -> String {
    let upto = &text.as_bytes()[..pos.min(text.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    format!("line {line}: {message}")
}

/// Whether XML 1.0 allows `c` in a document: not the control characters
/// but tab and line breaks, nor U+FFFE and U+FFFF.
fn xml_char(c: char) -> bool {
    !matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}')
}

/// Text with a character XML 1.0 forbids is a malformed file: accepted,
/// an escape character would reach a term article and the terminal.
fn allowed(s: &str) -> Result<(), String> {
    match s.chars().find(|&c| !xml_char(c)) {
        Some(c) => Err(format!(
            "not well-formed XML: it holds the character U+{:04X}, which XML does not allow",
            c as u32
        )),
        None => Ok(()),
    }
}

/// A character or predefined entity reference. Any other entity would need
/// the DTD, which is never read: the file is refused rather than the name
/// kept as if it were text.
fn reference(r: &BytesRef<'_>) -> Result<String, String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        let s = c.to_string();
        allowed(&s)?;
        return Ok(s);
    }
    let name = r.decode().map_err(|e| e.to_string())?;
    // A character reference that did not resolve names a character XML
    // forbids (`&#0;`) or no character at all: not an entity.
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => number.parse::<u32>().ok(),
        };
        return Err(match code {
            Some(n) if char::from_u32(n).is_some() => format!(
                "not well-formed XML: the character reference &{name}; is U+{n:04X}, \
                 a character XML does not allow"
            ),
            _ => {
                format!("not well-formed XML: the character reference &{name}; names no character")
            }
        });
    }
    match quick_xml::escape::resolve_predefined_entity(&name) {
        Some(s) => Ok(s.to_owned()),
        None => Err(format!(
            "the entity &{name}; is not one XML predefines, and DTDs are not read"
        )),
    }
}

/// `s` as XML text or attribute value: markup escaped, and characters
/// XML 1.0 cannot hold dropped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}
