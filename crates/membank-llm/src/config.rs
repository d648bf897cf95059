//! Which provider to talk to and how: the `[llm]` table of the config file,
//! overridden by `MEMBANK_PROVIDER`, `MEMBANK_MODEL` and `MEMBANK_BASE_URL`.
//! API keys come only from the provider's key variable or `api_key_command`,
//! never from the file itself, and live in [`ApiKey`] which never prints.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::error::LlmError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    OpenAi,
    Anthropic,
    /// Ollama through its OpenAI-compatible endpoint; needs no key.
    Ollama,
}

/// The two wire protocols; Ollama speaks the OpenAI one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    OpenAiChat,
    AnthropicMessages,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::OpenAi, Provider::Anthropic, Provider::Ollama];

    /// Parses the config/env spelling: `openai`, `anthropic` or `ollama`.
    pub fn parse(s: &str) -> Result<Provider, LlmError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Provider::OpenAi),
            "anthropic" => Ok(Provider::Anthropic),
            "ollama" => Ok(Provider::Ollama),
            // Not quoted: a key pasted into the wrong setting would be printed.
            _ => Err(LlmError::Config(
                "not a provider membank knows (expected openai, anthropic or ollama)".to_owned(),
            )),
        }
    }

    /// The config/env spelling.
    pub fn id(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Ollama => "ollama",
        }
    }

    /// The name shown to people.
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::Anthropic => "Anthropic",
            Provider::Ollama => "Ollama",
        }
    }

    pub fn protocol(self) -> Protocol {
        match self {
            Provider::Anthropic => Protocol::AnthropicMessages,
            Provider::OpenAi | Provider::Ollama => Protocol::OpenAiChat,
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::Ollama => "http://localhost:11434/v1",
        }
    }

    /// A starting point only; the config or `MEMBANK_MODEL` usually names one.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4o-mini",
            Provider::Anthropic => "claude-sonnet-4-5",
            Provider::Ollama => "llama3.1",
        }
    }

    /// The environment variable holding the key, if the provider uses one.
    pub fn key_env_var(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("OPENAI_API_KEY"),
            Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
            Provider::Ollama => None,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// An API key. It has no `Display`, its `Debug` is redacted, and the only
/// way to read it is [`ApiKey::expose`], used when building request headers.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Everything needed to reach one model.
#[derive(Clone, PartialEq)]
pub struct LlmConfig {
    pub provider: Provider,
    pub model: String,
    /// Without a trailing slash.
    pub base_url: String,
    /// A shell command whose standard output is the key (e.g. a password manager call).
    pub api_key_command: Option<String>,
    /// Longest wait for the response headers and between two pieces of a reply.
    pub timeout: Duration,
    /// Longest one reply may take from sending the request to its end, so
    /// a server trickling text forever is stopped too.
    pub reply_timeout: Duration,
    pub connect_timeout: Duration,
    /// Retries after 429 and 5xx replies (0 disables retrying).
    pub max_retries: u32,
    /// First backoff wait; doubles on each retry.
    pub backoff_base: Duration,
    /// Upper bound on any single wait; a server asking for longer by
    /// `Retry-After` gets no retry (it would only be refused again).
    pub max_retry_wait: Duration,
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The command is shown only as set or not: some people put the key
        // itself in it (`echo sk-...`).
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &redact_url(&self.base_url))
            .field(
                "api_key_command",
                &self.api_key_command.as_ref().map(|_| "<set>"),
            )
            .field("timeout", &self.timeout)
            .field("reply_timeout", &self.reply_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("max_retry_wait", &self.max_retry_wait)
            .finish()
    }
}

