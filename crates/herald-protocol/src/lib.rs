//! herald-protocol: the wire types and limits every Herald component shares.
//!
//! A leaf crate: serde only, no I/O, no randomness, no crypto. The relay depends on it alone,
//! so everything it may see (metadata, opaque envelopes, certificates) is described here, and
//! everything only devices and connections see (message content, answers) too, with the
//! validation the published limits require. The normative description is docs/protocol.md.

pub mod agents;
pub mod base_url;
pub mod content;
pub mod devices;
pub mod envelope;
pub mod error;
pub mod files;
pub mod ids;
pub mod json;
pub mod notify;
#[cfg(feature = "openapi")]
pub mod openapi;
#[cfg(feature = "openapi")]
mod openapi_scalars;
pub mod scopes;
pub mod secrets;
pub mod text;
pub mod wire;

pub use error::{ErrorBody, ErrorCode};
pub use ids::{
    AccountId, AgentKeyId, ConnectionId, ConnectorId, DeviceId, FileId, MessageId, NotificationId,
    PairingId, Revision,
};
