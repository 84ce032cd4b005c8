//! herald-protocol
