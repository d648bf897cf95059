//! End-to-end behaviour of both protocols against the scripted local server.

use std::time::Duration;

use membank_llm::testing::{FakeReply, FakeServer};
use membank_llm::{
    ApiKey, CancelHandle, ChatRequest, JobEvent, LlmClient, LlmConfig, LlmError, LlmWorker,
    Provider, StreamEvent, TimeoutPhase, WorkerMessage,
};

const KEY: &str = "sk-test-0123456789abcdef";

fn config(provider: Provider, server: &FakeServer) -> LlmConfig {
    let mut c = LlmConfig::for_provider(provider);
    c.model = "test-model".into();
    c.base_url = match provider {
        Provider::Anthropic => server.url(),
        _ => server.openai_base_url(),
    };
    c.timeout = Duration::from_secs(10);
    c.backoff_base = Duration::from_millis(10);
    c.max_retry_wait = Duration::from_secs(5);
    c
}

fn client(config: LlmConfig) -> LlmClient {
    let key = (config.provider != Provider::Ollama).then(|| ApiKey::new(KEY));
    LlmClient::with_key(config, key).unwrap()
}

async fn run(client: &LlmClient) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    client
        .chat(
            &ChatRequest::new("You are terse.", "Say hello"),
            &CancelHandle::new(),
            &mut |e| events.push(e),
        )
        .await;
    events
}

fn deltas(events: &[StreamEvent]) -> Vec<&str> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta(d) => Some(d.as_str()),
            _ => None,
        })
        .collect()
}

fn error_of(events: &[StreamEvent]) -> &LlmError {
    events
        .iter()
        .find_map(|e| match e {
            StreamEvent::Error(err) => Some(err),
            _ => None,
        })
        .expect("an Error event")
}

fn done_of(events: &[StreamEvent]) -> (bool, &str) {
    match events.last() {
        Some(StreamEvent::Done { complete, text }) => (*complete, text.as_str()),
        other => panic!("last event is not Done: {other:?}"),
    }
}

#[tokio::test]
async fn openai_stream_delivers_pieces_and_a_complete_done() {
    let server = FakeServer::start([FakeReply::openai_stream(&["Hel", "lo", " wörld"])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert_eq!(deltas(&events), ["Hel", "lo", " wörld"]);
    assert_eq!(done_of(&events), (true, "Hello wörld"));
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Error(_))));

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some(&*format!("Bearer {KEY}")));
    let body = r.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["content"], "You are terse.");
    assert_eq!(body["messages"][1]["content"], "Say hello");
}

#[tokio::test]
async fn anthropic_stream_with_events_split_across_chunks() {
    let server = FakeServer::start([FakeReply::anthropic_stream(&["Bon", "jour"]).split_pieces()]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    assert_eq!(deltas(&events), ["Bon", "jour"]);
    assert_eq!(done_of(&events), (true, "Bonjour"));

    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.json()["system"], "You are terse.");
}

#[tokio::test]
async fn ollama_sends_no_key_and_uses_the_openai_protocol() {
    let server = FakeServer::start([FakeReply::openai_stream(&["ok"])]);
    let events = run(&client(config(Provider::Ollama, &server))).await;
    assert_eq!(done_of(&events), (true, "ok"));
    let r = &server.requests()[0];
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.json()["max_tokens"], 4096);
}

