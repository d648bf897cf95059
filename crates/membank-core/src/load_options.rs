//! What a load keeps of each file. Apart from the bank, since parsing an
//! article needs to know it and the bank needs the parser.

/// What to read and index. A command that needs less loads faster and keeps
/// less in memory: ranking needs no links, a list of values no text, the
/// health checks no article bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Find every article's links and index them (outgoing links,
    /// backlinks, `resolve`). Without it articles have no links and every
    /// name resolves to nothing.
    pub links: bool,
    /// Keep each article's text once its metadata is read. Without it
    /// `text` is empty; the character count and title stay, and
    /// [`Bank::article_text`] reads the text again when it is needed.
    ///
    /// [`Bank::article_text`]: crate::bank::Bank::article_text
    pub text: bool,
    /// With `text`, keep the body too; without it `text` ends where the
    /// body starts (the frontmatter block stays, for line numbers).
    pub body: bool,
    /// With `links`, keep the index of names that resolves a link asked
    /// about later ([`Bank::resolve`], [`Bank::resolve_from`]); without it
    /// those answer `Dead`. The links of the files are resolved either way.
    ///
    /// [`Bank::resolve`]: crate::bank::Bank::resolve
    /// [`Bank::resolve_from`]: crate::bank::Bank::resolve_from
    pub resolver: bool,
    /// Parse each article's frontmatter into its metadata. Without it the
    /// block is only stepped over to find the body: `meta` stays empty and
    /// a block that is there counts as parsed. For passes that read bodies
    /// alone (a search), where parsing was a third of the work.
    pub facts: bool,
    /// With `text` and without `body`, keep every parsed frontmatter
    /// block's text. Without it a block is kept only when the checks
    /// quote more of it than the lines the article keeps (see
    /// [`Article::kept_lines`]); the other readers read the file again.
    ///
    /// [`Article::kept_lines`]: crate::article::Article::kept_lines
    pub frontmatter: bool,
    /// Give equal frontmatter strings and lists of the articles one shared
    /// copy (see `intern`), so a bank that holds its articles holds each
    /// once. Without it every article has copies of its own: for a read
    /// that drops each article once it is checked or ranked, the lookups
    /// cost up to a fifth of its CPU and its tables held memory, for
    /// nothing.
    pub share: bool,
    /// Count each article's characters ([`Article::chars`]: the context's
    /// budget, the test that a file read again is the one read). Without
    /// it the count is 0, for a read that uses neither (the streamed
    /// check), where counting was about 1% of its instructions.
    ///
    /// [`Article::chars`]: crate::article::Article::chars
    pub chars: bool,
    /// Build of the frontmatter's values only what the streamed check
    /// reads of an article: its own checks and its kept term (see
    /// `Wanted::Checked` in the article's reading). For that read alone,
    /// which drops each article once checked.
    pub checked: bool,
}

impl LoadOptions {
    pub const EVERYTHING: LoadOptions = LoadOptions {
        links: true,
        text: true,
        body: true,
        resolver: true,
        facts: true,
        frontmatter: true,
        share: true,
        chars: true,
        checked: false,
    };
    /// Ranking and the budget; the text of the kept articles is read again
    /// when the context is assembled.
    pub const CONTEXT: LoadOptions = LoadOptions {
        links: false,
        text: false,
        body: false,
        resolver: false,
        facts: true,
        frontmatter: true,
        share: true,
        chars: true,
        checked: false,
    };
    /// Frontmatter facts only.
    pub const METADATA: LoadOptions = LoadOptions {
        links: false,
        text: false,
        body: false,
        resolver: false,
        facts: true,
        frontmatter: true,
        share: true,
        chars: true,
        checked: false,
    };
    /// The health checks: links and the frontmatter block, no bodies, and
    /// no index of names once the links are resolved (15 MB at 100,000
    /// articles that no check reads).
    pub const CHECK: LoadOptions = LoadOptions {
        links: true,
        text: true,
        body: false,
        resolver: false,
        facts: true,
        frontmatter: true,
        share: true,
        chars: true,
        checked: false,
    };
    /// An interface that shows one article at a time: everything but the
    /// bodies, which [`Bank::article_text`] reads again when one is shown,
    /// searched or quoted. Its bank is a fraction of one holding them.
    /// Frontmatter blocks are kept only where a check quotes more than
    /// their kept lines (a sixth of the bank once read, otherwise).
    ///
    /// [`Bank::article_text`]: crate::bank::Bank::article_text
    pub const INTERFACE: LoadOptions = LoadOptions {
        links: true,
        text: true,
        body: false,
        resolver: true,
        facts: true,
        frontmatter: false,
        share: true,
        chars: true,
        checked: false,
    };
    /// Paths and bodies: what a search ranks and quotes. No metadata.
    pub const BODIES: LoadOptions = LoadOptions {
        links: false,
        text: false,
        body: false,
        resolver: false,
        facts: false,
        frontmatter: true,
        share: true,
        chars: true,
        checked: false,
    };
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions::EVERYTHING
    }
}
