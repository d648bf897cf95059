//! The five agents of spec §13.1 as prompt builders. Each `prepare_*`
//! function is synchronous and reads only the loaded bank, so a UI can call
//! it on its own thread; the resulting [`ChatRequest`] is then run with
//! [`run`] (or submitted to an [`crate::LlmWorker`]). Every prepared prompt
//! also says what went into it, so the user can see the decisions.

use std::collections::BTreeMap;

use membank_core::bank::{ArticleId, Bank};
use membank_core::budget::BudgetOptions;
use membank_core::compile::SentNote;
use membank_core::context::{self, ContextReport};
use membank_core::health::HealthReport;
use membank_core::layout::Folder;
use membank_core::scoring::{self, Query};
use membank_core::snapshot::Snapshot;
use membank_core::wikilink::normalize_value;

use crate::client::{CancelHandle, LlmClient, Reply, StreamEvent};
use crate::documents::Document;
use crate::quoting::{self, MEMORY_IS_DATA};
use crate::request::{ChatRequest, Message};

/// Output limits per agent: writers emit several whole files.
pub const CHAT_MAX_TOKENS: u32 = 4096;
pub const WRITER_MAX_TOKENS: u32 = 8192;

/// Runs a prepared request over the streaming API (see [`LlmClient::chat`]).
pub async fn run(
    client: &LlmClient,
    request: &ChatRequest,
    cancel: &CancelHandle,
    on_event: &mut (dyn FnMut(StreamEvent) + Send),
) -> Reply {
    client.chat(request, cancel, on_event).await
}

/// An article the budget left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedArticle {
    pub path: String,
    pub reason: String,
}

/// A prompt built around the §7/§8 context (Query and Translate).
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedChat {
    pub request: ChatRequest,
    /// Articles in the context, in rank order.
    pub used: Vec<String>,
    /// Scored articles the budget dropped.
    pub dropped: Vec<DroppedArticle>,
    pub report: ContextReport,
}

/// Query (chat): the template, the active settings and the assembled
/// context as system prompt; `history` then `question` as the conversation.
pub fn prepare_query(
    bank: &Bank,
    template: &str,
    query: &Query,
    budget: BudgetOptions,
    history: &[Message],
    question: &str,
) -> PreparedChat {
    let (system, report) = system_with_context(bank, template, query, budget);
    let mut messages = history.to_vec();
    messages.push(Message::user(question));
    finish_chat(
        bank,
        ChatRequest {
            system,
            messages,
            max_tokens: CHAT_MAX_TOKENS,
            temperature: None,
        },
        report,
    )
}

/// A chat with the Query agent over several turns. The context is
/// assembled afresh for every question (the bank or the settings may have
/// changed); the conversation keeps strictly alternating turns, as the
/// providers require.
#[derive(Debug, Clone, Default)]
pub struct ChatSession {
    pub query: Query,
    pub budget: BudgetOptions,
    history: Vec<Message>,
    pending_question: Option<String>,
}

impl ChatSession {
    pub fn new(query: Query, budget: BudgetOptions) -> ChatSession {
        ChatSession {
            query,
            budget,
            ..ChatSession::default()
        }
    }

    /// Builds the request for the next question. A question still waiting
    /// for its reply is replaced.
    pub fn ask(&mut self, bank: &Bank, template: &str, question: &str) -> PreparedChat {
        self.begin(question);
        prepare_query(
            bank,
            template,
            &self.query,
            self.budget,
            &self.history,
            question,
        )
    }

    /// Starts the next question for a prompt built elsewhere (a chat over
    /// another layout); returns the finished turns to send before it. A
    /// question still waiting for its reply is replaced.
    pub fn begin(&mut self, question: &str) -> &[Message] {
        self.pending_question = Some(question.to_string());
        &self.history
    }

