//! Standard input checked a line at a time before the session reads it. A
//! line that is not JSON, or a request whose parameters are not an object
//! or lack one its method needs (or give one of the wrong type), is
//! answered here with the error JSON-RPC gives for it (-32700 parse
//! error, -32602 invalid params) and never reaches the session, which
//! answered the first with nothing at all (a client waited for a reply
//! that never came) and the second as a method it does not know.
//!
//! The session's own output passes through whole lines at a time, so an
//! error written here never lands inside one of its messages.

use std::io;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// A line longer than this is refused as a parse error without being held.
pub const MAX_LINE: usize = 64 << 20;

/// What the session reads and writes, and the task that writes its output
/// (awaited once the session ends, so nothing it said is lost).
pub struct Checked {
    pub to_session: DuplexStream,
    pub from_session: DuplexStream,
    pub output: JoinHandle<io::Result<()>>,
}

pub fn checked<R, W>(input: R, output: W) -> Checked
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (session_reads, mut fed) = tokio::io::duplex(1 << 16);
    let (session_writes, said) = tokio::io::duplex(1 << 16);
    let (errors, mut error_lines) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        while let Ok(Some(fits)) = next_line(&mut input, &mut line).await {
            match answer_to(fits.then_some(line.as_slice())) {
                Some(error) => {
                    if errors.send(error).is_err() {
                        break;
                    }
                }
                None => {
                    line.push(b'\n');
                    if fed.write_all(&line).await.is_err() {
                        break;
                    }
                }
            }
        }
        // The session sees the end of its input and closes.
        let _ = fed.shutdown().await;
    });
    let output = tokio::spawn(async move {
        let mut output = output;
        let mut said = BufReader::new(said);
        let mut line = Vec::new();
        let mut errors_open = true;
        loop {
            tokio::select! {
                read = said.read_until(b'\n', &mut line) => {
                    if read? == 0 {
                        break;
                    }
                    output.write_all(&line).await?;
                    output.flush().await?;
                    line.clear();
                }
                error = error_lines.recv(), if errors_open => match error {
                    Some(error) => {
                        output.write_all(&error).await?;
                        output.flush().await?;
                    }
                    None => errors_open = false,
                },
            }
        }
        // Errors answered after the session's last message.
        while let Ok(error) = error_lines.try_recv() {
            output.write_all(&error).await?;
        }
        output.flush().await
    });
    Checked {
        to_session: session_reads,
        from_session: session_writes,
        output,
    }
}

/// The next line into `line` (without its line break): `Some(true)` when
/// it fits, `Some(false)` when it was longer than [`MAX_LINE`] (and is
/// dropped), `None` at the end of the input.
async fn next_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
) -> io::Result<Option<bool>> {
    line.clear();
    let mut fits = true;
    let mut any = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (part, used, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], at + 1, true),
            None => (buf, buf.len(), false),
        };
        if fits && line.len() + part.len() <= MAX_LINE {
            line.extend_from_slice(part);
        } else {
            fits = false;
            line.clear();
        }
        input.consume(used);
        if ended {
            return Ok(Some(fits));
        }
    }
}

/// The error line to answer `line` with (`None`: too long), or `None` when
/// the session should read it.
fn answer_to(line: Option<&[u8]>) -> Option<Vec<u8>> {
    let Some(line) = line else {
        return Some(error_line(
            &Value::Null,
            -32700,
            format!("Parse error: a message longer than {} MiB", MAX_LINE >> 20),
        ));
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let message: Value = match serde_json::from_slice(line) {
        Ok(message) => message,
        Err(e) => {
            return Some(error_line(
                &Value::Null,
                -32700,
                format!("Parse error: {e}"),
            ));
        }
    };
    if let Some(error) = invalid_request(&message) {
        return Some(error);
    }
    // Only a request (it has an id) is answered; a notification is not.
    let (Some(id), Some(method)) = (
        message.get("id"),
        message.get("method").and_then(Value::as_str),
    ) else {
        return None;
    };
    // `null` is taken as no params, as lenient clients send it.
    let params = message.get("params").filter(|p| !p.is_null());
    if params.is_some_and(|p| !p.is_object()) {
        return Some(error_line(
            id,
            -32602,
            format!("Invalid params: the params of {method} must be an object"),
        ));
    }
    if let Some(why) = param_problem(method, params) {
        // The session's answer was "Method not found" naming the method:
        // the method is there, its parameters are not what it takes.
        return Some(error_line(id, -32602, format!("Invalid params: {why}")));
    }
    None
}

/// A JSON type a parameter must have.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Object,
}