/// The URL for messages: any `user:password@` part and every query value
/// replaced (a key is often passed as `?api-key=…`).
pub fn redact_url(url: &str) -> String {
    let (url, query) = match url.split_once('?') {
        Some((u, q)) => (u, Some(q)),
        None => (url, None),
    };
    let mut shown = match url.find("://").map(|i| i + 3) {
        None => url.to_string(),
        Some(scheme_end) => {
            let authority_end = url[scheme_end..]
                .find('/')
                .map_or(url.len(), |i| scheme_end + i);
            match url[scheme_end..authority_end].rfind('@') {
                Some(at) => format!("{}***@{}", &url[..scheme_end], &url[scheme_end + at + 1..]),
                None => url.to_string(),
            }
        }
    };
    if let Some(query) = query {
        let hidden: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, _)) => format!("{name}=***"),
                None => pair.to_string(),
            })
            .collect();
        shown.push('?');
        shown.push_str(&hidden.join("&"));
    }
    shown
}

/// The secret parts of a URL (query values, the userinfo), so messages
/// that quote a server can have them removed too.
pub fn url_secrets(url: &str) -> Vec<String> {
    let (before, query) = url.split_once('?').unwrap_or((url, ""));
    let mut out: Vec<String> = query
        .split('&')
        .filter_map(|p| p.split_once('=').map(|(_, v)| v.to_string()))
        .collect();
    let authority = before.split_once("://").map_or("", |(_, r)| r);
    if let Some((userinfo, _)) = authority.split('/').next().and_then(|a| a.rsplit_once('@')) {
        out.push(userinfo.to_string());
        out.extend(userinfo.split_once(':').map(|(_, p)| p.to_string()));
    }
    out.retain(|s| !s.is_empty());
    out
}

impl LlmConfig {
    /// Defaults for a provider: its public endpoint and a starting model.
    pub fn for_provider(provider: Provider) -> LlmConfig {
        LlmConfig {
            provider,
            model: provider.default_model().to_string(),
            base_url: provider.default_base_url().to_string(),
            api_key_command: None,
            timeout: Duration::from_secs(120),
            reply_timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
            max_retries: 3,
            backoff_base: Duration::from_secs(1),
            max_retry_wait: Duration::from_secs(60),
        }
    }

    /// Reads the `[llm]` table of a whole config file (absent table: defaults),
    /// then applies the `MEMBANK_*` variables of the process environment.
    pub fn from_toml_str(file_text: &str) -> Result<LlmConfig, LlmError> {
        // Errors quote neither the offending line nor values: a misplaced
        // key could be on that line.
        let table: toml::Table = file_text.parse().map_err(|e: toml::de::Error| {
            LlmError::Config(format!(
                "config file {}",
                membank_core::toml_error::describe(file_text, &e)
            ))
        })?;
        // A value of the wrong kind is told by its line and column, which
        // only a read of the text (not of the parsed table) knows. A key's
        // name in the table is refused first, by `from_table`, with advice.
        if secret_like_setting(&table).is_none() {
            #[derive(Deserialize)]
            struct LlmOnly {
                #[allow(dead_code)]
                llm: Option<LlmSection>,
            }
            if let Err(e) = toml::from_str::<LlmOnly>(file_text) {
                return Err(LlmError::Config(format!(
                    "[llm] table: {}",
                    membank_core::toml_error::describe(file_text, &e)
                )));
            }
        }
        Self::from_table(&table, &process_env)
    }

