//! herald-client: the device core without Tauri — relay HTTP/websocket client, sync engine,
//! SQLite cache (one writer), key storage, answer sealing, and the API the desktop UI and
//! `herald inbox` call. See docs/ARCHITECTURE.md.

pub mod view;

mod core;
mod error;

pub use crate::core::{Core, CoreConfig};
pub use crate::error::{Error, Result};
