//! The relay's configured public URL (`--public-url`, `HERALD_RELAY_PUBLIC_URL`,
//! [`crate::RelayConfig::public_url`]): checked once at start, so a typo stops the relay
//! instead of silently falling back to the request's `Host` header. The rule is
//! [`herald_protocol::base_url`] (the CLI's `--relay` follows the same one).

/// Why a public URL is refused; the message names the value and what is expected.
pub type PublicUrlError = herald_protocol::base_url::BaseUrlError;

/// Parses and checks a public URL ([`herald_protocol::base_url::parse_base_url`]).
pub fn parse_public_url(value: &str) -> Result<url::Url, PublicUrlError> {
    herald_protocol::base_url::parse_base_url("public URL", value)
}
