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
pub mod http;
pub mod notification_settings;
pub mod notification_view;
pub mod notify_plan;
pub mod view;
pub mod ws;

mod backoff;
mod context;
mod core;
mod device_state;
mod devices;
mod error;
mod http_agents;
mod http_devices;
mod local_key;
mod notifications;
mod outbox;
mod pending_pairings;
mod present;
mod private_files;
mod relay_clock;
mod render_cache;
pub mod sealed_size;
mod secrets;
mod session;
mod sync;
mod sync_page;
mod timestamps;

pub use crate::backoff::ReconnectBackoff;
pub use crate::context::CoreConfig;
pub use crate::core::Core;
pub use crate::error::{Error, Result};
pub use crate::local_key::KEY_FILE;
pub use crate::secrets::SecretReveal;
