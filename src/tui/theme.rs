//! Themes: named styles loaded from TOML, bundled into the binary.
//!
//! A theme file only lists the styles it changes; everything else comes from
//! the default theme, so a theme never leaves a part of the screen unstyled.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, bail};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// Themes shipped inside the binary: (name, TOML source).
pub const BUNDLED: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.toml")),
    ("mono", include_str!("../../themes/mono.toml")),
];

/// Whether colours are used at all; `--color` and `NO_COLOR` decide.
pub use membank_args::ColorChoice;

macro_rules! theme_slots {
    ($($slot:ident),* $(,)?) => {
        /// Every style the interface draws with.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            $(pub $slot: Style,)*
        }

        impl Theme {
            /// Every style's name, for the message about one not known.
            const SLOTS: &[&str] = &[$(stringify!($slot),)*];

            fn slot_mut(&mut self, slot: &str) -> Option<&mut Style> {
                match slot {
                    $(stringify!($slot) => Some(&mut self.$slot),)*
                    _ => None,
                }
            }

            fn map_styles(&mut self, mut f: impl FnMut(Style) -> Style) {
                $(self.$slot = f(self.$slot);)*
            }

            fn blank(name: &str) -> Theme {
                Theme { name: name.to_owned(), $($slot: Style::new(),)* }
            }
        }
    };
}

theme_slots!(
    text,
    muted,
    title,
    border,
    border_focused,
    selection,
    selection_unfocused,
    heading1,
    heading2,
    heading3,
    strong,
    emphasis,
    strikethrough,
    highlight,
    code,
    code_block,
    quote,
    link,
    dead_link,
    link_selected,
    property_key,
    property_value,
    table_border,
    list_marker,
    rule,
    status_bar,
    status_message,
    error,
    warning,
    info,
    kept,
    dropped,
    score,
    matched,
    folder,
    marker,
    hint_key,
    hint_text,
    input,
);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    /// `false` strips every colour after merging (monochrome themes).
    colors: Option<bool>,
    #[serde(default)]
    /// Spanned so that a mistake is told by its line, not its text.
    styles: BTreeMap<toml::Spanned<String>, StyleSpec>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StyleSpec {
    /// A colour name, `"#rrggbb"`, or an index 0-255 (as a number or a
    /// string); spanned so a wrong one is told by where it is.
    fg: Option<toml::Spanned<toml::Value>>,
    bg: Option<toml::Spanned<toml::Value>>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    dim: bool,
    #[serde(default)]
    italic: bool,
    #[serde(default)]
    underline: bool,
    #[serde(default)]
    reversed: bool,
}

impl StyleSpec {
    /// The style, or the offset of the colour that is not one.
    fn to_style(&self) -> Result<Style, usize> {
        let mut style = Style::new();
        if let Some(fg) = &self.fg {
            style = style.fg(parse_color(fg)?);
        }
        if let Some(bg) = &self.bg {
            style = style.bg(parse_color(bg)?);
        }
        for (on, modifier) in [
            (self.bold, Modifier::BOLD),
            (self.dim, Modifier::DIM),
            (self.italic, Modifier::ITALIC),
            (self.underline, Modifier::UNDERLINED),
            (self.reversed, Modifier::REVERSED),
        ] {
            if on {
                style = style.add_modifier(modifier);
            }
        }
        Ok(style)
    }
}

/// A colour as a theme file gives it; `Err` holds where it is. Never
/// quoted: a theme file is text like the config file.
fn parse_color(value: &toml::Spanned<toml::Value>) -> Result<Color, usize> {
    match value.get_ref() {
        toml::Value::String(s) => Color::from_str(s).ok(),
        toml::Value::Integer(i) => u8::try_from(*i).ok().map(Color::Indexed),
        _ => None,
    }
    .ok_or(value.span().start)
}

/// What a theme's colour may be, for the message about one that is not.
const COLOURS: &str = "a colour is a name such as \"red\", \"bright_blue\", \"dark_gray\" \
                       or \"reset\", an index 0-255, or \"#rrggbb\"";

impl Theme {
    /// The bundled default theme (16 ANSI colours).
    pub fn default_theme() -> Theme {
        let mut theme = Theme::blank("default");
        apply(&mut theme, BUNDLED[0].1, "themes/default.toml")
            .expect("the bundled default theme is valid");
        theme
    }

    /// Parse a theme file's text on top of the default theme.
    /// `origin` names the file in error messages.
    pub fn parse(source: &str, origin: &str) -> anyhow::Result<Theme> {
        let mut theme = Theme::default_theme();
        apply(&mut theme, source, origin)?;
        Ok(theme)
    }

    /// Find a theme by name: bundled ones first, then
    /// `<user_theme_dir>/<name>.toml`.
    pub fn load(name: &str, user_theme_dir: Option<&Path>) -> anyhow::Result<Theme> {
        if let Some((_, src)) = BUNDLED.iter().find(|(n, _)| *n == name) {
            return Theme::parse(src, &format!("bundled theme {name:?}"));
        }
        if let Some(dir) = user_theme_dir {
            let path = dir.join(format!("{name}.toml"));
            if path.is_file() {
                let src = std::fs::read_to_string(&path)
                    .with_context(|| format!("reading theme {}", path.display()))?;
                return Theme::parse(&src, &path.display().to_string());
            }
        }
        // The name is not quoted: it comes from the config file, where a
        // key pasted by mistake must not be printed.
        let bundled: Vec<&str> = BUNDLED.iter().map(|(n, _)| *n).collect();
        bail!(
            "no theme by that name (bundled themes: {}; your own are themes/NAME.toml \
             beside the config file)",
            bundled.join(", ")
        )
    }