    /// Records the reply to the pending question. A reply that produced no
    /// text drops the question from the history (two questions in a row are
    /// refused by some providers); partial text is kept as the answer.
    pub fn record_reply(&mut self, text: &str) {
        let Some(question) = self.pending_question.take() else {
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        self.history.push(Message::user(question));
        self.history.push(Message::assistant(text));
    }

    /// The finished turns, oldest first.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    pub fn clear(&mut self) {
        self.history.clear();
        self.pending_question = None;
    }
}

/// Translate with memory bank: template + context, then the source text.
pub fn prepare_translate(
    bank: &Bank,
    template: &str,
    query: &Query,
    budget: BudgetOptions,
    source_text: &str,
) -> PreparedChat {
    let (system, report) = system_with_context(bank, template, query, budget);
    let pair = match (&query.source_lang, &query.target_lang) {
        (Some(s), Some(t)) => format!(" from {s} into {t}"),
        (None, Some(t)) => format!(" into {t}"),
        (Some(s), None) => format!(" from {s}"),
        (None, None) => String::new(),
    };
    let user = format!(
        "Translate the following text{pair}. Reply with the translation only.\n\n{source_text}"
    );
    finish_chat(
        bank,
        ChatRequest {
            system,
            messages: vec![Message::user(user)],
            max_tokens: CHAT_MAX_TOKENS,
            temperature: None,
        },
        report,
    )
}

fn finish_chat(bank: &Bank, request: ChatRequest, report: ContextReport) -> PreparedChat {
    let used = report.included().map(|e| e.path(bank).to_owned()).collect();
    let dropped = report
        .articles
        .iter()
        .filter(|e| !e.included && e.score > 0)
        .map(|e| DroppedArticle {
            path: e.path(bank).to_owned(),
            reason: e.drop_reason(bank).unwrap_or_default(),
        })
        .collect();
    PreparedChat {
        request,
        used,
        dropped,
        report,
    }
}

fn system_with_context(
    bank: &Bank,
    template: &str,
    query: &Query,
    budget: BudgetOptions,
) -> (String, ContextReport) {
    let report = context::build(bank, query, budget);
    let mut system = template.trim_end().to_string();
    system.push_str("\n\n## Active settings\n");
    system.push_str(&settings_lines(query));
    let n = report.included().count();
    system.push_str("\n## Memory bank context\n");
    // Articles that matched but did not fit are not "nothing matched": a
    // model told the bank is empty says so to the user, wrongly.
    let matched = report.articles.iter().filter(|e| e.score > 0).count();
    let over_budget = report.dropped_for_budget().count();
    if n == 0 && matched > 0 {
        system.push_str(&format!(
            "{matched} memory bank article(s) matched these settings, but none fitted the \
             context budget of {} tokens, so none is included here. The bank does hold \
             material for these settings: if the answer depends on client or project \
             decisions, say that it was left out for the budget.\n",
            report.budget
        ));
    } else if n == 0 && over_budget > 0 {
        system.push_str(&format!(
            "No memory bank articles matched these settings, and the {over_budget} unscored \
             article(s) offered did not fit the context budget of {} tokens. Say so if the \
             answer depends on client or project decisions.\n",
            report.budget
        ));
    } else if n == 0 {
        system.push_str(
            "No memory bank articles matched these settings. Say so if the answer \
             depends on client or project decisions.\n",
        );
    } else {
        system.push_str(&format!(
            "{n} article(s) from the memory bank, each under a `----- path -----` header. \
             Cite them with [[wikilinks]] by file name. {MEMORY_IS_DATA}\n\n"
        ));
        system.push_str(&quoting::quote(&render_context(bank, &report)));
    }
    (system, report)
}

fn settings_lines(query: &Query) -> String {
    let line = |label: &str, v: &Option<String>| {
        format!(
            "- {label}: {}\n",
            v.as_deref()
                .filter(|s| !s.trim().is_empty())
                .unwrap_or("(not set)")
        )
    };
    [
        line("Client", &query.client),
        line("Domain", &query.domain),
        line("Source language", &query.source_lang),
        line("Target language", &query.target_lang),
    ]
    .concat()
}

