//! Bearer credentials. Device sessions (`hds_…`) and connection bearers (`hdr_…`) are 32
//! random bytes, base64url, returned once and stored only as SHA-256 hashes. A request's token
//! is hashed, looked up by hash, and the stored hash compared in constant time.
//!
//! [`Auth`] is the extractor: no, unknown or revoked credential → 401 `unauthorized` with
//! `WWW-Authenticate: Bearer`; a connection without the route's scope → 403 `forbidden`
//! naming it (scope_check.rs). Routes that a valid principal may not call answer 403 through
//! [`DeviceAuth`].

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use herald_protocol::wire::{CONNECTION_BEARER_PREFIX, DEVICE_BEARER_PREFIX};
use herald_protocol::{AccountId, DeviceId, ErrorCode};
use ring::rand::{SecureRandom, SystemRandom};
use subtle::ConstantTimeEq;

use crate::error::ApiError;
use crate::scope_check::{missing_scope_message, required_scope};
use crate::state::AppState;
use crate::store::{Principal, TokenHash};

/// A device's last_seen is written at most this often (each write is an fsync).
const LAST_SEEN_GRANULARITY: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// Makes a new credential: `prefix` + base64url(32 random bytes).
pub fn new_token(prefix: &str) -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| ApiError::internal("system randomness failed"))?;
    Ok(format!(
        "{prefix}{}",
        data_encoding::BASE64URL_NOPAD.encode(&bytes)
    ))
}

/// SHA-256 of a credential, the only form stored.
pub fn token_hash(token: &str) -> TokenHash {
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Auth(pub Principal);

impl Auth {
    pub fn account(&self) -> &AccountId {
        self.0.account()
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim();
    (token.starts_with(DEVICE_BEARER_PREFIX) || token.starts_with(CONNECTION_BEARER_PREFIX))
        .then_some(token)
}

/// The hash of the request's device or connection bearer, if it carries one: what a
/// long-lived request (a websocket) looks up again to learn whether its credential was
/// revoked meanwhile.
pub(crate) fn bearer_hash(headers: &HeaderMap) -> Option<TokenHash> {
    bearer(headers).map(token_hash)
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let token = bearer(&parts.headers).ok_or_else(ApiError::unauthorized)?;
        let hash = token_hash(token);
        let row = state
            .store(move |s| s.credential(&hash))
            .await?
            .ok_or_else(ApiError::unauthorized)?;
        let matches: bool = row.token_hash.ct_eq(&hash).into();
        if !matches || row.revoked {
            return Err(ApiError::unauthorized());
        }
        // The prefix must match the kind of credential it was issued as.
        let kind_ok = match row.principal {
            Principal::Device { .. } => token.starts_with(DEVICE_BEARER_PREFIX),
            Principal::Connection { .. } => token.starts_with(CONNECTION_BEARER_PREFIX),
        };
        if !kind_ok {
            return Err(ApiError::unauthorized());
        }
        // A connection holds only the scopes it was created with (scope_check.rs); routes whose
        // need depends on the body read them again through `HeldScopes`.
        let held = match row.principal {
            Principal::Device { .. } => HeldScopes::All,
            Principal::Connection { .. } => HeldScopes::Only(row.scopes.clone()),
        };
        let route = parts.extensions.get::<MatchedPath>().map(|p| p.as_str());
        if let Some(scope) = route.and_then(|r| required_scope(&parts.method, r)) {
            if !held.allows(scope) {
                return Err(ApiError::with_message(
                    ErrorCode::Forbidden,
                    missing_scope_message(scope),
                ));
            }
        }
        parts.extensions.insert(held);
        if let (Principal::Device { device_id, .. }, Some(last_seen)) =
            (&row.principal, row.last_seen)
        {
            let now = state.now();
            if now - last_seen >= LAST_SEEN_GRANULARITY {
                // Off the request path: a failed touch only costs accuracy of last_seen.
                let (state, device_id) = (state.clone(), device_id.clone());
                tokio::spawn(async move {
                    if let Err(e) = state
                        .store_call(move |s| s.touch_device(&device_id, now))
                        .await
                    {
                        tracing::warn!(error = %e, "recording last_seen failed");
                    }
                });
            }
        }
        Ok(Auth(row.principal))
    }
}

/// The scopes of the request's credential, for a route whose need depends on the body (a
/// request that expects an answer needs `messages:read` too). Extract it after [`Auth`], which
/// records it; without a preceding [`Auth`] it fails closed (500), never allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeldScopes {
    /// A device: every scope.
    All,
    /// A connection: these.
    Only(Vec<herald_protocol::scopes::Scope>),
}

impl HeldScopes {
    /// Whether the credential holds `scope`.
    pub fn allows(&self, scope: herald_protocol::scopes::Scope) -> bool {
        match self {
            HeldScopes::All => true,
            HeldScopes::Only(scopes) => scopes.contains(&scope),
        }
    }
}

impl FromRequestParts<AppState> for HeldScopes {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<HeldScopes>()
            .cloned()
            .ok_or_else(|| ApiError::internal("the scopes were read before the credential"))
    }
}

/// A device caller: like [`Auth`], and 403 `forbidden` for a connection, checked before the
/// body is read.
#[derive(Debug, Clone)]
pub struct DeviceAuth {
    pub account: AccountId,
    pub device_id: DeviceId,
}

impl FromRequestParts<AppState> for DeviceAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match Auth::from_request_parts(parts, state).await?.0 {
            Principal::Device { account, device_id } => Ok(DeviceAuth { account, device_id }),
            Principal::Connection { .. } => Err(ApiError::forbidden()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_prefixed_random_and_hash_stably() {
        let a = new_token(DEVICE_BEARER_PREFIX).expect("token");
        let b = new_token(DEVICE_BEARER_PREFIX).expect("token");
        assert!(a.starts_with("hds_"), "device tokens carry their prefix");
        assert_eq!(a.len(), 4 + 43, "32 bytes of base64url after the prefix");
        assert_ne!(a, b, "tokens are random");
        assert_eq!(token_hash(&a), token_hash(&a), "hash is deterministic");
        assert_ne!(
            token_hash(&a),
            token_hash(&b),
            "different tokens hash apart"
        );
    }
}
