//! LLM access for membank: provider configuration, the OpenAI-compatible and
//! Anthropic streaming protocols, and a worker that runs calls for a
//! synchronous UI loop.

pub mod agents;
pub mod client;
pub mod config;
pub mod documents;
pub mod error;
pub mod protocol;
pub mod quoting;
pub mod recall_chat;
pub mod request;
pub mod sse;
#[cfg(feature = "testing")]
pub mod testing;
pub mod worker;
pub mod writeback;

pub use client::{CancelHandle, LlmClient, Reply, StreamEvent};
pub use config::{ApiKey, LlmConfig, Protocol, Provider};
pub use error::{LlmError, TimeoutPhase};
pub use request::{ChatRequest, Message, Role};
pub use worker::{JobEvent, JobId, LlmWorker, WorkerMessage};