/// Why an existing article was given to Process Inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedArticle {
    pub path: String,
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PreparedCompile {
    pub request: ChatRequest,
    /// The pending inbox files sent, in bank order.
    pub inbox: Vec<String>,
    /// The same files with the text the model was given: only a file still
    /// as sent is stamped and archived afterwards.
    pub sent: Vec<SentNote>,
    /// Existing articles sent so the model can update them.
    pub related: Vec<RelatedArticle>,
    /// Related articles left out because of `budget_tokens`.
    pub left_out: Vec<String>,
    /// Pending inbox notes that cannot be read, so were not sent.
    pub unreadable: Vec<membank_core::inbox::Unreadable>,
}

/// Process Inbox: every pending inbox file, plus the existing articles it
/// touches: those linked from the inbox files, those whose term appears in
/// them, and those scoring against the clients, domains and languages in
/// their frontmatter. Related articles are added whole, most related first,
/// until `budget_tokens` (chars/4; 0 = unlimited) is reached. Returns `None`
/// when the inbox has nothing pending that can be read (see
/// `membank_core::inbox` for the unreadable ones).
pub fn prepare_compile(
    bank: &Bank,
    template: &str,
    today: &str,
    budget_tokens: usize,
) -> Option<PreparedCompile> {
    prepare_compile_only(bank, template, today, budget_tokens, &|_| true)
}

