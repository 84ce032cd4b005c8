//! herald-client
