//! The two wire protocols: how a [`ChatRequest`] becomes a JSON body and
//! how each server-sent event becomes text, an end marker or an error.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::config::{ApiKey, Protocol, Provider};
use crate::error::LlmError;
use crate::request::ChatRequest;
use crate::sse::SseEvent;

/// The Anthropic API version this client speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The endpoint for a base URL: the API path goes after the base URL's
/// path and before its query (`…/v1?api-key=K` → `…/v1/chat/completions?api-key=K`).
pub fn endpoint(protocol: Protocol, base_url: &str) -> String {
    let (base, query) = match base_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (base_url, None),
    };
    let base = base.trim_end_matches('/');
    let path = match protocol {
        Protocol::OpenAiChat => "/chat/completions",
        Protocol::AnthropicMessages => "/v1/messages",
    };
    match query {
        Some(q) => format!("{base}{path}?{q}"),
        None => format!("{base}{path}"),
    }
}

/// Remove every secret from text built from a server's reply or the
/// request URL: the key itself, the values of the base URL's query and
/// password (`secrets`), and anything shaped like a key.
pub fn redact_secrets(text: &str, key: Option<&ApiKey>, secrets: &[String]) -> String {
    let mut text = text.to_string();
    if let Some(key) = key.filter(|k| k.expose().len() >= 4) {
        text = text.replace(key.expose(), "[redacted]");
    }
    for s in secrets.iter().filter(|s| s.len() >= 4) {
        text = text.replace(s.as_str(), "[redacted]");
    }
    KEY_LIKE.replace_all(&text, "[redacted]").into_owned()
}

pub fn request_body(provider: Provider, model: &str, req: &ChatRequest) -> Value {
    match provider.protocol() {
        Protocol::OpenAiChat => {
            let mut messages = Vec::with_capacity(req.messages.len() + 1);
            if !req.system.is_empty() {
                messages.push(json!({"role": "system", "content": req.system}));
            }
            messages.extend(
                req.messages
                    .iter()
                    .map(|m| json!({"role": m.role, "content": m.content})),
            );
            let mut body = json!({"model": model, "messages": messages, "stream": true});
            // OpenAI's current models take `max_completion_tokens` and reject
            // `max_tokens`; compatible servers such as Ollama know only the latter.
            let limit_field = if provider == Provider::OpenAi {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            body[limit_field] = json!(req.max_tokens);
            if let Some(t) = req.temperature {
                body["temperature"] = json!(t);
            }
            body
        }
        Protocol::AnthropicMessages => {
            let mut body = json!({
                "model": model,
                "max_tokens": req.max_tokens,
                "messages": req.messages,
                "stream": true,
            });
            if !req.system.is_empty() {
                body["system"] = json!(req.system);
            }
            if let Some(t) = req.temperature {
                body["temperature"] = json!(t);
            }
            body
        }
    }
}

/// What one stream event means to the caller.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    Text(String),
    /// The provider said the reply is complete.
    Finished,
    /// The reply stopped at the token limit.
    LimitReached,
    /// The model ended its reply normally; only the end marker may follow.
    Stopped,
    ProviderError {
        kind: String,
        message: String,
    },
}

/// Decodes one event; `Err` holds a description of a malformed event.
pub fn decode_event(protocol: Protocol, event: &SseEvent) -> Result<Vec<Decoded>, String> {
    match protocol {
        Protocol::OpenAiChat => decode_openai(&event.data),
        Protocol::AnthropicMessages => decode_anthropic(event),
    }
}

fn parse_json(data: &str) -> Result<Value, String> {
    serde_json::from_str(data)
        .map_err(|e| format!("event data is not JSON ({e}): {}", preview(data)))
}

fn decode_openai(data: &str) -> Result<Vec<Decoded>, String> {
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(vec![Decoded::Finished]);
    }
    let value = parse_json(data)?;
    if let Some(err) = value.get("error") {
        let (kind, message) = error_parts(err);
        return Ok(vec![Decoded::ProviderError { kind, message }]);
    }
    let Some(choices) = value.get("choices").and_then(Value::as_array) else {
        return Err(format!("event has no `choices`: {}", preview(data)));
    };
    let mut out = Vec::new();
    if let Some(choice) = choices.first() {
        if let Some(text) = choice
            .pointer("/delta/content")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            out.push(Decoded::Text(text.to_string()));
        }
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some("length") => out.push(Decoded::LimitReached),
            Some("stop") => out.push(Decoded::Stopped),
            _ => {}
        }
    }
    Ok(out)
}

