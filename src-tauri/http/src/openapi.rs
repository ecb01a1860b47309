//! The OpenAPI description of the API, served at `/api/v1/openapi.json`: the operations of the
//! engine's catalogue (`smsdesk_engine::operations`) and the few HTTP-only routes (health, the
//! CSV download, provider callbacks, the event stream), each generated from its one definition.

use axum::Json;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{callbacks, events, export, metrics, people};
use smsdesk_engine::access::Access;
use smsdesk_engine::operations::{Method, Place, Spec, OPERATIONS};
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::{ContentBuilder, Ref, Required, ResponseBuilder};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "smsdesk",
        description = "Send SMS through smsdesk's queue and see, with evidence, what became of each one. \
            Every route but /api/v1/health, this description, sign-in and setup needs a credential: \
            an API key as `Authorization: Bearer <key>` (its scopes say what it may do: `send`, \
            `read:own`, `read:all`, `act`, `export`, `alerts`, `metrics`), or a person's session cookie `smsdesk_session` \
            (their role says what they may do: `admin`, `operator`, `viewer`), which must also send \
            `X-CSRF-Token` on every request that changes something. Each operation says what it needs.",
    ),
    paths(super::health, document, export::export_messages, export::spend_csv, metrics::scrape, callbacks::receive, callbacks::receive_inbound, events::stream,
        people::sign_in, people::sign_out, people::setup_state, people::first_admin),
    components(schemas(smsdesk_engine::api::ApiError, smsdesk_engine::service::Health, smsdesk_engine::api::AppInfo, smsdesk_engine::webhooks::WebhookPayload, super::events::ChangeEvent)),
    modifiers(&BearerAuth, &Catalogue),
    security(("bearer" = []), ("session" = [])),
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
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                smsdesk_engine::accounts::session::COOKIE,
                "A person's browser session, set by POST /api/v1/session; state-changing requests \
                 also send its CSRF token (from the sign-in answer or GET /api/v1/me) as X-CSRF-Token.",
            ))),
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

/// Adds every operation of the catalogue, with the schemas of what it takes and answers.
struct Catalogue;

impl Modify for Catalogue {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut schemas = Vec::new();
        for spec in OPERATIONS {
            let method = match spec.method {
                Method::Get => HttpMethod::Get,
                Method::Post => HttpMethod::Post,
                Method::Patch => HttpMethod::Patch,
                Method::Delete => HttpMethod::Delete,
            };
            openapi
                .paths
                .add_path_operation(spec.http_path(), vec![method], operation(spec, &mut schemas));
        }
        let components = openapi.components.get_or_insert_with(Default::default);
        components.schemas.extend(schemas);
    }
}

/// One operation's entry: its arguments, its success and every error code it may answer with.
fn operation(spec: &Spec, schemas: &mut smsdesk_engine::operations::Schemas) -> utoipa::openapi::path::Operation {
    let doc = join_lines(spec.doc);
    let summary = doc.split_once(". ").map_or(doc.as_str(), |(first, _)| first).to_owned();
    let description = format!("{doc} Needs: {}.", needs(spec.access));
    let mut op = OperationBuilder::new()
        .operation_id(Some(spec.name))
        .tag(spec.tag)
        .summary(Some(summary.trim_end_matches('.')))
        .description(Some(description.clone()));
    for arg in spec.args {
        let param = |at: ParameterIn, name: &str, required: bool, schema| {
            ParameterBuilder::new()
                .name(name)
                .parameter_in(at)
                .required(if required { Required::True } else { Required::False })
                .description((!arg.doc.is_empty()).then(|| join_lines(arg.doc)))
                .schema(Some(schema))
                .build()
        };
        match arg.place {
            Place::Path => op = op.parameter(param(ParameterIn::Path, arg.name, true, (arg.ty.schema)(schemas))),
            Place::Header(name) => op = op.parameter(param(ParameterIn::Header, name, false, (arg.ty.schema)(schemas))),
            Place::Param => op = op.parameter(param(ParameterIn::Query, arg.name, false, (arg.ty.schema)(schemas))),
            Place::Query => {
                (arg.ty.schema)(schemas);
                for p in arg.ty.params.map(|f| f()).unwrap_or_default() {
                    op = op.parameter(p);
                }
            }
            Place::Body => {
                let content = ContentBuilder::new().schema(Some((arg.ty.schema)(schemas))).build();
                op = op.request_body(Some(
                    RequestBodyBuilder::new()
                        .required(Some(Required::True))
                        .content("application/json", content)
                        .build(),
                ));
            }
        }
    }
    let success = match spec.output {
        Some(ty) => ResponseBuilder::new().description("Done").content(
            "application/json",
            ContentBuilder::new().schema(Some((ty.schema)(schemas))).build(),
        ),
        None => ResponseBuilder::new().description("Done (no content)"),
    };
    op = op.response(spec.status.to_string(), success.build());
    let codes = spec.error_codes();
    let mut statuses: Vec<u16> = codes.iter().map(|c| c.status()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    for status in statuses {
        let meaning: Vec<String> = codes
            .iter()
            .filter(|c| c.status() == status)
            .map(|c| format!("`{c}`: {}", c.meaning().trim()))
            .collect();
        let content = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("ApiError")))
            .build();
        op = op.response(
            status.to_string(),
            ResponseBuilder::new()
                .description(meaning.join(" "))
                .content("application/json", content)
                .build(),
        );
    }
    op.build()
}

