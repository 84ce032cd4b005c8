//! Timestamps as the protocol writes them. A leaf: it calls nothing else in the crate.

/// Now, as RFC 3339 UTC with milliseconds (`2026-12-06T03:04:05.678Z`), the form every
/// timestamp this device writes takes (docs/protocol.md).
pub(crate) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
