//! One streamed chat call: send, retry on 429/5xx, read the event stream,
//! and report every step as a [`StreamEvent`].
//!
//! Contract for callers: every call ends with exactly one
//! [`StreamEvent::Done`], which is the last event. If the reply is not
//! complete because something failed, a [`StreamEvent::Error`] comes right
//! before it; after a cancellation there is no error, only
//! `Done { complete: false, .. }` with the text that had arrived.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use tokio::sync::{Notify, mpsc};

use crate::config::{ApiKey, LlmConfig, Protocol};
use crate::error::{LlmError, TimeoutPhase};
use crate::protocol::{self, Decoded};
use crate::request::ChatRequest;
use crate::sse::SseParser;

#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The next piece of the reply text (raw: sanitise before display).
    Delta(String),
    /// The server asked us to wait (429) or failed (5xx); trying again.
    Retrying {
        attempt: u32,
        wait: Duration,
        reason: String,
    },
    /// Always the last event. `text` is everything that arrived.
    Done { complete: bool, text: String },
    /// Why the reply is missing or incomplete; followed by `Done`.
    Error(LlmError),
}

impl StreamEvent {
    /// The one wording of a retry, for every front end: `retry 2 in 1.5s:
    /// HTTP 429 …` (raw: sanitise before display).
    pub fn retry_text(attempt: u32, wait: Duration, reason: &str) -> String {
        format!("retry {attempt} in {:.1}s: {reason}", wait.as_secs_f32())
    }
}