/// [`prepare_compile`] with only the pending notes whose bank path `send`
/// accepts: a note held back is neither sent nor used to pick the related
/// articles, and is not among `inbox` (so it is never stamped).
pub fn prepare_compile_only(
    bank: &Bank,
    template: &str,
    today: &str,
    budget_tokens: usize,
    send: &dyn Fn(&str) -> bool,
) -> Option<PreparedCompile> {
    let membank_core::inbox::Pending {
        readable: mut pending,
        unreadable,
    } = membank_core::inbox::pending(bank);
    pending.retain(|&id| send(&bank.article(id).rel_path));
    if pending.is_empty() {
        return None;
    }
    let mut reasons: BTreeMap<ArticleId, (u32, Vec<String>)> = BTreeMap::new();
    fn note(
        reasons: &mut BTreeMap<ArticleId, (u32, Vec<String>)>,
        id: ArticleId,
        weight: u32,
        reason: String,
    ) {
        let entry = reasons.entry(id).or_default();
        entry.0 = entry.0.max(weight);
        if !entry.1.contains(&reason) {
            entry.1.push(reason);
        }
    }
    let inbox_lower: Vec<String> = pending
        .iter()
        .map(|&id| text_of(bank, id).to_lowercase())
        .collect();
    for &id in &pending {
        let inbox = bank.article(id);
        for (link, resolution) in bank.outgoing(id) {
            if let Some(target) = resolution.target() {
                note(
                    &mut reasons,
                    target,
                    100,
                    format!("linked as [[{}]] from {}", link.target(), inbox.file_name()),
                );
            }
        }
        for query in queries_from_frontmatter(bank, id) {
            for ranked in scoring::rank(bank, &query) {
                let score = ranked.score.total();
                if score > 0 {
                    note(
                        &mut reasons,
                        ranked.id,
                        score,
                        format!("scores {score} for {}", describe_query(&query)),
                    );
                }
            }
        }
    }
    // Inbox notes are often raw text without frontmatter: a client's name
    // or a source term written in them is as telling as a link.
    let mut named_clients: Vec<String> = Vec::new();
    for id in bank.content_ids() {
        let a = bank.article(id);
        let (names, weight, what): (Vec<&str>, u32, &str) = match a.folder {
            Folder::Clients => {
                let mut names: Vec<&str> = a
                    .meta
                    .clients
                    .iter()
                    .map(|v| normalize_value(&v.raw))
                    .collect();
                names.push(a.stem());
                (names, 60, "client name")
            }
            Folder::Terminology => (a.meta.term_source().into_iter().collect(), 50, "term"),
            _ => continue,
        };
        for name in names {
            let name = name.trim();
            if name.chars().count() < 3 {
                continue;
            }
            let lower = name.to_lowercase();
            if let Some(i) = inbox_lower.iter().position(|t| contains_word(t, &lower)) {
                note(
                    &mut reasons,
                    id,
                    weight,
                    format!(
                        "its {what} \"{name}\" appears in {}",
                        bank.article(pending[i]).file_name()
                    ),
                );
                if a.folder == Folder::Clients {
                    named_clients.extend(
                        a.meta
                            .clients
                            .iter()
                            .map(|v| normalize_value(&v.raw).to_string()),
                    );
                }
                break;
            }
        }
    }
    // Then what the bank holds for those clients, as for a frontmatter
    // client, saying so only where the frontmatter did not already.
    named_clients.sort();
    named_clients.dedup();
    for client in named_clients {
        let query = Query {
            client: Some(client.clone()),
            ..Query::default()
        };
        for ranked in scoring::rank(bank, &query) {
            let score = ranked.score.total();
            let said = format!("scores {score} for client {client}");
            let already = reasons
                .get(&ranked.id)
                .is_some_and(|(_, r)| r.iter().any(|r| r.starts_with(&said)));
            if score > 0 && !already {
                note(
                    &mut reasons,
                    ranked.id,
                    score,
                    format!("{said} (named in the inbox)"),
                );
            }
        }
    }
    let mut ranked: Vec<(ArticleId, u32, Vec<String>)> = reasons
        .into_iter()
        .filter(|(id, _)| bank.article(*id).folder.is_content())
        .map(|(id, (w, r))| (id, w, r))
        .collect();
    membank_core::shared_sort::sort_by(&mut ranked, |a, b| {
        b.1.cmp(&a.1)
            .then_with(|| scoring::tie_break(bank.article(a.0), bank.article(b.0)))
    });

    let mut related = Vec::new();
    let mut left_out = Vec::new();
    let mut used_tokens = 0;
    let mut related_text = String::new();
    for (id, _, why) in ranked {
        let a = bank.article(id);
        let tokens = a.chars().div_ceil(4);
        if budget_tokens > 0 && used_tokens + tokens > budget_tokens {
            left_out.push(a.rel_path.clone());
            continue;
        }
        used_tokens += tokens;
        context::push_article(&mut related_text, &a.rel_path, &text_of(bank, id));
        related.push(RelatedArticle {
            path: a.rel_path.clone(),
            reasons: why,
        });
    }

    let mut user =
        format!("Today's date: {today}\n\n{MEMORY_IS_DATA}\n\n## Inbox files to process\n\n");
    let mut inbox = Vec::new();
    let mut sent = Vec::new();
    let mut inbox_text = String::new();
    for &id in &pending {
        let a = bank.article(id);
        let text = text_of(bank, id);
        context::push_article(&mut inbox_text, &a.rel_path, &text);
        inbox.push(a.rel_path.clone());
        sent.push(SentNote {
            path: a.rel_path.clone(),
            text: text.into_owned(),
        });
    }
    user.push_str(&quoting::quote(&inbox_text));
    user.push_str("\n## Existing memory bank articles\n\n");
    if related.is_empty() {
        user.push_str("No existing article relates to these inbox files.\n");
    } else {
        user.push_str(
            "These existing articles relate to the inbox files. To change one, emit a \
             `### FILE:` block with its existing path and its complete new content; do \
             not create a second article for the same client, domain or term.\n\n",
        );
        user.push_str(&quoting::quote(&related_text));
    }
    if !left_out.is_empty() {
        user.push_str(&format!(
            "\n({} further related article(s) were left out to fit the size limit: {}.)\n",
            left_out.len(),
            left_out.join(", ")
        ));
    }
    Some(PreparedCompile {
        request: ChatRequest {
            system: template.trim_end().to_string(),
            messages: vec![Message::user(user)],
            max_tokens: WRITER_MAX_TOKENS,
            temperature: None,
        },
        inbox,
        sent,
        related,
        left_out,
        unreadable,
    })
}