fn decode_anthropic(event: &SseEvent) -> Result<Vec<Decoded>, String> {
    let value = parse_json(&event.data)?;
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .or(event.event.as_deref())
        .unwrap_or("");
    Ok(match kind {
        "content_block_delta" => match value.pointer("/delta/text").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => vec![Decoded::Text(text.to_string())],
            _ => Vec::new(),
        },
        "message_delta" => match value.pointer("/delta/stop_reason").and_then(Value::as_str) {
            Some("max_tokens") => vec![Decoded::LimitReached],
            Some("end_turn" | "stop_sequence") => vec![Decoded::Stopped],
            _ => Vec::new(),
        },
        "message_stop" => vec![Decoded::Finished],
        "error" => {
            let (kind, message) = value.get("error").map(error_parts).unwrap_or_default();
            vec![Decoded::ProviderError { kind, message }]
        }
        // message_start, content_block_start/stop, ping and future event types.
        _ => Vec::new(),
    })
}

/// A whole non-streamed reply, for servers that ignore `stream: true`.
pub fn decode_whole_reply(protocol: Protocol, body: &str) -> Result<String, LlmError> {
    let value = parse_json(body).map_err(LlmError::MalformedStream)?;
    if let Some(err) = value.get("error") {
        let (kind, message) = error_parts(err);
        return Err(LlmError::Provider { kind, message });
    }
    let text = match protocol {
        Protocol::OpenAiChat => value
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .map(str::to_string),
        Protocol::AnthropicMessages => {
            value
                .get("content")
                .and_then(Value::as_array)
                .map(|blocks| {
                    blocks
                        .iter()
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect::<String>()
                })
        }
    };
    text.ok_or_else(|| {
        LlmError::MalformedStream(format!("reply has no message text: {}", preview(body)))
    })
}

fn error_parts(err: &Value) -> (String, String) {
    match err {
        Value::String(s) => (String::new(), clean(s, None)),
        _ => {
            let kind = err
                .get("type")
                .or_else(|| err.get("code"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            (clean(kind, None), clean(message, None))
        }
    }
}

/// Longest provider text kept in an error message.
pub const MAX_SUMMARY_CHARS: usize = 300;

/// Turns an error response body into one short, safe line: the provider's
/// message if the body is a known JSON error shape, else the raw text;
/// anything key-like redacted, control characters neutralised, truncated.
pub fn summarize_error_body(body: &str, key: Option<&ApiKey>) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let err = v.get("error")?;
        let (kind, message) = error_parts(err);
        Some(match (kind.is_empty(), message.is_empty()) {
            (false, false) => format!("{kind}: {message}"),
            (true, false) => message,
            (false, true) => kind,
            (true, true) => return None,
        })
    });
    let text = from_json.unwrap_or_else(|| body.split_whitespace().collect::<Vec<_>>().join(" "));
    clean(&text, key)
}

static KEY_LIKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(sk-[a-z0-9_\-]{6,}|bearer\s+\S+|x-api-key:?\s*\S+)").expect("valid pattern")
});

fn clean(text: &str, key: Option<&ApiKey>) -> String {
    let text = redact_secrets(text, key, &[]);
    let text = membank_core::text::sanitize_for_terminal(&text, false);
    truncate_chars(text.trim(), MAX_SUMMARY_CHARS)
}

