//! Agent credentials (docs/agents.md): agent keys (`hrk_…`) made by a device, and connector
//! access tokens (`hra_…`) obtained through the OAuth 2.0 device authorization grant
//! (RFC 8628), with the metadata documents of RFC 9728 and RFC 8414.
//!
//! Both kinds may call only `/v1/*` and `/mcp`; they never expire and are never rotated, and a
//! device revokes them. Device-facing bodies are camelCase like the rest of the API; the OAuth
//! bodies use the snake_case names of their RFCs.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::{AgentKeyId, ConnectorId};

/// Prefix of an agent key.
pub const AGENT_KEY_PREFIX: &str = "hrk_";
/// Prefix of a connector access token.
pub const CONNECTOR_TOKEN_PREFIX: &str = "hra_";
/// Longest name of an agent key or a connector, in characters.
pub const MAX_CREDENTIAL_NAME_CHARS: usize = 100;

/// Checks a credential name: trimmed, then the one rule of titles and names
/// ([`crate::text::check_label`], at most 100 characters). Returns the trimmed name.
pub fn check_credential_name(name: &str) -> Option<&str> {
    let name = name.trim();
    crate::text::check_label(name, MAX_CREDENTIAL_NAME_CHARS)
        .is_ok()
        .then_some(name)
}

/// `POST /agent-keys` (device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateAgentKeyRequest {
    /// 1–100 characters, no control characters.
    pub name: String,
}

/// Answer to `POST /agent-keys` (201). `key` is shown once; the relay keeps only its hash.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentKeyCreated {
    pub id: AgentKeyId,
    pub name: String,
    /// `hrk_` + base64url(32 random bytes).
    pub key: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
}

impl fmt::Debug for AgentKeyCreated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentKeyCreated")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("key", &"[redacted]")
            .field("created_at", &self.created_at)
            .finish()
    }
}

/// One agent key in `GET /agent-keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentKeyInfo {
    pub id: AgentKeyId,
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    /// Set once revoked; a revoked key gets 401 from then on.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub revoked_at: Option<String>,
}

/// `GET /agent-keys`: the account's agent keys, oldest first, revoked ones included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentKeyList {
    pub agent_keys: Vec<AgentKeyInfo>,
}

/// One connector in `GET /connectors` and the answer to `POST /connectors/approve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectorInfo {
    pub id: ConnectorId,
    /// Chosen by the person on approval, else the client's `client_name`, else its `client_id`.
    pub name: String,
    /// The OAuth `client_id` the connector gave.
    pub client_id: String,
    /// Whether the connector has collected its access token (it is handed out once).
    pub token_issued: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = crate::openapi_scalars::Timestamp))]
    pub created_at: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<crate::openapi_scalars::Timestamp>))]
    pub revoked_at: Option<String>,
}

/// `GET /connectors`: oldest first, revoked ones included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConnectorList {
    pub connectors: Vec<ConnectorInfo>,
}

