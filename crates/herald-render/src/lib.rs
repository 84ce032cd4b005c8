//! herald-render
