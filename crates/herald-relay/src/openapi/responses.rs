//! Responses many operations share, as `components/responses` of the document. Each carries
//! the catalog's error body (`ErrorBody`); the description names the codes it is sent with.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::ToResponse;

/// A response with the error body and `description`.
fn error(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("ErrorBody")))
            .build(),
    )
}

/// A response header with a string or integer schema.
fn header(ty: Type, description: &str) -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(ObjectBuilder::new().schema_type(ty))
        .description(Some(description))
        .build()
}

macro_rules! shared {
    ($($(#[$doc:meta])* $name:ident => $build:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name;

        impl<'s> ToResponse<'s> for $name {
            fn response() -> (&'s str, RefOr<Response>) {
                (stringify!($name), $build.build().into())
            }
        }
    )*};
}

/// Name of the 401 header; the document marks it required (see `super::json`).
pub const WWW_AUTHENTICATE: &str = "WWW-Authenticate";
/// Name of the budget 429 header; the document marks it required (see `super::json`).
pub const RETRY_AFTER: &str = "Retry-After";

shared! {
    /// 401 `unauthorized`, with `WWW-Authenticate`.
    Unauthorized => error(
        "`unauthorized`: no credential, or an unknown, revoked or wrong-kind one. An agent \
         credential (`hrk_`/`hra_`) sent to a route it may not call gets this when it is not \
         valid.",
    )
    .header(WWW_AUTHENTICATE, header(Type::String, "`Bearer` (on `/mcp` with `resource_metadata`)."));
    /// 403 `forbidden`.
    Forbidden => error(
        "`forbidden`: a valid credential that may not call this route (an agent credential \
         outside `/v1/*` and `/mcp`, a connection on a device-only route, a device or \
         connection on an agent route).",
    );
    /// 404 `not_found`.
    NotFound => error(
        "`not_found`: nothing with that id is visible to this credential (a malformed id \
         included).",
    );
    /// 413 `payload_too_large`.
    PayloadTooLarge => error("`payload_too_large`: the body is over the route's limit.");
    /// 429 `rate_limited` (unauthenticated routes).
    RateLimited => error(
        "`rate_limited`: too many failed unauthenticated attempts (or requests) this minute \
         from this client, or from all clients together.",
    )
    .header(RETRY_AFTER, header(Type::Integer, "Seconds until the next one-minute window."));
    /// 429 of the agent budgets, with `Retry-After` and `resetsAt`.
    BudgetExceeded => error(
        "`budget_exceeded` (daily requests) or `poll_budget_exceeded` (daily seconds of \
         waiting for replies): `resetsAt` in the body and `Retry-After` say when it refills \
         (next midnight UTC).",
    )
    .header(RETRY_AFTER, header(Type::Integer, "Seconds until the budget refills."));
    /// 500 `internal`.
    Internal => error("`internal`: a relay fault; the cause is logged, never returned.");
}
