//! The connection to the model: the client, read from the configuration
//! the first time an agent runs, and the worker that runs the calls off the
//! UI thread.

use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use membank_core::text::sanitize_for_terminal;
use membank_llm::worker::Waker;
use membank_llm::{ChatRequest, JobId, LlmClient, LlmConfig, LlmWorker, WorkerMessage};

/// What to do when no model can be used; shown in every agent pane.
pub const SETUP_HINT: &str = "Set MEMBANK_PROVIDER (openai, anthropic or ollama), MEMBANK_MODEL \
     and the key (OPENAI_API_KEY or ANTHROPIC_API_KEY), or an [llm] table in membank/config.toml \
     — see docs/llm.md. Everything else keeps working without a model.";

/// What the link reports to the pane.
#[derive(Debug)]
pub enum ConnectionEvent {
    /// The model configuration was read; the queued call has started.
    Started(JobId),
    /// No call can be made; why (sanitised).
    Failed(String),
    /// The configuration was read ahead of any call (see `prepare`).
    Checked,
    Worker(WorkerMessage),
}

/// What became of a submitted call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    Started(JobId),
    /// Waiting for the configuration (and the key) to be read; a
    /// `ConnectionEvent` follows.
    Resolving,
}

type Resolved = Result<LlmClient, String>;

#[derive(Default)]
pub struct ModelConnection {
    client: Option<LlmClient>,
    /// Why no client could be made (sanitised).
    problem: Option<String>,
    worker: Option<LlmWorker>,
    waker: Option<Waker>,
    /// The configuration being read off the UI thread: an
    /// `api_key_command` may take its time.
    resolving: Option<Receiver<Resolved>>,
    /// The call to start once the client is there.
    queued: Option<ChatRequest>,
}

impl ModelConnection {
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

    fn start_resolving(&mut self) {
        if self.resolving.is_some() {
            return;
        }
        let (tx, rx) = mpsc::channel();
        let waker = self.waker.clone();
        let spawned = std::thread::Builder::new()
            .name("membank-llm-config".into())
            .spawn(move || {
                let made = LlmConfig::load().and_then(LlmClient::new).map_err(|e| {
                    sanitize_for_terminal(&format!("No model can be used: {e}."), false)
                });
                let _ = tx.send(made);
                if let Some(wake) = waker {
                    wake();
                }
            });
        if spawned.is_ok() {
            self.resolving = Some(rx);
        }
    }

    /// Read the configuration ahead, so the pane can say at once whether a
    /// model can be used. Only with a waker: without one nobody would hear
    /// the result.
    pub fn prepare(&mut self) {
        if self.waker.is_some() && self.client.is_none() && self.problem.is_none() {
            self.start_resolving();
        }
    }

    /// Start a call; never waits. Without a client yet, the configuration
    /// is read on another thread and the call starts when it is there.
    pub fn submit(&mut self, request: ChatRequest) -> Result<Submitted, String> {
        if let Some(client) = self.client.clone() {
            return self.start(&client, request).map(Submitted::Started);
        }
        self.queued = Some(request);
        self.start_resolving();
        if self.resolving.is_none() {
            self.queued = None;
            return Err("could not start reading the model configuration".into());
        }
        Ok(Submitted::Resolving)
    }

    fn start(&mut self, client: &LlmClient, request: ChatRequest) -> Result<JobId, String> {
        if self.worker.is_none() {
            let worker = match &self.waker {
                Some(w) => LlmWorker::with_waker(w.clone()),
                None => LlmWorker::new(),
            };
            self.worker = Some(worker.map_err(|e| sanitize_for_terminal(&e.to_string(), false))?);
        }
        let worker = self.worker.as_mut().expect("worker was just made");
        Ok(worker.submit(client, request))
    }

    /// Forget a call still waiting for the configuration.
    pub fn drop_queued(&mut self) {
        self.queued = None;
    }

    pub fn cancel(&mut self, job: JobId) {
        if let Some(w) = &mut self.worker {
            w.cancel(job);
        }
    }

    fn poll_resolving(&mut self) -> Option<ConnectionEvent> {
        let resolved = match self.resolving.as_ref()?.try_recv() {
            Ok(r) => r,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => {
                Err("reading the model configuration failed".to_owned())
            }
        };
        self.resolving = None;
        match resolved {
            Ok(client) => {
                self.client = Some(client.clone());
                self.problem = None;
                let Some(request) = self.queued.take() else {
                    return Some(ConnectionEvent::Checked);
                };
                Some(match self.start(&client, request) {
                    Ok(job) => ConnectionEvent::Started(job),
                    Err(e) => ConnectionEvent::Failed(e),
                })
            }
            Err(e) => {
                self.problem = Some(e.clone());
                Some(match self.queued.take() {
                    Some(_) => ConnectionEvent::Failed(e),
                    None => ConnectionEvent::Checked,
                })
            }
        }
    }

    /// Everything waiting now; never blocks.
    pub fn poll(&mut self) -> Vec<ConnectionEvent> {
        let mut out: Vec<ConnectionEvent> = self.poll_resolving().into_iter().collect();
        if let Some(w) = &mut self.worker {
            out.extend(std::iter::from_fn(|| w.try_recv()).map(ConnectionEvent::Worker));
        }
        out
    }

    /// Wait for the next worker message (tests drive the app with this).
    pub fn wait(&mut self, timeout: Duration) -> Option<ConnectionEvent> {
        self.worker
            .as_mut()?
            .recv_timeout(timeout)
            .map(ConnectionEvent::Worker)
    }
}