/// Stops a call from another task or thread. Cloning shares the signal.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelHandle {
    pub fn new() -> CancelHandle {
        CancelHandle::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves once [`CancelHandle::cancel`] has been called.
    pub async fn cancelled(&self) {
        loop {
            // Registered before the check, so a cancel in between is not missed.
            let notified = self.0.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// The result of a finished call, as also reported by the final events.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    pub complete: bool,
    pub cancelled: bool,
    pub error: Option<LlmError>,
}

/// In-stream error types (Anthropic's names) that are worth another try.
const RETRYABLE_STREAM_ERRORS: [&str; 3] = ["overloaded_error", "rate_limit_error", "api_error"];

/// Error bodies are read only this far; the summary needs a few hundred bytes.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// A reply larger than this is refused, streamed or not: no agent asks for
/// anywhere near as much, and a hostile server must not exhaust memory.
const MAX_WHOLE_REPLY: usize = 16 * 1024 * 1024;

/// A configured provider connection. Cheap to clone.
#[derive(Clone)]
pub struct LlmClient {
    config: LlmConfig,
    key: Option<ApiKey>,
    /// Secret parts of the base URL (query values, password), removed from
    /// every message.
    url_secrets: Vec<String>,
    http: reqwest::Client,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("config", &self.config)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// What stays the same across the attempts of one call.
#[derive(Clone, Copy)]
struct PreparedCall<'a> {
    url: &'a str,
    /// `url` without credentials, for messages.
    shown_url: &'a str,
    headers: &'a HeaderMap,
    body: &'a [u8],
    request: &'a ChatRequest,
}

enum Attempt {
    Finished(Reply),
    /// A retryable failure; `error` is reported if no retries are left.
    Retry {
        reason: String,
        wait: Duration,
        error: LlmError,
    },
}

impl LlmClient {
    /// Resolves the key from the environment or `api_key_command` now, so a
    /// missing key is reported before any request is made.
    pub fn new(config: LlmConfig) -> Result<LlmClient, LlmError> {
        let key = config.resolve_api_key(&crate::config::process_env)?;
        LlmClient::with_key(config, key)
    }

    /// Uses the given key instead of looking one up.
    pub fn with_key(config: LlmConfig, key: Option<ApiKey>) -> Result<LlmClient, LlmError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("membank/", env!("CARGO_PKG_VERSION")));
        // A proxy from HTTP(S)_PROXY cannot reach a server on this machine
        // (a local Ollama, a test server), so loopback goes direct.
        if is_loopback_url(&config.base_url) {
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|e| LlmError::Config(format!("could not set up HTTP: {e}")))?;
        let url_secrets = crate::config::url_secrets(&config.base_url);
        Ok(LlmClient {
            config,
            key,
            url_secrets,
            http,
        })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    pub fn endpoint(&self) -> String {
        protocol::endpoint(self.config.provider.protocol(), &self.config.base_url)
    }

    /// Runs the call in a new task and returns its events. Must be called
    /// from within a Tokio runtime.
    pub fn stream(
        &self,
        request: ChatRequest,
        cancel: CancelHandle,
    ) -> mpsc::UnboundedReceiver<StreamEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let client = self.clone();
        tokio::spawn(async move {
            client
                .chat(&request, &cancel, &mut |event| {
                    let _ = tx.send(event);
                })
                .await;
        });
        rx
    }

    /// Runs the call, collecting the text; an incomplete reply is an error.
    pub async fn complete(
        &self,
        request: &ChatRequest,
        cancel: &CancelHandle,
    ) -> Result<String, LlmError> {
        let reply = self.chat(request, cancel, &mut |_| {}).await;
        match reply.error {
            Some(e) => Err(e),
            None if reply.cancelled => Err(LlmError::Cancelled),
            None if reply.complete => Ok(reply.text),
            None => Err(LlmError::StreamCut {
                received_chars: reply.text.chars().count(),
            }),
        }
    }

    /// Runs the call, reporting each event to `on_event` (see the module
    /// contract), and returns the outcome.
    pub async fn chat(
        &self,
        request: &ChatRequest,
        cancel: &CancelHandle,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Reply {
        // Every message built from server text or the URL leaves here
        // without the key, whichever path built it.
        let redact =
            |text: &str| protocol::redact_secrets(text, self.key.as_ref(), &self.url_secrets);
        let mut redacting = |event: StreamEvent| match event {
            StreamEvent::Retrying {
                attempt,
                wait,
                reason,
            } => on_event(StreamEvent::Retrying {
                attempt,
                wait,
                reason: redact(&reason),
            }),
            StreamEvent::Error(e) => on_event(StreamEvent::Error(e.map_text(&redact))),
            other => on_event(other),
        };
        let mut reply = self.chat_inner(request, cancel, &mut redacting).await;
        reply.error = reply.error.map(|e| e.map_text(&redact));
        if let Some(e) = &reply.error {
            on_event(StreamEvent::Error(e.clone()));
        }
        on_event(StreamEvent::Done {
            complete: reply.complete,
            text: reply.text.clone(),
        });
        reply
    }

    async fn chat_inner(
        &self,
        request: &ChatRequest,
        cancel: &CancelHandle,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Reply {
        let url = self.endpoint();
        let shown_url = crate::config::redact_url(&url);
        let body = match serde_json::to_vec(&protocol::request_body(
            self.config.provider,
            &self.config.model,
            request,
        )) {
            Ok(b) => b,
            Err(e) => return failed(String::new(), LlmError::Config(e.to_string())),
        };
        let headers = match self.headers() {
            Ok(h) => h,
            Err(e) => return failed(String::new(), e),
        };
        let mut retries = 0;
        loop {
            let call = PreparedCall {
                url: &url,
                shown_url: &shown_url,
                headers: &headers,
                body: &body,
                request,
            };
            let attempt = self.attempt(&call, retries, cancel, on_event).await;
            match attempt {
                Attempt::Finished(reply) => return reply,
                Attempt::Retry {
                    reason,
                    wait,
                    error,
                } => {
                    if retries >= self.config.max_retries {
                        return failed(String::new(), error);
                    }
                    retries += 1;
                    on_event(StreamEvent::Retrying {
                        attempt: retries,
                        wait,
                        reason,
                    });
                    tokio::select! {
                        _ = cancel.cancelled() => return cancelled(String::new()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                }
            }
        }
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let secret = |value: String| {
            let mut v = HeaderValue::from_str(&value).map_err(|_| {
                LlmError::Config(
                    "the API key contains characters that cannot be sent in an HTTP header".into(),
                )
            })?;
            v.set_sensitive(true);
            Ok::<_, LlmError>(v)
        };
        match self.config.provider.protocol() {
            Protocol::OpenAiChat => {
                if let Some(key) = &self.key {
                    headers.insert(AUTHORIZATION, secret(format!("Bearer {}", key.expose()))?);
                }
            }
            Protocol::AnthropicMessages => {
                if let Some(key) = &self.key {
                    headers.insert("x-api-key", secret(key.expose().to_string())?);
                }
                headers.insert(
                    "anthropic-version",
                    HeaderValue::from_static(protocol::ANTHROPIC_VERSION),
                );
            }
        }
        Ok(headers)
    }

    fn retry_wait(&self, retry_after: Option<Duration>, retries_so_far: u32) -> Duration {
        let backoff = self
            .config
            .backoff_base
            .saturating_mul(2u32.saturating_pow(retries_so_far.min(16)));
        retry_after
            .unwrap_or(backoff)
            .min(self.config.max_retry_wait)
    }

    async fn attempt(
        &self,
        call: &PreparedCall<'_>,
        retries_so_far: u32,
        cancel: &CancelHandle,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Attempt {
        let PreparedCall {
            url: request_url,
            shown_url: url,
            headers,
            body,
            request,
        } = *call;
        let send = self
            .http
            .post(request_url)
            .headers(headers.clone())
            .body(body.to_vec())
            .send();
        let timeout = self.config.timeout;
        let now = tokio::time::Instant::now();
        // A limit too large to add is as good as none.
        let deadline = now
            .checked_add(self.config.reply_timeout)
            .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600));
        let response = tokio::select! {
            _ = cancel.cancelled() => return Attempt::Finished(cancelled(String::new())),
            _ = tokio::time::sleep_until(deadline) => {
                return Attempt::Finished(failed(String::new(), self.whole_reply_timeout(url)));
            }
            r = tokio::time::timeout(timeout, send) => r,
        };
        let response = match response {
            Err(_) => {
                return Attempt::Finished(failed(
                    String::new(),
                    LlmError::Timeout {
                        phase: TimeoutPhase::FirstByte,
                        after: timeout,
                        url: url.to_string(),
                    },
                ));
            }
            Ok(Err(e)) => {
                return Attempt::Finished(failed(String::new(), self.send_error(&e, url)));
            }
            Ok(Ok(r)) => r,
        };
        let status = response.status();
        if status.is_success() {
            let reply = self
                .read_reply(response, url, request, deadline, cancel, on_event)
                .await;
            // An overload reported inside the stream before any text is as
            // retryable as a 529 status.
            if let Some(error @ LlmError::Provider { kind, message }) = &reply.error
                && reply.text.is_empty()
                && RETRYABLE_STREAM_ERRORS.contains(&kind.as_str())
            {
                return Attempt::Retry {
                    reason: format!("{kind}: {message}"),
                    wait: self.retry_wait(None, retries_so_far),
                    error: error.clone(),
                };
            }
            return Attempt::Finished(reply);
        }
        let now = jiff::Timestamp::now();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, now));
        let limits = ReadLimits {
            bytes: MAX_ERROR_BODY,
            idle: timeout,
            deadline,
        };
        let raw = match read_capped(response, limits, true, cancel).await {
            Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(None) => return Attempt::Finished(cancelled(String::new())),
            Err(_) => String::new(),
        };
        let summary = protocol::summarize_error_body(&raw, self.key.as_ref());
        let code = status.as_u16();
        // 529 is Anthropic's "overloaded".
        if code == 429 || code == 529 || status.is_server_error() {
            let mut reason = format!(
                "HTTP {code} {}",
                status.canonical_reason().unwrap_or_default()
            );
            if !summary.is_empty() {
                reason.push_str(": ");
                reason.push_str(&summary);
            }
            // Waiting less than the server asked would only be refused again
            // and use up the retries; the user is told when to come back.
            if let Some(asked) = retry_after.filter(|w| *w > self.config.max_retry_wait) {
                let at = jiff::SignedDuration::try_from(asked)
                    .ok()
                    .and_then(|d| now.checked_add(d).ok())
                    .map_or_else(
                        || "a long while".to_owned(),
                        |t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(),
                    );
                return Attempt::Finished(failed(
                    String::new(),
                    LlmError::RetryLater {
                        status: code,
                        url: url.to_string(),
                        summary,
                        wait: asked,
                        at,
                        max_wait: self.config.max_retry_wait,
                    },
                ));
            }
            let wait = self.retry_wait(retry_after, retries_so_far);
            let error = LlmError::Http {
                status: code,
                url: url.to_string(),
                summary,
            };
            return Attempt::Retry {
                reason,
                wait,
                error,
            };
        }
        let provider = self.config.provider;
        let error = match code {
            401 | 403 => LlmError::Unauthorized {
                provider,
                status: code,
                summary,
            },
            404 => LlmError::NotFound {
                provider,
                model: self.config.model.clone(),
                url: url.to_string(),
                summary,
            },
            _ => LlmError::Http {
                status: code,
                url: url.to_string(),
                summary,
            },
        };
        Attempt::Finished(failed(String::new(), error))
    }

    fn whole_reply_timeout(&self, url: &str) -> LlmError {
        LlmError::Timeout {
            phase: TimeoutPhase::WholeReply,
            after: self.config.reply_timeout,
            url: url.to_string(),
        }
    }

    fn send_error(&self, e: &reqwest::Error, url: &str) -> LlmError {
        if e.is_timeout() {
            return LlmError::Timeout {
                phase: TimeoutPhase::Connect,
                after: self.config.connect_timeout,
                url: url.to_string(),
            };
        }
        let mut source: Option<&dyn std::error::Error> = Some(e);
        let mut details = Vec::new();
        while let Some(err) = source {
            if let Some(io) = err.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::ConnectionRefused
            {
                return LlmError::ConnectionRefused {
                    provider: self.config.provider,
                    url: url.to_string(),
                };
            }
            details.push(err.to_string());
            source = err.source();
        }
        details.dedup();
        let detail = details.into_iter().skip(1).collect::<Vec<_>>().join(": ");
        LlmError::Connect {
            url: url.to_string(),
            detail: membank_core::text::sanitize_for_terminal(
                if detail.is_empty() {
                    "connection failed"
                } else {
                    &detail
                },
                false,
            ),
        }
    }

    async fn read_reply(
        &self,
        mut response: reqwest::Response,
        url: &str,
        request: &ChatRequest,
        deadline: tokio::time::Instant,
        cancel: &CancelHandle,
        on_event: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Reply {
        let protocol = self.config.provider.protocol();
        let timeout = self.config.timeout;
        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("application/json"));
        if is_json {
            let limits = ReadLimits {
                bytes: MAX_WHOLE_REPLY,
                idle: timeout,
                deadline,
            };
            return match read_capped(response, limits, false, cancel).await {
                Ok(None) => cancelled(String::new()),
                Err(ReadError::Deadline) => failed(String::new(), self.whole_reply_timeout(url)),
                Err(e) => failed(String::new(), e.into_error(url)),
                Ok(Some(bytes)) => {
                    match protocol::decode_whole_reply(protocol, &String::from_utf8_lossy(&bytes)) {
                        Ok(text) => {
                            if !text.is_empty() {
                                on_event(StreamEvent::Delta(text.clone()));
                            }
                            Reply {
                                text,
                                complete: true,
                                cancelled: false,
                                error: None,
                            }
                        }
                        Err(e) => failed(String::new(), e),
                    }
                }
            };
        }

        let mut parser = SseParser::new();
        let mut text = String::new();
        let mut limit_reached = false;
        let mut stopped = false;
        let mut saw_event = false;
        let max_tokens = request.max_tokens;
        loop {
            let chunk = tokio::select! {
                _ = cancel.cancelled() => return cancelled(text),
                _ = tokio::time::sleep_until(deadline) => {
                    return failed(text, self.whole_reply_timeout(url));
                }
                c = tokio::time::timeout(timeout, response.chunk()) => c,
            };
            let events = match chunk {
                Err(_) => {
                    return failed(
                        text,
                        LlmError::Timeout {
                            phase: TimeoutPhase::Idle,
                            after: timeout,
                            url: url.to_string(),
                        },
                    );
                }
                Ok(Err(_)) => return stream_ended(text, stopped, limit_reached, max_tokens),
                Ok(Ok(Some(bytes))) => match parser.push(&bytes) {
                    Ok(events) => events,
                    Err(e) => return failed(text, LlmError::MalformedStream(e.to_string())),
                },
                Ok(Ok(None)) => {
                    let cut_mid_line = parser.ends_mid_line();
                    let last = parser.finish();
                    if last.is_none() && !saw_event {
                        let msg = match parser.first_unknown_line() {
                            Some(line) => format!(
                                "expected server-sent events, got: {}",
                                membank_core::text::sanitize_for_terminal(line, false)
                            ),
                            None => "the reply was empty".to_string(),
                        };
                        return failed(text, LlmError::MalformedStream(msg));
                    }
                    match last {
                        // An unfinished last line that does not decode is a
                        // connection closed mid-event, not a malformed one.
                        Some(event)
                            if cut_mid_line
                                && protocol::decode_event(protocol, &event).is_err() =>
                        {
                            return stream_ended(text, stopped, limit_reached, max_tokens);
                        }
                        Some(event) => vec![event],
                        None => return stream_ended(text, stopped, limit_reached, max_tokens),
                    }
                }
            };
            for event in events {
                saw_event = true;
                let decoded = match protocol::decode_event(protocol, &event) {
                    Ok(d) => d,
                    Err(msg) => return failed(text, LlmError::MalformedStream(msg)),
                };
                for item in decoded {
                    match item {
                        Decoded::Text(piece) => {
                            if text.len() + piece.len() > MAX_WHOLE_REPLY {
                                let received_chars = text.chars().count();
                                return failed(
                                    text,
                                    LlmError::TooLarge {
                                        limit_bytes: MAX_WHOLE_REPLY,
                                        received_chars,
                                    },
                                );
                            }
                            text.push_str(&piece);
                            on_event(StreamEvent::Delta(piece));
                        }
                        Decoded::LimitReached => limit_reached = true,
                        Decoded::Stopped => stopped = true,
                        Decoded::ProviderError { kind, message } => {
                            return failed(text, LlmError::Provider { kind, message });
                        }
                        Decoded::Finished => {
                            return stream_ended(text, true, limit_reached, max_tokens);
                        }
                    }
                }
            }
        }
    }
}

/// `Retry-After` as seconds or as an HTTP date (RFC 9110), the wait from
/// `now`; a date already past means no wait.
fn parse_retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(value)
        .ok()?;
    Some(Duration::try_from(now.duration_until(at)).unwrap_or(Duration::ZERO))
}

