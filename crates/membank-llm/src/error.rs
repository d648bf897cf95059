//! Errors a user can act on. Every message names what went wrong and where;
//! none ever contains an API key (keys are redacted from provider bodies
//! before they are stored here, and request headers are never formatted).

use std::fmt;
use std::time::Duration;

use crate::config::Provider;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the TCP/TLS connection.
    Connect,
    /// Waiting for the response headers after sending the request.
    FirstByte,
    /// Waiting for the next piece of a reply that had started.
    Idle,
    /// The whole reply, from sending the request to its last piece.
    WholeReply,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// The configuration is unusable (bad TOML, unknown provider, …).
    Config(String),
    /// No key in the environment and no `api_key_command`.
    MissingKey {
        provider: Provider,
        env_var: &'static str,
    },
    /// The configured key command failed or printed nothing.
    KeyCommand(String),
    /// 401/403: the provider rejected the key (or its permissions).
    Unauthorized {
        provider: Provider,
        status: u16,
        summary: String,
    },
    /// 404: the model is unknown or the base URL points elsewhere.
    NotFound {
        provider: Provider,
        model: String,
        url: String,
        summary: String,
    },
    /// Nothing listens at the address.
    ConnectionRefused { provider: Provider, url: String },
    /// Any other failure to reach the server (DNS, TLS, reset, …).
    Connect { url: String, detail: String },
    Timeout {
        phase: TimeoutPhase,
        after: Duration,
        url: String,
    },
    /// A non-success status that retries could not fix (or was not retryable).
    Http {
        status: u16,
        url: String,
        summary: String,
    },
    /// 429/5xx whose `Retry-After` asks for a longer wait than
    /// `max_retry_wait_secs` allows: retrying sooner would only be refused.
    RetryLater {
        status: u16,
        url: String,
        summary: String,
        wait: Duration,
        /// When the server accepts requests again (UTC).
        at: String,
        max_wait: Duration,
    },
    /// The body was not the event stream the protocol promises.
    MalformedStream(String),
    /// The reply grew past the size limit and was stopped.
    TooLarge {
        limit_bytes: usize,
        received_chars: usize,
    },
    /// The connection ended before the provider said the reply was finished.
    StreamCut { received_chars: usize },
    /// The provider reported an error inside the stream.
    Provider { kind: String, message: String },
    /// The reply stopped because it reached the token limit.
    OutputLimit { max_tokens: u32 },
    /// The caller cancelled the request.
    Cancelled,
}