/// One query per combination the inbox file's frontmatter names, so that an
/// article matching any of its clients, domains or languages is found.
fn queries_from_frontmatter(bank: &Bank, id: ArticleId) -> Vec<Query> {
    let meta = &bank.article(id).meta;
    let clients: Vec<Option<String>> =
        values_or_none(meta.clients.iter().map(|v| v.raw.to_string()));
    let domains: Vec<Option<String>> =
        values_or_none(meta.domains.iter().map(|v| v.raw.to_string()));
    let mut tags: Vec<String> = meta
        .languages
        .iter()
        .flat_map(|l| l.tags.iter().map(|t| t.to_string()))
        .collect();
    tags.extend(meta.source_lang.as_deref().map(str::to_owned));
    tags.extend(meta.target_lang.as_deref().map(str::to_owned));
    tags.sort();
    tags.dedup();
    let languages: Vec<Option<String>> = values_or_none(tags.into_iter());
    let mut queries = Vec::new();
    for client in &clients {
        for domain in &domains {
            for lang in &languages {
                let q = Query {
                    client: client.clone(),
                    domain: domain.clone(),
                    source_lang: lang.clone(),
                    target_lang: None,
                };
                if !q.is_empty() {
                    queries.push(q);
                }
            }
        }
    }
    queries
}

fn values_or_none(values: impl Iterator<Item = String>) -> Vec<Option<String>> {
    let mut v: Vec<Option<String>> = values.map(Some).collect();
    if v.is_empty() {
        v.push(None);
    }
    v
}