fn is_loopback_url(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme.split('/').next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    let host = if let Some(rest) = host_port.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The outcome once the stream ends, with or without its end marker: a
/// reply the model had finished is complete even if the marker was lost.
fn stream_ended(text: String, stopped: bool, limit_reached: bool, max_tokens: u32) -> Reply {
    if limit_reached {
        failed(text, LlmError::OutputLimit { max_tokens })
    } else if stopped {
        Reply {
            text,
            complete: true,
            cancelled: false,
            error: None,
        }
    } else {
        let received_chars = text.chars().count();
        failed(text, LlmError::StreamCut { received_chars })
    }
}

fn failed(text: String, error: LlmError) -> Reply {
    Reply {
        text,
        complete: false,
        cancelled: false,
        error: Some(error),
    }
}

fn cancelled(text: String) -> Reply {
    Reply {
        text,
        complete: false,
        cancelled: true,
        error: None,
    }
}

enum ReadError {
    Timeout(Duration),
    /// The reply's overall deadline passed.
    Deadline,
    Body,
    TooLarge(usize),
}

impl ReadError {
    /// The error for a whole (non-streamed) body, of which nothing is kept.
    /// [`ReadError::Deadline`] needs the configured limit and is mapped by
    /// the caller.
    fn into_error(self, url: &str) -> LlmError {
        match self {
            ReadError::Timeout(after) => LlmError::Timeout {
                phase: TimeoutPhase::Idle,
                after,
                url: url.to_string(),
            },
            ReadError::Body | ReadError::Deadline => LlmError::StreamCut { received_chars: 0 },
            ReadError::TooLarge(limit) => LlmError::TooLarge {
                limit_bytes: limit,
                received_chars: 0,
            },
        }
    }
}

/// How far and how long [`read_capped`] reads.
#[derive(Clone, Copy)]
struct ReadLimits {
    bytes: usize,
    /// Longest gap between two chunks.
    idle: Duration,
    deadline: tokio::time::Instant,
}

/// Reads a whole body up to `limit` bytes (beyond it: an error, or the
/// first `limit` bytes when `truncate` is set); `Ok(None)` means cancelled.
async fn read_capped(
    mut response: reqwest::Response,
    limits: ReadLimits,
    truncate: bool,
    cancel: &CancelHandle,
) -> Result<Option<Vec<u8>>, ReadError> {
    let limit = limits.bytes;
    let mut out = Vec::new();
    loop {
        let chunk = tokio::select! {
            _ = cancel.cancelled() => return Ok(None),
            _ = tokio::time::sleep_until(limits.deadline) => return Err(ReadError::Deadline),
            c = tokio::time::timeout(limits.idle, response.chunk()) => c,
        };
        match chunk {
            Err(_) => return Err(ReadError::Timeout(limits.idle)),
            Ok(Err(_)) => return Err(ReadError::Body),
            Ok(Ok(None)) => return Ok(Some(out)),
            Ok(Ok(Some(bytes))) => {
                if out.len() + bytes.len() > limit {
                    if truncate {
                        out.extend_from_slice(&bytes[..limit - out.len()]);
                        return Ok(Some(out));
                    }
                    return Err(ReadError::TooLarge(limit));
                }
                out.extend_from_slice(&bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_loopback_url, parse_retry_after};
    use std::time::Duration;

    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        let now: jiff::Timestamp = "2015-10-21T07:27:00Z".parse().unwrap();
        assert_eq!(
            parse_retry_after(" 120 ", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn loopback_hosts_are_recognised() {
        assert!(is_loopback_url("http://localhost:11434/v1"));
        assert!(is_loopback_url("http://127.0.0.1:9/v1"));
        assert!(is_loopback_url("http://[::1]:8080"));
        assert!(is_loopback_url("http://user:pw@127.0.0.2/v1"));
        assert!(!is_loopback_url("https://api.openai.com/v1"));
        assert!(!is_loopback_url("https://localhost.example.com"));
    }
}
