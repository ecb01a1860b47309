//! smsdesk's HTTP API and the UI for a browser: the routes (each a call into the engine's service),
//! server-sent events of committed changes, the OpenAPI description generated from the routes, the
//! manual's API reference generated from that description, and the TypeScript bindings generated
//! from the types they speak. It is the engine's door
//! ([`HttpDoor`]): the engine binds the port and starts and stops it.

use std::borrow::Cow;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::handler::Handler;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, on, post, MethodFilter, MethodRouter};
use axum::{Json, Router};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tower_http::timeout::TimeoutLayer;

use smsdesk_engine::api::{AppInfo, ErrorCode};
use smsdesk_engine::config::Networks;
use smsdesk_engine::door::{Door, DoorContext, Serving};
use smsdesk_engine::operations::{specs, Method, Spec};
use smsdesk_engine::service::DoorUse;
use smsdesk_engine::service::Service;
use smsdesk_engine::service::{Health, HealthStatus};

mod auth;
pub mod bindings;
mod callbacks;
mod edge;
mod error;
mod events;
mod export;
mod extract;
mod gate;
mod listen;
mod metrics;
pub mod openapi;
mod people;
pub mod reference;
mod routes;
mod scrub;
mod streams;

pub use error::Failure;
pub use events::ChangeEvent;
pub use smsdesk_engine::door::{Limits, OPERATOR_TOKEN_FILE};

/// The built UI (index.html, scripts, styles), provided by whoever embedded it in the binary.
pub trait UiAssets: Send + Sync + 'static {
    /// The file at `path` (always starting with `/`), if the UI has one.
    fn get(&self, path: &str) -> Option<Cow<'_, [u8]>>;
}

/// The policy the browser enforces on the UI: everything from this server, nothing from elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// Everything the routes need: what the engine hands its door, and the UI's files.
#[derive(Clone)]
pub struct ApiContext {
    pub info: Arc<AppInfo>,
    pub ui: Option<Arc<dyn UiAssets>>,
    pub service: Service,
    /// The token the command line on this computer presents (see [`OPERATOR_TOKEN_FILE`]).
    pub operator_token: Arc<String>,
    pub limits: Limits,
    /// Host names answered besides IP addresses and `localhost` (`http.allowed_hosts`).
    pub allowed_hosts: Arc<[String]>,
    /// Flips to true when the server stops, so endless streams end.
    pub stopping: watch::Receiver<bool>,
    /// The proxies whose `X-Forwarded-For` names the client (`http.trusted_proxies`).
    pub trusted_proxies: Arc<Networks>,
    /// The connections open, by address.
    gate: Arc<gate::Gate>,
    /// The event streams open, by caller.
    streams: Arc<streams::Streams>,
}

impl ApiContext {
    /// What the routes need, with nothing open yet.
    pub fn new(info: Arc<AppInfo>, ui: Option<Arc<dyn UiAssets>>, service: Service, door: DoorContext) -> ApiContext {
        ApiContext {
            info,
            ui,
            service,
            operator_token: door.operator_token,
            limits: door.limits,
            allowed_hosts: door.allowed_hosts,
            stopping: door.stopping,
            gate: gate::Gate::new(door.limits, door.trusted_proxies.clone()),
            streams: streams::Streams::new(door.limits.max_streams_per_caller),
            trusted_proxies: door.trusted_proxies,
        }
    }

    /// The connections and event streams open now, and their caps.
    fn door_use(&self) -> DoorUse {
        let (streams, max_streams_per_caller, closed_streams) = self.streams.usage();
        DoorUse {
            streams,
            max_streams_per_caller,
            closed_streams,
            ..self.gate.usage()
        }
    }
}

/// The HTTP API as the engine's door: give it to `EngineOptions::door`.
pub struct HttpDoor {
    ui: Option<Arc<dyn UiAssets>>,
}

impl HttpDoor {
    /// The API, and `ui` served at `/` to browsers when given.
    pub fn new(ui: Option<Arc<dyn UiAssets>>) -> Arc<HttpDoor> {
        Arc::new(HttpDoor { ui })
    }
}

impl Door for HttpDoor {
    fn serve(&self, listener: TcpListener, ctx: DoorContext, shutdown: oneshot::Receiver<()>) -> Serving {
        let limits = ctx.limits;
        let api = ApiContext::new(ctx.info.clone(), self.ui.clone(), ctx.service.clone(), ctx);
        let gate = api.gate.clone();
        Box::pin(listen::serve(listener, router(api), limits, gate, shutdown))
    }
}

#[derive(Clone)]
struct AppState {
    ctx: ApiContext,
}

/// Puts every operation of the engine's catalogue at its path and method, behind its access
/// check; the handler of each is the function of `routes` with the operation's name.
macro_rules! operation_routes {
    ($($name:ident)+) => {
        fn operation_routes(mut router: Router<AppState>, state: &AppState) -> Router<AppState> {
            $(
                router = router.route(
                    &specs::$name.http_path(),
                    endpoint(&specs::$name, routes::$name, state),
                );
            )+
            router
        }
    };
}

