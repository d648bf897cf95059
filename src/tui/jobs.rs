//! Work that leaves the interface's thread: it runs on a named worker
//! thread and comes back as a message through the runner's channel, or,
//! where there is no channel (tests), runs at once so its result can be
//! applied without waiting.

use std::sync::Arc;

use super::messages::Msg;

/// Where a worker's message goes: the runner's event channel.
pub type Sink = Arc<dyn Fn(Msg) + Send + Sync>;

/// What became of a job.
pub enum Ran {
    /// There was no channel: the job ran here; apply its message now.
    Now(Msg),
    /// It runs on a worker thread; its message arrives through the sink.
    Started,
    /// The worker thread could not be started.
    NotStarted(std::io::Error),
}

/// Run `work` on a worker thread named `thread` when there is a `sink`
/// to send its message through, else at once.
pub fn run(sink: Option<&Sink>, thread: &str, work: impl FnOnce() -> Msg + Send + 'static) -> Ran {
    let Some(sink) = sink.cloned() else {
        return Ran::Now(work());
    };
    match std::thread::Builder::new()
        .name(thread.into())
        .spawn(move || sink(work()))
    {
        Ok(_) => Ran::Started,
        Err(e) => Ran::NotStarted(e),
    }
}