/// What is wrong with the parameters of a request for `method` that the
/// session would fail to read (and answer as a method it does not know):
/// a required parameter missing or one of the wrong type. Only the methods
/// this server answers with parameters of its own are listed.
fn param_problem(method: &str, params: Option<&Value>) -> Option<String> {
    use Kind::{Object, Text};
    let wanted: &[(&str, Kind, bool)] = match method {
        "tools/call" | "prompts/get" => &[("name", Text, true), ("arguments", Object, false)],
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            &[("uri", Text, true)]
        }
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            &[("cursor", Text, false)]
        }
        _ => return None,
    };
    for &(name, kind, required) in wanted {
        // `null` is taken as not given, as for the params themselves.
        let given = params.and_then(|p| p.get(name)).filter(|v| !v.is_null());
        let (fits, what) = match kind {
            Text => (given.is_none_or(Value::is_string), "a string"),
            Object => (given.is_none_or(Value::is_object), "an object"),
        };
        if !fits || (required && given.is_none()) {
            return Some(format!(
                "{method} {} \"{name}\", {what}",
                if required { "needs" } else { "takes" }
            ));
        }
    }
    None
}

/// The -32600 error for a message that is not a JSON-RPC 2.0 request,
/// notification or response, with the id it gave when one can be read
/// (JSON-RPC: `null` otherwise). The session answered these with no id at
/// all, which a client cannot match to its request.
fn invalid_request(message: &Value) -> Option<Vec<u8>> {
    let invalid =
        |id: &Value, why: &str| Some(error_line(id, -32600, format!("Invalid Request: {why}")));
    let Some(object) = message.as_object() else {
        return invalid(
            &Value::Null,
            "a message is one JSON object (batches are not taken)",
        );
    };
    // MCP's ids are strings or integers.
    let id = object.get("id");
    let usable = |v: &&Value| v.is_string() || v.is_i64() || v.is_u64();
    let reply_id = id.filter(usable).cloned().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(&reply_id, "\"jsonrpc\" must be \"2.0\"");
    }
    if id.is_some_and(|v| !usable(&v)) {
        return invalid(&Value::Null, "\"id\" must be a string or an integer");
    }
    match object.get("method") {
        Some(method) if !method.is_string() => invalid(&reply_id, "\"method\" must be a string"),
        Some(_) => None,
        // The client's answer to a request of the server's.
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            None
        }
        None => invalid(&reply_id, "no \"method\""),
    }
}

