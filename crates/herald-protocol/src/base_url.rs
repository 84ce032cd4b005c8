//! The one rule for a relay's base URL, shared by the relay's `--public-url` and the CLI's
//! `--relay` / `HERALD_URL` (and the desktop app's `relay-url` file).
//!
//! Accepted: an absolute `http://` or `https://` URL with a host, an optional port and an
//! optional path prefix (`https://relay.example`, `http://127.0.0.1:8457`,
//! `https://relay.example:8443/herald/`). Refused: anything without a scheme
//! (`relay.example.com`, `127.0.0.1:8457`), another scheme (`ftp://…`), no host, a user name
//! or password, a query (`?…`) or a fragment (`#…`), surrounding whitespace or an empty value.

/// Why a base URL is refused; the message names what it is, the value and what is expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} {value:?}: {reason}; expected an absolute http:// or https:// URL with a host and optionally a port and a path prefix, without spaces, such as https://relay.example.com or http://127.0.0.1:8457")]
pub struct BaseUrlError {
    /// What the URL is ("public URL", "relay URL").
    pub what: &'static str,
    /// The value as given (a password in it replaced by `***`).
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Parses and checks a base URL (see the module documentation); `what` names it in the
/// error ("public URL", "relay URL"). Returns the URL.
pub fn parse_base_url(what: &'static str, value: &str) -> Result<url::Url, BaseUrlError> {
    let refuse = |reason| BaseUrlError {
        what,
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
        return Err(BaseUrlError {
            what,
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
            assert!(parse_base_url("public URL", good).is_ok(), "{good}");
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
            "http://127.0.0.1:18457 ",
            "127.0.0.1:18457",
            "http://127.0.0.1:99999",
        ] {
            let err = parse_base_url("relay URL", bad).expect_err(bad);
            assert!(err.to_string().starts_with("invalid relay URL"), "{err}");
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
            assert!(err.to_string().contains("https://"), "{err}");
        }
        let err =
            parse_base_url("public URL", "https://user:pw@relay.example").expect_err("credentials");
        assert!(err.to_string().contains("user:***@relay.example"), "{err}");
        assert!(!err.to_string().contains("pw"), "{err}");
    }
}
