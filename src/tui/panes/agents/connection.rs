//! The model connection: the worker that runs model calls off the UI
//! thread, and what is known about the model. Each call is a job with its
//! id from the start; the job reads the configuration (and the key) itself,
//! once, and its messages arrive in the app's own event channel.

use std::sync::{Arc, Mutex};

use membank_core::text::sanitize_for_terminal;
use membank_llm::worker::Sink;
use membank_llm::{
    ChatRequest, JobEvent, JobId, LlmClient, LlmConfig, LlmError, LlmWorker, StreamEvent,
    WorkerMessage,
};

/// What to do when no model can be used; shown in every agent pane.
pub const SETUP_HINT: &str = "Set MEMBANK_PROVIDER (openai, anthropic or ollama), MEMBANK_MODEL \
     and the key (OPENAI_API_KEY or ANTHROPIC_API_KEY), or an [llm] table in membank/config.toml \
     — see docs/llm.md. Everything else keeps working without a model.";

/// The client, made by the first job that needs one and shared with the
/// later ones, so the configuration is read and a key command run once.
type SharedClient = Arc<Mutex<Option<LlmClient>>>;

#[derive(Default)]
pub struct ModelConnection {
    worker: Option<LlmWorker>,
    /// Where the worker's messages go: the app's event channel.
    sink: Option<Sink>,
    client: SharedClient,
    /// The model a job connected to (sanitised).
    model: Option<String>,
    /// The client was given (`use_client`), not made from the configuration.
    given: bool,
    /// Nothing is configured: the model connected to is only the fallback.
    guessed: bool,
    /// Why the last job could not connect (sanitised).
    problem: Option<String>,
    /// A configuration check already asked for.
    checked: bool,
    /// Jobs that have their client and have not ended.
    connected: Vec<JobId>,
}

impl ModelConnection {
    /// Send the worker's messages here (the runner's event channel, or a
    /// test's).
    pub fn set_sink(&mut self, sink: impl Fn(WorkerMessage) + Send + Sync + 'static) {
        self.sink = Some(Arc::new(sink));
    }

    /// Use this client instead of the configured one.
    pub fn use_client(&mut self, client: LlmClient) {
        self.model = Some(sanitize_for_terminal(&client.config().summary(), false));
        *self.client.lock().unwrap_or_else(|e| e.into_inner()) = Some(client);
        self.problem = None;
        self.given = true;
        self.guessed = false;
    }

    /// Nothing is configured, so the model named is only the fallback
    /// (a local Ollama) and may not exist.
    pub fn is_guess(&self) -> bool {
        self.guessed && self.problem.is_none()
    }

    /// The model in use, or why there is none; `None` before any job said.
    pub fn describe(&self) -> Option<Result<String, String>> {
        if let Some(p) = &self.problem {
            return Some(Err(p.clone()));
        }
        self.model.clone().map(Ok)
    }

    fn worker(&mut self) -> Result<&mut LlmWorker, String> {
        if self.worker.is_none() {
            let sink = self
                .sink
                .clone()
                .ok_or_else(|| "the interface is not listening for replies".to_owned())?;
            let worker = LlmWorker::new(move |m| sink(m))
                .map_err(|e| sanitize_for_terminal(&e.to_string(), false))?;
            self.worker = Some(worker);
        }
        Ok(self.worker.as_mut().expect("worker was just made"))
    }

    /// The job's first step: the shared client, or a new one from the
    /// configuration.
    fn connect(client: SharedClient) -> impl FnOnce() -> Result<LlmClient, LlmError> + Send {
        move || {
            let mut shared = client.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(c) = shared.as_ref() {
                return Ok(c.clone());
            }
            let made = LlmConfig::load().and_then(LlmClient::new)?;
            *shared = Some(made.clone());
            Ok(made)
        }
    }

    /// Check the configuration ahead, once, so the pane can say at once
    /// whether a model can be used.
    pub fn check_ahead(&mut self) {
        // Nothing to learn when a job already said, or a client was given.
        if self.checked || self.sink.is_none() || self.describe().is_some() {
            return;
        }
        self.checked = true;
        let connect = Self::connect(self.client.clone());
        if let Ok(worker) = self.worker() {
            worker.submit_with(connect, None);
        }
    }

    /// Start a call; never waits. The id is the job's from now on.
    pub fn submit(&mut self, request: ChatRequest) -> Result<JobId, String> {
        let connect = Self::connect(self.client.clone());
        Ok(self.worker()?.submit_with(connect, Some(request)))
    }

    pub fn cancel(&mut self, job: JobId) {
        if let Some(w) = &self.worker {
            w.cancel(job);
        }
    }

    /// Learn from a job's message what model is in use, or why none is.
    /// Returns the "no model" reason when this message says connecting failed.
    pub fn note(&mut self, message: &WorkerMessage) -> Option<String> {
        let job = message.job;
        match &message.event {
            JobEvent::Connected { model } => {
                self.model = Some(sanitize_for_terminal(model, false));
                // Once per connection, not per drawing: it looks at the
                // environment and whether the config file exists.
                self.guessed = !self.given
                    && !membank_llm::config::anything_configured(
                        &membank_llm::config::process_env,
                        membank_llm::config::config_file_path().is_some_and(|p| {
                            matches!(membank_llm::config::read_config_file(&p), Ok(Some(_)))
                        }),
                    );
                self.problem = None;
                self.connected.push(job);
                None
            }
            JobEvent::Stream(StreamEvent::Error(e)) if !self.connected.contains(&job) => {
                let why = sanitize_for_terminal(&format!("No model can be used: {e}."), false);
                self.problem = Some(why.clone());
                Some(why)
            }
            JobEvent::Stream(StreamEvent::Done { .. }) => {
                self.connected.retain(|j| *j != job);
                None
            }
            JobEvent::Stream(_) => None,
        }
    }
}
