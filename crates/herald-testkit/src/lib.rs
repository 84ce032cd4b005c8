//! herald-testkit