#[tokio::test]
async fn retry_after_is_honoured_on_429() {
    let server = FakeServer::start([
        FakeReply::error(429, "rate_limit_error", "slow down").with_header("Retry-After", "0"),
        FakeReply::openai_stream(&["fine"]),
    ]);
    let mut c = config(Provider::OpenAi, &server);
    // Without Retry-After the wait would be this backoff.
    c.backoff_base = Duration::from_millis(40);
    let events = run(&client(c)).await;
    match &events[0] {
        StreamEvent::Retrying {
            attempt,
            wait,
            reason,
        } => {
            assert_eq!(*attempt, 1);
            assert_eq!(*wait, Duration::ZERO);
            assert!(reason.contains("429"), "{reason}");
            assert!(reason.contains("slow down"), "{reason}");
        }
        other => panic!("expected Retrying, got {other:?}"),
    }
    assert_eq!(done_of(&events), (true, "fine"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_after_beyond_the_cap_fails_at_once_saying_when() {
    let server = FakeServer::start([
        FakeReply::error(429, "rate_limit_error", "later").with_header("Retry-After", "3600"),
        FakeReply::anthropic_stream(&["done"]),
    ]);
    let mut c = config(Provider::Anthropic, &server);
    c.max_retry_wait = Duration::from_secs(60);
    let events = run(&client(c)).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::Retrying { .. })),
        "{events:?}"
    );
    let err = error_of(&events);
    assert!(
        matches!(err, LlmError::RetryLater { wait, .. } if *wait == Duration::from_secs(3600)),
        "{err:?}"
    );
    let shown = err.to_string();
    assert!(shown.contains("wait 3600s"), "{shown}");
    assert!(shown.contains("try again after"), "{shown}");
    assert_eq!(done_of(&events), (false, ""));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retry_after_as_a_date_far_ahead_fails_at_once() {
    let server = FakeServer::start([FakeReply::error(503, "overloaded", "maintenance")
        .with_header("Retry-After", "Thu, 01 Jan 2099 00:00:00 GMT")]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert!(
        matches!(error_of(&events), LlmError::RetryLater { .. }),
        "{events:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retry_after_as_a_past_date_retries_without_waiting() {
    let server = FakeServer::start([
        FakeReply::error(429, "rate_limit_error", "now ok")
            .with_header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"),
        FakeReply::openai_stream(&["fine"]),
    ]);
    let mut c = config(Provider::OpenAi, &server);
    c.backoff_base = Duration::from_secs(3);
    let events = run(&client(c)).await;
    assert!(matches!(
        &events[0],
        StreamEvent::Retrying { wait, .. } if *wait == Duration::ZERO
    ));
    assert_eq!(done_of(&events), (true, "fine"));
}

#[tokio::test]
async fn server_error_then_success_backs_off_exponentially() {
    let server = FakeServer::start([
        FakeReply::text(500, "<h1>oops</h1>"),
        FakeReply::error(503, "overloaded_error", "busy"),
        FakeReply::openai_stream(&["third time"]),
    ]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let waits: Vec<Duration> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying { wait, .. } => Some(*wait),
            _ => None,
        })
        .collect();
    assert_eq!(
        waits,
        [Duration::from_millis(10), Duration::from_millis(20)]
    );
    assert_eq!(done_of(&events), (true, "third time"));
}

#[tokio::test]
async fn retries_run_out_with_the_last_status_reported() {
    let server = FakeServer::start([
        FakeReply::error(500, "server_error", "down"),
        FakeReply::error(502, "server_error", "still down"),
    ]);
    let mut c = config(Provider::OpenAi, &server);
    c.max_retries = 1;
    let events = run(&client(c)).await;
    match error_of(&events) {
        LlmError::Http {
            status, summary, ..
        } => {
            assert_eq!(*status, 502);
            assert!(summary.contains("still down"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(done_of(&events), (false, ""));
}

#[tokio::test]
async fn a_cut_stream_keeps_what_arrived_and_is_marked_incomplete() {
    // Pieces: role event, "Hel", "lo", " there", finish, [DONE]; cut before " there".
    let server =
        FakeServer::start([FakeReply::openai_stream(&["Hel", "lo", " there"]).cut_after(3)]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert_eq!(deltas(&events), ["Hel", "lo"]);
    assert!(matches!(
        error_of(&events),
        LlmError::StreamCut { received_chars: 5 }
    ));
    assert_eq!(done_of(&events), (false, "Hello"));
}

#[tokio::test]
async fn anthropic_stream_cut_before_message_stop_is_incomplete() {
    // Cut before message_delta: the model never said it had finished.
    let server = FakeServer::start([FakeReply::anthropic_stream(&["a", "b"]).cut_after(6)]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    assert!(matches!(error_of(&events), LlmError::StreamCut { .. }));
    assert_eq!(done_of(&events), (false, "ab"));
}

#[tokio::test]
async fn garbage_instead_of_events_is_a_malformed_stream() {
    let server = FakeServer::start([FakeReply::event_stream([
        "<html><body>Gateway says hi</body></html>\n",
    ])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let err = error_of(&events);
    assert!(matches!(err, LlmError::MalformedStream(_)), "{err:?}");
    assert!(err.to_string().contains("Gateway says hi"), "{err}");
    assert_eq!(done_of(&events), (false, ""));
}

#[tokio::test]
async fn invalid_json_in_an_event_stops_the_reply_but_keeps_the_text() {
    let good = r#"data: {"choices":[{"delta":{"content":"kept"}}]}"#;
    let server = FakeServer::start([FakeReply::event_stream([
        format!("{good}\n\n"),
        "data: {\"choices\": [oops\n\n".to_string(),
    ])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let err = error_of(&events);
    assert!(err.to_string().contains("not JSON"), "{err}");
    assert_eq!(done_of(&events), (false, "kept"));
}

#[tokio::test]
async fn a_streamed_reply_past_the_size_limit_is_stopped_and_incomplete() {
    // 300 pieces of 60 KB: about 18 MB, past the 16 MB limit.
    let piece = "x".repeat(60 * 1024);
    let pieces = vec![piece.as_str(); 300];
    let server = FakeServer::start([FakeReply::openai_stream(&pieces)]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let err = error_of(&events);
    assert!(
        matches!(err, LlmError::TooLarge { limit_bytes, .. } if *limit_bytes == 16 * 1024 * 1024),
        "{err:?}"
    );
    assert!(err.to_string().contains("passed 16 MB; stopped"), "{err}");
    let (complete, text) = done_of(&events);
    assert!(!complete);
    assert!(text.len() <= 16 * 1024 * 1024, "{}", text.len());
}

#[tokio::test]
async fn a_reply_trickling_past_the_overall_deadline_is_stopped() {
    // Every piece comes well within the idle timeout, but the whole reply
    // would take minutes.
    let pieces = vec!["x"; 10_000];
    let server = FakeServer::start([
        FakeReply::openai_stream(&pieces).piece_delay(Duration::from_millis(20))
    ]);
    let mut c = config(Provider::OpenAi, &server);
    c.reply_timeout = Duration::from_millis(500);
    let events = run(&client(c)).await;
    assert!(
        matches!(
            error_of(&events),
            LlmError::Timeout {
                phase: TimeoutPhase::WholeReply,
                ..
            }
        ),
        "{:?}",
        error_of(&events)
    );
    assert!(error_of(&events).to_string().contains("reply_timeout_secs"));
    assert!(!done_of(&events).0);
}

#[tokio::test]
async fn a_stream_closed_in_the_middle_of_an_event_is_a_cut_not_garbage() {
    let good = r#"data: {"choices":[{"delta":{"content":"Hel"}}]}"#;
    let server = FakeServer::start([FakeReply::event_stream([
        format!("{good}\n\n"),
        r#"data: {"choices":[{"delta":{"cont"#.to_string(),
    ])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let err = error_of(&events);
    assert!(
        matches!(err, LlmError::StreamCut { received_chars: 3 }),
        "{err:?}"
    );
    assert!(err.to_string().contains("connection closed"), "{err}");
    assert_eq!(done_of(&events), (false, "Hel"));
}

#[tokio::test]
async fn a_complete_last_event_without_its_blank_line_is_still_read() {
    // The server closes right after the final line: nothing was cut.
    let server = FakeServer::start([FakeReply::event_stream([
        "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
            .to_string(),
        "data: [DONE]".to_string(),
    ])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert_eq!(done_of(&events), (true, "ok"));
}

#[tokio::test]
async fn slow_first_byte_times_out() {
    let server = FakeServer::start([
        FakeReply::openai_stream(&["late"]).first_byte_delay(Duration::from_secs(5))
    ]);
    let mut c = config(Provider::OpenAi, &server);
    c.timeout = Duration::from_millis(200);
    let events = run(&client(c)).await;
    assert!(matches!(
        error_of(&events),
        LlmError::Timeout {
            phase: TimeoutPhase::FirstByte,
            ..
        }
    ));
    assert_eq!(done_of(&events), (false, ""));
}

#[tokio::test]
async fn a_stalled_stream_times_out_and_keeps_its_text() {
    // One timeout covers the first byte and each later piece: on a busy
    // machine the pieces before the stall may miss a short one. Such a run
    // says nothing about the stall, so it is tried again with a longer one.
    let mut timeout = Duration::from_millis(300);
    let events = loop {
        let server = FakeServer::start([FakeReply::anthropic_stream(&["partial"]).stall_after(4)]);
        let mut c = config(Provider::Anthropic, &server);
        c.timeout = timeout;
        let events = run(&client(c)).await;
        if deltas(&events) == ["partial"] {
            break events;
        }
        assert!(
            timeout < Duration::from_secs(20),
            "the pieces before the stall never arrived: {events:?}"
        );
        timeout *= 2;
    };
    assert!(
        matches!(
            error_of(&events),
            LlmError::Timeout {
                phase: TimeoutPhase::Idle,
                after,
                ..
            } if *after == timeout
        ),
        "{events:?}"
    );
    assert_eq!(done_of(&events), (false, "partial"));
}

#[tokio::test]
async fn unauthorized_names_the_key_variable_and_never_the_key() {
    let server = FakeServer::start([FakeReply::error(
        401,
        "invalid_request_error",
        &format!("Incorrect API key provided: {KEY}"),
    )]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    let err = error_of(&events);
    assert!(matches!(err, LlmError::Unauthorized { status: 401, .. }));
    let shown = format!("{err} / {err:?}");
    assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(!shown.contains("0123456789abcdef"), "{shown}");
}

#[tokio::test]
async fn forbidden_is_reported_as_a_permission_problem() {
    let server = FakeServer::start([FakeReply::error(403, "permission_error", "no access")]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    let shown = error_of(&events).to_string();
    assert!(shown.contains("403"), "{shown}");
    assert!(shown.contains("ANTHROPIC_API_KEY"), "{shown}");
}

#[tokio::test]
async fn not_found_names_the_model_and_the_url() {
    let server = FakeServer::start([FakeReply::error(
        404,
        "not_found_error",
        "model: test-model",
    )]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    let shown = error_of(&events).to_string();
    assert!(shown.contains("`test-model`"), "{shown}");
    assert!(
        shown.contains(&format!("{}/v1/messages", server.url())),
        "{shown}"
    );
    assert_eq!(server.requests().len(), 1, "404 is not retried");
}

#[tokio::test]
async fn an_unknown_ollama_model_suggests_pulling_it() {
    let server = FakeServer::start([FakeReply::json(
        404,
        serde_json::json!({"error": {"message": "model \"test-model\" not found, try pulling it first"}}),
    )]);
    let events = run(&client(config(Provider::Ollama, &server))).await;
    let shown = error_of(&events).to_string();
    assert!(shown.contains("not found, try pulling it first"), "{shown}");
    assert!(shown.contains("ollama pull test-model"), "{shown}");
}

#[tokio::test]
async fn connection_refused_names_the_url_and_suggests_starting_ollama() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut c = LlmConfig::for_provider(Provider::Ollama);
    c.base_url = format!("http://127.0.0.1:{port}/v1");
    let events = run(&client(c)).await;
    let err = error_of(&events);
    assert!(matches!(err, LlmError::ConnectionRefused { .. }), "{err:?}");
    let shown = err.to_string();
    assert!(
        shown.contains(&format!("127.0.0.1:{port}/v1/chat/completions")),
        "{shown}"
    );
    assert!(shown.contains("ollama serve"), "{shown}");
    // Ollama is what runs when nothing is configured, so someone who never
    // chose it learns how to use a hosted model instead.
    assert!(
        shown.contains("MEMBANK_PROVIDER") && shown.contains("docs/llm.md"),
        "{shown}"
    );
}

#[tokio::test]
async fn provider_error_event_mid_stream_keeps_the_text() {
    let server = FakeServer::start([FakeReply::event_stream([
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Half\"}}\n\n",
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    ])]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    let shown = error_of(&events).to_string();
    assert!(
        shown.contains("overloaded_error") && shown.contains("Overloaded"),
        "{shown}"
    );
    assert_eq!(done_of(&events), (false, "Half"));
}

#[tokio::test]
async fn reaching_the_output_limit_marks_the_reply_incomplete() {
    let server = FakeServer::start([FakeReply::event_stream([
        "data: {\"choices\":[{\"delta\":{\"content\":\"Trunc\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
        "data: [DONE]\n\n",
    ])]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert!(matches!(
        error_of(&events),
        LlmError::OutputLimit { max_tokens: 4096 }
    ));
    assert_eq!(done_of(&events), (false, "Trunc"));
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_still_works() {
    let server = FakeServer::start([FakeReply::json(
        200,
        serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "whole"}}]}),
    )]);
    let events = run(&client(config(Provider::Ollama, &server))).await;
    assert_eq!(done_of(&events), (true, "whole"));
}

#[tokio::test]
async fn cancelling_stops_promptly_and_keeps_the_text() {
    // Sends role + "first", then goes silent for far longer than the test.
    let server = FakeServer::start([FakeReply::openai_stream(&["first", "never"]).stall_after(2)]);
    let client = client(config(Provider::OpenAi, &server));
    let cancel = CancelHandle::new();
    let mut rx = client.stream(ChatRequest::new("", "hi"), cancel.clone());
    assert_eq!(rx.recv().await, Some(StreamEvent::Delta("first".into())));
    cancel.cancel();
    let rest: Vec<StreamEvent> = {
        let mut v = Vec::new();
        while let Some(e) = rx.recv().await {
            v.push(e);
        }
        v
    };
    assert_eq!(
        rest,
        [StreamEvent::Done {
            complete: false,
            text: "first".into()
        }]
    );
}

/// A worker whose messages arrive on a channel, as a UI loop's own input
/// channel would receive them.
fn worker() -> (LlmWorker, std::sync::mpsc::Receiver<WorkerMessage>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = LlmWorker::new(move |m| {
        let _ = tx.send(m);
    })
    .unwrap();
    (worker, rx)
}

fn next(rx: &std::sync::mpsc::Receiver<WorkerMessage>) -> WorkerMessage {
    rx.recv_timeout(Duration::from_secs(10)).expect("a message")
}

#[test]
fn worker_tags_messages_with_job_ids_and_can_cancel() {
    let server = FakeServer::start([
        FakeReply::openai_stream(&["one"]),
        FakeReply::openai_stream(&["two"]).stall_after(2),
    ]);
    let client = client(config(Provider::OpenAi, &server));
    let (mut worker, rx) = worker();

    let first = worker.submit(&client, ChatRequest::new("", "a"));
    let connected = next(&rx);
    assert_eq!(connected.job, first);
    assert!(
        matches!(connected.event, JobEvent::Connected { ref model } if model.starts_with("openai"))
    );
    let mut first_done = None;
    while first_done.is_none() {
        let msg = next(&rx);
        assert_eq!(msg.job, first);
        if let JobEvent::Stream(StreamEvent::Done { complete, text }) = msg.event {
            first_done = Some((complete, text));
        }
    }
    assert_eq!(first_done, Some((true, "one".to_string())));
    assert!(!worker.is_running(first));

    let second = worker.submit(&client, ChatRequest::new("", "b"));
    assert_ne!(first, second);
    assert!(matches!(next(&rx).event, JobEvent::Connected { .. }));
    let msg = next(&rx);
    assert_eq!(
        (msg.job, msg.event),
        (second, JobEvent::Stream(StreamEvent::Delta("two".into())))
    );
    assert!(worker.cancel(second));
    let msg = next(&rx);
    assert_eq!(
        (msg.job, msg.event),
        (
            second,
            JobEvent::Stream(StreamEvent::Done {
                complete: false,
                text: "two".into()
            })
        )
    );
    assert_eq!(worker.running_jobs(), 0);
}

#[test]
fn a_job_that_cannot_connect_ends_with_its_own_error() {
    let (mut worker, rx) = worker();
    let job = worker.submit_with(
        || Err(LlmError::Config("no provider".into())),
        Some(ChatRequest::new("", "q")),
    );
    let error = next(&rx);
    assert_eq!(error.job, job);
    assert!(
        matches!(&error.event, JobEvent::Stream(StreamEvent::Error(LlmError::Config(m))) if m == "no provider")
    );
    let done = next(&rx);
    assert!(done.is_done());
    assert!(!worker.is_running(job));
    // A check of the configuration alone: connects and ends.
    let server = FakeServer::start(Vec::<FakeReply>::new());
    let c = client(config(Provider::OpenAi, &server));
    let check = worker.submit_with(move || Ok(c), None);
    assert!(matches!(next(&rx).event, JobEvent::Connected { .. }));
    let done = next(&rx);
    assert_eq!(
        (done.job, done.event),
        (
            check,
            JobEvent::Stream(StreamEvent::Done {
                complete: true,
                text: String::new()
            })
        )
    );
    assert_eq!(server.requests().len(), 0);
}

#[test]
fn debug_output_of_a_client_never_shows_the_key() {
    let c = LlmClient::with_key(
        LlmConfig::for_provider(Provider::OpenAi),
        Some(ApiKey::new(KEY)),
    )
    .unwrap();
    let shown = format!("{c:?}");
    assert!(!shown.contains(KEY), "{shown}");
}

#[tokio::test]
async fn an_overload_reported_in_the_stream_before_any_text_is_retried() {
    let server = FakeServer::start([
        FakeReply::event_stream([
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
        ]),
        FakeReply::anthropic_stream(&["recovered"]),
    ]);
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    assert!(matches!(
        &events[0],
        StreamEvent::Retrying { attempt: 1, reason, .. } if reason.contains("overloaded_error")
    ));
    assert_eq!(done_of(&events), (true, "recovered"));
}

#[tokio::test]
async fn complete_collects_the_text_or_reports_why_not() {
    let server = FakeServer::start([
        FakeReply::anthropic_stream(&["a", "b"]),
        FakeReply::anthropic_stream(&["a", "b"]).cut_after(5),
    ]);
    let client = client(config(Provider::Anthropic, &server));
    let request = ChatRequest::new("", "q");
    let cancel = CancelHandle::new();
    assert_eq!(client.complete(&request, &cancel).await.unwrap(), "ab");
    assert!(matches!(
        client.complete(&request, &cancel).await,
        Err(LlmError::StreamCut { .. })
    ));
}

#[tokio::test]
async fn a_finished_reply_whose_end_marker_is_lost_is_complete() {
    // OpenAI: role, "done", finish_reason stop, then the connection drops before [DONE].
    // Anthropic: everything up to message_delta (end_turn), then no message_stop.
    let server = FakeServer::start([
        FakeReply::openai_stream(&["done"]).cut_after(3),
        FakeReply::anthropic_stream(&["done"]).cut_after(6),
    ]);
    let events = run(&client(config(Provider::OpenAi, &server))).await;
    assert_eq!(done_of(&events), (true, "done"));
    let events = run(&client(config(Provider::Anthropic, &server))).await;
    assert_eq!(done_of(&events), (true, "done"));
}

#[test]
fn worker_runs_jobs_side_by_side_and_keeps_their_messages_apart() {
    let server = FakeServer::start([
        FakeReply::openai_stream(&["slow"]).stall_after(2),
        FakeReply::openai_stream(&["quick"]),
    ]);
    let client = client(config(Provider::OpenAi, &server));
    let (mut worker, rx) = worker();
    let next_stream = || loop {
        let m = next(&rx);
        if let JobEvent::Stream(e) = m.event {
            return (m.job, e);
        }
    };
    let slow = worker.submit(&client, ChatRequest::new("", "a"));
    // The first connection takes the stalling reply; wait until it has started.
    assert_eq!(next_stream(), (slow, StreamEvent::Delta("slow".into())));
    let quick = worker.submit(&client, ChatRequest::new("", "b"));
    let mut quick_events = Vec::new();
    while !matches!(quick_events.last(), Some(StreamEvent::Done { .. })) {
        let (job, event) = next_stream();
        assert_eq!(job, quick, "only the quick job has anything to say");
        quick_events.push(event);
    }
    assert_eq!(done_of(&quick_events), (true, "quick"));
    assert!(worker.is_running(slow));
    assert!(!worker.is_running(quick));
    worker.cancel(slow);
    let (job, event) = next_stream();
    assert_eq!(job, slow);
    assert!(matches!(
        event,
        StreamEvent::Done {
            complete: false,
            ..
        }
    ));
}

/// A key not shaped like any known key, so only exact redaction hides it.
const PLAIN_KEY: &str = "zq9Plain4711Secret";

#[tokio::test]
async fn a_server_echoing_the_key_in_a_non_event_body_does_not_leak_it() {
    let server = FakeServer::start([FakeReply::event_stream([format!(
        "<html><body>bad gateway; you sent {PLAIN_KEY}</body></html>\n"
    )])]);
    let mut config = config(Provider::OpenAi, &server);
    config.max_retries = 0;
    let client = LlmClient::with_key(config, Some(ApiKey::new(PLAIN_KEY))).unwrap();
    let events = run(&client).await;
    let err = error_of(&events);
    assert!(matches!(err, LlmError::MalformedStream(_)), "{err:?}");
    assert!(!err.to_string().contains(PLAIN_KEY), "{err}");
    assert!(err.to_string().contains("[redacted]"), "{err}");
}

#[tokio::test]
async fn a_key_in_the_base_url_query_is_sent_after_the_path_and_never_shown() {
    let server = FakeServer::start([
        FakeReply::text(500, &format!("upstream failed for api-key={PLAIN_KEY}")),
        FakeReply::openai_stream(&["ok"]),
    ]);
    let mut config = config(Provider::OpenAi, &server);
    config.base_url = format!("{}?api-key={PLAIN_KEY}", server.openai_base_url());
    config.max_retries = 0;
    assert!(
        !config.summary().contains(PLAIN_KEY),
        "{}",
        config.summary()
    );
    let client = LlmClient::with_key(config, None).unwrap();
    assert!(
        client
            .endpoint()
            .ends_with(&format!("/v1/chat/completions?api-key={PLAIN_KEY}")),
        "{}",
        client.endpoint()
    );
    let events = run(&client).await;
    let err = error_of(&events);
    assert!(!err.to_string().contains(PLAIN_KEY), "{err}");
    assert!(err.to_string().contains("api-key=***"), "{err}");
    let requests = server.requests();
    assert_eq!(
        requests[0].path,
        format!("/v1/chat/completions?api-key={PLAIN_KEY}")
    );
}

#[tokio::test]
async fn retry_messages_never_show_the_key() {
    // Each retried failure echoes the key: as a status body, as a JSON
    // error, and as an overload reported inside the stream.
    let server = FakeServer::start([
        FakeReply::text(503, &format!("upstream busy for key {PLAIN_KEY}")),
        FakeReply::error(429, "rate_limit_error", &format!("slow down, {PLAIN_KEY}")),
        FakeReply::event_stream([format!(
            "event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded for {PLAIN_KEY}\"}}}}\n\n"
        )]),
        FakeReply::anthropic_stream(&["ok"]),
    ]);
    let mut config = config(Provider::Anthropic, &server);
    config.max_retries = 3;
    let client = LlmClient::with_key(config, Some(ApiKey::new(PLAIN_KEY))).unwrap();
    let events = run(&client).await;
    let reasons: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying { reason, .. } => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 3, "{events:?}");
    for reason in reasons {
        assert!(!reason.contains(PLAIN_KEY), "{reason}");
        assert!(reason.contains("[redacted]"), "{reason}");
    }
    assert_eq!(done_of(&events), (true, "ok"));
}
