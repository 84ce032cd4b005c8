//! herald-crypto
