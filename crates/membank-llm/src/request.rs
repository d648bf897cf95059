//! What is sent: a system prompt and a conversation.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    /// `None` leaves the provider's default (some models accept no other).
    pub temperature: Option<f32>,
}

impl ChatRequest {
    /// A single-question request with a generous output limit.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> ChatRequest {
        ChatRequest {
            system: system.into(),
            messages: vec![Message::user(user)],
            max_tokens: 4096,
            temperature: None,
        }
    }
}