smsdesk_engine::with_operations!(operation_routes);

/// `handler` at the method of `spec`, behind its access check.
fn endpoint<H, T>(spec: &'static Spec, handler: H, state: &AppState) -> MethodRouter<AppState>
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = match spec.method {
        Method::Get => MethodFilter::GET,
        Method::Post => MethodFilter::POST,
        Method::Patch => MethodFilter::PATCH,
        Method::Delete => MethodFilter::DELETE,
    };
    on(filter, handler).route_layer(middleware::from_fn_with_state(
        state.clone(),
        move |State(s): State<AppState>, request, next| auth::guard(spec, s, request, next),
    ))
}

/// The routes, without a listener (tests drive it directly as well).
pub fn router(ctx: ApiContext) -> Router {
    let limits = ctx.limits;
    let state = AppState { ctx };
    // The operations of the catalogue, and what only HTTP has: the API's description, the CSV
    // download (the window writes its file itself) and the providers' callbacks.
    let api = operation_routes(Router::new(), &state)
        .route("/api/v1/openapi.json", get(openapi::document))
        .route("/api/v1/messages/export", get(export::export_messages))
        .route("/api/v1/reports/spend.csv", get(export::spend_csv))
        .route("/api/v1/metrics", get(metrics::scrape))
        .route(
            "/api/v1/callbacks/{provider}",
            post(callbacks::receive).get(callbacks::receive),
        )
        .route(
            "/api/v1/callbacks/{provider}/inbound",
            post(callbacks::receive_inbound).get(callbacks::receive_inbound),
        )
        .route(
            "/api/v1/session",
            post(people::sign_in)
                .layer(middleware::from_fn(edge::small_body))
                .delete(people::sign_out),
        )
        .route(
            "/api/v1/setup",
            get(people::setup_state).post(people::first_admin.layer(middleware::from_fn(edge::small_body))),
        )
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ));
    Router::new()
        .route("/api/v1/health", get(health))
        // The event stream lasts as long as the client listens: no request timeout.
        .route("/api/v1/events", get(events::stream))
        .merge(api)
        .route("/api/{*rest}", any(api_not_found))
        .fallback(get(ui_file))
        .layer(DefaultBodyLimit::max(limits.max_body_bytes))
        // Before anything else, whatever the route, the UI's files included.
        .layer(middleware::from_fn_with_state(state.clone(), edge::check))
        .layer(middleware::from_fn(edge::json_errors))
        .with_state(state)
}

/// Whether this instance works: the database writer answers, the SMPP link, the last checkpoint.
/// Needs no key, and says nothing a caller could use against it; an admin's credential adds the
/// connections, event streams and password checks in use, with their caps.
#[utoipa::path(
    get,
    path = "/api/v1/health",
    tag = "instance",
    security(()),
    responses(
        (status = 200, description = "The writer answers (status ok, or degraded, with the reason, while the SMPP link is not bound or the database's disk is short of room)", body = Health),
        (status = 503, description = "The database writer does not answer: nothing new can be stored", body = Health),
    )
)]
async fn health(State(s): State<AppState>, parts: axum::http::request::Parts) -> (StatusCode, Json<Health>) {
    let mut h = s.ctx.service.health(&s.ctx.info).await;
    // Without a credential, nothing is looked up; a wrong one is no refusal here, only less said.
    if auth::credential(&parts, &s).await.is_ok_and(|c| c.caller.is_admin()) {
        h.door = Some(s.ctx.door_use());
        h.passwords = Some(s.ctx.service.hashing_use());
    }
    let code = if h.status == HealthStatus::Unavailable {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    (code, Json(h))
}

async fn api_not_found(uri: Uri) -> Response {
    error(ErrorCode::NotFound, format!("no API route {}", uri.path()))
}

fn error(code: ErrorCode, message: String) -> Response {
    Failure::new(code, message).into_response()
}

async fn ui_file(State(s): State<AppState>, uri: Uri) -> Response {
    let Some(ui) = s.ctx.ui.as_ref() else {
        return error(ErrorCode::NoUi, "this build carries no UI".into());
    };
    let path = match uri.path() {
        "/" => "/index.html",
        p => p,
    };
    // Client-side routes fall back to the app's entry page; files with an extension do not.
    let (path, bytes) = match ui.get(path) {
        Some(b) => (path, b),
        None if !path.rsplit('/').next().unwrap_or("").contains('.') => match ui.get("/index.html") {
            Some(b) => ("/index.html", b),
            None => return error(ErrorCode::NotFound, format!("no file {path}")),
        },
        None => return error(ErrorCode::NotFound, format!("no file {path}")),
    };
    let mut response = bytes.into_owned().into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // No other site learns our addresses from a link followed, nor frames the UI (older
    // browsers ignore the CSP's frame-ancestors).
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
