//! The connection to the model: the client, read from the configuration
//! the first time an agent runs, and the worker that runs the calls off the
//! UI thread.

use std::time::Duration;

use membank_core::text::sanitize_for_terminal;
use membank_llm::worker::Waker;
use membank_llm::{ChatRequest, JobId, LlmClient, LlmConfig, LlmWorker, WorkerMessage};

/// What to do when no model can be used; shown in every agent pane.
pub const SETUP_HINT: &str = "Set MEMBANK_PROVIDER (openai, anthropic or ollama), MEMBANK_MODEL \
     and the key (OPENAI_API_KEY or ANTHROPIC_API_KEY), or an [llm] table in membank/config.toml \
     — see docs/llm.md. Everything else keeps working without a model.";

#[derive(Default)]
pub struct LlmLink {
    client: Option<LlmClient>,
    /// Why no client could be made (sanitised).
    problem: Option<String>,
    worker: Option<LlmWorker>,
    waker: Option<Waker>,
}

impl LlmLink {
    /// Called after each worker message; the event loop uses it to wake up.
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = Some(waker);
    }

    /// Use this client instead of the configured one.
    pub fn use_client(&mut self, client: LlmClient) {
        self.client = Some(client);
        self.problem = None;
    }

    /// The model in use, or why there is none; `None` before the first try.
    pub fn describe(&self) -> Option<Result<String, String>> {
        if let Some(c) = &self.client {
            return Some(Ok(sanitize_for_terminal(&c.config().summary(), false)));
        }
        self.problem.clone().map(Err)
    }

    fn client(&mut self) -> Result<LlmClient, String> {
        if let Some(c) = &self.client {
            return Ok(c.clone());
        }
        // Read once: a key command may take a moment, and its result holds
        // for the session.
        let made = LlmConfig::load().and_then(LlmClient::new);
        match made {
            Ok(c) => {
                self.client = Some(c.clone());
                self.problem = None;
                Ok(c)
            }
            Err(e) => {
                let msg = sanitize_for_terminal(&format!("No model can be used: {e}."), false);
                self.problem = Some(msg.clone());
                Err(msg)
            }
        }
    }

    /// Start a call; returns at once.
    pub fn submit(&mut self, request: ChatRequest) -> Result<JobId, String> {
        let client = self.client()?;
        if self.worker.is_none() {
            let worker = match &self.waker {
                Some(w) => LlmWorker::with_waker(w.clone()),
                None => LlmWorker::new(),
            };
            self.worker = Some(worker.map_err(|e| sanitize_for_terminal(&e.to_string(), false))?);
        }
        let worker = self.worker.as_mut().expect("worker was just made");
        Ok(worker.submit(&client, request))
    }

    pub fn cancel(&mut self, job: JobId) {
        if let Some(w) = &mut self.worker {
            w.cancel(job);
        }
    }

    /// Every message waiting now; never blocks.
    pub fn poll(&mut self) -> Vec<WorkerMessage> {
        let Some(w) = &mut self.worker else {
            return Vec::new();
        };
        std::iter::from_fn(|| w.try_recv()).collect()
    }

    /// Wait for the next message (tests drive the app with this).
    pub fn wait(&mut self, timeout: Duration) -> Option<WorkerMessage> {
        self.worker.as_mut()?.recv_timeout(timeout)
    }
}
