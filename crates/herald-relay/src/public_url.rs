//! The relay's configured public URL (`--public-url`, `HERALD_RELAY_PUBLIC_URL`,
//! [`crate::RelayConfig::public_url`]): checked once at start, so a typo stops the relay
//! instead of silently falling back to the request's `Host` header.
//!
//! Accepted: an absolute `http://` or `https://` URL with a host, an optional port and an
//! optional path prefix (`https://relay.example`, `https://relay.example:8443/herald/`).
//! Refused: anything without a scheme (`relay.example.com`), another scheme (`ftp://…`), no
//! host, a user name or password, a query (`?…`) or a fragment (`#…`), and surrounding
//! whitespace or an empty value.

/// Why a public URL is refused; the message names the value and what is expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid public URL {value:?}: {reason}; expected an absolute http:// or https:// URL with a host and optionally a port and a path prefix, such as https://relay.example.com or https://relay.example.com:8443/herald")]
pub struct PublicUrlError {
    /// The value as given (a password in it replaced by `***`).
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Parses and checks a public URL (see the module documentation). Returns the URL.
pub fn parse_public_url(value: &str) -> Result<url::Url, PublicUrlError> {
    let refuse = |reason| PublicUrlError {
        value: value.to_owned(),
        reason,
    };
    if value.is_empty() {
        return Err(refuse("it is empty"));
    }
    if value.trim() != value {
        return Err(refuse("it has leading or trailing whitespace"));
    }
    let url = match url::Url::parse(value) {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            return Err(refuse("it has no scheme (add https://)"))
        }
        Err(_) => return Err(refuse("it does not parse as a URL")),
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse(
            "its scheme is not http or https (a bare host:port reads as a scheme; add https://)",
        ));
    }
    if url.host().is_none() {
        return Err(refuse("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Name the value without its password.
        let mut shown = url.clone();
        if shown.password().is_some() {
            let _ = shown.set_password(Some("***"));
        }
        return Err(PublicUrlError {
            value: shown.to_string(),
            reason: "it carries a user name or password",
        });
    }
    if url.query().is_some() {
        return Err(refuse("it has a query (?…), which the relay cannot use"));
    }
    if url.fragment().is_some() {
        return Err(refuse("it has a fragment (#…), which the relay cannot use"));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_urls_are_accepted() {
        for good in [
            "https://relay.example.com",
            "http://127.0.0.1:8457",
            "https://Relay.Example:443/herald/",
            "https://[::1]:9/a/b",
        ] {
            assert!(parse_public_url(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn typos_are_refused_naming_the_value() {
        for bad in [
            "",
            " https://relay.example",
            "relay.example.com",
            "relay.example.com:8457",
            "ftp://relay.example.com",
            "https://",
            "https://relay.example/?x=1",
            "https://relay.example/#top",
            "mailto:a@b",
        ] {
            let err = parse_public_url(bad).expect_err(bad);
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
            assert!(err.to_string().contains("https://"), "{err}");
        }
        let err = parse_public_url("https://user:pw@relay.example").expect_err("credentials");
        assert!(err.to_string().contains("user:***@relay.example"), "{err}");
        assert!(!err.to_string().contains("pw"), "{err}");
    }
}
