//! The operations the engine offers its doors, each declared once in [`catalogue.rs`]: its name,
//! HTTP method and path, what it takes and answers, the error codes it may answer with, and who
//! may call it. From that one declaration come:
//!
//! - the HTTP routes and who may call each (`smsdesk-http` builds its router by
//!   [`with_operations!`](crate::with_operations)); a route without a handler does not compile;
//! - the OpenAPI entries (`smsdesk-http`'s `openapi.rs` reads [`OPERATIONS`]);
//! - the desktop window's commands and their permissions (the shell registers them with
//!   [`with_window_operations!`](crate::with_window_operations); its build script reads the same
//!   catalogue for the permission list);
//! - the UI's TypeScript client (`ui/src/bindings/operations.ts`, generated with the bindings).
//!
//! The handlers themselves stay small adapters over [`Service`](crate::service::Service).

use std::borrow::Cow;

use ts_rs::TS;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use crate::access::Access;
use crate::access::{AccountInfo, Me, SessionInfo};
use crate::accounts::{AccountChange, NewAccount, PasswordChange};
use crate::alerts::overview::{AcknowledgeAlert, AlertsOverview, TestAlert, TestAlertResult};
use crate::api::{AppInfo, ErrorCode};
use crate::apikeys::{ApiKeyInfo, CreatedApiKey, NewApiKey};
use crate::idempotency::IdempotencyKey;
use crate::intake::{SubmitMessage, SubmittedMessage};
use crate::nodes::NodeView;
use crate::pace::Pace;
use crate::privacy::{Erased, RetentionRun};
use crate::service::privacy::{EraseNumber, PrivacyOverview, SubjectAccess, SubjectRequest};
use crate::service::{
    CandidateComparison, CompareCandidates, ConnectionAction, ConnectionStatus, GuardrailsOverview, MarkRead,
    MessageAction, NewOptOut, NewTemplate, OptOutAdded, OptOutCsv, OptOutImport, OptOutImported, Preview, RemoveOptOut,
    ResolveRequest, SandboxReply, SpendQuery, SpendReport, SubmitBatch, SubmittedBatch, Template,
};
use crate::settings::{
    ConnectionTest, ConnectionTestResult, ConnectionsUpdate, ConnectionsView, SettingsSaved, SettingsUpdate,
    SettingsView,
};
use crate::smpp_clients::{CreatedSmppAccount, NewSmppAccount, SmppAccountInfo, SmppServerStatus};
use crate::views::{
    Activity, ActivityWindow, AuditPage, Dashboard, DeliveryReport, ExceptionDetail, ExceptionFilter, ExceptionPage,
    InboxCounts, InboxFilter, MessageDetail, MessageFilter, MessagePage, OptOutFilter, OptOutPage, PageRequest,
    ReportQuery, ThreadPage, ThreadRequest, ThreadView,
};

/// Where every operation's path starts.
pub const API_PREFIX: &str = "/api/v1";

/// The HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Patch,
    Delete,
}

impl Method {
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// Where an argument travels over HTTP. Over IPC every argument is a named field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A path segment `{name}`: a positive numeric id.
    Path,
    /// The fields of a struct, each a query parameter.
    Query,
    /// One query parameter named after the argument.
    Param,
    /// The JSON body.
    Body,
    /// A header with this name (optional).
    Header(&'static str),
}

/// The schemas an OpenAPI document collects, by name.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// A type as each derived artefact needs it.
#[derive(Clone, Copy)]
pub struct Ty {
    /// Its TypeScript spelling.
    pub ts: fn() -> String,
    /// The generated TypeScript types it names.
    pub imports: fn() -> Vec<String>,
    /// Its OpenAPI schema (a reference once it is collected into `Schemas`).
    pub schema: fn(&mut Schemas) -> RefOr<Schema>,
    /// Its query parameters, for [`Place::Query`].
    pub params: Option<fn() -> Vec<Parameter>>,
}

fn ts_name<T: TS>() -> String {
    T::name()
}

fn ts_list<T: TS>() -> String {
    format!("{}[]", T::name())
}

fn ts_number() -> String {
    "number".into()
}

fn import<T: TS>() -> Vec<String> {
    vec![T::ident()]
}

fn no_imports() -> Vec<String> {
    Vec::new()
}

fn named<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    T::schemas(schemas);
    let name: Cow<'static, str> = T::name();
    schemas.push((name.to_string(), T::schema()));
    Ref::from_schema_name(name).into()
}

