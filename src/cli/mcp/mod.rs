//! `membank mcp`: the bank served over the Model Context Protocol, so an AI
//! assistant can query it with the same explanations the CLI and the
//! interface give. Standard input and output carry the protocol; every
//! message for people goes to standard error.

mod checked_input;
mod escaped_output;
mod file_tools;
mod prompts;
mod resources;
mod server;
mod state;
mod tools;
mod writes;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use membank_core::text::sanitize_for_terminal;
use membank_mcp_wire::BoxFuture;

use server::Session;
use state::Shared;

pub use membank_args::mcp::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(addr) = args.http
        && !addr.ip().is_loopback()
    {
        bail!(
            "--http {addr}: membank serves HTTP only on a loopback address (127.0.0.1 or [::1]), \
             since anyone who can reach it can read the bank"
        );
    }
    for origin in &args.allow_origin {
        check_origin(origin)?;
    }
    let shown = args.bank.to_string_lossy().into_owned();
    let memory = membank_core::memory::open(&args.bank, super::common::forced_format())
        .map_err(|e| anyhow::anyhow!(sanitize_for_terminal(&e.to_string(), false)))?;
    let root = memory.root().to_path_buf();
    // Said on stderr, which an assistant's host shows in its server log:
    // otherwise the missing write tools would be a silent mystery.
    if args.allow_writes && memory.spec().kind == membank_core::memory::LayoutKind::Everos {
        eprintln!(
            "membank mcp: --allow-writes: {} is an everos memory root, which membank only \
             reads; no write tool is offered",
            sanitize_for_terminal(&shown, false)
        );
    }
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
    let _watcher = match state::watch(&shared) {
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
            Some(addr) => serve_http(shared, addr, args.allow_origin).await,
            None => serve_stdio(shared).await,
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

async fn serve_stdio(shared: Arc<Shared>) -> anyhow::Result<()> {
    let output = escaped_output::EscapedOutput::new(tokio::io::stdout());
    let io = checked_input::checked(tokio::io::stdin(), output);
    // The session takes every line the checked input lets through (64 MiB,
    // the bound of a file's text): its own default, 16 MiB, dropped longer
    // lines without a word and the client waited for ever.
    let service = membank_mcp_wire::serve_lines(
        Arc::new(Session::new(shared)),
        Box::new(io.to_session),
        Box::new(io.from_session),
        checked_input::MAX_LINE + 1,
    )
    .await
    .context("starting the MCP session on standard input and output")?;
    service.waiting().await.context("serving MCP")?;
    // The session's writer is gone: what it said is written out.
    io.output
        .await
        .context("serving MCP")?
        .context("writing to standard output")?;
    Ok(())
}

/// An `--allow-origin` value must be an origin as browsers send it, or it
/// would silently match nothing.
fn check_origin(origin: &str) -> anyhow::Result<()> {
    let shown = sanitize_for_terminal(origin, false);
    let Some((scheme, authority)) = origin.split_once("://") else {
        bail!(
            "--allow-origin {shown}: an origin is scheme://host:port, e.g. http://localhost:3000"
        );
    };
    if !matches!(scheme, "http" | "https")
        || authority.is_empty()
        || authority.contains(['/', '?', '#', '@'])
    {
        bail!(
            "--allow-origin {shown}: an origin is http:// or https:// and a host with an \
             optional port, nothing after it (e.g. http://localhost:3000)"
        );
    }
    Ok(())
}

/// The origins whose pages may call the server: its own address under
/// each loopback name, and those the user allowed.
fn allowed_origins(port: u16, extra: Vec<String>) -> Vec<String> {
    let mut origins: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .map(|host| format!("http://{host}:{port}"))
        .collect();
    origins.extend(extra);
    origins
}

async fn serve_http(
    shared: Arc<Shared>,
    addr: SocketAddr,
    allow_origin: Vec<String>,
) -> anyhow::Result<()> {
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let bound = listener.local_addr().unwrap_or(addr);
    // A web page the user visits can send requests to loopback too: the
    // Host check stops DNS rebinding, and the Origin check stops every
    // other page (a request with no Origin does not come from a page).
    // A request as large as standard input takes: a file's text (`qa`,
    // `terms`, `import_terms`) is not refused over one transport only,
    // as rmcp's own 4 MiB bound refused it.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(allowed_origins(bound.port(), allow_origin))
        .enforce_origin_validation()
        .with_max_request_body_bytes(checked_input::MAX_LINE);
    let service = membank_mcp_wire::HttpService::new(
        config,
        Box::new(move || -> Arc<dyn membank_mcp_wire::Handler> {
            Arc::new(Session::new(Arc::clone(&shared)))
        }),
    );
    let route: membank_mcp_wire::Route = Arc::new(move |request| -> BoxFuture<'static, _> {
        if request.uri().path() == "/mcp" {
            let answer = service.handle(request);
            Box::pin(async move { answer.await.map(escaped_output::escaped_body) })
        } else {
            Box::pin(std::future::ready(not_found()))
        }
    });
    eprintln!("membank mcp: serving http://{bound}/mcp");
    loop {
        // Interrupting the process is how this server stops.
        let (stream, _) = listener.accept().await.context("accepting a connection")?;
        tokio::spawn(membank_mcp_wire::serve_connection(
            stream,
            Arc::clone(&route),
        ));
    }
}

fn not_found<B: Default>() -> hyper::Response<B> {
    let mut response = hyper::Response::new(B::default());
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}
