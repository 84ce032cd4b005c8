//! The `Date` header of every response comes from the relay's clock ([`AppState::now`]), not
//! from the HTTP server's: clients measure their offset from the relay with it and judge
//! deadlines and expiry by the relay's time (docs/faults.md, "Relay time only"). With the
//! wall clock the two are the same; with a test's manual clock the header follows it.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::Response;

use crate::state::AppState;

/// IMF-fixdate (RFC 9110 §5.6.7) of the relay's now, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
fn imf_fixdate(state: &AppState) -> Option<HeaderValue> {
    let text = state.now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    HeaderValue::from_str(&text).ok()
}

/// Response map (`axum::middleware::map_response_with_state`): sets `Date` from the relay's
/// clock (hyper keeps a `Date` a handler set).
pub(crate) async fn relay_date(State(state): State<AppState>, mut resp: Response) -> Response {
    if let Some(value) = imf_fixdate(&state) {
        resp.headers_mut().insert(header::DATE, value);
    }
    resp
}
