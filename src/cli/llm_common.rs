//! What the LLM-backed subcommands share: the provider connection from the
//! config file and environment, the agent templates, and streaming a reply
//! to the terminal.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context as _;
use membank_core::bank::Bank;
use membank_core::templates::{self, Agent};
use membank_core::text::sanitize_for_terminal;
use membank_llm::{ChatRequest, LlmClient, LlmConfig, Reply, StreamEvent};

/// The configured provider, with its key looked up now so that a missing
/// key is reported before any work is done.
pub fn client() -> anyhow::Result<LlmClient> {
    let config = LlmConfig::load()?;
    Ok(LlmClient::new(config)?)
}

/// The template an agent uses: the bank's override, else the bundled copy
/// (spec §13). A warning is printed when an override exists but is unusable.
pub fn template(bank: &Bank, agent: Agent) -> String {
    let template = templates::resolve_with(bank.reader(), agent);
    if let Some(warning) = &template.warning {
        eprintln!(
            "membank: warning: {}",
            sanitize_for_terminal(warning, false)
        );
    }
    template.text
}

/// Runs one request, printing the reply to stdout as it arrives when
/// `echo` is set; retries and errors go to stderr.
pub fn run(client: &LlmClient, request: &ChatRequest, echo: bool) -> anyhow::Result<Reply> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the network runtime")?;
    let cancel = membank_llm::CancelHandle::new();
    // The handle, not a lock: the callback must be `Send`.
    let mut stdout = std::io::stdout();
    let reply = runtime.block_on(client.chat(request, &cancel, &mut |event| match event {
        StreamEvent::Delta(piece) => {
            if echo {
                let _ = write!(stdout, "{}", sanitize_for_terminal(&piece, true));
                let _ = stdout.flush();
            }
        }
        StreamEvent::Retrying {
            attempt,
            wait,
            reason,
        } => eprintln!(
            "membank: retry {attempt} in {:.1}s: {}",
            wait.as_secs_f32(),
            sanitize_for_terminal(&reason, false)
        ),
        StreamEvent::Error(e) => {
            if echo {
                let _ = writeln!(stdout);
            }
            eprintln!("membank: {}", sanitize_for_terminal(&e.to_string(), false));
        }
        StreamEvent::Done { complete, text } => {
            if echo && !text.is_empty() && !text.ends_with('\n') {
                let _ = writeln!(stdout);
            }
            if echo && !complete && !text.is_empty() {
                eprintln!("membank: the reply above is incomplete");
            }
        }
    }));
    Ok(reply)
}

/// 0 for a complete reply, 1 for an incomplete or failed one.
pub fn exit_code(reply: &Reply) -> ExitCode {
    if reply.complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// One line naming the provider, for stderr.
pub fn describe_provider(client: &LlmClient) -> String {
    sanitize_for_terminal(&client.config().summary(), false)
}
