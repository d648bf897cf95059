//! Finding the memory root the way everos does.
//!
//! everos 1.1+ reads `EVEROS_ROOT`; 1.0 read `EVEROS_MEMORY__ROOT`, then
//! `[memory] root` in its user config (`EVEROS_CONFIG_FILE`, by default
//! `~/.everos/config.toml`); both fall back to `~/.everos`. The rules are
//! applied newest first, and the one that chose the root is reported.
//! Recognising a root is the layout boundary's job (`memory::detect`).

use std::path::{Path, PathBuf};

/// Which rule chose the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootRule {
    /// `EVEROS_ROOT` (everos 1.1 and later).
    EverosRoot,
    /// `EVEROS_MEMORY__ROOT` (everos 1.0).
    MemoryRootVariable,
    /// `[memory] root` in this config file (everos 1.0).
    ConfigFile(PathBuf),
    /// Nothing set: `~/.everos`.
    Default,
}

impl RootRule {
    pub fn describe(&self) -> String {
        match self {
            RootRule::EverosRoot => "from EVEROS_ROOT (everos 1.1+)".to_owned(),
            RootRule::MemoryRootVariable => "from EVEROS_MEMORY__ROOT (everos 1.0)".to_owned(),
            RootRule::ConfigFile(p) => {
                format!("from [memory] root in {} (everos 1.0)", p.display())
            }
            RootRule::Default => {
                "the default ~/.everos (no EVEROS_ROOT, EVEROS_MEMORY__ROOT or [memory] root)"
                    .to_owned()
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub path: PathBuf,
    pub rule: RootRule,
    /// Things the user may want to know (a config file that could not be read).
    pub notes: Vec<String>,
}

/// What resolution needs from the environment, so tests can supply it.
pub struct Env<'a> {
    pub var: &'a dyn Fn(&str) -> Option<String>,
    pub home: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Reads a config file; `None` when it does not exist.
    pub read_config: &'a dyn Fn(&Path) -> Option<Result<String, String>>,
}

/// Config files are small; a larger one is not everos's.
const CONFIG_CAP: u64 = 1024 * 1024;

impl Env<'static> {
    /// The real process environment.
    pub fn process() -> Env<'static> {
        Env {
            var: &|k| std::env::var(k).ok(),
            home: home_dir(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            read_config: &|p| {
                let meta = std::fs::metadata(p).ok()?;
                if !meta.is_file() {
                    return None;
                }
                if meta.len() > CONFIG_CAP {
                    return Some(Err(format!("larger than {CONFIG_CAP} bytes")));
                }
                Some(std::fs::read_to_string(p).map_err(|e| e.to_string()))
            },
        }
    }
}

fn home_dir() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        // Without HOME, std looks the user up in the password database.
        home_from(std::env::var_os("HOME"), &|| {
            std::env::home_dir().filter(|h| !h.as_os_str().is_empty())
        })
    }
    #[cfg(not(unix))]
    {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from)
    }
}

/// The home folder `~` stands for, as Python's `expanduser` (which everos
/// uses) finds it on Unix: `HOME` whenever it is set, an empty one being
/// `/`; without it, the user's entry in the password database (`passwd`,
/// given so tests need not depend on the machine's user); `None` when
/// there is none either, and `~` is then taken literally.
#[cfg(unix)]
fn home_from(
    home: Option<std::ffi::OsString>,
    passwd: &dyn Fn() -> Option<PathBuf>,
) -> Option<PathBuf> {
    match home {
        Some(h) if h.is_empty() => Some(PathBuf::from("/")),
        Some(h) => Some(PathBuf::from(h)),
        None => passwd(),
    }
}

fn expand(raw: &str, env: &Env) -> PathBuf {
    let p = match (raw.strip_prefix('~'), &env.home) {
        (Some(""), Some(h)) => h.clone(),
        (Some(rest), Some(h)) if rest.starts_with('/') || rest.starts_with('\\') => {
            h.join(&rest[1..])
        }
        _ => PathBuf::from(raw),
    };
    if p.is_absolute() { p } else { env.cwd.join(p) }
}

