//! A scripted HTTP/1.1 server on 127.0.0.1 for tests: it speaks the
//! OpenAI-compatible and Anthropic streaming protocols and can inject
//! faults (error statuses, `Retry-After`, cut or stalled streams, garbage,
//! a slow first byte). Each accepted connection takes the next scripted
//! [`FakeReply`]; every request is recorded for assertions.
//!
//! The server runs on its own thread and runtime, so it serves synchronous
//! tests, async tests and child processes alike. Dropping it stops it.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Longest a stalled reply keeps its connection open, so no test hangs forever.
const STALL_LIMIT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_default()
    }
}

/// One scripted response.
#[derive(Debug, Clone)]
pub struct FakeReply {
    status: u16,
    headers: Vec<(String, String)>,
    first_byte_delay: Duration,
    /// Pause before each body piece after the first.
    piece_delay: Duration,
    /// Body pieces, each written (and flushed) separately.
    pieces: Vec<Vec<u8>>,
    /// Stream with chunked transfer encoding (else a fixed Content-Length).
    chunked: bool,
    ending: Ending,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    Complete,
    /// Close the connection after this many pieces, mid-body.
    CutAfter(usize),
    /// Stop sending after this many pieces but keep the connection open.
    StallAfter(usize),
}

impl FakeReply {
    /// A streamed OpenAI-compatible reply made of these text pieces.
    pub fn openai_stream(pieces: &[&str]) -> FakeReply {
        let mut events: Vec<String> = pieces
            .iter()
            .map(|p| {
                sse_data(&json!({
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]
                }))
            })
            .collect();
        events.insert(
            0,
            sse_data(&json!({
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]
            })),
        );
        events.push(sse_data(&json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]
        })));
        events.push("data: [DONE]\n\n".to_string());
        FakeReply::event_stream(events)
    }

    /// A streamed Anthropic Messages reply made of these text pieces.
    pub fn anthropic_stream(pieces: &[&str]) -> FakeReply {
        let mut events = vec![
            sse_named(
                "message_start",
                &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
                    "role": "assistant", "content": [], "stop_reason": null}}),
            ),
            sse_named(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}}),
            ),
            sse_named("ping", &json!({"type": "ping"})),
        ];
        for p in pieces {
            events.push(sse_named(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": p}}),
            ));
        }
        events.push(sse_named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": 0}),
        ));
        events.push(sse_named(
            "message_delta",
            &json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 5}}),
        ));
        events.push(sse_named("message_stop", &json!({"type": "message_stop"})));
        FakeReply::event_stream(events)
    }

    /// A 200 event stream with these exact pieces (for garbage or hand-made events).
    pub fn event_stream<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> FakeReply {
        FakeReply {
            status: 200,
            headers: vec![("Content-Type".into(), "text/event-stream".into())],
            first_byte_delay: Duration::ZERO,
            piece_delay: Duration::ZERO,
            pieces: pieces.into_iter().map(|p| p.into().into_bytes()).collect(),
            chunked: true,
            ending: Ending::Complete,
        }
    }

    /// A non-streamed response with a JSON body.
    pub fn json(status: u16, body: serde_json::Value) -> FakeReply {
        FakeReply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            first_byte_delay: Duration::ZERO,
            piece_delay: Duration::ZERO,
            pieces: vec![body.to_string().into_bytes()],
            chunked: false,
            ending: Ending::Complete,
        }
    }

    /// An error status with an OpenAI/Anthropic-style JSON error body.
    pub fn error(status: u16, kind: &str, message: &str) -> FakeReply {
        FakeReply::json(
            status,
            json!({"type": "error", "error": {"type": kind, "message": message}}),
        )
    }

    /// A response with a plain-text body (e.g. a proxy's HTML page).
    pub fn text(status: u16, body: &str) -> FakeReply {
        FakeReply {
            status,
            headers: vec![("Content-Type".into(), "text/html".into())],
            first_byte_delay: Duration::ZERO,
            piece_delay: Duration::ZERO,
            pieces: vec![body.as_bytes().to_vec()],
            chunked: false,
            ending: Ending::Complete,
        }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> FakeReply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before sending anything.
    pub fn first_byte_delay(mut self, delay: Duration) -> FakeReply {
        self.first_byte_delay = delay;
        self
    }

    /// Pauses this long between body pieces (a slow trickle).
    pub fn piece_delay(mut self, delay: Duration) -> FakeReply {
        self.piece_delay = delay;
        self
    }

    /// Closes the connection abruptly after `pieces` body pieces.
    pub fn cut_after(mut self, pieces: usize) -> FakeReply {
        self.ending = Ending::CutAfter(pieces);
        self
    }

    /// Sends `pieces` body pieces, then goes silent with the connection open.
    pub fn stall_after(mut self, pieces: usize) -> FakeReply {
        self.ending = Ending::StallAfter(pieces);
        self
    }

    /// Splits every piece in two writes, so events straddle network chunks.
    pub fn split_pieces(mut self) -> FakeReply {
        self.pieces = self
            .pieces
            .into_iter()
            .flat_map(|p| {
                let mid = p.len() / 2;
                let (a, b) = p.split_at(mid);
                [a.to_vec(), b.to_vec()]
            })
            .filter(|p| !p.is_empty())
            .collect();
        self
    }
}

