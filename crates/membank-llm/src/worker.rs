//! Runs LLM calls for a synchronous UI loop. The worker owns its own Tokio
//! runtime; the UI submits jobs and polls small messages from a
//! `std::sync::mpsc` channel between frames. Each job's task owns its
//! state; nothing mutable is shared between the UI and the tasks.

use std::collections::HashMap;
use std::sync::{Arc, mpsc};
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

/// One event of one job. A job's last message carries `StreamEvent::Done`.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerMessage {
    pub job: JobId,
    pub event: StreamEvent,
}

/// Called after every message is queued, from the worker's thread, so a
/// loop that sleeps on its own channel can wake and call `try_recv`.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

pub struct LlmWorker {
    waker: Option<Waker>,
    runtime: Option<tokio::runtime::Runtime>,
    sender: mpsc::Sender<WorkerMessage>,
    receiver: mpsc::Receiver<WorkerMessage>,
    next_id: u64,
    running: HashMap<JobId, CancelHandle>,
}

impl LlmWorker {
    /// Starts the worker's runtime (one thread: the work is waiting on the network).
    pub fn new() -> Result<LlmWorker, LlmError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("membank-llm")
            .enable_all()
            .build()
            .map_err(|e| LlmError::Config(format!("could not start the network runtime: {e}")))?;
        let (sender, receiver) = mpsc::channel();
        Ok(LlmWorker {
            waker: None,
            runtime: Some(runtime),
            sender,
            receiver,
            next_id: 1,
            running: HashMap::new(),
        })
    }

    /// Like [`LlmWorker::new`], calling `waker` after each message is queued.
    pub fn with_waker(waker: Waker) -> Result<LlmWorker, LlmError> {
        let mut worker = LlmWorker::new()?;
        worker.waker = Some(waker);
        Ok(worker)
    }

    /// Starts a streamed chat call and returns its id at once.
    pub fn submit(&mut self, client: &LlmClient, request: ChatRequest) -> JobId {
        let job = JobId(self.next_id);
        self.next_id += 1;
        let cancel = CancelHandle::new();
        self.running.insert(job, cancel.clone());
        let client = client.clone();
        let sender = self.sender.clone();
        let waker = self.waker.clone();
        if let Some(runtime) = &self.runtime {
            runtime.spawn(async move {
                client
                    .chat(&request, &cancel, &mut |event| {
                        // The UI may have gone away; nothing left to tell then.
                        let _ = sender.send(WorkerMessage { job, event });
                        if let Some(wake) = &waker {
                            wake();
                        }
                    })
                    .await;
            });
        }
        job
    }

    /// Asks a job to stop; its `Done` message still arrives, with the text
    /// received so far. Returns false if the job is not running.
    pub fn cancel(&mut self, job: JobId) -> bool {
        match self.running.get(&job) {
            Some(handle) => {
                handle.cancel();
                true
            }
            None => false,
        }
    }

    pub fn cancel_all(&mut self) {
        for handle in self.running.values() {
            handle.cancel();
        }
    }

    pub fn is_running(&self, job: JobId) -> bool {
        self.running.contains_key(&job)
    }

    pub fn running_jobs(&self) -> usize {
        self.running.len()
    }

    /// The next message if one is waiting; never blocks.
    pub fn try_recv(&mut self) -> Option<WorkerMessage> {
        let message = self.receiver.try_recv().ok()?;
        self.note(&message);
        Some(message)
    }

    /// Waits up to `timeout` for the next message.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<WorkerMessage> {
        let message = self.receiver.recv_timeout(timeout).ok()?;
        self.note(&message);
        Some(message)
    }

    fn note(&mut self, message: &WorkerMessage) {
        if matches!(message.event, StreamEvent::Done { .. }) {
            self.running.remove(&message.job);
        }
    }
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
