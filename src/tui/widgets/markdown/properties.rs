//! The frontmatter as a property block, and text with `[[links]]` in it.

use membank_core::frontmatter;
use membank_core::text::sanitize_for_terminal;
use membank_core::wikilink;
use ratatui::style::Style;
use unicode_width::UnicodeWidthStr;
use yaml_serde::Value;

use super::{Frag, LinkSpot, Renderer};

impl Renderer<'_> {
    pub(super) fn properties(&mut self, yaml: &str, first_line: usize) {
        let theme = self.theme;
        let header = Frag {
            text: "┌ properties".into(),
            style: theme.muted,
            link: None,
            line: 0,
        };
        self.raw_line(vec![header]);
        match frontmatter::parse_yaml(yaml, first_line) {
            Ok(map) => {
                let key_width = map
                    .keys()
                    .filter_map(frontmatter::scalar_text)
                    .map(|k| sanitize_for_terminal(&k, false).width())
                    .max()
                    .unwrap_or(0)
                    .min(20);
                for (k, v) in &map {
                    let key = frontmatter::scalar_text(k).unwrap_or_else(|| "?".into());
                    let key = sanitize_for_terminal(&key, false);
                    let pad = key_width.saturating_sub(key.width());
                    let mut frags = Vec::new();
                    self.value_frags(v, &mut frags);
                    let bar = Frag {
                        text: "│ ".into(),
                        style: theme.muted,
                        link: None,
                        line: 0,
                    };
                    let key_frag = Frag {
                        text: format!("{key}{}  ", " ".repeat(pad)),
                        style: theme.property_key,
                        link: None,
                        line: 0,
                    };
                    let indent = Frag {
                        text: " ".repeat(key_width + 2),
                        style: theme.text,
                        link: None,
                        line: 0,
                    };
                    self.emit_wrapped(frags, vec![bar.clone(), key_frag], vec![bar, indent]);
                }
            }
            Err(e) => {
                let at = e.line.map(|l| format!(" (line {l})")).unwrap_or_default();
                self.raw_line(vec![Frag {
                    text: format!(
                        "│ invalid YAML{at}: {}",
                        sanitize_for_terminal(&e.message, false)
                    ),
                    style: theme.error,
                    link: None,
                    line: 0,
                }]);
                for (i, l) in yaml.lines().enumerate() {
                    self.src_line = first_line + i;
                    self.raw_line(vec![Frag {
                        text: format!("│ {}", sanitize_for_terminal(l, false)),
                        style: theme.muted,
                        link: None,
                        line: 0,
                    }]);
                }
            }
        }
        self.raw_line(vec![Frag {
            text: "└".into(),
            style: theme.muted,
            link: None,
            line: 0,
        }]);
        self.blank();
    }

    /// A frontmatter value as text, with `[[links]]` styled.
    pub(super) fn value_frags(&mut self, v: &Value, out: &mut Vec<Frag>) {
        match v {
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(Frag {
                            text: ", ".into(),
                            style: self.theme.muted,
                            link: None,
                            line: 0,
                        });
                    }
                    self.value_frags(item, out);
                }
            }
            Value::Mapping(m) => {
                for (i, (k, item)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(Frag {
                            text: "; ".into(),
                            style: self.theme.muted,
                            link: None,
                            line: 0,
                        });
                    }
                    let key = frontmatter::scalar_text(k).unwrap_or_default();
                    out.push(Frag {
                        text: format!("{}: ", sanitize_for_terminal(&key, false)),
                        style: self.theme.property_key,
                        link: None,
                        line: 0,
                    });
                    self.value_frags(item, out);
                }
            }
            Value::Null => out.push(Frag {
                text: "(empty)".into(),
                style: self.theme.muted,
                link: None,
                line: 0,
            }),
            Value::Tagged(t) => self.value_frags(&t.value, out),
            scalar => {
                let text = frontmatter::scalar_text(scalar).unwrap_or_default();
                self.inline_with_links(&text, self.theme.property_value, out);
            }
        }
    }

    /// Plain text that may contain `[[target|alias]]`: links become
    /// separate, resolvable fragments. Extraction is the core's.
    pub(super) fn inline_with_links(&mut self, text: &str, style: Style, out: &mut Vec<Frag>) {
        let mut pos = 0;
        for link in wikilink::extract_plain(text) {
            if link.span.start > pos {
                out.push(Frag {
                    text: sanitize_for_terminal(&text[pos..link.span.start], false),
                    style,
                    link: None,
                    line: 0,
                });
            }
            let id = self.new_link(&link.target);
            out.push(Frag {
                text: sanitize_for_terminal(&text[link.span.clone()], false),
                style: self.link_style(id),
                link: Some(id),
                line: 0,
            });
            pos = link.span.end;
        }
        if pos < text.len() {
            out.push(Frag {
                text: sanitize_for_terminal(&text[pos..], false),
                style,
                link: None,
                line: 0,
            });
        }
    }

    pub(super) fn new_link(&mut self, target: &str) -> usize {
        let live = (self.resolve)(target);
        self.doc.links.push(LinkSpot {
            target: target.to_owned(),
            live,
            line: self.doc.lines.len(),
            spans: Vec::new(),
        });
        self.doc.links.len() - 1
    }

    pub(super) fn link_style(&self, id: usize) -> Style {
        if self.doc.links[id].live {
            self.theme.link
        } else {
            self.theme.dead_link
        }
    }
}
