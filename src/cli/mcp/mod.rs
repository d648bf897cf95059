//! `membank mcp`: the bank served over the Model Context Protocol, so an AI
//! assistant can query it with the same explanations the CLI and the
//! interface give. Standard input and output carry the protocol; every
//! message for people goes to standard error.

mod prompts;
mod resources;
mod server;
mod state;
mod tools;
mod writes;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use membank_core::text::sanitize_for_terminal;
use rmcp::ServiceExt;

use server::Session;
use state::Shared;

#[derive(clap::Args)]
#[command(
    after_help = "Add it to an assistant's MCP configuration as the command \
`membank` with the arguments `mcp` and the memory's folder; see the README."
)]
pub struct Args {
    /// The memory: a memory bank, a Deja Vu project or an everos memory
    /// root (detected; see --format). The tools offered follow its layout.
    #[arg(value_name = "PATH")]
    bank: PathBuf,
    /// Also serve streamable HTTP at this loopback address (e.g. 127.0.0.1:8765),
    /// under the path /mcp, instead of standard input and output.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Offer the writing tools: propose_write (banks), supersede (Deja Vu)
    /// and apply_write (off: the memory is read-only).
    #[arg(long)]
    allow_writes: bool,
    /// Also serve private memory (Deja Vu's memory/private/, local/, raw/,
    /// transcripts/ and *.secret.* files, and links to them). Off: the
    /// reader of an MCP server is a model, and private memory is never
    /// given to one unless you say so.
    #[arg(long)]
    include_private: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(addr) = args.http
        && !addr.ip().is_loopback()
    {
        bail!(
            "--http {addr}: membank serves HTTP only on a loopback address (127.0.0.1 or [::1]), \
             since anyone who can reach it can read the bank"
        );
    }
    let shown = args.bank.to_string_lossy().into_owned();
    let memory = membank_core::memory::open(&args.bank, super::common::forced_format())
        .map_err(|e| anyhow::anyhow!(sanitize_for_terminal(&e.to_string(), false)))?;
    let root = memory.root().to_path_buf();
    tracing::info!(
        layout = memory.spec().name,
        documents = memory.len(),
        http = args.http.is_some(),
        allow_writes = args.allow_writes,
        include_private = args.include_private,
        "mcp server starting"
    );
    let shared = Shared::new(memory, shown, args.allow_writes, args.include_private);
    shared.warm_up();
    // Without the watcher the server still answers, from the bank as loaded.
    let _watcher = match state::watch(&shared, &root) {
        Ok(w) => Some(w),
        Err(e) => {
            eprintln!(
                "membank mcp: not watching {} for changes: {e}",
                sanitize_for_terminal(&root.display().to_string(), false)
            );
            None
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        match args.http {
            Some(addr) => serve_http(shared, addr).await,
            None => serve_stdio(shared).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn serve_stdio(shared: Arc<Shared>) -> anyhow::Result<()> {
    let service = Session::new(shared)
        .serve(rmcp::transport::stdio())
        .await
        .context("starting the MCP session on standard input and output")?;
    service.waiting().await.context("serving MCP")?;
    Ok(())
}

async fn serve_http(shared: Arc<Shared>, addr: SocketAddr) -> anyhow::Result<()> {
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };

    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(Session::new(Arc::clone(&shared))),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    eprintln!(
        "membank mcp: serving http://{}/mcp",
        listener.local_addr().unwrap_or(addr)
    );
    loop {
        // Interrupting the process is how this server stops.
        let (stream, _) = listener.accept().await.context("accepting a connection")?;
        let service = service.clone();
        tokio::spawn(async move {
            let routed = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let service = service.clone();
                async move {
                    if request.uri().path() == "/mcp" {
                        hyper::service::Service::call(&service, request).await
                    } else {
                        Ok(not_found())
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), routed)
                .await;
        });
    }
}

fn not_found<B: Default>() -> hyper::Response<B> {
    let mut response = hyper::Response::new(B::default());
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}
