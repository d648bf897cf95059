//! The user's TUI settings, from the one config file (`MEMBANK_CONFIG`, else
//! `<config dir>/membank/config.toml`).
//!
//! Only the `theme` key and the `[keys]` table belong to the TUI. Other
//! tables (such as `[llm]`) are read by other parts of membank and are left
//! alone here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

use super::keys::KeyMap;
use super::theme::Theme;

#[derive(Debug, Default, Deserialize)]
pub struct Config {
    /// Theme name: a bundled theme or `themes/<name>.toml` beside the config
    /// file; spanned so that a wrong name is told by where it is.
    pub theme: Option<toml::Spanned<String>>,
    /// Action name → key names, replacing that action's default keys.
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<String>>,
    /// The file and its text, to tell where a mistake is: the settings'
    /// values are never quoted, a key pasted there by mistake would be.
    #[serde(skip)]
    source: Option<(PathBuf, String)>,
}

/// The `[keys]` table with where each name is.
#[derive(Deserialize)]
struct KeysAt {
    #[serde(default)]
    keys: BTreeMap<toml::Spanned<String>, Vec<toml::Spanned<String>>>,
}

/// `themes/` beside the config file, where the user's own themes live.
pub fn themes_dir(config_file: Option<&Path>) -> Option<PathBuf> {
    config_file.and_then(Path::parent).map(|d| d.join("themes"))
}

impl Config {
    /// Read the config file; a missing file means defaults.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        // The one read the other tables' readers share (a pipe reads once).
        match membank_llm::config::read_config_file(path) {
            Ok(Some(text)) => Config::parse(&text, path),
            Ok(None) => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Config> {
        // Told without the file's text: the offending line may hold a key.
        let mut config: Config = toml::from_str(text).map_err(|e| {
            anyhow::anyhow!(
                "{}: invalid config: {}",
                path.display(),
                membank_core::toml_error::describe(text, &e)
            )
        })?;
        config.source = Some((path.to_path_buf(), text.to_owned()));
        Ok(config)
    }

    /// `path: line L, column C: ` of byte `offset` in the file ("" when
    /// the settings came from no file).
    fn place(&self, offset: impl FnOnce(&str) -> Option<usize>) -> String {
        let Some((path, text)) = &self.source else {
            return String::new();
        };
        match offset(text) {
            Some(at) => format!(
                "{}: {}: ",
                path.display(),
                membank_core::toml_error::position(text, at)
            ),
            None => format!("{}: ", path.display()),
        }
    }

    pub fn keymap(&self) -> anyhow::Result<KeyMap> {
        KeyMap::default().with_overrides(&self.keys).map_err(|e| {
            // Where the entry is, since its text is not said.
            let place = self.place(|text| {
                let at: KeysAt = toml::from_str(text).ok()?;
                let (name, keys) = at
                    .keys
                    .iter()
                    .find(|(name, _)| *name.get_ref() == e.action)?;
                Some(match e.key {
                    Some(i) => keys.get(i)?.span().start,
                    None => name.span().start,
                })
            });
            anyhow::anyhow!("{place}{e}")
        })
    }

    /// The theme named in the config (default theme otherwise), colours
    /// removed when `use_color` is false.
    pub fn theme(&self, user_theme_dir: Option<&Path>, use_color: bool) -> anyhow::Result<Theme> {
        let theme = match &self.theme {
            Some(name) => Theme::load(name.get_ref(), user_theme_dir).map_err(|e| {
                let place = self.place(|_| Some(name.span().start));
                anyhow::anyhow!("{place}theme: {e:#}")
            })?,
            None => Theme::default_theme(),
        };
        Ok(if use_color {
            theme
        } else {
            theme.without_colors()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keys::{Action, Key, Scope};

    #[test]
    fn errors_never_quote_the_file() {
        let path = Path::new("config.toml");
        for text in [
            "theme = mono-sk-proj-REALKEY\n",
            "[keys]\nfind = \"sk-proj-REALKEY\"\n",
        ] {
            let said = format!("{:#}", Config::parse(text, path).unwrap_err());
            assert!(said.contains("line "), "{said}");
            assert!(!said.contains("REALKEY"), "{said}");
        }
    }

    /// A setting that reads but names nothing membank knows is told by its
    /// line and column and what is wrong, never by its value.
    #[test]
    fn unknown_names_are_placed_not_quoted() {
        let path = Path::new("config.toml");
        let said = |text: &str| {
            let c = Config::parse(text, path).unwrap();
            let e = match c.keymap() {
                Err(e) => e,
                Ok(_) => c.theme(None, true).unwrap_err(),
            };
            let said = format!("{e:#}");
            assert!(!said.contains("REALKEY"), "{said}");
            said
        };
        let s = said("theme = \"sk-proj-REALKEY\"\n");
        assert!(
            s.starts_with("config.toml: line 1, column 9: theme: no theme by that name"),
            "{s}"
        );
        let s = said("[keys]\nquit = [\"q\", \"sk-proj-REALKEY\"]\n");
        assert!(
            s.starts_with("config.toml: line 2, column 14: [keys] quit: not a key name"),
            "{s}"
        );
        let s = said("[keys]\nquit = [\"q\"]\nsk-proj-REALKEY = [\"x\"]\n");
        assert!(
            s.starts_with("config.toml: line 3, column 1: [keys]: not an action"),
            "{s}"
        );
    }

    #[test]
    fn llm_table_is_left_alone() {
        let text = r#"
theme = "mono"

[keys]
find = ["ctrl-f"]

[llm]
provider = "anthropic"
model = "x"
[llm.extra]
deep = 1
"#;
        let c = Config::parse(text, Path::new("config.toml")).unwrap();
        assert_eq!(c.theme.as_ref().map(|t| t.get_ref().as_str()), Some("mono"));
        let km = c.keymap().unwrap();
        assert_eq!(km.lookup(Scope::Bank, Key::ctrl('f')), Some(Action::Find));
        assert_eq!(c.theme(None, true).unwrap().name, "mono");
    }

    /// The example in docs/keys.md binds no key twice.
    #[test]
    fn the_documented_example_makes_no_key_clash() {
        let doc = include_str!("../../docs/keys.md");
        let (_, rest) = doc.split_once("```toml\n").unwrap();
        let (example, _) = rest.split_once("```").unwrap();
        let c = Config::parse(example, Path::new("config.toml")).unwrap();
        assert!(!c.keys.is_empty());
        let km = c.keymap().unwrap();
        assert_eq!(km.new_clashes(), []);
        assert_eq!(km.lookup(Scope::Bank, Key::ctrl('s')), Some(Action::Search));
    }

    #[test]
    fn missing_file_gives_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(&dir.path().join("config.toml")).unwrap();
        assert!(c.theme.is_none());
        assert_eq!(c.theme(None, true).unwrap().name, "default");
    }

    #[test]
    fn broken_file_names_the_path() {
        let e = Config::parse("theme = [", Path::new("/x/config.toml")).unwrap_err();
        assert!(format!("{e:#}").contains("config.toml"));
    }

    #[test]
    fn user_theme_dir_is_searched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("paper.toml"),
            "name = \"paper\"\n[styles]\nlink = { fg = \"#0000ff\" }\n",
        )
        .unwrap();
        let c = Config::parse("theme = \"paper\"\n", Path::new("config.toml")).unwrap();
        let t = c.theme(Some(dir.path()), true).unwrap();
        assert_eq!(t.name, "paper");
        let t = c.theme(Some(dir.path()), false).unwrap();
        assert_eq!(t.link.fg, None);
    }
}