    /// Like [`LlmConfig::from_toml_str`] for an already parsed file, with the
    /// environment given as a lookup function.
    pub fn from_table(
        file: &toml::Table,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LlmConfig, LlmError> {
        let section = match file.get("llm") {
            None => LlmSection::default(),
            Some(value) => {
                {
                    if let Some(name) = secret_like_setting(file) {
                        return Err(LlmError::Config(format!(
                            "[llm] table: `{}` is not read from the config file; keys come \
                             only from OPENAI_API_KEY / ANTHROPIC_API_KEY or \
                             `api_key_command`. Remove it from the file.",
                            membank_core::text::sanitize_for_terminal(name, false)
                        )));
                    }
                }
                LlmSection::deserialize(value.clone()).map_err(|e| {
                    LlmError::Config(format!(
                        "[llm] table: {}",
                        membank_core::toml_error::hide_quoted(&e.to_string())
                    ))
                })?
            }
        };
        section.resolve(env)
    }

    /// The per-user configuration: the config file if it exists (a missing
    /// file means defaults), then the environment.
    pub fn load() -> Result<LlmConfig, LlmError> {
        let Some(path) = config_file_path() else {
            return LlmConfig::from_env();
        };
        match read_config_file(&path) {
            Ok(Some(text)) => LlmConfig::from_toml_str(&text).map_err(|e| match e {
                LlmError::Config(msg) => LlmError::Config(format!("{}: {msg}", path.display())),
                other => other,
            }),
            Ok(None) => LlmConfig::from_env(),
            Err(e) => Err(LlmError::Config(format!("{}: {e}", path.display()))),
        }
    }

    /// Configuration from the environment alone (no config file).
    pub fn from_env() -> Result<LlmConfig, LlmError> {
        LlmSection::default().resolve(&process_env)
    }

    /// One line for status bars and `--verbose`: provider, model and endpoint.
    pub fn summary(&self) -> String {
        format!(
            "{} · {} · {}",
            self.provider.id(),
            self.model,
            redact_url(&self.base_url)
        )
    }

    /// Finds the key: the provider's environment variable first, then
    /// `api_key_command`. Ollama needs none but may use a command (for a
    /// proxy that wants one).
    pub fn resolve_api_key(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<ApiKey>, LlmError> {
        let from_env = self
            .provider
            .key_env_var()
            .and_then(env)
            .filter(|k| !k.trim().is_empty());
        if let Some(key) = from_env {
            return Ok(Some(ApiKey::new(key.trim())));
        }
        if let Some(command) = &self.api_key_command {
            return run_key_command(command).map(Some);
        }
        match self.provider.key_env_var() {
            Some(env_var) => Err(LlmError::MissingKey {
                provider: self.provider,
                env_var,
            }),
            None => Ok(None),
        }
    }
}

/// A setting of the `[llm]` table named like a key (`api_key`,
/// `openai_api_key`): keys are never read from the file.
fn secret_like_setting(file: &toml::Table) -> Option<&str> {
    file.get("llm")?
        .as_table()?
        .keys()
        .map(String::as_str)
        .find(|k| *k != "api_key_command" && k.contains("key"))
}

/// `MEMBANK_CONFIG` if set, else `membank/config.toml` in the platform's
/// config folder (e.g. `~/.config` on Linux).
pub fn config_file_path() -> Option<PathBuf> {
    match std::env::var_os("MEMBANK_CONFIG") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => dirs::config_dir().map(|d| d.join("membank").join("config.toml")),
    }
}

/// The most of a config file read: settings take a few hundred bytes, and a
/// file named by mistake (a log, a device) should not fill memory.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// What one read of a config file gave: its text, `None` when there is no
/// file, or why it could not be read.
type ConfigRead = Result<Option<std::sync::Arc<str>>, (std::io::ErrorKind, String)>;

/// The config files this process has read, by path.
static CONFIG_READS: std::sync::Mutex<Vec<(PathBuf, ConfigRead)>> =
    std::sync::Mutex::new(Vec::new());

/// The text of the config file at `path`, `None` when there is none.
///
/// Read once per process and shared by every reader of its tables
/// (`[files]`, `[undo]`, `[llm]`, the interface's `theme` and `[keys]`):
/// `MEMBANK_CONFIG` may name a pipe (`<(printf ...)`), which only the first
/// read finds full; a second read would find it empty and quietly drop the
/// settings it held, such as a local `base_url`, sending the bank elsewhere.
/// One read also keeps every table of a run from one version of the file.
pub fn read_config_file(path: &std::path::Path) -> std::io::Result<Option<std::sync::Arc<str>>> {
    let mut reads = CONFIG_READS.lock().unwrap_or_else(|e| e.into_inner());
    let read = match reads.iter().find(|(p, _)| p == path) {
        Some((_, read)) => read.clone(),
        None => {
            let read = read_bounded(path)
                .map(|text| text.map(std::sync::Arc::from))
                .map_err(|e| (e.kind(), e.to_string()));
            reads.push((path.to_path_buf(), read.clone()));
            read
        }
    };
    read.map_err(|(kind, message)| std::io::Error::new(kind, message))
}

/// One read of at most [`MAX_CONFIG_BYTES`] (a larger file is refused).
fn read_bounded(path: &std::path::Path) -> std::io::Result<Option<String>> {
    use std::io::Read as _;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {} MB: not a config file",
            MAX_CONFIG_BYTES / (1024 * 1024)
        )));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text: a config file is TOML",
        )
    })
}

