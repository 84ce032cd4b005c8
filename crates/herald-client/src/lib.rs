//! herald-client: the device core without Tauri — relay HTTP/websocket client, sync engine,
//! SQLite cache (one writer), key storage, answer sealing, and the API the desktop UI and
//! `herald inbox` call — plus the agent side (`agent`), the Rust SDK the `herald` CLI uses to
//! send requests and wait for answers. See docs/ARCHITECTURE.md.

pub mod agent;
pub mod answers;
pub mod cache;
pub mod demo;
pub mod device_view;
pub mod files;
pub mod gate;
pub mod notification_settings;
pub mod notification_view;
pub mod notify_plan;

pub mod view;

mod context;
mod core;
mod devices;
mod error;
pub mod error_code;
pub mod sealed_size;
mod secrets;
mod session;
mod sync;
mod timestamps;
mod transport;

pub use crate::context::CoreConfig;
pub use crate::core::Core;
pub use crate::error::{Error, Result};
pub use crate::secrets::SecretReveal;
pub use crate::session::local_key::KEY_FILE;
pub use crate::transport::backoff::ReconnectBackoff;
pub use crate::transport::{http, ws};