/// A doc comment's lines as one paragraph.
fn join_lines(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The description as JSON.
pub fn json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI description serialises")
}

/// This description. Needs no key: it holds no data, only what any copy of smsdesk serves.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "instance", security(()),
    responses((status = 200, description = "The OpenAPI description of every route", content_type = "application/json")))]
pub async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// Who may call an operation of `access`, for its description.
fn needs(access: Access) -> &'static str {
    match access {
        Access::Public => "nothing",
        Access::Any => "any credential",
        Access::Send => "scope `send`, or the operator or admin role",
        Access::ReadMessages => "scope `read:own` (only the key's own messages) or `read:all`, or any role",
        Access::ReadAll => "scope `read:all`, or any role",
        Access::Act => "scope `act` with a read scope, or the operator or admin role",
        Access::Resolve => "scopes `act` and `read:all`, or the operator or admin role",
        Access::Export => "scope `export` with a read scope, or the operator or admin role",
        Access::ExportAll => "scopes `export` and `read:all`, or the operator or admin role",
        Access::Admin => "the admin role",
        Access::Person => "a person's session",
        Access::Metrics => "scope `metrics`, or the admin role",
    }
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
        assert!(values("ErrorCode").contains(&"idempotency_key_in_flight".to_owned()));
    }

    #[test]
    fn every_reference_points_at_a_described_schema() {
        fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(|r| r.as_str()) {
                        out.push(r.to_owned());
                    }
                    m.values().for_each(|v| refs(v, out));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
                _ => {}
            }
        }
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(found.len() > 50, "the operations refer to their types: {}", found.len());
        for r in found {
            let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{r}"));
            assert!(doc["components"]["schemas"][name].is_object(), "{r} is not described");
        }
    }

    #[test]
    fn each_operation_of_the_catalogue_is_described_with_its_success_and_its_error_codes() {
        use smsdesk_engine::operations::{Method, OPERATIONS};
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        for spec in OPERATIONS {
            let method = match spec.method {
                Method::Get => "get",
                Method::Post => "post",
                Method::Patch => "patch",
                Method::Delete => "delete",
            };
            let op = &doc["paths"][spec.http_path()][method];
            assert_eq!(op["operationId"], spec.name, "{}: {op}", spec.name);
            assert!(op["responses"][spec.status.to_string()].is_object(), "{}", spec.name);
            for code in spec.error_codes() {
                let answer = &op["responses"][code.status().to_string()];
                assert!(
                    answer["description"].as_str().unwrap().contains(&format!("`{code}`")),
                    "{}: {code} is described: {answer}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn the_export_takes_the_message_lists_filters_without_its_paging() {
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        let params = |path: &str| -> Vec<(String, String)> {
            doc["paths"][path]["get"]["parameters"]
                .as_array()
                .unwrap_or_else(|| panic!("{path} has parameters"))
                .iter()
                .map(|p| (p["name"].as_str().unwrap().to_owned(), p.to_string()))
                .collect()
        };
        let list: Vec<(String, String)> = params("/api/v1/messages")
            .into_iter()
            .filter(|(name, _)| name != "cursor" && name != "limit")
            .collect();
        assert!(list.len() >= 8, "the list's filters are described: {list:?}");
        assert_eq!(
            params("/api/v1/messages/export"),
            list,
            "the export is described with the list's filters, each as the list describes it, and no paging"
        );
    }

    #[test]
    fn query_parameters_are_in_the_query_and_callbacks_use_the_provider_token() {
        let doc: serde_json::Value = serde_json::from_str(&json()).unwrap();
        for p in doc["paths"]["/api/v1/audit"]["get"]["parameters"].as_array().unwrap() {
            assert_eq!(p["in"], "query", "{p}");
        }
        for path in ["/api/v1/callbacks/{provider}", "/api/v1/callbacks/{provider}/inbound"] {
            let callback = &doc["paths"][path];
            assert!(callback["get"].is_object() && callback["post"].is_object(), "{path}");
            assert_eq!(callback["post"]["security"][0]["provider_token"], serde_json::json!([]));
        }
    }
}
