//! A small element tree over quick-xml, bounded in depth, for the
//! terminology and bilingual formats; and escaping for the writers.
//! No DTD is read, so no entity can pull in anything outside the file.

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

    fn push_text(&self, skip: &[&str], out: &mut String) {
        for n in &self.children {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Element(e) if !skip.contains(&e.name.as_str()) => e.push_text(skip, out),
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
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML (near byte {}): {e}",
                reader.buffer_position()
            )
        })?;
        match event {
            Event::Start(e) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("elements nested deeper than {MAX_DEPTH} levels"));
                }
                stack.push(start(&e)?);
            }
            Event::Empty(e) => {
                let el = start(&e)?;
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
                if let Some(parent) = stack.last_mut() {
                    let s = t.decode().map_err(|e| e.to_string())?;
                    push_text(parent, &s);
                }
            }
            Event::CData(t) => {
                if let Some(parent) = stack.last_mut() {
                    let s = t.decode().map_err(|e| e.to_string())?;
                    push_text(parent, &s);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(parent) = stack.last_mut() {
                    let s = reference(&r)?;
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
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        children: Vec::new(),
    })
}

/// A character or predefined entity reference; any other entity (one a
/// DTD would define, which is never read) stays visible as written.
fn reference(r: &BytesRef<'_>) -> Result<String, String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Ok(c.to_string());
    }
    let name = r.decode().map_err(|e| e.to_string())?;
    Ok(match quick_xml::escape::resolve_predefined_entity(&name) {
        Some(s) => s.to_owned(),
        None => format!("&{name};"),
    })
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
