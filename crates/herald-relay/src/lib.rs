//! herald-relay
