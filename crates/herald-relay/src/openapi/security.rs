//! The credential kinds, as HTTP bearer security schemes (docs/protocol.md, "Parties and
//! credentials"). All travel as `Authorization: Bearer <prefix><43 base64url characters>`;
//! the prefix tells the kinds apart.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::Modify;

/// `hds_…`: a device session.
pub const DEVICE_SESSION: &str = "deviceSession";
/// `hdr_…`: a connection's bearer (the first part of its token).
pub const CONNECTION: &str = "connection";
/// `hdp_…`: a new device's poll token for its own pairing request.
pub const PAIRING_POLL: &str = "pairingPoll";
/// `hrk_…`: an agent key.
pub const AGENT_KEY: &str = "agentKey";
/// `hra_…`: a connector's access token (OAuth device flow).
pub const CONNECTOR: &str = "connector";

/// Every scheme: name, bearer prefix, description.
pub const SECURITY_SCHEMES: &[(&str, &str, &str)] = &[
    (
        DEVICE_SESSION,
        "hds_",
        "A device session (desktop app or headless `herald`), issued by `POST /accounts`, \
         `POST /keys/devices` or a completed pairing. May do everything for its account.",
    ),
    (
        CONNECTION,
        "hdr_",
        "A connection (an agent holding a connection token): only the `hdr_…` bearer part of \
         the token is sent. Sends messages and reads its own.",
    ),
    (
        PAIRING_POLL,
        "hdp_",
        "A new device's poll token for its own pairing request, from `POST /keys/pairings`.",
    ),
    (
        AGENT_KEY,
        "hrk_",
        "An agent key made by a device (`POST /agent-keys`). Only `/v1/*` and `/mcp`.",
    ),
    (
        CONNECTOR,
        "hra_",
        "A connector's access token from the OAuth device flow (`POST /oauth/token`). Only \
         `/v1/*` and `/mcp`.",
    ),
];

/// Registers [`SECURITY_SCHEMES`] in `components/securitySchemes`.
pub struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, prefix, description) in SECURITY_SCHEMES {
            components.add_security_scheme(
                *name,
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .bearer_format(format!("{prefix}<43 base64url characters>"))
                        .description(Some(*description))
                        .build(),
                ),
            );
        }
    }
}