/// Resolve the memory root.
pub fn resolve(env: &Env) -> Resolved {
    let mut notes = Vec::new();
    let set = |k: &str| (env.var)(k).filter(|v| !v.is_empty());
    if let Some(v) = set("EVEROS_ROOT") {
        return Resolved {
            path: expand(&v, env),
            rule: RootRule::EverosRoot,
            notes,
        };
    }
    if let Some(v) = set("EVEROS_MEMORY__ROOT") {
        return Resolved {
            path: expand(&v, env),
            rule: RootRule::MemoryRootVariable,
            notes,
        };
    }
    let config = match set("EVEROS_CONFIG_FILE") {
        Some(p) => Some(expand(&p, env)),
        None => env
            .home
            .as_ref()
            .map(|h| h.join(".everos").join("config.toml")),
    };
    if let Some(config) = config {
        match (env.read_config)(&config) {
            None => {}
            Some(Err(e)) => notes.push(format!("{} not read: {e}", config.display())),
            Some(Ok(text)) => match memory_root_in(&text) {
                Ok(Some(root)) => {
                    return Resolved {
                        path: expand(&root, env),
                        rule: RootRule::ConfigFile(config),
                        notes,
                    };
                }
                Ok(None) => {}
                Err(e) => notes.push(format!("{} is not valid TOML: {e}", config.display())),
            },
        }
    }
    let path = match &env.home {
        Some(h) => h.join(".everos"),
        None => {
            notes.push("no home folder is known; ~/.everos taken literally".to_owned());
            env.cwd.join("~/.everos")
        }
    };
    Resolved {
        path,
        rule: RootRule::Default,
        notes,
    }
}

/// `[memory] root` of a TOML document, if set.
fn memory_root_in(text: &str) -> Result<Option<String>, String> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| crate::toml_error::describe(text, &e))?;
    Ok(doc
        .get("memory")
        .and_then(|m| m.get("root"))
        .and_then(|r| r.as_str())
        .filter(|r| !r.is_empty())
        .map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn run(vars: &[(&str, &str)], files: &[(&str, &str)]) -> Resolved {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let files: HashMap<PathBuf, String> = files
            .iter()
            .map(|(k, v)| (PathBuf::from(k), v.to_string()))
            .collect();
        let var = move |k: &str| vars.get(k).cloned();
        let read = move |p: &Path| files.get(p).cloned().map(Ok);
        resolve(&Env {
            var: &var,
            home: Some(PathBuf::from("/home/z")),
            cwd: PathBuf::from("/work"),
            read_config: &read,
        })
    }

    /// Without HOME the user's entry in the password database is the
    /// home, as for Python's `expanduser`; an empty HOME is `/`.
    #[cfg(unix)]
    #[test]
    fn the_home_folder_is_found_as_python_finds_it() {
        let passwd = || Some(PathBuf::from("/home/from-passwd"));
        let nobody = || None;
        let home =
            |h: Option<&str>, db: &dyn Fn() -> Option<PathBuf>| home_from(h.map(Into::into), db);
        assert_eq!(
            home(None, &passwd),
            Some(PathBuf::from("/home/from-passwd"))
        );
        assert_eq!(home(None, &nobody), None);
        assert_eq!(
            home(Some("/home/z"), &passwd),
            Some(PathBuf::from("/home/z"))
        );
        assert_eq!(home(Some(""), &passwd), Some(PathBuf::from("/")));
        // Resolved with that home, the default root is under it.
        let r = resolve(&Env {
            var: &|_| None,
            home: home(None, &passwd),
            cwd: PathBuf::from("/work"),
            read_config: &|_| None,
        });
        assert_eq!(r.path, PathBuf::from("/home/from-passwd/.everos"));
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }

    #[test]
    fn newest_rule_wins() {
        let r = run(
            &[("EVEROS_ROOT", "~/mem"), ("EVEROS_MEMORY__ROOT", "/old")],
            &[],
        );
        assert_eq!(r.path, PathBuf::from("/home/z/mem"));
        assert_eq!(r.rule, RootRule::EverosRoot);
        let r = run(&[("EVEROS_MEMORY__ROOT", "rel")], &[]);
        assert_eq!(r.path, PathBuf::from("/work/rel"));
        assert_eq!(r.rule, RootRule::MemoryRootVariable);
    }

    #[test]
    fn config_file_then_default() {
        let cfg = "[memory]\nroot = \"~/from-config\"\ntimezone = \"UTC\"\n";
        let r = run(&[], &[("/home/z/.everos/config.toml", cfg)]);
        assert_eq!(r.path, PathBuf::from("/home/z/from-config"));
        assert_eq!(
            r.rule,
            RootRule::ConfigFile(PathBuf::from("/home/z/.everos/config.toml"))
        );
        let r = run(
            &[("EVEROS_CONFIG_FILE", "/etc/e.toml")],
            &[("/etc/e.toml", cfg)],
        );
        assert_eq!(r.path, PathBuf::from("/home/z/from-config"));
        let r = run(&[("EVEROS_ROOT", "")], &[]);
        assert_eq!(r.path, PathBuf::from("/home/z/.everos"));
        assert_eq!(r.rule, RootRule::Default);
        assert!(r.rule.describe().contains("~/.everos"));
    }

    #[test]
    fn a_broken_config_is_a_note_not_a_failure() {
        let r = run(&[], &[("/home/z/.everos/config.toml", "[memory\nroot=")]);
        assert_eq!(r.rule, RootRule::Default);
        assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    }
}
