//! `membank mcp`.

use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Add it to an assistant's MCP configuration as the command \
`membank` with the arguments `mcp` and the memory's folder; see the README."
)]
pub struct Args {
    /// The memory: a memory bank, a Deja Vu project or an everos memory
    /// root (detected; see --format). The tools offered follow its layout.
    #[arg(value_name = "PATH")]
    pub bank: PathBuf,
    /// Serve streamable HTTP at this loopback address (e.g. 127.0.0.1:8765),
    /// under the path /mcp, instead of standard input and output.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// With --http, also answer browser requests from this origin
    /// (scheme://host:port; repeatable). Only pages of the server's own
    /// loopback address are answered otherwise; clients that send no
    /// Origin, as assistants do, are always answered.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// Offer the writing tools, which only propose: propose_write,
    /// import_terms and new (banks), supersede (Deja Vu), fix and mv (both);
    /// apply_write writes a proposal (off: the memory is read-only).
    #[arg(long)]
    pub allow_writes: bool,
    /// Also serve private memory (Deja Vu's memory/private/, local/, raw/,
    /// transcripts/ and *.secret.* files, and links to them). Off: the
    /// reader of an MCP server is a model, and private memory is never
    /// given to one unless you say so.
    #[arg(long)]
    pub include_private: bool,
}
