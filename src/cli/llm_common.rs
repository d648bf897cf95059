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

/// Where a streamed reply is shown while it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// The reply is the command's output.
    Stdout,
    /// The reply is shown for information; the output is something else.
    Stderr,
    /// Only a running count of characters, on stderr.
    Counter,
    Nothing,
}

/// The one way the commands run a request: the reply shown as `echo` says,
/// retries and errors on stderr, each on its own line.
pub fn run(client: &LlmClient, request: &ChatRequest, echo: Echo) -> anyhow::Result<Reply> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the network runtime")?;
    let cancel = membank_llm::CancelHandle::new();
    tracing::info!(model = %client.config().summary(), "model call");
    // Handles, not locks: the callback must be `Send`.
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    // A reply that is the output goes into a pipe or a file exactly as it
    // came (`lint --llm | blocks --apply` writes what the model wrote, and
    // refuses what it would refuse); only a terminal gets it sanitised.
    let exact_stdout = {
        use std::io::IsTerminal as _;
        echo == Echo::Stdout && !stdout.is_terminal()
    };
    let mut received = 0usize;
    let mut stdout_failed: Option<std::io::Error> = None;
    // Text or a counter is on the current line of this stream.
    let mut open_line = false;
    let note = |open_line: &mut bool, text: String| {
        if std::mem::take(open_line) {
            let _ = match echo {
                Echo::Stdout => writeln!(std::io::stdout()),
                _ => writeln!(std::io::stderr()),
            };
        }
        eprintln!("membank: {}", sanitize_for_terminal(&text, false));
    };
    let reply = runtime.block_on(client.chat(request, &cancel, &mut |event| match event {
        StreamEvent::Delta(piece) => {
            received += piece.chars().count();
            let shown = if exact_stdout {
                piece
            } else {
                sanitize_for_terminal(&piece, true)
            };
            let written = match echo {
                Echo::Stdout => write!(stdout, "{shown}").and_then(|()| stdout.flush()),
                Echo::Stderr => write!(stderr, "{shown}"),
                Echo::Counter => write!(
                    stderr,
                    "\rmembank: receiving the reply: {received} characters"
                ),
                Echo::Nothing => Ok(()),
            };
            // The reply is the command's output: losing it is an error.
            if let (Echo::Stdout, Err(e)) = (echo, written) {
                stdout_failed.get_or_insert(e);
            }
            open_line = echo != Echo::Nothing && !(echo != Echo::Counter && shown.ends_with('\n'));
        }
        StreamEvent::Retrying {
            attempt,
            wait,
            reason,
        } => {
            let text = StreamEvent::retry_text(attempt, wait, &reason);
            tracing::warn!("{text}");
            note(&mut open_line, text);
        }
        StreamEvent::Error(e) => {
            tracing::warn!(error = %e, "model call failed");
            note(&mut open_line, e.to_string());
        }
        StreamEvent::Done { complete, text } => {
            tracing::info!(complete, chars = text.chars().count(), "model call done");
            if std::mem::take(&mut open_line) {
                let _ = match echo {
                    Echo::Stdout => writeln!(stdout),
                    _ => writeln!(stderr),
                };
            }
            if echo == Echo::Stdout && !complete && !text.is_empty() {
                eprintln!("membank: the reply above is incomplete");
            }
        }
    }));
    if let Some(e) = stdout_failed {
        return Err(super::common::stdout_error(e));
    }
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