fn listed<T: ToSchema>(schemas: &mut Schemas) -> RefOr<Schema> {
    ArrayBuilder::new().items(named::<T>(schemas)).into()
}

fn id_schema(_: &mut Schemas) -> RefOr<Schema> {
    i64::schema()
}

fn query_params<T: IntoParams>() -> Vec<Parameter> {
    T::into_params(|| Some(ParameterIn::Query))
}

impl Ty {
    /// A named type sent as JSON (a body, an answer, one query parameter).
    pub const fn named<T: TS + ToSchema>() -> Ty {
        Ty {
            ts: ts_name::<T>,
            imports: import::<T>,
            schema: named::<T>,
            params: None,
        }
    }

    /// A list of a named type.
    pub const fn list<T: TS + ToSchema>() -> Ty {
        Ty {
            ts: ts_list::<T>,
            imports: import::<T>,
            schema: listed::<T>,
            params: None,
        }
    }

    /// A struct read from the query string.
    pub const fn query<T: TS + ToSchema + IntoParams>() -> Ty {
        Ty {
            ts: ts_name::<T>,
            imports: import::<T>,
            schema: named::<T>,
            params: Some(query_params::<T>),
        }
    }

    /// A numeric id in the path.
    pub const fn id() -> Ty {
        Ty {
            ts: ts_number,
            imports: no_imports,
            schema: id_schema,
            params: None,
        }
    }
}

/// One argument of an operation.
#[derive(Clone, Copy)]
pub struct Arg {
    /// Its name (snake_case; the window's IPC and the UI spell it in camelCase).
    pub name: &'static str,
    pub place: Place,
    pub ty: Ty,
    /// What it is for.
    pub doc: &'static str,
}

impl Arg {
    /// Whether a caller may leave it out (headers are optional).
    pub fn optional(&self) -> bool {
        matches!(self.place, Place::Header(_))
    }
}

/// One operation, as declared in the catalogue.
#[derive(Clone, Copy)]
pub struct Spec {
    /// Its name: the window's command and permission (`allow-<name>` in kebab-case), and the UI
    /// client's method (in camelCase).
    pub name: &'static str,
    /// What it does (the first line is its summary).
    pub doc: &'static str,
    pub method: Method,
    /// Its path under [`API_PREFIX`], with `{name}` for path arguments.
    pub path: &'static str,
    /// The HTTP status of a success.
    pub status: u16,
    /// What a success answers; `None` for 204 No Content.
    pub output: Option<Ty>,
    pub args: &'static [Arg],
    /// The codes it may answer with besides those every operation of its kind may (see
    /// [`Spec::error_codes`]).
    pub errors: &'static [ErrorCode],
    pub access: Access,
    /// Whether the desktop window has it as a command.
    pub window: bool,
    /// The API description's grouping.
    pub tag: &'static str,
}

impl Spec {
    /// The full HTTP path.
    pub fn http_path(&self) -> String {
        format!("{API_PREFIX}{}", self.path)
    }

    /// Every code this operation may answer with: those its shape implies (a credential, a body,
    /// a query, an id) and its own.
    pub fn error_codes(&self) -> Vec<ErrorCode> {
        let mut codes = Vec::new();
        if self.access != Access::Public {
            codes.push(ErrorCode::Unauthorized);
        }
        if !matches!(self.access, Access::Public | Access::Any) {
            codes.push(ErrorCode::Forbidden);
        }
        for arg in self.args {
            match arg.place {
                Place::Path => codes.push(ErrorCode::NotFound),
                Place::Body => codes.extend([ErrorCode::BadJson, ErrorCode::TooLarge, ErrorCode::Invalid]),
                Place::Query | Place::Param => codes.push(ErrorCode::Invalid),
                Place::Header(_) => codes.push(ErrorCode::BadRequest),
            }
        }
        codes.extend_from_slice(self.errors);
        codes.extend([ErrorCode::Internal, ErrorCode::Stopping]);
        if self.method != Method::Get {
            // What a change stores, a full disk refuses.
            codes.push(ErrorCode::StorageFull);
        }
        let mut seen = Vec::new();
        codes.retain(|c| {
            let new = !seen.contains(c);
            seen.push(*c);
            new
        });
        codes
    }
}