/// The file `MEMBANK_CONFIG` names when it does not exist. Every reader
/// takes a missing config file for "no settings", which is right for the
/// per-user one nobody has written yet, but a name the user set and
/// mistyped would otherwise leave them on the defaults without a word.
/// (`/dev/null` exists: naming it is how to ask for no settings.)
pub fn named_config_missing() -> Option<PathBuf> {
    let named = PathBuf::from(std::env::var_os("MEMBANK_CONFIG").filter(|p| !p.is_empty())?);
    match std::fs::metadata(&named) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(named),
        _ => None,
    }
}

/// What to say about [`named_config_missing`]'s file.
pub fn missing_config_warning(path: &std::path::Path) -> String {
    format!(
        "MEMBANK_CONFIG names {}, which does not exist: no settings were read from it, \
         the defaults apply",
        path.display()
    )
}

/// Is a model set up at all: a config file (`config_file_exists`), a
/// `MEMBANK_*` model setting or a provider's key? Without one,
/// [`LlmConfig::load`] falls back to a local Ollama nobody may have
/// installed, and an interface should not present that guess as the model
/// in use.
pub fn anything_configured(env: &dyn Fn(&str) -> Option<String>, config_file_exists: bool) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    [
        "MEMBANK_PROVIDER",
        "MEMBANK_MODEL",
        "MEMBANK_BASE_URL",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
    ]
    .iter()
    .any(|name| set(name))
        || config_file_exists
}

/// Reads the process environment; non-Unicode values count as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The `[llm]` table as written in the file. Unknown keys are an error so
/// that a misspelt setting is not silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LlmSection {
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    api_key_command: Option<String>,
    timeout_secs: Option<u64>,
    reply_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    max_retries: Option<u32>,
    max_retry_wait_secs: Option<u64>,
}

impl LlmSection {
    fn resolve(self, env: &dyn Fn(&str) -> Option<String>) -> Result<LlmConfig, LlmError> {
        let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        // Each error names where the value is, since it is not quoted.
        let named = |what: &str| {
            let what = what.to_owned();
            move |e: LlmError| match e {
                LlmError::Config(msg) => LlmError::Config(format!("{what}: {msg}")),
                other => other,
            }
        };
        let file_provider = self
            .provider
            .as_deref()
            .map(Provider::parse)
            .transpose()
            .map_err(named("[llm] table: provider"))?;
        let env_provider = non_empty("MEMBANK_PROVIDER")
            .map(|p| Provider::parse(&p))
            .transpose()
            .map_err(named("MEMBANK_PROVIDER"))?;
        let provider = env_provider
            .or(file_provider)
            .unwrap_or_else(|| guess_provider(env));
        // The file's model and URL belong to the file's provider; when the
        // environment switches provider they would point at the wrong service.
        let file_applies = file_provider.is_none_or(|p| p == provider);
        let mut config = LlmConfig::for_provider(provider);
        if let Some(model) = non_empty("MEMBANK_MODEL")
            .or(self.model.filter(|_| file_applies))
            .filter(|m| !m.trim().is_empty())
        {
            config.model = model.trim().to_string();
        }
        if let Some(url) = non_empty("MEMBANK_BASE_URL")
            .or(self.base_url.filter(|_| file_applies))
            .filter(|u| !u.trim().is_empty())
        {
            config.base_url = normalise_base_url(&url)?;
        }
        config.api_key_command = self.api_key_command.filter(|c| !c.trim().is_empty());
        if let Some(secs) = self.timeout_secs {
            config.timeout = positive_secs("timeout_secs", secs)?;
        }
        if let Some(secs) = self.reply_timeout_secs {
            config.reply_timeout = positive_secs("reply_timeout_secs", secs)?;
        }
        if let Some(secs) = self.connect_timeout_secs {
            config.connect_timeout = positive_secs("connect_timeout_secs", secs)?;
        }
        if let Some(n) = self.max_retries {
            config.max_retries = n.min(10);
        }
        if let Some(secs) = self.max_retry_wait_secs {
            config.max_retry_wait = Duration::from_secs(secs);
        }
        Ok(config)
    }
}

