//! The OpenAPI description of the API, generated from the route and type definitions themselves,
//! served at `/api/v1/openapi.json`.

use axum::Json;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::auth::Authenticated;
use super::{callbacks, events, export, routes};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "smsdesk",
        description = "Send SMS through smsdesk's queue and see, with evidence, what became of each one. \
            Every route but /api/v1/health needs `Authorization: Bearer <API key>`.",
    ),
    paths(
        super::health,
        routes::submit,
        routes::submit_batch,
        routes::preview,
        routes::list_messages,
        export::export_messages,
        routes::message,
        routes::retry,
        routes::cancel,
        routes::list_exceptions,
        routes::exception,
        routes::resolve,
        routes::dashboard,
        routes::activity,
        routes::connection,
        routes::audit_log,
        routes::list_keys,
        routes::create_key,
        routes::revoke_key,
        routes::show_window,
        routes::settings,
        routes::update_settings,
        routes::test_connection,
        callbacks::receive,
        events::stream,
    ),
    components(schemas(smsdesk_engine::api::ApiError, smsdesk_engine::api::Health, smsdesk_engine::api::AppInfo, smsdesk_engine::webhooks::WebhookPayload, super::events::ChangeEvent)),
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
        components.add_security_scheme(
            "provider_token",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::new("token"))),
        );
        components.add_security_scheme(
            "provider_token_header",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-Smsdesk-Token"))),
        );
        openapi.info.version = smsdesk_engine::VERSION.into();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_are_described_by_the_text_forms_the_api_speaks() {
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        let schemas = &doc["components"]["schemas"];
        let values = |name: &str| -> Vec<String> {
            schemas[name]["enum"]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: {}", schemas[name]))
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        };
        assert!(values("QueueStatus").contains(&"outcome_unknown".to_owned()));
        assert!(values("ExceptionKind").contains(&"conflicting_final".to_owned()));
        assert!(values("DeliveryState").contains(&"delivered".to_owned()));
    }

    #[test]
    fn query_parameters_are_in_the_query_and_callbacks_use_the_provider_token() {
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        for p in doc["paths"]["/api/v1/audit"]["get"]["parameters"].as_array().unwrap() {
            assert_eq!(p["in"], "query", "{p}");
        }
        let callback = &doc["paths"]["/api/v1/callbacks/{provider}"];
        assert!(callback["get"].is_object() && callback["post"].is_object());
        assert_eq!(callback["post"]["security"][0]["provider_token"], serde_json::json!([]));
    }
}