/// The type of an argument, by where it travels.
macro_rules! arg_ty {
    (Path) => {
        Ty::id()
    };
    (Header $t:ident) => {
        Ty::named::<$t>()
    };
    (Query $t:ident) => {
        Ty::query::<$t>()
    };
    (Body $t:ident) => {
        Ty::named::<$t>()
    };
    (Param $t:ident) => {
        Ty::named::<$t>()
    };
}

macro_rules! place {
    (Header($h:literal)) => {
        Place::Header($h)
    };
    ($p:ident) => {
        Place::$p
    };
}

macro_rules! output {
    (()) => {
        None
    };
    ([$t:ident]) => {
        Some(Ty::list::<$t>())
    };
    ($t:ident) => {
        Some(Ty::named::<$t>())
    };
}

macro_rules! window {
    () => {
        true
    };
    ($window:tt) => {
        $window
    };
}

/// Defines `with_window_operations!` with the names of the operations the window has (those
/// not marked `window: false`), picked out one at a time.
macro_rules! window_operations {
    ($d:tt [$($done:ident)*]) => {
        /// Calls `$callback! { name ... }` with the name of every operation the desktop window
        /// has: the shell registers its commands with it.
        #[macro_export]
        macro_rules! with_window_operations {
            ($d callback:ident) => {
                $d callback! { $($done)* }
            };
        }
    };
    ($d:tt [$($done:ident)*] $name:ident () $($rest:tt)*) => {
        window_operations!($d [$($done)* $name] $($rest)*);
    };
    ($d:tt [$($done:ident)*] $name:ident (true) $($rest:tt)*) => {
        window_operations!($d [$($done)* $name] $($rest)*);
    };
    ($d:tt [$($done:ident)*] $name:ident (false) $($rest:tt)*) => {
        window_operations!($d [$($done)*] $($rest)*);
    };
}

/// Declares the catalogue: the specs, [`OPERATIONS`], and the callback macros other crates
/// derive their adapters with. `$d` is a `$` handed in, so that the macros it defines can have
/// parameters of their own.
macro_rules! operations {
    ($d:tt
        $(
            $(#[doc = $doc:literal])+
            $name:ident: $method:ident $path:literal -> $status:literal $out:tt {
                tag: $tag:literal, access: $access:ident $(, window: $window:tt)?
                $(, args: [$( $(#[doc = $adoc:literal])* $arg:ident: $place:ident $(($hdr:literal))? $($aty:ident)? ),* $(,)?])?
                $(, errors: [$($err:ident),* $(,)?])?
                $(,)?
            }
        )+
    ) => {
        /// Each operation's declaration, by name.
        #[allow(non_upper_case_globals)]
        pub mod specs {
            use super::*;
            $(
                pub static $name: Spec = Spec {
                    name: stringify!($name),
                    doc: concat!($($doc, "\n"),+),
                    method: Method::$method,
                    path: $path,
                    status: $status,
                    output: output!($out),
                    args: &[$($(Arg {
                        name: stringify!($arg),
                        place: place!($place $(($hdr))?),
                        ty: arg_ty!($place $($aty)?),
                        doc: concat!($($adoc),*),
                    }),*)?],
                    errors: &[$($(ErrorCode::$err),*)?],
                    access: Access::$access,
                    window: window!($($window)?),
                    tag: $tag,
                };
            )+
        }

        /// Every operation, in the catalogue's order.
        pub static OPERATIONS: &[&Spec] = &[$(&specs::$name),+];

        /// Calls `$callback! { name ... }` with every operation's name: the HTTP door builds
        /// its router with it.
        #[macro_export]
        macro_rules! with_operations {
            ($d callback:ident) => {
                $d callback! { $($name)+ }
            };
        }

        window_operations!($d [] $($name ($($window)?))+);
    };
}

include!("catalogue.rs");

#[cfg(test)]
mod tests;