fn sse_data(value: &serde_json::Value) -> String {
    format!("data: {value}\n\n")
}

fn sse_named(event: &str, value: &serde_json::Value) -> String {
    format!("event: {event}\ndata: {value}\n\n")
}

/// The running server. Dropping it stops it.
pub struct FakeServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeServer {
    /// Starts serving the replies in order, one per connection. Once the
    /// script is used up, further requests get a 500 saying so.
    pub fn start(replies: impl IntoIterator<Item = FakeReply>) -> FakeServer {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port on 127.0.0.1");
        std_listener
            .set_nonblocking(true)
            .expect("make the listener non-blocking");
        let addr = std_listener.local_addr().expect("listener address");
        let script: Arc<Mutex<VecDeque<FakeReply>>> =
            Arc::new(Mutex::new(replies.into_iter().collect()));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel();
        let recorded = Arc::clone(&requests);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("test server runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("tokio listener");
                let accept_loop = async {
                    loop {
                        let Ok((stream, _)) = listener.accept().await else {
                            // e.g. out of file descriptors: wait instead of spinning.
                            tokio::time::sleep(Duration::from_millis(10)).await;
                            continue;
                        };
                        let reply = script.lock().expect("script lock").pop_front();
                        let recorded = Arc::clone(&recorded);
                        tokio::spawn(serve(stream, reply, recorded));
                    }
                };
                tokio::select! {
                    _ = stop_rx => {}
                    _ = accept_loop => {}
                }
            });
        });
        FakeServer {
            addr,
            requests,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT` (Anthropic-style base URL).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1` (OpenAI-style base URL).
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Environment variables that point membank at this server as
    /// `provider` (model `test-model`, key `test-key` where one is needed).
    /// Pair them with `MEMBANK_CONFIG=/dev/null` so that no user
    /// configuration is read.
    pub fn env_for(&self, provider: crate::Provider) -> Vec<(&'static str, String)> {
        let base_url = match provider {
            crate::Provider::Anthropic => self.url(),
            _ => self.openai_base_url(),
        };
        let mut env = vec![
            ("MEMBANK_PROVIDER", provider.id().to_string()),
            ("MEMBANK_BASE_URL", base_url),
            ("MEMBANK_MODEL", "test-model".to_string()),
        ];
        if let Some(var) = provider.key_env_var() {
            env.push((var, "test-key".to_string()));
        }
        env
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().expect("requests lock").clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    mut stream: TcpStream,
    reply: Option<FakeReply>,
    recorded: Arc<Mutex<Vec<RecordedRequest>>>,
) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    recorded.lock().expect("requests lock").push(request);
    let reply = reply.unwrap_or_else(|| {
        FakeReply::error(500, "test_script_exhausted", "no scripted reply left")
    });
    let _ = write_reply(&mut stream, reply).await;
}

async fn read_request(stream: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

async fn write_reply(stream: &mut TcpStream, reply: FakeReply) -> std::io::Result<()> {
    tokio::time::sleep(reply.first_byte_delay).await;
    let mut head = format!("HTTP/1.1 {} {}\r\n", reply.status, reason(reply.status));
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Connection: close\r\n");
    if reply.chunked {
        head.push_str("Transfer-Encoding: chunked\r\n");
    } else {
        let length: usize = reply.pieces.iter().map(Vec::len).sum();
        head.push_str(&format!("Content-Length: {length}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    for (i, piece) in reply.pieces.iter().enumerate() {
        match reply.ending {
            Ending::CutAfter(n) if i == n => return Ok(()),
            Ending::StallAfter(n) if i == n => {
                tokio::time::sleep(STALL_LIMIT).await;
                return Ok(());
            }
            _ => {}
        }
        if i > 0 && !reply.piece_delay.is_zero() {
            tokio::time::sleep(reply.piece_delay).await;
        }
        if reply.chunked {
            stream
                .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
                .await?;
            stream.write_all(piece).await?;
            stream.write_all(b"\r\n").await?;
        } else {
            stream.write_all(piece).await?;
        }
        stream.flush().await?;
        // Give the client a chance to read each piece as its own chunk.
        tokio::task::yield_now().await;
    }
    if let Ending::StallAfter(_) = reply.ending {
        tokio::time::sleep(STALL_LIMIT).await;
        return Ok(());
    }
    if reply.chunked && reply.ending == Ending::Complete {
        stream.write_all(b"0\r\n\r\n").await?;
    }
    stream.flush().await?;
    stream.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}
