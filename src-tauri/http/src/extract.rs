//! How a route reads its request: a JSON body, query parameters and a numeric id in the path, each
//! refused with an [`ApiError`](smsdesk_engine::api::ApiError) that names what does not fit.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::intake::FieldError;
use smsdesk_engine::said::FieldCode;

use super::Failure;

/// A JSON body, refused with an [`ApiError`](smsdesk_engine::api::ApiError) naming the field when it does not fit.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            let status = e.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                Failure::new(
                    ErrorCode::TooLarge,
                    "the request body is larger than this server accepts (http.max_body_kib)",
                )
            } else {
                Failure::new(ErrorCode::BadRequest, e.body_text())
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Reads a JSON object into `T`: bad JSON is 400, anything but an object or an object of the
/// wrong shape is 422 with the path of the offending field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Failure> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| Failure::new(ErrorCode::BadJson, format!("the body is not valid JSON: {e}")))?;
    // Every body this API takes is an object; serde would also read a struct from an array of
    // its fields in order, which no client means.
    if !value.is_object() {
        let mut f = Failure::new(ErrorCode::Invalid, "body: the body must be a JSON object");
        f.body.errors = vec![FieldError::new(
            "body",
            FieldCode::InvalidType,
            "the body must be a JSON object",
        )];
        return Err(f);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // Unknown and missing fields are named by serde itself; others by their path.
        let field = if path == "." {
            inner
                .split('`')
                .nth(1)
                .map(str::to_owned)
                .unwrap_or_else(|| "body".into())
        } else {
            path
        };
        let code = if inner.starts_with("unknown field") {
            FieldCode::UnknownField
        } else if inner.starts_with("missing field") {
            FieldCode::Required
        } else {
            FieldCode::InvalidType
        };
        let mut f = Failure::new(ErrorCode::Invalid, format!("{field}: {inner}"));
        f.body.errors = vec![FieldError::new(&field, code, inner)];
        f
    })
}

/// Query parameters, refused with an [`ApiError`](smsdesk_engine::api::ApiError) when they do not fit.
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| QueryParams(q))
            .map_err(|e| Failure::new(ErrorCode::Invalid, e.body_text()))
    }
}

/// A numeric id in the path.
pub struct Id(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| Failure::new(ErrorCode::BadRequest, e.body_text()))?;
        raw.parse::<i64>()
            .ok()
            .filter(|n| *n > 0)
            .map(Id)
            .ok_or_else(|| Failure::new(ErrorCode::NotFound, format!("`{raw}` is not an id")))
    }
}
