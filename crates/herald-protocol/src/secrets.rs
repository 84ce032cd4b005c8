//! Wire types and limits of secret delivery (docs/secrets.md): secret fields answered to the
//! asking connection only, and secret offers (messages of kind `secret`) whose secret is
//! sealed to a one-time key of the device that opened them.
//!
//! Routes (all bodies JSON, errors from the catalog):
//!
//! | route | caller | body → answer |
//! |---|---|---|
//! | `POST /messages/:id/secret/collect` | the asking connection | — → [`SecretEnvelope`] once; then `410 secret_collected` |
//! | `PUT /messages/:id/offer-key` | a device | [`OfferKeyRequest`] → [`SecretOfferState`] |
//! | `GET /messages/:id/offer-key` | the sending connection, devices | — → [`SecretOfferState`] |
//! | `POST /messages/:id/secret-payload` | the sending connection | [`SecretPayloadRequest`] → [`SecretOfferState`] |
//! | `POST /messages/:id/secret-payload/collect` | the device that opened it | — → [`SecretEnvelope`] once |

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::envelope::{Certificate, Envelope};
use crate::ids::DeviceId;

/// The `kind` of a secret offer on `POST /messages` (`expectsAnswer` must be false; the
/// content is a title and a body only).
pub const SECRET_OFFER_KIND: &str = "secret";

/// How long the relay keeps an uncollected secret: a secret answer from the answer, an
/// offer's one-time key from its opening, an offer's secret from its posting (15 minutes).
pub const SECRET_TTL_SECS: i64 = 15 * 60;

/// Largest secret of a secret offer, in bytes of plaintext (64 KiB). The CLI refuses larger
/// files before sending anything.
pub const MAX_SECRET_OFFER_BYTES: usize = 64 * 1024;

/// Largest encoded envelope accepted on `POST /messages/:id/secret-payload`: a 64 KiB
/// secret in base64url plus the header, one sealed key and the signature, with room to spare.
pub const MAX_SECRET_PAYLOAD_ENVELOPE_BYTES: usize = 96 * 1024;

/// The value that stands in for a secret field's answer in the ordinary answer envelope:
/// `{"secret": true}`. The real value travels only in the secret envelope.
pub fn secret_marker() -> Value {
    let mut m = Map::new();
    m.insert("secret".into(), Value::Bool(true));
    Value::Object(m)
}

/// Whether `value` is exactly [`secret_marker`].
pub fn is_secret_marker(value: &Value) -> bool {
    matches!(value, Value::Object(m) if m.len() == 1 && m.get("secret") == Some(&Value::Bool(true)))
}

/// A sealed secret handed over once: the answer to `POST /messages/:id/secret/collect`
/// (envelope kind `secretAnswer`) and `POST /messages/:id/secret-payload/collect` (kind
/// `secretPayload`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretEnvelope {
    pub envelope: Envelope,
}

/// `PUT /messages/:id/offer-key` (device): the one-time key, certified by the account
/// identity key (`CertificateBody::OfferKey` naming this message and the calling device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OfferKeyRequest {
    pub certificate: Certificate,
}

/// `POST /messages/:id/secret-payload` (the sending connection): the secret sealed to the
/// offer key only (envelope kind `secretPayload`, exactly one recipient: the offer key id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretPayloadRequest {
    pub envelope: Envelope,
}

/// Where a secret offer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum SecretOfferStatus {
    /// No device has opened it yet.
    Waiting,
    /// A device posted its one-time key; the sender may seal to it.
    Opened,
    /// The sender posted the secret; the device has not collected it yet.
    Sent,
    /// The device collected the secret; the relay deleted it.
    Delivered,
    /// Nobody sent or collected in time (15 minutes); the relay deleted what it held.
    Expired,
}

/// The state of a secret offer, as `GET /messages/:id/offer-key` and the offer routes
/// return it. Times are RFC 3339 from the relay's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecretOfferState {
    pub status: SecretOfferStatus,
    /// The offer key certificate, once a device opened the offer (the sender verifies it
    /// against its pinned account key before sealing anything).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer_key: Option<Certificate>,
    /// The device that opened it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<DeviceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub opened_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub sent_at: Option<String>,
    /// When the device collected the secret, or when it expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub closed_at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_snapshot() {
        assert_eq!(
            serde_json::to_string(&secret_marker()).unwrap(),
            r#"{"secret":true}"#,
            "the published marker"
        );
        assert!(
            is_secret_marker(&secret_marker()),
            "the marker is recognised"
        );
        for other in [
            serde_json::json!({"secret": false}),
            serde_json::json!({"secret": true, "x": 1}),
            serde_json::json!("secret"),
        ] {
            assert!(!is_secret_marker(&other), "{other} is not the marker");
        }
    }

    #[test]
    fn offer_state_snapshot() {
        let state = SecretOfferState {
            status: SecretOfferStatus::Waiting,
            offer_key: None,
            device_id: None,
            opened_at: None,
            sent_at: None,
            closed_at: None,
        };
        assert_eq!(
            serde_json::to_value(&state).unwrap(),
            serde_json::json!({"status": "waiting"}),
            "a waiting offer carries only its status"
        );
    }
}