/// With nothing configured, use the provider whose key is present, else the
/// local Ollama (which needs no key).
fn guess_provider(env: &dyn Fn(&str) -> Option<String>) -> Provider {
    let has = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    if has("ANTHROPIC_API_KEY") {
        Provider::Anthropic
    } else if has("OPENAI_API_KEY") {
        Provider::OpenAi
    } else {
        Provider::Ollama
    }
}

fn positive_secs(name: &str, secs: u64) -> Result<Duration, LlmError> {
    if secs == 0 {
        Err(LlmError::Config(format!("{name} must be at least 1")))
    } else {
        Ok(Duration::from_secs(secs))
    }
}

fn normalise_base_url(url: &str) -> Result<String, LlmError> {
    let url = url.trim().trim_end_matches('/');
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(LlmError::Config(
            "the base URL contains spaces or control characters".into(),
        ));
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(LlmError::Config(format!(
            "base URL `{}` must start with http:// or https://",
            membank_core::text::sanitize_for_terminal(url, false)
        )));
    }
    Ok(url.to_string())
}

fn run_key_command(command: &str) -> Result<ApiKey, LlmError> {
    #[cfg(windows)]
    let output = std::process::Command::new("cmd")
        .args(["/C", command])
        .stdin(std::process::Stdio::null())
        .output();
    #[cfg(not(windows))]
    let output = std::process::Command::new("sh")
        .args(["-c", command])
        .stdin(std::process::Stdio::null())
        .output();
    // Neither the command text nor its output is repeated in errors: either
    // could contain the key.
    let output = output.map_err(|e| LlmError::KeyCommand(format!("could not be started ({e})")))?;
    if !output.status.success() {
        return Err(LlmError::KeyCommand(format!(
            "failed ({}); its output is not shown because it may contain the key",
            output.status
        )));
    }
    let key = String::from_utf8(output.stdout)
        .map_err(|_| LlmError::KeyCommand("printed something that is not UTF-8".into()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(LlmError::KeyCommand("printed no key".into()));
    }
    if key.contains(['\n', '\r']) {
        return Err(LlmError::KeyCommand(
            "printed more than one line; it should print only the key".into(),
        ));
    }
    Ok(ApiKey::new(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn parse(toml_text: &str, env: &[(&str, &str)]) -> Result<LlmConfig, LlmError> {
        LlmConfig::from_table(&toml_text.parse().unwrap(), &env_of(env))
    }

    /// With nothing set, the fallback model is a guess, not a setting.
    #[test]
    fn a_model_is_configured_by_a_file_a_setting_or_a_key() {
        assert!(!anything_configured(&env_of(&[]), false));
        assert!(!anything_configured(
            &env_of(&[("MEMBANK_MODEL", " ")]),
            false
        ));
        assert!(anything_configured(&env_of(&[]), true));
        assert!(anything_configured(
            &env_of(&[("OPENAI_API_KEY", "k")]),
            false
        ));
        assert!(anything_configured(
            &env_of(&[("MEMBANK_PROVIDER", "ollama")]),
            false
        ));
    }

    #[test]
    fn table_sets_every_field() {
        let c = parse(
            r#"
            [llm]
            provider = "anthropic"
            model = "claude-x"
            base_url = "https://proxy.example/"
            api_key_command = "pass show anthropic"
            timeout_secs = 30
            reply_timeout_secs = 900
            connect_timeout_secs = 5
            max_retries = 1
            max_retry_wait_secs = 9
            "#,
            &[],
        )
        .unwrap();
        assert_eq!(c.provider, Provider::Anthropic);
        assert_eq!(c.model, "claude-x");
        assert_eq!(c.base_url, "https://proxy.example");
        assert_eq!(c.api_key_command.as_deref(), Some("pass show anthropic"));
        assert_eq!(c.timeout, Duration::from_secs(30));
        assert_eq!(c.reply_timeout, Duration::from_secs(900));
        assert_eq!(c.connect_timeout, Duration::from_secs(5));
        assert_eq!(c.max_retries, 1);
        assert_eq!(c.max_retry_wait, Duration::from_secs(9));
    }

    #[test]
    fn defaults_per_provider() {
        let c = parse("[llm]\nprovider = \"ollama\"", &[]).unwrap();
        assert_eq!(c.base_url, "http://localhost:11434/v1");
        assert_eq!(c.reply_timeout, Duration::from_secs(600));
        let c = parse("[llm]\nprovider = \"openai\"", &[]).unwrap();
        assert_eq!(c.base_url, "https://api.openai.com/v1");
        let c = parse("[llm]\nprovider = \"anthropic\"", &[]).unwrap();
        assert_eq!(c.base_url, "https://api.anthropic.com");
    }

    #[test]
    fn environment_overrides_the_file() {
        let c = parse(
            "[llm]\nprovider = \"openai\"\nmodel = \"m1\"\nbase_url = \"https://a.example/v1\"",
            &[
                ("MEMBANK_MODEL", "m2"),
                ("MEMBANK_BASE_URL", "http://127.0.0.1:9/v1"),
            ],
        )
        .unwrap();
        assert_eq!(c.provider, Provider::OpenAi);
        assert_eq!(c.model, "m2");
        assert_eq!(c.base_url, "http://127.0.0.1:9/v1");
    }

    #[test]
    fn switching_provider_by_env_drops_the_files_model_and_url() {
        let c = parse(
            "[llm]\nprovider = \"openai\"\nmodel = \"gpt-x\"\nbase_url = \"https://a.example/v1\"",
            &[("MEMBANK_PROVIDER", "ollama")],
        )
        .unwrap();
        assert_eq!(c.provider, Provider::Ollama);
        assert_eq!(c.base_url, "http://localhost:11434/v1");
        assert_eq!(c.model, Provider::Ollama.default_model());
    }

    #[test]
    fn provider_is_guessed_from_present_keys() {
        let c = parse("", &[("OPENAI_API_KEY", "k")]).unwrap();
        assert_eq!(c.provider, Provider::OpenAi);
        let c = parse("", &[]).unwrap();
        assert_eq!(c.provider, Provider::Ollama);
    }

    #[test]
    fn bad_values_are_named() {
        // Named by its setting, not quoted: it might be a pasted key.
        let e = parse("[llm]\nprovider = \"gemini\"", &[]).unwrap_err();
        assert!(!e.to_string().contains("gemini"), "{e}");
        assert!(
            e.to_string()
                .contains("[llm] table: provider: not a provider"),
            "{e}"
        );
        assert!(e.to_string().contains("openai, anthropic or ollama"), "{e}");
        let e = parse("[llm]\nmodle = \"x\"", &[]).unwrap_err();
        assert!(e.to_string().contains("modle"), "{e}");
        let e = parse("", &[("MEMBANK_BASE_URL", "localhost:11434")]).unwrap_err();
        assert!(e.to_string().contains("http://"), "{e}");
        let e = LlmConfig::from_toml_str("[llm\n").unwrap_err();
        assert!(e.to_string().contains("config file"), "{e}");
    }

    #[test]
    fn config_errors_never_repeat_values() {
        for text in [
            "[llm]\nmodel = \"sk-SECRET123\n",
            "[llm]\nmax_retries = \"sk-SECRET123\"\n",
            "[llm]\napi_key = \"sk-SECRET123\"\n",
            "[llm]\nopenai_key = \"sk-SECRET123\"\n",
            "[llm]\nprovider = \"sk-SECRET123\"\n",
            "[llm]\ntimeout_secs = -123456789\n",
        ] {
            let e = file_error(text);
            let shown = format!("{e} {e:?}");
            assert!(
                !shown.contains("SECRET") && !shown.contains("123456789"),
                "{shown}"
            );
        }
        let e = file_error("[llm]\napi_key = \"x\"\n");
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let e = file_error("\n\n[llm\n");
        assert!(e.to_string().contains("line 3"), "{e}");
        // A value of the wrong kind is placed by line and column.
        let e = file_error("[llm]\nmodel = \"m\"\ntimeout_secs = -5\n");
        assert!(
            e.to_string().contains("[llm] table: line 3, column 16: "),
            "{e}"
        );
        assert!(!e.to_string().contains("-5"), "{e}");
    }

    fn file_error(text: &str) -> LlmError {
        LlmConfig::from_toml_str(text).unwrap_err()
    }

    #[test]
    fn key_from_env_and_missing_key_message() {
        let c = LlmConfig::for_provider(Provider::Anthropic);
        let key = c
            .resolve_api_key(&env_of(&[("ANTHROPIC_API_KEY", "sk-ant-secret")]))
            .unwrap()
            .unwrap();
        assert_eq!(key.expose(), "sk-ant-secret");
        let e = c.resolve_api_key(&env_of(&[])).unwrap_err();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let ollama = LlmConfig::for_provider(Provider::Ollama);
        assert_eq!(ollama.resolve_api_key(&env_of(&[])).unwrap(), None);
    }

    #[test]
    fn key_never_shows_in_debug_output() {
        let key = ApiKey::new("sk-very-secret");
        let shown = format!("{key:?}");
        assert!(!shown.contains("sk-very-secret"));
        let mut c = LlmConfig::for_provider(Provider::OpenAi);
        c.api_key_command = Some("echo sk-very-secret".into());
        c.base_url = "https://user:sk-pass@proxy.example/v1".into();
        let shown = format!("{c:?} {}", c.summary());
        assert!(!shown.contains("sk-very-secret"), "{shown}");
        assert!(!shown.contains("sk-pass"), "{shown}");
        assert!(shown.contains("https://***@proxy.example/v1"), "{shown}");
    }

    #[cfg(unix)]
    #[test]
    fn key_from_command_and_its_failures_do_not_leak() {
        let mut c = LlmConfig::for_provider(Provider::OpenAi);
        c.api_key_command = Some("printf 'sk-from-cmd\\n'".into());
        let key = c.resolve_api_key(&env_of(&[])).unwrap().unwrap();
        assert_eq!(key.expose(), "sk-from-cmd");

        c.api_key_command = Some("echo sk-leaky; exit 3".into());
        let e = c.resolve_api_key(&env_of(&[])).unwrap_err();
        let shown = format!("{e} {e:?}");
        assert!(!shown.contains("sk-leaky"), "{shown}");
        assert!(shown.contains("failed"), "{shown}");

        c.api_key_command = Some("true".into());
        let e = c.resolve_api_key(&env_of(&[])).unwrap_err();
        assert!(e.to_string().contains("no key"), "{e}");
    }
}