fn describe_query(q: &Query) -> String {
    let parts: Vec<String> = [
        q.client
            .as_ref()
            .map(|c| format!("client {}", normalize_value(c))),
        q.domain
            .as_ref()
            .map(|d| format!("domain {}", normalize_value(d))),
        q.source_lang.as_ref().map(|l| format!("language {l}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    parts.join(", ")
}

/// Whole-word containment, so that "art" does not match "start".
fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric();
    haystack.match_indices(word).any(|(i, m)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + m.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// The context text: each kept article whole, in rank order, under a
/// header naming its path, as [`context::render`] writes it, but read
/// again when the bank keeps no bodies.
fn render_context(bank: &Bank, report: &ContextReport) -> String {
    let mut out = String::new();
    for e in report.included() {
        context::push_article(&mut out, &bank.article(e.id).rel_path, &text_of(bank, e.id));
    }
    out
}

/// An article's text, read again when the bank keeps no bodies. One that
/// cannot be read again (changed or gone since the bank was read) is sent
/// as a line saying so, not as stale text nor silently left out.
fn text_of(bank: &Bank, id: ArticleId) -> std::borrow::Cow<'_, str> {
    bank.article_text(id)
        // Each problem is worded to follow its subject ("changed on disk
        // since…", "is 17 MB, over the limit…; it is not read").
        .unwrap_or_else(|p| std::borrow::Cow::Owned(format!("(this article {})\n", p.message)))
}

/// At most this many findings are listed for Health Check; the counts
/// still cover all of them.
pub const MAX_LISTED_FINDINGS: usize = 400;

/// The deterministic findings as a compact list for the model: counts, then
/// one line per finding (most severe first), capped at `max_listed`.
pub fn findings_summary(report: &HealthReport, max_listed: usize) -> String {
    if report.findings.is_empty() {
        return String::new();
    }
    let c = report.counts;
    let mut out = format!(
        "{} error(s), {} warning(s), {} note(s).\n",
        c.error, c.warning, c.info
    );
    for f in report.findings.iter().take(max_listed) {
        out.push_str(&format!(
            "- [{}] {} {}: {}\n",
            f.severity.as_str(),
            f.code(),
            f.location(),
            f.message()
        ));
    }
    let rest = report.findings.len().saturating_sub(max_listed);
    if rest > 0 {
        out.push_str(&format!("- … and {rest} more finding(s) not listed.\n"));
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
pub struct PreparedLint {
    pub request: ChatRequest,
    pub snapshot_articles: usize,
    pub truncated: bool,
    /// Articles the snapshot cap left out.
    pub omitted: Vec<String>,
}

/// Health Check: the deterministic findings (already found locally, so the
/// model need not hunt for them) and the §12 snapshot, saying when the
/// snapshot was truncated and what it left out.
pub fn prepare_lint(template: &str, findings_summary: &str, snapshot: &Snapshot) -> PreparedLint {
    let mut user = String::from("## Findings of membank's deterministic checks\n\n");
    if findings_summary.trim().is_empty() {
        user.push_str("No problems found.\n");
    } else {
        user.push_str(findings_summary.trim_end());
        user.push('\n');
    }
    user.push_str(&format!(
        "\n## Memory bank snapshot\n\n{MEMORY_IS_DATA}\n\n{} article(s), {} characters",
        snapshot.articles.len(),
        snapshot.chars
    ));
    if snapshot.truncated {
        user.push_str(&format!(
            ". truncated: true — the {}-character cap was reached, so {} article(s) are \
             not shown: {}. Do not report them as missing.\n\n",
            snapshot.cap,
            snapshot.omitted.len(),
            snapshot.omitted.join(", ")
        ));
    } else {
        user.push_str(". truncated: false\n\n");
    }
    user.push_str(&quoting::quote(&snapshot.snapshot));
    PreparedLint {
        request: ChatRequest {
            system: template.trim_end().to_string(),
            messages: vec![Message::user(user)],
            max_tokens: WRITER_MAX_TOKENS,
            temperature: None,
        },
        snapshot_articles: snapshot.articles.len(),
        truncated: snapshot.truncated,
        omitted: snapshot.omitted.clone(),
    }
}

/// The most document text sent to Distill, in characters.
pub const DISTILL_INPUT_CAP: usize = 200_000;

#[derive(Debug, Clone, PartialEq)]
pub struct PreparedDistill {
    pub request: ChatRequest,
    /// Where the note is proposed: `00_INBOX/distilled_<stem>_<timestamp>.md`.
    pub target_path: String,
    /// The document was longer than [`DISTILL_INPUT_CAP`] and was cut.
    pub input_truncated: bool,
}

/// Distill: the template, the proposed path, today's date, the settings
/// the translator gave (if any) and the document's text. `now` names the
/// note (`YYYYMMDD-HHMMSS`, UTC, the suffix style of spec §11).
pub fn prepare_distill(
    template: &str,
    document: &Document,
    query: &Query,
    now: jiff::Timestamp,
) -> PreparedDistill {
    let (text, input_truncated) = match document.text.char_indices().nth(DISTILL_INPUT_CAP) {
        Some((cut, _)) => (&document.text[..cut], true),
        None => (document.text.as_str(), false),
    };
    let target_path = format!(
        "00_INBOX/distilled_{}_{}.md",
        safe_stem(&document.stem),
        now.strftime("%Y%m%d-%H%M%S")
    );
    let mut user = format!(
        "Path for the note: {target_path}\nToday's date: {}\n",
        now.strftime("%Y-%m-%d")
    );
    if !query.is_empty() {
        user.push_str(&settings_lines(query));
    }
    user.push_str(&format!(
        "\nDocument: {} ({}",
        document.file_name,
        document.kind.label()
    ));
    if document.entries > 0 {
        user.push_str(&format!(", {} entries", document.entries));
    }
    user.push_str(")\n");
    if input_truncated {
        user.push_str(&format!(
            "Only the first {DISTILL_INPUT_CAP} characters are included.\n"
        ));
    }
    user.push('\n');
    user.push_str(text);
    PreparedDistill {
        request: ChatRequest {
            system: template.trim_end().to_string(),
            messages: vec![Message::user(user)],
            max_tokens: WRITER_MAX_TOKENS,
            temperature: None,
        },
        target_path,
        input_truncated,
    }
}

/// The note Distill proposes, from the model's reply: one outer code fence
/// around the whole reply is removed. A reply written as `### FILE:`
/// blocks gives the first block's content (the path the model chose is
/// not used: the note lands only at the proposed path); the words before
/// it and any other block are left out, as [`distill_left_out`] says, so
/// no other file's text is stitched into the note and its frontmatter
/// stays on its first line.
pub fn distill_note(reply: &str) -> String {
    let parsed = membank_core::fileblocks::parse_reply(reply);
    if let Some(first) = parsed.blocks.iter().find(|b| !b.content.trim().is_empty()) {
        return first.content.clone();
    }
    let body = strip_outer_fence(reply.trim());
    let body: String = body
        .lines()
        .filter(|l| !is_file_marker(l))
        .map(|l| format!("{l}\n"))
        .collect();
    body.trim_start_matches('\n').to_string()
}

/// What of a reply written as `### FILE:` blocks [`distill_note`] leaves
/// out, one line each, for the user to see: the words before the first
/// block and every block after it.
pub fn distill_left_out(reply: &str) -> Vec<String> {
    let parsed = membank_core::fileblocks::parse_reply(reply);
    let Some(used) = parsed
        .blocks
        .iter()
        .position(|b| !b.content.trim().is_empty())
    else {
        return Vec::new();
    };
    let mut left_out = Vec::new();
    let before = parsed.preamble.trim().trim_matches('`').trim();
    if !before.is_empty() && !before.eq_ignore_ascii_case("markdown") {
        left_out.push("the reply's words before its first file block were left out".to_owned());
    }
    for (i, block) in parsed.blocks.iter().enumerate() {
        if i != used {
            left_out.push(format!(
                "the reply's block for {} (line {}) was left out: Distill writes one note",
                block.path_raw, block.marker_line
            ));
        }
    }
    left_out
}

/// The note as a `### FILE:` block for review (spec §9).
pub fn distill_proposal(prepared: &PreparedDistill, reply: &str) -> String {
    format!(
        "### FILE: {}\n{}",
        prepared.target_path,
        distill_note(reply)
    )
}

fn is_file_marker(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    (2..=4).contains(&hashes) && t[hashes..].trim_start().starts_with("FILE") && {
        let rest = t[hashes..].trim_start()["FILE".len()..].trim_start();
        rest.starts_with(':')
    }
}

fn strip_outer_fence(text: &str) -> &str {
    let Some(first_end) = text.find('\n') else {
        return text;
    };
    let first = &text[..first_end];
    if !(first.starts_with("```") || first.starts_with("~~~")) {
        return text;
    }
    let fence = &first[..3];
    let inner = &text[first_end + 1..];
    match inner.trim_end().strip_suffix(fence) {
        Some(body) => body.strip_suffix('\n').unwrap_or(body),
        None => text,
    }
}

/// Characters a file name may not contain (spec §2.2) become `_`.
fn safe_stem(stem: &str) -> String {
    let cleaned: String = stem
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '<' | '>' | ':' | '"' | '|' | '?' | '*') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    // Long names would push the file name past common 255-byte limits.
    let cleaned: String = cleaned.chars().take(80).collect();
    let cleaned = cleaned.trim().trim_matches('.');
    if cleaned.is_empty() {
        "document".to_string()
    } else {
        cleaned.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::parse_document;

    /// Articles that matched but all went over the budget are not told to
    /// the model as "nothing matched".
    #[test]
    fn matches_the_budget_left_out_are_not_called_no_matches() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("02_TERMINOLOGY")).unwrap();
        for t in ["a", "b"] {
            std::fs::write(
                d.path().join(format!("02_TERMINOLOGY/{t}.md")),
                format!("---\nclients: [Acme]\n---\n# {t}\n{}\n", "y".repeat(400)),
            )
            .unwrap();
        }
        let bank = Bank::load(d.path()).unwrap();
        let query = Query {
            client: Some("Acme".into()),
            ..Query::default()
        };
        let tight = BudgetOptions {
            budget: 10,
            include_unscored: false,
        };
        let (system, report) = system_with_context(&bank, "T", &query, tight);
        assert_eq!(report.included().count(), 0);
        assert!(
            !system.contains("No memory bank articles matched"),
            "{system}"
        );
        assert!(
            system.contains(
                "2 memory bank article(s) matched these settings, but none fitted the \
                 context budget of 10 tokens"
            ),
            "{system}"
        );
        let nobody = Query {
            client: Some("Nobody".into()),
            ..Query::default()
        };
        let (system, _) = system_with_context(&bank, "T", &nobody, tight);
        assert!(system.contains("No memory bank articles matched these settings."));
    }

    #[test]
    fn distill_target_path_and_proposal() {
        let doc = parse_document("Client brief: v2?.md", b"# Brief\nUse naleving.\n").unwrap();
        let now: jiff::Timestamp = "2026-04-08T17:10:55Z".parse().unwrap();
        let query = Query {
            client: Some("Acme".into()),
            ..Query::default()
        };
        let prepared = prepare_distill("Distill this.", &doc, &query, now);
        assert_eq!(
            prepared.target_path,
            "00_INBOX/distilled_Client brief_ v2__20260408-171055.md"
        );
        assert!(
            prepared.request.messages[0]
                .content
                .contains("Use naleving.")
        );
        let reply = "```markdown\n### FILE: 02_TERMINOLOGY/x.md\n# Notes\n- naleving\n```";
        assert_eq!(
            distill_proposal(&prepared, reply),
            "### FILE: 00_INBOX/distilled_Client brief_ v2__20260408-171055.md\n# Notes\n- naleving\n"
        );
        assert!(distill_left_out(reply).is_empty());
    }

    #[test]
    fn a_distill_reply_of_several_blocks_gives_the_first_and_says_what_it_left_out() {
        let reply = "Here is the note.\n### FILE: 00_INBOX/n.md\n---\nsource: doc\n---\n# N\n\
                     ### FILE: 06_TEMPLATES/query.md\nPWNED\n### FILE: 01_CLIENTS/Evil.md\nEVIL\n";
        assert_eq!(distill_note(reply), "---\nsource: doc\n---\n# N\n");
        let left_out = distill_left_out(reply);
        assert_eq!(left_out.len(), 3, "{left_out:?}");
        assert!(left_out[0].contains("words before"), "{left_out:?}");
        assert!(
            left_out[1].contains("06_TEMPLATES/query.md (line 7)"),
            "{left_out:?}"
        );
        // A reply with no block is the note as it is.
        assert_eq!(distill_note("# Only\ntext\n"), "# Only\ntext\n");
        assert!(distill_left_out("# Only\ntext\n").is_empty());
    }

    #[test]
    fn distill_names_stay_short_and_safe() {
        assert_eq!(safe_stem(".."), "document");
        assert_eq!(safe_stem("a/b\\c"), "a_b_c");
        assert_eq!(safe_stem(&"x".repeat(300)).chars().count(), 80);
    }

    /// An article that changed after the bank was read is sent as a line
    /// that says so, not as the text it has now.
    #[test]
    fn an_article_changed_since_the_bank_was_read_is_sent_as_a_line_saying_so() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("03_DOMAINS")).unwrap();
        let file = root.join("03_DOMAINS/Legal.md");
        std::fs::write(&file, "# Legal\nContracts.\n").unwrap();
        let bank = Bank::load_only(root, membank_core::load_options::LoadOptions::CONTEXT).unwrap();
        let id = bank.find("03_DOMAINS/Legal.md").unwrap();
        assert_eq!(text_of(&bank, id), "# Legal\nContracts.\n");
        std::fs::write(&file, "# Legal\nContracts, leases.\n").unwrap();
        assert_eq!(
            text_of(&bank, id),
            "(this article changed on disk since the bank was read; run the command again)\n"
        );
    }

    #[test]
    fn whole_words_only() {
        assert!(contains_word("the shelf life is", "shelf life"));
        assert!(!contains_word("restart now", "start"));
        assert!(contains_word("start.", "start"));
    }
}
