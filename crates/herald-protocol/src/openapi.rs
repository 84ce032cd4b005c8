//! OpenAPI schemas of the wire types that are not plain serde structs (feature `openapi`; the
//! relay enables it to publish `GET /openapi.json`, docs/openapi.md).
//!
//! The structs and enums of this crate derive `utoipa::ToSchema` next to their serde derives
//! (`#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]`). What cannot be derived is
//! written here from the same constants the code checks with: the id shapes (`<prefix>` + 26
//! base32 characters), the error-code catalog, base64url strings, and the `POST /v1/notify`
//! whitelist (parsed by hand, not by serde).

use std::borrow::Cow;

use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::ids::{
    AccountId, AgentKeyId, ConnectionId, ConnectorId, DeviceId, FileId, MessageId, NotificationId,
    PairingId, ID_BODY_LEN,
};
use crate::notify::{
    NotifyRequest, QuietHours, QuietHoursView, MAX_BODY_CHARS, MAX_GROUP_CHARS,
    MAX_NOTIFICATION_ID_LEN, MAX_SUBTITLE_CHARS, MAX_TITLE_CHARS,
};
use crate::ErrorCode;

use crate::openapi_scalars::string;
pub use crate::openapi_scalars::{Base64Url, Timestamp};

macro_rules! id_schema {
    ($($name:ident: $what:literal,)*) => {$(
        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                string(&format!(
                    "{}: `{}` + {} lowercase base32 characters (128 bits).",
                    $what,
                    $name::PREFIX,
                    ID_BODY_LEN
                ))
                .pattern(Some(format!("^{}[a-z2-7]{{{}}}$", $name::PREFIX, ID_BODY_LEN)))
                .into()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    )*};
}

id_schema! {
    AccountId: "An account id, derived from the identity key's fingerprint",
    DeviceId: "A device id",
    ConnectionId: "A connection id",
    MessageId: "A message id, made by the sender",
    PairingId: "A pairing request id, made by the new device",
    FileId: "An encrypted file's id, made by the relay",
    AgentKeyId: "An agent key's id, made by the relay",
    ConnectorId: "A connector's id, made by the relay",
    NotificationId: "A notification's id as the relay stores it",
}

impl PartialSchema for ErrorCode {
    fn schema() -> RefOr<Schema> {
        // Only the codes the relay sends: the client-side ones (5xx, `relay_unreachable`,
        // `verification_failed`) never travel, except `internal`.
        let codes = ErrorCode::ALL
            .iter()
            .filter(|c| {
                !matches!(
                    c,
                    ErrorCode::RelayUnreachable | ErrorCode::VerificationFailed
                )
            })
            .map(|c| c.as_str());
        string(
            "Stable error code from the catalog (docs/protocol.md, \"Errors\"); clients branch \
             on it, never on `message`. Each code has one HTTP status.",
        )
        .enum_values(Some(codes))
        .into()
    }
}

impl ToSchema for ErrorCode {}

impl PartialSchema for NotifyRequest {
    fn schema() -> RefOr<Schema> {
        // Every field but `title` may be absent or null (`NotifyRequest::parse` reads null as
        // absent), so their schemas allow null too.
        let or_null = |t: Type| SchemaType::from_iter([t, Type::Null]);
        let text = |description: &str, max: usize| {
            string(description)
                .schema_type(or_null(Type::String))
                .max_length(Some(max))
        };
        let flag = |description: &str| {
            ObjectBuilder::new()
                .schema_type(or_null(Type::Boolean))
                .description(Some(description))
        };
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Object))
            .description(Some(
                "A notification (docs/agents.md). Only these fields exist: anything else \
                 (buttons, commands, URLs, scripts, unknown names) is refused with 400 \
                 `forbidden_fields`. Not end-to-end encrypted: the relay seals it to the \
                 account key on arrival.",
            ))
            .property(
                "title",
                string("The title rule of every title and name (docs/content.md): one line of visible text, not blank, no control, bidirectional or invisible formatting characters.")
                    .max_length(Some(MAX_TITLE_CHARS))
                    .min_length(Some(1)),
            )
            .required("title")
            .property(
                "subtitle",
                text("One line, no control characters.", MAX_SUBTITLE_CHARS),
            )
            .property(
                "body",
                text("Plain text; line breaks allowed.", MAX_BODY_CHARS),
            )
            .property(
                "notificationId",
                string("The agent's own id; a repeat is answered with the first receipt.")
                    .schema_type(or_null(Type::String))
                    .min_length(Some(1))
                    .max_length(Some(MAX_NOTIFICATION_ID_LEN))
                    .pattern(Some("^[A-Za-z0-9._:-]+$")),
            )
            .property("speak", flag("Read it aloud (default false)."))
            .property("expectReply", flag("Offer a reply box (default false)."))
            .property(
                "priority",
                string("How insistent it is (default `normal`).")
                    .schema_type(or_null(Type::String))
                    .enum_values(Some([
                        "low".into(),
                        "normal".into(),
                        "high".into(),
                        serde_json::Value::Null,
                    ])),
            )
            .property("sound", flag("Play the system sound (default true)."))
            .property(
                "group",
                text("Groups banners on the device.", MAX_GROUP_CHARS),
            )
            .property(
                "threadId",
                text("Threads banners on the device.", MAX_GROUP_CHARS),
            )
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for NotifyRequest {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("NotifyRequest")
    }
}

impl PartialSchema for QuietHoursView {
    /// [`QuietHours`] plus `active`. Written out rather than derived: the settings refuse
    /// unknown fields (`additionalProperties: false`), which an `allOf` of the flattened
    /// settings and `active` could never satisfy.
    fn schema() -> RefOr<Schema> {
        let RefOr::T(Schema::Object(mut view)) = QuietHours::schema() else {
            return QuietHours::schema();
        };
        view.description = Some(
            "`GET /quiet-hours` and the answer to `PUT`: the settings and whether they hold \
             now."
                .into(),
        );
        view.properties.insert(
            "active".into(),
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .description(Some("Whether quiet hours hold now (relay clock)."))
                .into(),
        );
        view.required.push("active".into());
        RefOr::T(Schema::Object(view))
    }
}

impl ToSchema for QuietHoursView {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_schema_pattern_matches_real_ids() {
        let json = serde_json::to_value(MessageId::schema()).expect("serializes");
        assert_eq!(
            json["pattern"], "^msg_[a-z2-7]{26}$",
            "the pattern of a message id"
        );
    }

    #[test]
    fn quiet_hours_view_is_the_settings_and_active() {
        let view = QuietHoursView {
            settings: QuietHours::default(),
            active: true,
        };
        let json = serde_json::to_value(QuietHoursView::schema()).expect("serializes");
        let properties = json["properties"].as_object().expect("an object schema");
        let value = serde_json::to_value(&view).expect("serializes");
        for key in value.as_object().expect("an object").keys() {
            assert!(properties.contains_key(key), "{key} is described");
        }
        assert!(
            json["required"]
                .as_array()
                .expect("required")
                .contains(&"active".into()),
            "active is always sent"
        );
    }

    #[test]
    fn error_code_schema_lists_relay_codes_only() {
        let json = serde_json::to_value(ErrorCode::schema()).expect("serializes");
        let codes = json["enum"].as_array().expect("an enum");
        assert!(codes.contains(&"not_found".into()), "catalog codes listed");
        assert!(
            !codes.contains(&"relay_unreachable".into()),
            "client-side codes are not listed"
        );
    }
}