    /// The same theme with every colour removed, for `NO_COLOR` and
    /// `--color never`. Modifiers stay, and the selection falls back to
    /// reverse video so it stays visible.
    pub fn without_colors(mut self) -> Theme {
        self.map_styles(|s| Style {
            fg: None,
            bg: None,
            underline_color: None,
            ..s
        });
        if self.selection.add_modifier.is_empty() {
            self.selection = self.selection.add_modifier(Modifier::REVERSED);
        }
        self
    }
}

fn apply(theme: &mut Theme, source: &str, origin: &str) -> anyhow::Result<()> {
    // Told by line and column like the config file, never by its text.
    let file: ThemeFile = toml::from_str(source).map_err(|e| {
        anyhow::anyhow!(
            "{origin}: not a valid theme file: {}",
            membank_core::toml_error::describe(source, &e)
        )
    })?;
    if let Some(name) = file.name {
        theme.name = name;
    }
    // Mistakes are told by line and column and what is wrong, like the
    // config file's: a style's name is said only once it is a known one.
    let at = |offset| membank_core::toml_error::position(source, offset);
    for (slot, spec) in &file.styles {
        let Some(target) = theme.slot_mut(slot.get_ref()) else {
            bail!(
                "{origin}: {}: not a style name membank knows (known: {})",
                at(slot.span().start),
                Theme::SLOTS.join(", ")
            );
        };
        *target = spec.to_style().map_err(|offset| {
            anyhow::anyhow!(
                "{origin}: {}: style {}: not a colour ({COLOURS})",
                at(offset),
                slot.get_ref()
            )
        })?;
    }
    if file.colors == Some(false) {
        *theme = theme.clone().without_colors();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses_only_ansi16(style: Style) -> bool {
        [style.fg, style.bg]
            .into_iter()
            .flatten()
            .all(|c| !matches!(c, Color::Rgb(..) | Color::Indexed(_)))
    }

    #[test]
    fn default_theme_uses_only_the_16_ansi_colours() {
        let t = Theme::default_theme();
        let mut all_ansi = true;
        let mut copy = t.clone();
        copy.map_styles(|s| {
            all_ansi &= uses_only_ansi16(s);
            s
        });
        assert!(all_ansi);
        assert_eq!(t.link.fg, Some(Color::Cyan));
    }

    #[test]
    fn nothing_in_the_default_theme_is_bright_black() {
        // Many palettes draw bright black in the background's colour.
        let mut copy = Theme::default_theme();
        let mut dark_gray = Vec::new();
        copy.map_styles(|s| {
            if [s.fg, s.bg].contains(&Some(Color::DarkGray)) {
                dark_gray.push(s);
            }
            s
        });
        assert!(dark_gray.is_empty(), "{dark_gray:?}");
    }

    #[test]
    fn theme_errors_never_quote_the_file() {
        let mut theme = Theme::default_theme();
        let said = format!(
            "{:#}",
            apply(&mut theme, "name = sk-REALKEY\n", "mine.toml").unwrap_err()
        );
        assert!(
            said.starts_with("mine.toml: not a valid theme file: line 1"),
            "{said}"
        );
        assert!(!said.contains("REALKEY"), "{said}");
    }

    #[test]
    fn every_bundled_theme_parses() {
        for (name, _) in BUNDLED {
            let t = Theme::load(name, None).unwrap();
            assert_eq!(&t.name, name);
        }
    }

    #[test]
    fn mono_theme_has_no_colour_but_keeps_emphasis() {
        let t = Theme::load("mono", None).unwrap();
        assert_eq!(t.link.fg, None);
        assert!(t.heading1.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn unknown_style_and_colour_are_named_in_errors() {
        // Told by line and column, never by the text: a key pasted into
        // the file by mistake is not printed.
        let e = Theme::parse("[styles]\nnope-sk = {}\n", "x.toml").unwrap_err();
        assert_eq!(
            format!("{e:#}").split(" (known").next(),
            Some("x.toml: line 2, column 1: not a style name membank knows")
        );
        let e = Theme::parse("[styles]\ntext = { fg = \"sk-blurple\" }\n", "x.toml").unwrap_err();
        let said = format!("{e:#}");
        assert!(!said.contains("blurple"), "{said}");
        assert!(
            said.starts_with("x.toml: line 2, column 15: style text: not a colour"),
            "{said}"
        );
        assert!(said.contains("0-255"), "{said}");
    }

    /// The bundled files' comment promises "an index 0-255": a number
    /// works as well as the same number in quotes.
    #[test]
    fn a_colour_index_may_be_a_number() {
        let t = Theme::parse("[styles]\nlink = { fg = 200, bg = \"17\" }\n", "x").unwrap();
        assert_eq!(t.link.fg, Some(Color::Indexed(200)));
        assert_eq!(t.link.bg, Some(Color::Indexed(17)));
        assert!(Theme::parse("[styles]\nlink = { fg = 256 }\n", "x").is_err());
    }

    #[test]
    fn missing_theme_lists_bundled_ones() {
        let e = Theme::load("nonexistent", None).unwrap_err();
        assert!(e.to_string().contains("default, mono"));
    }

    #[test]
    fn no_color_strips_colours_but_keeps_selection_visible() {
        let t = Theme::default_theme().without_colors();
        assert_eq!(t.error.fg, None);
        assert!(t.selection.add_modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn color_choice_honours_no_color() {
        assert!(ColorChoice::Auto.use_color(None));
        assert!(ColorChoice::Auto.use_color(Some("")));
        assert!(!ColorChoice::Auto.use_color(Some("1")));
        assert!(ColorChoice::Always.use_color(Some("1")));
        assert!(!ColorChoice::Never.use_color(None));
    }
}