/// `POST /connectors/approve` (device): approve the connector showing `userCode`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApproveConnectorRequest {
    /// As shown by the connector (`XXXX-XXXX`); case, spaces and dashes are ignored.
    pub user_code: String,
    /// Name to list the connector under (1–100 characters).
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /connectors/deny` (device).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DenyConnectorRequest {
    pub user_code: String,
}

/// `grant_type` of the device authorization grant.
pub const DEVICE_CODE_GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// Lifetime of a device code and its user code, in seconds.
pub const DEVICE_CODE_EXPIRES_IN_SECS: u64 = 600;
/// Minimum seconds between token polls; `slow_down` adds [`SLOW_DOWN_STEP_SECS`].
pub const POLL_INTERVAL_SECS: u64 = 5;
/// What `slow_down` adds to the interval (RFC 8628 §3.5).
pub const SLOW_DOWN_STEP_SECS: u64 = 5;
/// The user-code alphabet: 20 consonants with no look-alikes (RFC 8628 §6.1), 8 characters
/// (≈ 34.6 bits), shown as `XXXX-XXXX`.
pub const USER_CODE_ALPHABET: &[u8; 20] = b"BCDFGHJKLMNPQRSTVWXZ";
/// Characters in a user code.
pub const USER_CODE_LEN: usize = 8;
/// The one scope a connector gets.
pub const CONNECTOR_SCOPE: &str = "notify";

/// Normalizes a typed user code: case-insensitive, spaces and dashes ignored. `None` when it
/// is not 8 characters of [`USER_CODE_ALPHABET`].
pub fn normalize_user_code(typed: &str) -> Option<String> {
    let code: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == USER_CODE_LEN && code.bytes().all(|b| USER_CODE_ALPHABET.contains(&b)))
        .then_some(code)
}

/// `XXXXXXXX` → `XXXX-XXXX` (display form).
pub fn format_user_code(code: &str) -> String {
    if code.len() == USER_CODE_LEN && code.is_ascii() {
        format!("{}-{}", &code[..4], &code[4..])
    } else {
        code.to_owned()
    }
}

/// `GET /.well-known/oauth-protected-resource` (RFC 9728).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProtectedResourceMetadata {
    /// `<origin>/mcp`.
    pub resource: String,
    /// `[<origin>]`.
    pub authorization_servers: Vec<String>,
    /// `["header"]`.
    pub bearer_methods_supported: Vec<String>,
    pub scopes_supported: Vec<String>,
    pub resource_name: String,
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuthorizationServerMetadata {
    /// The relay's origin.
    pub issuer: String,
    pub device_authorization_endpoint: String,
    pub token_endpoint: String,
    /// `[DEVICE_CODE_GRANT_TYPE]`.
    pub grant_types_supported: Vec<String>,
    /// `["none"]`: connectors are public clients.
    pub token_endpoint_auth_methods_supported: Vec<String>,
    /// Empty: no authorization endpoint (device flow only).
    pub response_types_supported: Vec<String>,
    pub scopes_supported: Vec<String>,
}

/// Answer to `POST /oauth/device_authorization` (RFC 8628 §3.2).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceAuthorizationResponse {
    /// Secret: only the connector polls with it.
    pub device_code: String,
    /// `XXXX-XXXX`, typed by the person on a device.
    pub user_code: String,
    pub verification_uri: String,
    pub expires_in: u64,
    pub interval: u64,
}

impl fmt::Debug for DeviceAuthorizationResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceAuthorizationResponse")
            .field("device_code", &"[redacted]")
            .field("user_code", &self.user_code)
            .field("verification_uri", &self.verification_uri)
            .field("expires_in", &self.expires_in)
            .field("interval", &self.interval)
            .finish()
    }
}

/// Successful `POST /oauth/token` (RFC 6749 §5.1): no `expires_in`, no refresh token — the
/// token works until revoked. Handed out once.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TokenResponse {
    /// `hra_` + base64url(32 random bytes).
    pub access_token: String,
    /// `Bearer`.
    pub token_type: String,
    pub scope: String,
}

impl fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenResponse")
            .field("access_token", &"[redacted]")
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_codes_normalize_and_format() {
        assert_eq!(
            normalize_user_code("bcdf-ghjk").as_deref(),
            Some("BCDFGHJK"),
            "case and dashes are ignored"
        );
        assert_eq!(
            normalize_user_code(" BCDF GHJK ").as_deref(),
            Some("BCDFGHJK"),
            "spaces are ignored"
        );
        for bad in ["BCDF-GHJ", "BCDF-GHJKL", "ABCD-EFGH", "BCDF-GHJ1", ""] {
            assert!(normalize_user_code(bad).is_none(), "{bad:?} is refused");
        }
        assert_eq!(format_user_code("BCDFGHJK"), "BCDF-GHJK", "display form");
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let token = TokenResponse {
            access_token: "hra_secret".into(),
            token_type: "Bearer".into(),
            scope: CONNECTOR_SCOPE.into(),
        };
        assert!(
            !format!("{token:?}").contains("hra_secret"),
            "the access token is redacted"
        );
        let key = AgentKeyCreated {
            id: AgentKeyId::from_random(&[1; 16]),
            name: "n".into(),
            key: "hrk_secret".into(),
            created_at: "t".into(),
        };
        assert!(
            !format!("{key:?}").contains("hrk_secret"),
            "the key is redacted"
        );
    }

    #[test]
    fn credential_names() {
        assert_eq!(check_credential_name("  ci bot "), Some("ci bot"));
        assert_eq!(check_credential_name("   "), None, "blank");
        assert_eq!(check_credential_name("a\u{7}"), None, "control character");
        assert_eq!(check_credential_name(&"x".repeat(101)), None, "too long");
    }
}
