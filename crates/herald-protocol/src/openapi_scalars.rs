//! The two scalar schemas every wire type may name (feature `openapi`): base64url strings and
//! relay timestamps, used as `#[schema(value_type = …)]`. A module of their own, below both the
//! wire types that name them and `openapi`, which writes the rest and re-exports these.

use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// A string schema with an optional description.
pub(crate) fn string(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(description))
}

/// Schema of a base64url string (RFC 4648 §5, no padding): keys, signatures, sealed bundles
/// and ciphertext the relay stores without opening. Named `Base64Url` in the document; use
/// it with `#[schema(value_type = Base64Url)]`.
pub struct Base64Url;

impl PartialSchema for Base64Url {
    fn schema() -> RefOr<Schema> {
        string(
            "Binary data as base64url without padding (RFC 4648 §5). Opaque to the relay: \
             keys, signatures, sealed bundles or ciphertext.",
        )
        .pattern(Some("^[A-Za-z0-9_-]*$"))
        .into()
    }
}

impl ToSchema for Base64Url {}

/// Schema of a time the relay writes: RFC 3339 UTC with milliseconds, e.g.
/// `2026-10-02T13:00:04.000Z`. Use with `#[schema(value_type = Timestamp)]`.
pub struct Timestamp;

impl PartialSchema for Timestamp {
    fn schema() -> RefOr<Schema> {
        string("RFC 3339 UTC time with milliseconds, from the relay's clock unless stated.")
            .format(Some(SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::DateTime,
            )))
            .into()
    }
}

impl ToSchema for Timestamp {}
