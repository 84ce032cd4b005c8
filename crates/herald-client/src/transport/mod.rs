//! Transport: everything that talks to the relay and nothing else. HTTP with its typed errors
//! and retries (`http`, with the agent and device routes in `http_agents` / `http_devices`),
//! the live-update websocket (`ws`), the reconnect backoff, and the relay's clock as seen from
//! here (`relay_clock`). It knows the protocol's wire types and the crate's error type; it
//! calls no other layer of the core.

pub(crate) mod backoff;
pub mod http;
pub(crate) mod http_agents;
pub(crate) mod http_devices;
pub(crate) mod relay_clock;
pub mod ws;
