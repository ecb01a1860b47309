//! The local HTTP server: the API and the UI for a browser.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::api::{ApiError, AppInfo, Health};

/// The built UI (index.html, scripts, styles), provided by whoever embedded it in the binary.
pub trait UiAssets: Send + Sync + 'static {
    /// The file at `path` (always starting with `/`), if the UI has one.
    fn get(&self, path: &str) -> Option<Cow<'_, [u8]>>;
}

/// The policy the browser enforces on the UI: everything from this server, nothing from elsewhere.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

#[derive(Clone)]
struct AppState {
    info: Arc<AppInfo>,
    ui: Option<Arc<dyn UiAssets>>,
}

/// The routes, without a listener (tests drive it directly as well).
pub fn router(info: Arc<AppInfo>, ui: Option<Arc<dyn UiAssets>>) -> Router {
    Router::new()
        .route("/api/v1/health", get(health))
        .route("/api/v1/info", get(app_info))
        .route("/api/{*rest}", get(api_not_found).post(api_not_found))
        .fallback(get(ui_file))
        .with_state(AppState { info, ui })
}

async fn health(State(s): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok".into(),
        version: s.info.version.clone(),
        schema_version: s.info.schema_version,
    })
}

async fn app_info(State(s): State<AppState>) -> Json<AppInfo> {
    Json((*s.info).clone())
}

async fn api_not_found(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no API route {}", uri.path()),
    )
}

fn error(status: StatusCode, code: &str, message: String) -> Response {
    (status, Json(ApiError::new(code, message))).into_response()
}

async fn ui_file(State(s): State<AppState>, uri: Uri) -> Response {
    let Some(ui) = s.ui.as_ref() else {
        return error(StatusCode::NOT_FOUND, "no_ui", "this build carries no UI".into());
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
            None => return error(StatusCode::NOT_FOUND, "not_found", format!("no file {path}")),
        },
        None => return error(StatusCode::NOT_FOUND, "not_found", format!("no file {path}")),
    };
    let mut response = bytes.into_owned().into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
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

/// A running server; [`HttpServer::stop`] finishes the requests in flight, then returns.
pub struct HttpServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl HttpServer {
    /// Serves `app` on `listener` until stopped.
    pub fn start(listener: TcpListener, app: Router) -> HttpServer {
        let addr = listener.local_addr().expect("a bound listener has an address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await
        });
        HttpServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            match tokio::time::timeout(std::time::Duration::from_secs(10), task).await {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => {
                    tracing::warn!(error = %e, "the HTTP server stopped with an error")
                }
                Ok(Err(e)) => tracing::warn!(error = %e, "the HTTP server task failed"),
                Err(_) => tracing::warn!("the HTTP server did not finish its requests within 10 s"),
            }
        }
    }
}
