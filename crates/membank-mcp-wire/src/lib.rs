//! The MCP protocol machinery under membank's server: the session loop, the
//! line transport, the streamable HTTP service and the HTTP connection.
//!
//! `rmcp` is generic over the handler and the transport, and generic code
//! is compiled into the crate that names its types. The server's handler
//! therefore reaches `rmcp` only through [`Handler`], a trait object, and
//! the transports only through the plain functions below, so that all of
//! the protocol's generic code is compiled here, in a crate the installed
//! build optimises for size, rather than with the program at full speed.
//! What the server answers, and how its input and output are checked,
//! stays with the program.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{
    QuitReason, RequestContext, RunningService, ServerInitializeError, SubscriptionContext,
};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::task::JoinError;

/// A future boxed, so that no caller's code is generic over it.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A handler's answer to one request.
pub type Reply<'a, T> = BoxFuture<'a, Result<T, ErrorData>>;

/// An HTTP response as the MCP service gives it.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The requests the server answers itself, as `rmcp::ServerHandler` names
/// them; every request it does not answer gets `rmcp`'s default answer.
pub trait Handler: Send + Sync + 'static {
    fn get_info(&self) -> ServerConfig;

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListToolsResult>;

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, CallToolResponse>;

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListResourcesResult>;

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ReadResourceResponse>;

    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()>;

    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ()>;

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter>;

    fn listen(&self, context: SubscriptionContext) -> Reply<'_, ()>;

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, ListPromptsResult>;

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Reply<'_, GetPromptResponse>;
}

/// The one `rmcp::ServerHandler` of the program: every instantiation of
/// `rmcp`'s generic session code is for this type.
struct Forward(Arc<dyn Handler>);

impl ServerHandler for Forward {
    fn get_info(&self) -> ServerConfig {
        self.0.get_info()
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + Send + '_ {
        self.0.list_tools(request, context)
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        self.0.call_tool(request, context)
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + Send + '_ {
        self.0.list_resources(request, context)
    }

    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceResponse, ErrorData>> + Send + '_ {
        self.0.read_resource(request, context)
    }

    #[allow(deprecated)]
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        self.0.subscribe(request, context)
    }

    #[allow(deprecated)]
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        self.0.unsubscribe(request, context)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.0.accepted_subscription_filter(requested)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + Send + '_ {
        self.0.listen(context)
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + Send + '_ {
        self.0.list_prompts(request, context)
    }

    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetPromptResponse, ErrorData>> + Send + '_ {
        self.0.get_prompt(request, context)
    }
}

/// What one session reads and writes: a stream of JSON-RPC lines each way.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// A session started by [`serve_lines`].
pub struct Running(RunningService<RoleServer, Forward>);

impl Running {
    /// Wait for the session to end: its input closed or its peer gone.
    pub fn waiting(self) -> BoxFuture<'static, Result<QuitReason, JoinError>> {
        Box::pin(self.0.waiting())
    }
}

/// Start a session over `input` and `output`, taking lines of up to
/// `max_line_length` bytes; done once the client has initialised it.
pub fn serve_lines(
    handler: Arc<dyn Handler>,
    input: Input,
    output: Output,
    max_line_length: usize,
) -> BoxFuture<'static, Result<Running, ServerInitializeError>> {
    let transport = AsyncRwTransport::<RoleServer, _, _>::new(input, output)
        .with_max_line_length(max_line_length);
    Box::pin(async move { Forward(handler).serve(transport).await.map(Running) })
}

/// The streamable HTTP service: a session per `Mcp-Session-Id`, each with
/// the handler `new_handler` makes.
#[derive(Clone)]
pub struct HttpService(StreamableHttpService<Forward, LocalSessionManager>);

impl HttpService {
    pub fn new(
        config: StreamableHttpServerConfig,
        new_handler: Box<dyn Fn() -> Arc<dyn Handler> + Send + Sync>,
    ) -> HttpService {
        HttpService(StreamableHttpService::new(
            move || Ok(Forward(new_handler())),
            Arc::new(LocalSessionManager::default()),
            config,
        ))
    }

    /// Answer one HTTP request (any path: the caller routes).
    pub fn handle(&self, request: Request<Incoming>) -> BoxFuture<'static, HttpResponse> {
        let service = self.clone();
        Box::pin(async move { service.0.handle(request).await })
    }
}

/// What answers each request of a connection.
pub type Route = Arc<dyn Fn(Request<Incoming>) -> BoxFuture<'static, HttpResponse> + Send + Sync>;

/// Serve HTTP/1 on one accepted connection until the client closes it.
pub fn serve_connection(stream: TcpStream, route: Route) -> BoxFuture<'static, hyper::Result<()>> {
    let routed = hyper::service::service_fn(move |request| {
        let answer = route(request);
        async move { Ok::<_, Infallible>(answer.await) }
    });
    Box::pin(
        hyper::server::conn::http1::Builder::new()
            .serve_connection(hyper_util::rt::TokioIo::new(stream), routed),
    )
}
