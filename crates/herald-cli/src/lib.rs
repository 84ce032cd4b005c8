//! herald-cli
