//! Runs LLM calls for a synchronous UI loop. The worker owns its own Tokio
//! runtime; each job gets its id when it is submitted, connects (reads the
//! configuration and the key) inside the job, and hands every event to the
//! sink the UI gave, which typically puts it on the UI's own event channel.
//! Each job's task owns its state; only the cancel handles are shared.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::client::{CancelHandle, LlmClient, StreamEvent};
use crate::error::LlmError;
use crate::request::ChatRequest;

/// Identifies one submitted job in the messages it produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// What happened in a job.
#[derive(Debug, Clone, PartialEq)]
pub enum JobEvent {
    /// The job has a client and asks this model (`provider · model ·
    /// endpoint`). Not sent when connecting failed: then the job's events
    /// are an `Error` and `Done`.
    Connected {
        model: String,
    },
    Stream(StreamEvent),
}

/// One event of one job. A job's last message carries `StreamEvent::Done`.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerMessage {
    pub job: JobId,
    pub event: JobEvent,
}

impl WorkerMessage {
    pub fn is_done(&self) -> bool {
        matches!(self.event, JobEvent::Stream(StreamEvent::Done { .. }))
    }
}

/// Where a job's messages go; called from the worker's thread.
pub type Sink = Arc<dyn Fn(WorkerMessage) + Send + Sync>;

type Running = Arc<Mutex<HashMap<JobId, CancelHandle>>>;

pub struct LlmWorker {
    runtime: Option<tokio::runtime::Runtime>,
    sink: Sink,
    next_id: u64,
    running: Running,
}

impl LlmWorker {
    /// Starts the worker's runtime (one thread: the work is waiting on the
    /// network). Every message of every job goes to `sink`.
    pub fn new(
        sink: impl Fn(WorkerMessage) + Send + Sync + 'static,
    ) -> Result<LlmWorker, LlmError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("membank-llm")
            .enable_all()
            .build()
            .map_err(|e| LlmError::Config(format!("could not start the network runtime: {e}")))?;
        Ok(LlmWorker {
            runtime: Some(runtime),
            sink: Arc::new(sink),
            next_id: 1,
            running: Arc::default(),
        })
    }

    /// Starts a streamed chat call with a client in hand; returns its id at once.
    pub fn submit(&mut self, client: &LlmClient, request: ChatRequest) -> JobId {
        let client = client.clone();
        self.submit_with(move || Ok(client), Some(request))
    }

    /// Starts a job that first makes its client with `connect` (off the
    /// async threads: reading a key may run a command), then streams
    /// `request`. Without a request the job only connects: a check of the
    /// configuration. Returns the job's id at once.
    pub fn submit_with<F>(&mut self, connect: F, request: Option<ChatRequest>) -> JobId
    where
        F: FnOnce() -> Result<LlmClient, LlmError> + Send + 'static,
    {
        let job = JobId(self.next_id);
        self.next_id += 1;
        let cancel = CancelHandle::new();
        lock(&self.running).insert(job, cancel.clone());
        let sink = self.sink.clone();
        let running = self.running.clone();
        let Some(runtime) = &self.runtime else {
            return job;
        };
        tracing::info!(job = job.0, chat = request.is_some(), "model job submitted");
        runtime.spawn(async move {
            // The job leaves the running set before its last message, so
            // whoever receives `Done` sees it finished.
            let send = |event: StreamEvent| {
                match &event {
                    StreamEvent::Retrying {
                        attempt,
                        wait,
                        reason,
                    } => tracing::warn!(
                        job = job.0,
                        "{}",
                        StreamEvent::retry_text(*attempt, *wait, reason)
                    ),
                    StreamEvent::Error(e) => {
                        tracing::warn!(job = job.0, error = %e, "model job failed")
                    }
                    StreamEvent::Done { complete, text } => {
                        tracing::info!(
                            job = job.0,
                            complete,
                            chars = text.chars().count(),
                            "model job done"
                        );
                        lock(&running).remove(&job);
                    }
                    StreamEvent::Delta(_) => {}
                }
                sink(WorkerMessage {
                    job,
                    event: JobEvent::Stream(event),
                });
            };
            let connected = tokio::task::spawn_blocking(connect)
                .await
                .unwrap_or_else(|_| {
                    Err(LlmError::Config("reading the configuration failed".into()))
                });
            let client = match connected {
                Ok(client) => client,
                Err(e) => {
                    send(StreamEvent::Error(e));
                    send(StreamEvent::Done {
                        complete: false,
                        text: String::new(),
                    });
                    return;
                }
            };
            let model = client.config().summary();
            tracing::info!(job = job.0, model = %model, "model job connected");
            sink(WorkerMessage {
                job,
                event: JobEvent::Connected { model },
            });
            match request {
                Some(request) => {
                    client
                        .chat(&request, &cancel, &mut |event| send(event))
                        .await;
                }
                None => send(StreamEvent::Done {
                    complete: true,
                    text: String::new(),
                }),
            }
        });
        job
    }

    /// Asks a job to stop; its `Done` message still arrives, with the text
    /// received so far. Returns false if the job is not running.
    pub fn cancel(&self, job: JobId) -> bool {
        match lock(&self.running).get(&job) {
            Some(handle) => {
                tracing::info!(job = job.0, "model job cancelled");
                handle.cancel();
                true
            }
            None => false,
        }
    }

    pub fn cancel_all(&self) {
        for handle in lock(&self.running).values() {
            handle.cancel();
        }
    }

    pub fn is_running(&self, job: JobId) -> bool {
        lock(&self.running).contains_key(&job)
    }

    pub fn running_jobs(&self) -> usize {
        lock(&self.running).len()
    }
}

/// The running set stays usable even if a job panicked while holding it.
fn lock(running: &Running) -> std::sync::MutexGuard<'_, HashMap<JobId, CancelHandle>> {
    running.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for LlmWorker {
    fn drop(&mut self) {
        self.cancel_all();
        if let Some(runtime) = self.runtime.take() {
            // Cancelled calls finish within a poll; do not block the UI's exit on the network.
            runtime.shutdown_timeout(Duration::from_millis(200));
        }
    }
}