impl LlmError {
    /// The same error with every text that came from a server or a URL
    /// passed through `redact`, so no message can carry a secret.
    pub fn map_text(self, redact: &dyn Fn(&str) -> String) -> LlmError {
        match self {
            LlmError::Config(m) => LlmError::Config(redact(&m)),
            LlmError::KeyCommand(m) => LlmError::KeyCommand(redact(&m)),
            LlmError::Unauthorized {
                provider,
                status,
                summary,
            } => LlmError::Unauthorized {
                provider,
                status,
                summary: redact(&summary),
            },
            LlmError::NotFound {
                provider,
                model,
                url,
                summary,
            } => LlmError::NotFound {
                provider,
                model,
                url: redact(&url),
                summary: redact(&summary),
            },
            LlmError::ConnectionRefused { provider, url } => LlmError::ConnectionRefused {
                provider,
                url: redact(&url),
            },
            LlmError::Connect { url, detail } => LlmError::Connect {
                url: redact(&url),
                detail: redact(&detail),
            },
            LlmError::Timeout { phase, after, url } => LlmError::Timeout {
                phase,
                after,
                url: redact(&url),
            },
            LlmError::Http {
                status,
                url,
                summary,
            } => LlmError::Http {
                status,
                url: redact(&url),
                summary: redact(&summary),
            },
            LlmError::RetryLater {
                status,
                url,
                summary,
                wait,
                at,
                max_wait,
            } => LlmError::RetryLater {
                status,
                url: redact(&url),
                summary: redact(&summary),
                wait,
                at,
                max_wait,
            },
            LlmError::MalformedStream(m) => LlmError::MalformedStream(redact(&m)),
            LlmError::Provider { kind, message } => LlmError::Provider {
                kind: redact(&kind),
                message: redact(&message),
            },
            other @ (LlmError::MissingKey { .. }
            | LlmError::StreamCut { .. }
            | LlmError::TooLarge { .. }
            | LlmError::OutputLimit { .. }
            | LlmError::Cancelled) => other,
        }
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Config(msg) => write!(f, "LLM configuration: {msg}"),
            LlmError::MissingKey { provider, env_var } => write!(
                f,
                "no API key for {}: set {env_var} or `api_key_command` in the [llm] config table",
                provider.label()
            ),
            LlmError::KeyCommand(msg) => write!(f, "api_key_command: {msg}"),
            LlmError::Unauthorized {
                provider,
                status,
                summary,
            } => {
                let what = if *status == 403 {
                    "refused access (403 Forbidden): the API key lacks permission for this model or endpoint"
                } else {
                    "rejected the API key (401 Unauthorized): it is missing, wrong or revoked"
                };
                write!(f, "{} {what}", provider.label())?;
                if let Some(var) = provider.key_env_var() {
                    write!(f, "; check {var} or `api_key_command`")?;
                }
                write_summary(f, summary)
            }
            LlmError::NotFound {
                provider,
                model,
                url,
                summary,
            } => {
                write!(
                    f,
                    "404 Not Found from {url}: either the model `{model}` does not exist there \
                     or the base URL is wrong"
                )?;
                write_summary(f, summary)?;
                if *provider == Provider::Ollama {
                    write!(f, " (a local model is fetched with `ollama pull {model}`)")?;
                }
                Ok(())
            }
            LlmError::ConnectionRefused { provider, url } => {
                write!(f, "could not connect to {url} (connection refused)")?;
                if *provider == Provider::Ollama {
                    write!(
                        f,
                        ": is Ollama running? Start it with `ollama serve`, or set MEMBANK_BASE_URL; \
                         to use a hosted model instead, set MEMBANK_PROVIDER (openai or anthropic) \
                         and its key (docs/llm.md)"
                    )?;
                } else {
                    write!(f, ": check the base URL (MEMBANK_BASE_URL or `base_url`)")?;
                }
                Ok(())
            }
            LlmError::Connect { url, detail } => write!(f, "could not connect to {url}: {detail}"),
            LlmError::Timeout { phase, after, url } => {
                // One sentence per phase: a stall is no wait "from" a URL.
                let secs = after.as_secs_f32();
                match phase {
                    TimeoutPhase::Connect => {
                        write!(f, "timed out after {secs}s connecting to {url}")
                    }
                    TimeoutPhase::FirstByte => {
                        write!(f, "timed out after {secs}s waiting for a reply from {url}")
                    }
                    TimeoutPhase::Idle => write!(
                        f,
                        "the reply from {url} stalled: nothing more arrived for {secs}s"
                    ),
                    TimeoutPhase::WholeReply => write!(
                        f,
                        "the whole reply from {url} did not arrive within {secs}s \
                         (`reply_timeout_secs`)"
                    ),
                }
            }
            LlmError::Http {
                status,
                url,
                summary,
            } => {
                write!(f, "HTTP {status} from {url}")?;
                write_summary(f, summary)
            }
            LlmError::RetryLater {
                status,
                url,
                summary,
                wait,
                at,
                max_wait,
            } => {
                write!(f, "HTTP {status} from {url}")?;
                write_summary(f, summary)?;
                write!(
                    f,
                    "; the server asks to wait {}s, longer than max_retry_wait_secs ({}s), \
                     so membank did not wait: try again after {at}",
                    wait.as_secs(),
                    max_wait.as_secs()
                )
            }
            LlmError::MalformedStream(msg) => write!(f, "malformed reply stream: {msg}"),
            LlmError::StreamCut { received_chars } => write!(
                f,
                "the connection closed before the reply was finished \
                 ({received_chars} characters arrived and were kept)"
            ),
            LlmError::TooLarge {
                limit_bytes,
                received_chars,
            } => write!(
                f,
                "the reply passed {} MB; stopped ({received_chars} characters arrived; \
                 the reply is incomplete and nothing of it is applied)",
                limit_bytes / (1024 * 1024)
            ),
            LlmError::Provider { kind, message } => {
                write!(f, "the provider reported an error")?;
                if !kind.is_empty() {
                    write!(f, " ({kind})")?;
                }
                write_summary(f, message)
            }
            LlmError::OutputLimit { max_tokens } => write!(
                f,
                "the reply reached the output limit of {max_tokens} tokens and is incomplete"
            ),
            LlmError::Cancelled => write!(f, "the request was cancelled"),
        }
    }
}

fn write_summary(f: &mut fmt::Formatter<'_>, summary: &str) -> fmt::Result {
    if summary.is_empty() {
        Ok(())
    } else {
        write!(f, ": {summary}")
    }
}

impl std::error::Error for LlmError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each wait that ran out is told as a sentence that reads.
    #[test]
    fn timeouts_read_as_sentences() {
        let said = |phase| {
            LlmError::Timeout {
                phase,
                after: Duration::from_secs(10),
                url: "http://h/v1".into(),
            }
            .to_string()
        };
        assert_eq!(
            said(TimeoutPhase::Connect),
            "timed out after 10s connecting to http://h/v1"
        );
        assert_eq!(
            said(TimeoutPhase::FirstByte),
            "timed out after 10s waiting for a reply from http://h/v1"
        );
        assert_eq!(
            said(TimeoutPhase::Idle),
            "the reply from http://h/v1 stalled: nothing more arrived for 10s"
        );
        assert_eq!(
            said(TimeoutPhase::WholeReply),
            "the whole reply from http://h/v1 did not arrive within 10s (`reply_timeout_secs`)"
        );
    }
}