fn preview(data: &str) -> String {
    truncate_chars(
        &membank_core::text::sanitize_for_terminal(
            &KEY_LIKE.replace_all(data, "[redacted]"),
            false,
        ),
        80,
    )
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Message;

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            data: data.to_string(),
        }
    }

    #[test]
    fn openai_body_has_system_first_and_the_right_limit_field() {
        let mut req = ChatRequest::new("sys", "hi");
        req.messages.push(Message::assistant("yo"));
        req.temperature = Some(0.2);
        let body = request_body(Provider::OpenAi, "m", &req);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][1]["content"], "hi");
        assert_eq!(body["messages"][2]["role"], "assistant");
        assert_eq!(body["stream"], true);
        assert_eq!(body["max_completion_tokens"], 4096);
        let body = request_body(Provider::Ollama, "m", &req);
        assert_eq!(body["max_tokens"], 4096);
        assert!(body.get("max_completion_tokens").is_none());
    }

    #[test]
    fn anthropic_body_puts_system_at_top_level() {
        let body = request_body(Provider::Anthropic, "c", &ChatRequest::new("sys", "hi"));
        assert_eq!(body["system"], "sys");
        assert_eq!(body["messages"][0]["role"], "user");
        assert_eq!(body["max_tokens"], 4096);
        assert!(body.get("temperature").is_none());
    }

    #[test]
    fn openai_events() {
        let d = decode_openai(r#"{"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}"#);
        assert_eq!(d.unwrap(), vec![Decoded::Text("Hi".into())]);
        let d = decode_openai(r#"{"choices":[{"delta":{},"finish_reason":"length"}]}"#);
        assert_eq!(d.unwrap(), vec![Decoded::LimitReached]);
        assert_eq!(decode_openai("[DONE]").unwrap(), vec![Decoded::Finished]);
        assert!(decode_openai("{not json").is_err());
        assert!(decode_openai(r#"{"foo":1}"#).is_err());
        let d = decode_openai(r#"{"error":{"message":"boom","type":"server_error"}}"#).unwrap();
        assert_eq!(
            d,
            vec![Decoded::ProviderError {
                kind: "server_error".into(),
                message: "boom".into()
            }]
        );
    }

    #[test]
    fn anthropic_events() {
        let d = decode_anthropic(&ev(
            Some("content_block_delta"),
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé"}}"#,
        ));
        assert_eq!(d.unwrap(), vec![Decoded::Text("Hé".into())]);
        let d = decode_anthropic(&ev(None, r#"{"type":"message_stop"}"#));
        assert_eq!(d.unwrap(), vec![Decoded::Finished]);
        let d = decode_anthropic(&ev(None, r#"{"type":"ping"}"#));
        assert!(d.unwrap().is_empty());
        let d = decode_anthropic(&ev(
            Some("error"),
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ));
        assert_eq!(
            d.unwrap(),
            vec![Decoded::ProviderError {
                kind: "overloaded_error".into(),
                message: "Overloaded".into()
            }]
        );
        let d = decode_anthropic(&ev(
            None,
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"}}"#,
        ));
        assert_eq!(d.unwrap(), vec![Decoded::LimitReached]);
    }

    #[test]
    fn whole_replies() {
        let t = decode_whole_reply(
            Protocol::OpenAiChat,
            r#"{"choices":[{"message":{"content":"All"}}]}"#,
        );
        assert_eq!(t.unwrap(), "All");
        let t = decode_whole_reply(
            Protocol::AnthropicMessages,
            r#"{"content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}"#,
        );
        assert_eq!(t.unwrap(), "AB");
        let e = decode_whole_reply(
            Protocol::OpenAiChat,
            r#"{"error":{"type":"server_error","message":"try later"}}"#,
        );
        assert_eq!(
            e.unwrap_err(),
            LlmError::Provider {
                kind: "server_error".into(),
                message: "try later".into()
            }
        );
    }

    #[test]
    fn error_summaries_are_short_safe_and_keyless() {
        let key = ApiKey::new("abcd-secret-1234");
        let body = r#"{"error":{"type":"invalid_request_error","message":"Incorrect API key provided: abcd-secret-1234 \u001b[31m"}}"#;
        let s = summarize_error_body(body, Some(&key));
        assert!(
            s.starts_with("invalid_request_error: Incorrect API key"),
            "{s}"
        );
        assert!(!s.contains("abcd-secret-1234"), "{s}");
        assert!(!s.contains('\u{1b}'), "{s}");

        let s = summarize_error_body("<html>\n<h1>502 Bad Gateway sk-proj-abcdefgh</h1>", None);
        assert_eq!(s, "<html> <h1>502 Bad Gateway [redacted]</h1>");

        let long = "x".repeat(5000);
        let s = summarize_error_body(&long, None);
        assert_eq!(s.chars().count(), MAX_SUMMARY_CHARS + 1);
        assert!(s.ends_with('…'));
    }
}