fn error_line(id: &Value, code: i64, message: String) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<Value> {
        answer_to(Some(line.as_bytes())).map(|bytes| serde_json::from_slice(&bytes).unwrap())
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_without_an_id() {
        let error = answer("this is not json").unwrap();
        assert_eq!(error["id"], Value::Null);
        assert_eq!(error["error"]["code"], -32700);
        let error = answer_to(None).unwrap();
        assert!(String::from_utf8(error).unwrap().contains("-32700"));
    }

    #[test]
    fn parameters_that_are_not_an_object_are_invalid_params_with_the_id() {
        let error = answer(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#);
        assert_eq!(error.as_ref().unwrap()["id"], 7);
        assert_eq!(error.unwrap()["error"]["code"], -32602);
        let error = answer(
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"read","arguments":"Legal"}}"#,
        );
        assert_eq!(error.as_ref().unwrap()["id"], "a");
        assert_eq!(error.unwrap()["error"]["code"], -32602);
    }

    /// JSON-RPC 2.0 §5: the reply to an invalid request carries its id
    /// when one can be read, and `null` when not.
    #[test]
    fn an_invalid_request_is_answered_with_its_id_or_null() {
        for (line, id) in [
            (r#"{"jsonrpc":"2.0","id":5}"#, json!(5)),
            (r#"{"jsonrpc":"1.0","id":12,"method":"ping"}"#, json!(12)),
            (r#"{"id":"thirteen","method":"ping"}"#, json!("thirteen")),
            (r#"{"jsonrpc":"2.0","id":14,"method":7}"#, json!(14)),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                Value::Null,
            ),
            ("{}", Value::Null),
            ("[]", Value::Null),
            (
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                Value::Null,
            ),
            ("3", Value::Null),
        ] {
            let error = answer(line).unwrap_or_else(|| panic!("no answer to {line}"));
            assert_eq!(error["id"], id, "{line}");
            assert_eq!(error["error"]["code"], -32600, "{line}");
            assert!(error.as_object().unwrap().contains_key("id"), "{line}");
        }
    }

    #[test]
    fn a_tool_call_without_a_tool_name_is_invalid_params() {
        for line in [
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call"}"#,
        ] {
            let error = answer(line).unwrap();
            assert_eq!(error["id"], 10, "{line}");
            assert_eq!(error["error"]["code"], -32602, "{line}");
        }
    }

    /// The session answered these "Method not found" with only the
    /// method's name: the method is there, and the answer names what is
    /// wrong with its parameters.
    #[test]
    fn missing_or_mistyped_parameters_are_invalid_params_naming_them() {
        for (method, params, named) in [
            ("resources/read", "{}", "\"uri\", a string"),
            ("resources/read", r#"{"uri":5}"#, "\"uri\", a string"),
            ("resources/subscribe", "{}", "\"uri\", a string"),
            (
                "resources/unsubscribe",
                r#"{"uri":[]}"#,
                "\"uri\", a string",
            ),
            ("prompts/get", "{}", "\"name\", a string"),
            ("prompts/get", r#"{"name":5}"#, "\"name\", a string"),
            (
                "prompts/get",
                r#"{"name":"query","arguments":[]}"#,
                "\"arguments\", an object",
            ),
            ("resources/list", r#"{"cursor":5}"#, "\"cursor\", a string"),
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{params}}}"#);
            let error = answer(&line).unwrap_or_else(|| panic!("no answer to {line}"));
            assert_eq!(error["id"], 3, "{line}");
            assert_eq!(error["error"]["code"], -32602, "{line}");
            let message = error["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(method) && message.contains(named),
                "{message}"
            );
        }
    }

    #[test]
    fn well_formed_messages_and_blank_lines_reach_the_session() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"target":"x"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":null}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"membank://bank/a.md"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"lint"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"resources/list","params":{"cursor":null}}"#,
            "   ",
        ] {
            assert_eq!(answer(line), None, "{line}");
        }
    }

    #[tokio::test]
    async fn a_line_too_long_is_dropped_and_the_next_one_read() {
        let mut text = vec![b'x'; MAX_LINE + 10];
        text.extend_from_slice(b"\n{}\n");
        let mut input = BufReader::new(text.as_slice());
        let mut line = Vec::new();
        assert_eq!(next_line(&mut input, &mut line).await.unwrap(), Some(false));
        assert!(line.is_empty());
        assert_eq!(next_line(&mut input, &mut line).await.unwrap(), Some(true));
        assert_eq!(line, b"{}");
        assert_eq!(next_line(&mut input, &mut line).await.unwrap(), None);
    }
}
