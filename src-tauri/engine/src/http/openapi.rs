//! The OpenAPI description of the API, generated from the route and type definitions themselves,
//! served at `/api/v1/openapi.json`.

use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::auth::Authenticated;
use super::{callbacks, events, routes};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "smsdesk",
        description = "Send SMS through smsdesk's queue and see, with evidence, what became of each one. \
            Every route but /api/v1/health needs `Authorization: Bearer <API key>`.",
    ),
    paths(
        routes::submit,
        routes::submit_batch,
        routes::list_messages,
        routes::message,
        routes::retry,
        routes::cancel,
        routes::list_exceptions,
        routes::exception,
        routes::resolve,
        routes::dashboard,
        routes::audit_log,
        routes::list_keys,
        routes::create_key,
        routes::revoke_key,
        callbacks::receive,
        events::stream,
    ),
    components(schemas(crate::api::ApiError, crate::api::Health, crate::api::AppInfo, crate::webhooks::WebhookPayload)),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        openapi.info.version = crate::VERSION.into();
    }
}

/// The description as JSON.
pub fn json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI description serialises")
}

pub async fn document(_: Authenticated) -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
