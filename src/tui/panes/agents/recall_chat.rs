//! The chat over a Deja Vu project: each question is a recall cue, and the
//! records recall selects go as the context (never a private one). The
//! turn lists the records sent and the ones withheld with why.

use membank_core::dejavu::{Project, js};
use membank_llm::agents::ChatSession;
use membank_llm::recall_chat::prepare_recall_chat;

use super::query::{ChatWords, PreparedTurn, TurnArticle};

pub const WORDS: ChatWords = ChatWords {
    placeholder: "Ask about the project (i to type)",
    empty: [
        "Ask a question about the project.",
        "The question is the recall cue: the records recall selects for it go as the context, \
         as membank recall --ask sends them. Private memory is never sent.",
    ],
    nothing: "(recall selected no records, and the model is told so; the Recall pane shows why)",
};

pub fn recall_turn(session: &mut ChatSession, project: &Project, question: &str) -> PreparedTurn {
    let history = session.begin(question).to_vec();
    let prepared = prepare_recall_chat(project, &history, question);
    let ctx = &prepared.context;
    PreparedTurn {
        heading: format!(
            "recall {} {}: {} sent{}, {} withheld · Enter opens",
            prepared.recall.level.as_str(),
            js::number_to_string(prepared.recall.score),
            crate::plural::count(ctx.used.len(), "record"),
            // Lines of a sent record that name private memory went as a
            // marker: said, as whole records withheld are.
            match ctx.withheld_lines.iter().map(|(_, n)| n).sum::<usize>() {
                0 => String::new(),
                n => format!(" ({} withheld)", crate::plural::count(n, "line")),
            },
            ctx.withheld.len()
        ),
        articles: ctx
            .used
            .iter()
            .map(|p| TurnArticle {
                path: p.clone(),
                dropped: None,
            })
            .chain(ctx.withheld.iter().map(|(p, why)| TurnArticle {
                path: p.clone(),
                dropped: Some((*why).to_owned()),
            }))
            .collect(),
        request: prepared.request,
    }
}
